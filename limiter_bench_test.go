package seoapi

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// BenchmarkIdleBurst reports how long a burst of 45 calls from an idle
// client waits in the built-in limiter at the published limits (goal: 0;
// the burst-1 token bucket before it made the burst wait about 0.9 s).
//
//	go test -run '^$' -bench IdleBurst -benchtime 20x
func BenchmarkIdleBurst(b *testing.B) {
	var waited time.Duration
	for range b.N {
		lim := newAttemptLimiter(defaultRateLimitConfig(), time.Now)
		for range 45 {
			var rec waitRecords
			if err := turn(lim, context.Background(), DefaultMaxWait, &rec); err != nil {
				b.Fatal(err)
			}
			for _, w := range rec {
				waited += w.d
			}
		}
	}
	b.ReportMetric(float64(waited.Milliseconds())/float64(b.N), "limiter-wait-ms/burst")
}

// BenchmarkWaitTurnNoWait measures what an attempt pays for the limiter
// when nothing holds it back, for each kind of limiter a client can have,
// with and without a record of the waits (the transport passes none when
// no observer listens). The goal is zero allocations.
//
//	go test -run '^$' -bench WaitTurnNoWait -benchmem
func BenchmarkWaitTurnNoWait(b *testing.B) {
	kinds := []struct {
		name string
		cfg  rateLimitConfig
	}{
		{"built-in", defaultRateLimitConfig()},
		{"off", rateLimitConfig{off: true}},
		{"a Limiter of one's own", rateLimitConfig{limiter: &countingLimiter{}}},
	}
	for _, k := range kinds {
		for _, recorded := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/recorded=%t", k.name, recorded), func(b *testing.B) {
				// For the built-in limiter, a clock a second further on at
				// every reading: the published limits never hold a
				// request back.
				t := time.Now()
				now := func() time.Time { t = t.Add(time.Second); return t }
				if k.cfg.limiter != nil {
					now = time.Now
				}
				lim := newAttemptLimiter(k.cfg, now)
				rec := &waitRecords{}
				if !recorded {
					rec = nil
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := turn(lim, context.Background(), DefaultMaxWait, rec); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkReserveTurn measures one turn of the built-in limiter at the
// published limits when nothing holds it back, without a reserve and with
// one (WithReserve): the reserve's own cost is one more look at each
// window. Without a reserve the turn is the one
// BenchmarkWaitTurnNoWait/built-in measures.
//
//	go test -run '^$' -bench ReserveTurn -benchmem
func BenchmarkReserveTurn(b *testing.B) {
	for _, keep := range []windowReserve{{}, {perHour: 3000}, {perSecond: 10}, {perHour: 3000, perSecond: 40}} {
		b.Run(fmt.Sprintf("reserve=%d,%d", keep.perHour, keep.perSecond), func(b *testing.B) {
			t := time.Now()
			now := func() time.Time { t = t.Add(time.Second); return t }
			var lim attemptLimiter = builtinLimiter{windowLimiter: newWindowLimiter(DefaultRequestsPerHour, DefaultRequestsPerSecond, DefaultMaxWait, now), reserve: keep}
			b.ReportAllocs()
			for b.Loop() {
				if err := turn(lim, context.Background(), DefaultMaxWait, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRateFeedback measures reading the rate-limit headers of a
// response and telling the limiter (goal: zero allocations).
func BenchmarkRateFeedback(b *testing.B) {
	h := http.Header{"X-Ratelimit-Limit": {"10000"}, "X-Ratelimit-Remaining": {"9876"}, "X-Ratelimit-Reset": {"3012"}}
	lim := newAttemptLimiter(defaultRateLimitConfig(), time.Now)
	b.ReportAllocs()
	for b.Loop() {
		d, ok := rateFeedback(http.StatusOK, h, time.Now())
		if !ok || d != 0 {
			b.Fatal("no end of a hold")
		}
		lim.feedback(context.Background(), time.Time{}, d)
	}
}
