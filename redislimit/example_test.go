package redislimit_test

import (
	"context"
	"log"
	"os"

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
