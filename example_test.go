package seoapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

// exampleServer starts the in-process fake API, standing in for the real
// one, and returns its URL and a key.
func exampleServer() (url, key string, fake *seoapitest.Server, stop func()) {
	fake = seoapitest.New()
	srv := httptest.NewServer(fake)
	key, _ = fake.IssueKey(seoapitest.PlanEnterprise)
	return srv.URL, key, fake, srv.Close
}

func Example() {
	url, key, _, stop := exampleServer()
	defer stop()

	client, err := seoapi.NewClient(url, key)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	ws, _, err := client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _, err := client.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Name: "Shop", Domain: "shop.example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name, p.Domain)
	// Output: Shop shop.example
}

func ExampleAPIError() {
	url, key, _, stop := exampleServer()
	defer stop()
	client, _ := seoapi.NewClient(url, key)

	_, _, err := client.Projects.List(context.Background(), "ws_does_not_exist", nil)
	var apiErr *seoapi.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, errors.Is(err, seoapi.ErrNotFound))
	}
	// Output: 404 not_found true
}

func ExampleSecret() {
	key := seoapi.APIKey{Name: "ci", Key: seoapi.Secret("sk_live_abc123")}
	fmt.Println(key.Key)
	fmt.Printf("%+v\n", key.Key)
	fmt.Println(len(string(key.Key)))
	// Output:
	// [REDACTED]
	// [REDACTED]
	// 14
}

func ExampleNewLimiter() {
	url, key, _, stop := exampleServer()
	defer stop()

	// Two clients of the same key share one budget: together they stay
	// under 10 000 requests an hour and 50 a second.
	shared, err := seoapi.NewLimiter(seoapi.DefaultRequestsPerHour, seoapi.DefaultRequestsPerSecond, seoapi.DefaultMaxWait)
	if err != nil {
		fmt.Println(err)
		return
	}
	reporting, _ := seoapi.NewClient(url, key, seoapi.WithLimiter(shared))
	syncing, _ := seoapi.NewClient(url, key, seoapi.WithLimiter(shared))

	ctx := context.Background()
	a, _, errA := reporting.Workspaces.List(ctx, nil)
	b, _, errB := syncing.Workspaces.List(ctx, nil)
	fmt.Println(len(a), len(b), errA, errB)
	// Output: 1 1 <nil> <nil>
}

func ExampleClient_Do() {
	url, key, _, stop := exampleServer()
	defer stop()
	client, _ := seoapi.NewClient(url, key)

	// NewRequest and Do send any request through the same headers, limiter,
	// retries and error mapping as the services.
	req, err := client.NewRequest(context.Background(), "GET", "api/workspaces", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	var raw []map[string]any
	resp, err := client.Do(req, &raw)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, len(raw), raw[0]["name"])
	// Output: 200 1 Default workspace
}
