package seoapi_test

// One Example per Option, each against the in-process fake API
// (seoapitest), whose fault injection (FailNext, DropNext, SetDelay) and
// limits (SetLimits) stand for what a real server may do.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

func ExampleWithHTTPClient() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.SetDelay(300 * time.Millisecond) // a server slower than we accept

	// The SDK sends through hc's transport; hc's Timeout bounds each
	// attempt (not the whole call: give the context a deadline for that).
	hc := &http.Client{Timeout: 50 * time.Millisecond}
	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithHTTPClient(hc), seoapi.WithMaxRetries(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, resp, err := client.Workspaces.List(context.Background(), nil)
	// An attempt that ran out of time gave no usable response.
	fmt.Println(resp == nil, errors.Is(err, seoapi.ErrConnection))
	// Output: true true
}

func ExampleWithUserAgent() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithUserAgent("inventory-sync/2.1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, _, err := client.Workspaces.List(context.Background(), nil); err != nil {
		fmt.Println(err)
		return
	}
	ua := fake.Requests()[0].Header.Get("User-Agent")
	fmt.Println(strings.Replace(ua, seoapi.Version, "<version>", 1))
	// Output: inventory-sync/2.1 seoapi-go/<version>
}

func ExampleWithLogger() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.FailNext(1, http.StatusServiceUnavailable, http.Header{"Retry-After": {"0"}})

	// Each attempt is logged at Debug, a long wait at Warn. (The time and
	// the duration are left out here only to keep the output the same on
	// every run.)
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" {
				return slog.Attr{}
			}
			return a
		},
	}))
	client, err := seoapi.NewClient(srv.URL, fake.Key(),
		seoapi.WithLogger(logger),
		seoapi.WithRetryWait(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, _, err := client.Workspaces.List(context.Background(), nil); err != nil {
		fmt.Println(err)
	}
	// Output:
	// level=DEBUG msg="seoapi: attempt" method=GET path=/api/workspaces attempt=1 status=503 request_id=req_1 wait=1ms
	// level=DEBUG msg="seoapi: attempt" method=GET path=/api/workspaces attempt=2 status=200 request_id=req_2
}

func ExampleWithMaxResponseBytes() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.AddWorkspace("Acme")
	fake.AddWorkspace("Globex")

	// A body larger than the cap fails the call instead of filling memory.
	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithMaxResponseBytes(100))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, resp, err := client.Workspaces.List(context.Background(), nil)
	fmt.Println(resp.StatusCode, errors.Is(err, seoapi.ErrUnexpectedResponse))
	// Output: 200 true
}

func ExampleWithMaxItems() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	for _, name := range []string{"Shop", "Blog", "Docs", "Help"} {
		fake.AddProject(ws, name, strings.ToLower(name)+".example")
	}

	// A list answer of more items than the limit fails the call, whatever
	// its size in bytes; by default the limit follows WithMaxResponseBytes.
	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithMaxItems(3))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	_, _, err = client.Projects.List(ctx, ws, nil)
	fmt.Println(errors.Is(err, seoapi.ErrUnexpectedResponse))

	// Smaller pages stay within it.
	projects, _, err := client.Projects.List(ctx, ws, &seoapi.ListOptions{PerPage: 3})
	fmt.Println(len(projects), err)
	// Output:
	// true
	// 3 <nil>
}

func ExampleWithInsecureHTTP() {
	// Plain http is refused for a host that is not loopback: the key
	// would cross the network unencrypted.
	_, err := seoapi.NewClient("http://seoapi.internal.example", "sk_test_key")
	fmt.Println(err)

	// WithInsecureHTTP allows it, for a network you trust.
	client, err := seoapi.NewClient("http://seoapi.internal.example", "sk_test_key", seoapi.WithInsecureHTTP())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(client.BaseURL())
	// Output:
	// seoapi: invalid argument: base URL "http://seoapi.internal.example" uses plain http to a host that is not loopback; use https, or WithInsecureHTTP
	// http://seoapi.internal.example/
}

func ExampleWithMaxRetries() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ctx := context.Background()
	retryFast := seoapi.WithRetryWait(time.Millisecond, 10*time.Millisecond)

	// No retries: the first 503 is the call's error.
	once, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithMaxRetries(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	fake.FailNext(1, http.StatusServiceUnavailable, nil)
	_, resp, err := once.Workspaces.List(ctx, nil)
	fmt.Println(resp.StatusCode, resp.Attempts, errors.Is(err, seoapi.ErrServer))

	// Up to three retries (the default): two 503s are ridden out.
	patient, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithMaxRetries(3), retryFast)
	if err != nil {
		fmt.Println(err)
		return
	}
	fake.FailNext(2, http.StatusServiceUnavailable, nil)
	_, resp, err = patient.Workspaces.List(ctx, nil)
	fmt.Println(resp.StatusCode, resp.Attempts, err)

	// A POST is not repeated after a 503: the server may have acted.
	fake.FailNext(1, http.StatusServiceUnavailable, nil)
	_, resp, err = patient.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"})
	fmt.Println(resp.StatusCode, resp.Attempts, errors.Is(err, seoapi.ErrServer))
	// Output:
	// 503 1 true
	// 200 3 <nil>
	// 503 1 true
}

func ExampleWithRetryWait() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	// A 503 without Retry-After: the SDK backs off, with jitter, between
	// the bounds. (With Retry-After, the server's wait is used, never less
	// than the lower bound.)
	fake.FailNext(1, http.StatusServiceUnavailable, nil)

	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithRetryWait(20*time.Millisecond, 200*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	start := time.Now()
	_, resp, err := client.Workspaces.List(context.Background(), nil)
	fmt.Println(resp.Attempts, err, time.Since(start) >= 20*time.Millisecond)
	// Output: 2 <nil> true
}

func ExampleWithMaxWait() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	// The server asks for half a minute.
	fake.FailNext(1, http.StatusTooManyRequests, http.Header{"Retry-After": {"30"}})

	// Accept waits of up to 5 seconds: a longer one fails the call at
	// once instead of blocking it.
	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithMaxWait(5*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	_, _, err = client.Workspaces.List(ctx, nil)
	var apiErr *seoapi.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.RetryAfter, errors.Is(err, seoapi.ErrRateLimited))
	}

	// The client keeps the server's hold: the next call is refused before
	// it is sent (StatusCode 0), and the server sees nothing.
	_, _, err = client.Workspaces.List(ctx, nil)
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, errors.Is(err, seoapi.ErrRateLimited), len(fake.Requests()))
	}
	// Output:
	// 429 30s true
	// 0 true 1
}

func ExampleWithRateLimit() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	// This client may use 2 requests an hour of the key's budget (and 10 a
	// second); the third would wait most of an hour, longer than the max
	// wait, so it fails at once without being sent.
	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithRateLimit(2, 10))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		_, _, err := client.Workspaces.List(ctx, nil)
		fmt.Println(i, err == nil, errors.Is(err, seoapi.ErrRateLimited))
	}
	fmt.Println("sent:", len(fake.Requests()))
	// Output:
	// 1 true false
	// 2 true false
	// 3 false true
	// sent: 2
}

func ExampleWithoutRateLimit() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.SetLimits(seoapitest.Limits{PerSecond: 1}) // a server stricter than published

	// No client-side limiter: requests go as fast as they are made, and the
	// server's hold is still kept. A wait it asks for that is longer than
	// the max wait fails the call.
	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithoutRateLimit(), seoapi.WithMaxWait(100*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for range 3 {
		_, _, err := client.Workspaces.List(ctx, nil)
		var apiErr *seoapi.APIError
		errors.As(err, &apiErr)
		if apiErr != nil {
			fmt.Println(apiErr.StatusCode, seoapi.ErrorType(err))
		} else {
			fmt.Println(err)
		}
	}
	fmt.Println("answered 429:", fake.Throttled(), "sent:", len(fake.Requests()))
	// Output:
	// <nil>
	// 429 rate_limited
	// 0 rate_limited
	// answered 429: 1 sent: 2
}

func ExampleWithLimiter() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.AddWorkspace("Acme")

	// Two clients of the same key share one limiter, so that together they
	// stay under the key's 10 000 requests an hour and 50 a second. Each
	// keeps its own other options.
	shared, err := seoapi.NewLimiter(seoapi.DefaultRequestsPerHour, seoapi.DefaultRequestsPerSecond, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	reporting, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithLimiter(shared))
	if err != nil {
		fmt.Println(err)
		return
	}
	syncing, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithLimiter(shared), seoapi.WithMaxWait(5*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	a, _, errA := reporting.Workspaces.List(ctx, nil)
	b, _, errB := syncing.Workspaces.List(ctx, nil)
	fmt.Println(len(a), errA, len(b), errB)
	// Output: 1 <nil> 1 <nil>
}

func ExampleClient_With() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.AddWorkspace("Acme")

	// The service answers its own callers within two seconds: its calls
	// wait at most that long for the rate limit, and a context deadline
	// bounds every wait as well.
	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithMaxWait(2*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	// The nightly batch on the same key is a view: it shares the client's
	// connections and limiter, may wait an hour, leaves 10 requests a
	// second to the service, and tags its requests.
	batch, err := client.With(seoapi.WithMaxWait(time.Hour), seoapi.WithReserve(0, 10), seoapi.WithHeader("X-Job-Id", "nightly-42"))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	if _, _, err := batch.Workspaces.List(ctx, nil); err != nil {
		fmt.Println(err)
		return
	}
	if _, _, err := client.Workspaces.List(ctx, nil); err != nil {
		fmt.Println(err)
		return
	}
	reqs := fake.Requests()
	fmt.Printf("batch: %q, service: %q\n", reqs[0].Header.Get("X-Job-Id"), reqs[1].Header.Get("X-Job-Id"))
	budget, err := batch.Budget(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("requests this hour, for both:", budget.UsedHour)
	// Output:
	// batch: "nightly-42", service: ""
	// requests this hour, for both: 2
}

func ExampleWithHeader() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	// Every request of the client carries the job's ID, for the server's logs.
	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithHeader("X-Job-Id", "import-7"))
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, _, err := client.Workspaces.List(context.Background(), nil); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fake.Requests()[0].Header.Get("X-Job-Id"))

	// Headers the SDK owns cannot be replaced.
	_, err = client.With(seoapi.WithHeader("Authorization", "Bearer other"))
	fmt.Println(errors.Is(err, seoapi.ErrInvalidArgument))
	// Output:
	// import-7
	// true
}

func ExampleWithAttemptTimeout() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.SetDelay(300 * time.Millisecond) // a server slower than we accept

	// Each attempt may take 50ms to get its whole answer; the call's
	// context, without a deadline here, would bound the whole call.
	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithAttemptTimeout(50*time.Millisecond),
		seoapi.WithMaxRetries(1), seoapi.WithRetryWait(time.Millisecond, time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, _, err = client.Workspaces.List(context.Background(), nil)
	var apiErr *seoapi.APIError
	if errors.As(err, &apiErr) {
		// A list is retried once; both attempts ran out of time. That is
		// a connection failure, not the caller's deadline.
		fmt.Println(apiErr.Attempts, errors.Is(err, seoapi.ErrConnection), errors.Is(err, context.DeadlineExceeded))
	}
	// Output: 2 true false
}
