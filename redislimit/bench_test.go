package redislimit

import (
	"context"
	"testing"

	"github.com/seoapi/seoapi-go"
)

// BenchmarkFleetRate runs a fleet of 4 processes with 8 goroutines each
// against the fake API enforcing the published limits, and reports the
// sustained aggregate rate as a fraction of 50/s and the 429s the fake
// answered. One iteration is 256 calls, about five seconds.
//
//	go test -run '^$' -bench FleetRate -benchtime 3x ./redislimit
func BenchmarkFleetRate(b *testing.B) {
	srv := startRedis(b)
	api := startFleetAPI(b, nil)
	cfg := childConfig{
		Redis: srv.addr, BaseURL: api.baseURL, Key: api.key, Name: "bench-fleet",
		PerHour: seoapi.DefaultRequestsPerHour, PerSecond: seoapi.DefaultRequestsPerSecond,
		Workers: 8, Calls: 8,
	}
	var rates float64
	for range b.N {
		before := len(api.arrivals())
		runFleet(b, 4, cfg)
		rates += sustainedRate(api.arrivals()[before:], seoapi.DefaultRequestsPerSecond)
	}
	b.ReportMetric(rates/float64(b.N)/seoapi.DefaultRequestsPerSecond, "of-50/s")
	b.ReportMetric(float64(api.fake.Throttled()), "429s")
}

// BenchmarkAcquire measures the limiter's own cost per Acquire on
// loopback Redis, with limits high enough that it never sleeps: one script
// round trip (done, one more in the background, is left out).
//
//	go test -run '^$' -bench 'Acquire' ./redislimit
func BenchmarkAcquire(b *testing.B) {
	srv := startRedis(b)
	lim, err := New(srv.Client(), "bench-cost", WithLimits(1<<30, 1<<30))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lim.Acquire(ctx, -1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAcquireParallel is BenchmarkAcquire from many goroutines at once.
func BenchmarkAcquireParallel(b *testing.B) {
	srv := startRedis(b)
	lim, err := New(srv.Client(), "bench-cost", WithLimits(1<<30, 1<<30))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := lim.Acquire(ctx, -1); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
