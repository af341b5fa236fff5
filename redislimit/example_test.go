package redislimit_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/redislimit"
	"github.com/seoapi/seoapi-go/seoapitest"
)

// The examples print what does not depend on a Redis server: New does not
// contact Redis, and some show what happens while Redis cannot be
// reached. What the Limiter does with a running Redis is shown by the
// package's tests, which start their own redis-server.

// Every replica of a service builds its client the same way: one Redis,
// one budget name per API key. The name is stored in Redis in clear, so a
// name that looks like a key is refused.
func ExampleNew() {
	fake := seoapitest.New() // the API, for this example
	srv := httptest.NewServer(fake)
	defer srv.Close()

	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer rdb.Close()

	lim, err := redislimit.New(rdb, "crawler-prod") // does not contact Redis
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithLimiter(lim))
	fmt.Println("client:", err)

	_, err = redislimit.New(rdb, "sk_live_4eC39HqLyjWDarjtT1zdp7dc")
	fmt.Println(errors.Is(err, seoapi.ErrInvalidArgument))
	fmt.Println(err)
	// Output:
	// client: <nil>
	// true
	// seoapi: invalid argument: redislimit.New: name looks like an API key (24 or more letters and digits in a row); name the budget instead, for example "crawler-prod"
}

// A key shared with another tool that uses half of it: the fleet keeps to
// the other half. Every process sharing the name sets the same limits.
func ExampleWithLimits() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer rdb.Close()

	_, err := redislimit.New(rdb, "crawler-prod", redislimit.WithLimits(5000, 25))
	fmt.Println("half the published limits:", err)

	_, err = redislimit.New(rdb, "crawler-prod", redislimit.WithLimits(5000, 0))
	fmt.Println(err)
	// Output:
	// half the published limits: <nil>
	// seoapi: invalid argument: redislimit: WithLimits(5000, 0): limits must be positive
}

// A nightly sync shares its key with a service: the sync's limiter keeps
// 2 000 requests of every rolling hour and 10 of every rolling second
// free for the service, whose limiter (same Redis, same name) has no
// reserve. A reserve must be smaller than the limits.
func ExampleWithReserve() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer rdb.Close()

	_, err := redislimit.New(rdb, "crawler-prod", redislimit.WithReserve(2000, 10)) // in the sync
	fmt.Println("sync:", err)
	_, err = redislimit.New(rdb, "crawler-prod") // in the service
	fmt.Println("service:", err)

	_, err = redislimit.New(rdb, "crawler-prod", redislimit.WithLimits(3000, 20), redislimit.WithReserve(3000, 0))
	fmt.Println(err)
	// Output:
	// sync: <nil>
	// service: <nil>
	// seoapi: invalid argument: redislimit: WithReserve(3000, 0): a reserve must be smaller than the limits (3000 an hour, 20 a second)
}

// A job that would rather fail than wait long for its turn: for its
// clients that set no seoapi.WithMaxWait, a wait longer than 10 s fails at
// once with seoapi.ErrRateLimited, nothing sent, and reserves no slot. A
// client's own WithMaxWait, longer or shorter, applies instead; 0 leaves
// seoapi.DefaultMaxWait.
func ExampleWithMaxWait() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer rdb.Close()

	_, err := redislimit.New(rdb, "crawler-prod", redislimit.WithMaxWait(10*time.Second))
	fmt.Println("10 s:", err)
	_, err = redislimit.New(rdb, "crawler-prod", redislimit.WithMaxWait(0))
	fmt.Println("the default:", err)
	_, err = redislimit.New(rdb, "crawler-prod", redislimit.WithMaxWait(-time.Second))
	fmt.Println(err)
	// Output:
	// 10 s: <nil>
	// the default: <nil>
	// seoapi: invalid argument: redislimit: WithMaxWait(-1s): negative
}

// While Redis cannot be reached, calls go through the fallback: here this
// process's share of the budget, one of four replicas.
func ExampleWithFallback() {
	fake := seoapitest.New()
	fake.AddWorkspace("Marketing")
	fake.AddWorkspace("Research")
	srv := httptest.NewServer(fake)
	defer srv.Close()

	// A Redis that cannot be reached, as during an outage.
	rdb := redis.NewClient(&redis.Options{
		Addr:       "127.0.0.1:6379",
		MaxRetries: -1,
		Dialer: func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("connection refused")
		},
	})
	defer rdb.Close()
	share, err := seoapi.NewLimiter(seoapi.DefaultRequestsPerHour/4, seoapi.DefaultRequestsPerSecond/4, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	quiet := slog.New(slog.DiscardHandler) // see ExampleWithLogger
	lim, err := redislimit.New(rdb, "crawler-prod", redislimit.WithFallback(share), redislimit.WithLogger(quiet))
	if err != nil {
		fmt.Println(err)
		return
	}
	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithLimiter(lim))
	if err != nil {
		fmt.Println(err)
		return
	}
	workspaces, _, err := client.Workspaces.List(context.Background(), nil)
	fmt.Println(len(workspaces), "workspaces listed while Redis is down:", err)
	// Output:
	// 2 workspaces listed while Redis is down: <nil>
}

// The Limiter says once per outage that the fallback is in use (a Warn)
// and that Redis answers again (an Info); nothing else is logged.
func ExampleWithLogger() {
	// A Redis that cannot be reached, as during an outage.
	rdb := redis.NewClient(&redis.Options{
		Addr:       "127.0.0.1:6379",
		MaxRetries: -1,
		Dialer: func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("connection refused")
		},
	})
	defer rdb.Close()
	share, err := seoapi.NewLimiter(seoapi.DefaultRequestsPerHour/4, seoapi.DefaultRequestsPerSecond/4, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // for a stable output
			}
			return a
		},
	}))
	lim, err := redislimit.New(rdb, "crawler-prod", redislimit.WithFallback(share), redislimit.WithLogger(logger))
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 3 {
		done, err := lim.Acquire(context.Background(), -1)
		if err != nil {
			fmt.Println(err)
			continue
		}
		done(true) // the request was answered
	}
	// Output:
	// level=WARN msg="redislimit: Redis cannot be reached; using the fallback limiter until it answers" budget=crawler-prod error="connection refused"
}

// Without a fallback, a call fails at once while Redis cannot be reached,
// and nothing is sent.
func ExampleUnavailableError() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	// A Redis that cannot be reached, as during an outage.
	rdb := redis.NewClient(&redis.Options{
		Addr:       "127.0.0.1:6379",
		MaxRetries: -1,
		Dialer: func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("connection refused")
		},
	})
	defer rdb.Close()
	lim, err := redislimit.New(rdb, "crawler-prod")
	if err != nil {
		fmt.Println(err)
		return
	}
	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithLimiter(lim))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, _, err = client.Workspaces.List(context.Background(), nil)
	var unavailable *redislimit.UnavailableError
	fmt.Println(errors.As(err, &unavailable), unavailable.Name)
	fmt.Println(errors.Is(err, seoapi.ErrConnection), len(fake.Requests()), "requests sent")
	// Output:
	// true crawler-prod
	// true 0 requests sent
}
