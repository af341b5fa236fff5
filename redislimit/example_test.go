package redislimit_test

import (
	"context"
	"log"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/redislimit"
)

// Every replica of a service builds its client the same way: one Redis,
// one budget name per API key.
func ExampleNew() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()

	// While Redis cannot be reached, this process keeps to a quarter of
	// the budget (four replicas) instead of failing its calls.
	share, err := seoapi.NewLimiter(seoapi.DefaultRequestsPerHour/4, seoapi.DefaultRequestsPerSecond/4, 0)
	if err != nil {
		log.Fatal(err)
	}
	lim, err := redislimit.New(rdb, "crawler-prod", redislimit.WithFallback(share))
	if err != nil {
		log.Fatal(err)
	}
	client, err := seoapi.NewClient(os.Getenv(seoapi.EnvBaseURL), os.Getenv(seoapi.EnvAPIKey), seoapi.WithLimiter(lim))
	if err != nil {
		log.Fatal(err)
	}
	workspaces, _, err := client.Workspaces.List(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("%d workspaces", len(workspaces))
}

// A nightly sync shares its key with a service: the sync's limiter keeps
// 2 000 requests of every rolling hour and 10 of every rolling second free
// for the service, whose limiter (same Redis, same name) has no reserve.
func ExampleWithReserve() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer rdb.Close()

	lim, err := redislimit.New(rdb, "crawler-prod", redislimit.WithReserve(2000, 10))
	if err != nil {
		log.Fatal(err)
	}
	// Past the reserve, a call waits up to the client's max wait, then
	// fails with seoapi.ErrRateLimited without being sent.
	client, err := seoapi.NewClient(os.Getenv(seoapi.EnvBaseURL), os.Getenv(seoapi.EnvAPIKey),
		seoapi.WithLimiter(lim), seoapi.WithMaxWait(10*time.Minute))
	if err != nil {
		log.Fatal(err)
	}
	for ws, err := range client.Workspaces.All(context.Background(), nil) {
		if err != nil {
			log.Fatal(err)
		}
		log.Print(ws.ID)
	}
}
