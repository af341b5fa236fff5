package seoapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

// pacer is a Limiter of one's own, given to a Client with WithLimiter: it
// lets one request go every gap. It is safe for concurrent use, as a
// Limiter must be.
type pacer struct {
	gap      time.Duration
	mu       sync.Mutex
	next     time.Time // when the next request may go
	answered int
}

func (p *pacer) Acquire(ctx context.Context, maxWait time.Duration) (func(answered bool), error) {
	if maxWait < 0 {
		maxWait = seoapi.DefaultMaxWait // the client set none, and the pacer has no bound of its own
	}
	p.mu.Lock()
	now := time.Now()
	d := max(p.next.Sub(now), 0)
	if deadline, ok := ctx.Deadline(); d > maxWait || ok && now.Add(d).After(deadline) {
		p.mu.Unlock()
		// Refused at once: the call fails with an error matching
		// seoapi.ErrRateLimited, nothing sent.
		return nil, seoapi.RefuseWait(d, fmt.Sprintf("pacer: wait of %s is too long", d))
	}
	p.next = now.Add(d + p.gap)
	p.mu.Unlock()

	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return func(answered bool) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if answered {
			p.answered++
		}
	}, nil
}

// Hold does nothing: the client keeps the server's hold for its own
// requests, and the pacer is shared by no other process.
func (p *pacer) Hold(context.Context, time.Duration) {}

func (p *pacer) Budget(context.Context) (seoapi.Budget, error) {
	return seoapi.Budget{PerHour: int(time.Hour / p.gap), PerSecond: 1}, nil
}

func ExampleLimiter() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	lim := &pacer{gap: 2 * time.Minute}
	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithLimiter(lim)) // max wait: 60s by default
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	_, _, err = client.Workspaces.List(ctx, nil)
	fmt.Println("first:", err)

	// The next request would wait about 2 minutes: refused, not sent.
	_, _, err = client.Workspaces.List(ctx, nil)
	var apiErr *seoapi.APIError
	if errors.As(err, &apiErr) {
		fmt.Println("second:", apiErr.StatusCode, errors.Is(err, seoapi.ErrRateLimited), apiErr.RetryAfter > time.Minute)
	}

	// A client that accepts long waits is still held to its context's deadline.
	patient, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithLimiter(lim), seoapi.WithMaxWait(time.Hour))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, _, err = patient.Workspaces.List(ctx, nil)
	fmt.Println("third:", errors.Is(err, seoapi.ErrRateLimited), "sent:", len(fake.Requests()), "answered:", lim.answered)
	// Output:
	// first: <nil>
	// second: 0 true true
	// third: true sent: 1 answered: 1
}

func ExampleClient_Budget() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	// A limiter shared by the clients of one key: 100 requests an hour,
	// 50 a second.
	shared, err := seoapi.NewLimiter(100, 50, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithLimiter(shared))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for range 30 {
		if _, _, err := client.Workspaces.List(ctx, nil); err != nil {
			fmt.Println(err)
			return
		}
	}

	// Asking for the budget sends no request.
	b, err := client.Budget(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d of %d used this hour, %d left; held by the server: %t\n",
		b.UsedHour, b.PerHour, b.PerHour-b.UsedHour, !b.HoldUntil.IsZero())

	// Without a client-side limiter there is no budget to tell.
	unlimited, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithoutRateLimit())
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = unlimited.Budget(ctx)
	fmt.Println(errors.Is(err, seoapi.ErrInvalidArgument), "sent:", len(fake.Requests()))
	// Output:
	// 30 of 100 used this hour, 70 left; held by the server: false
	// true sent: 30
}
