package seoapitest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

// ArchiveStaleProjects is the user's code under test: it deletes the
// projects of a workspace whose domain is empty and says how many it
// deleted.
func ArchiveStaleProjects(ctx context.Context, c *seoapi.Client, workspaceID string) (int, error) {
	n := 0
	for p, err := range c.Projects.All(ctx, workspaceID, nil) {
		if err != nil {
			return n, err
		}
		if p.Domain != "" {
			continue
		}
		if _, err := c.Projects.Delete(ctx, workspaceID, p.ID); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Example tests a user's function against the fake: seed it, inject a
// 503 that the SDK retries, run the code, and check what reached the
// server. An Example has no *testing.T, so it serves New itself; in a test,
// write srv := seoapitest.NewServer(t) and c := srv.Client(...) instead.
func Example() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	fake.AddProject(ws, "Live shop", "shop.example")
	fake.AddProject(ws, "Old draft", "")

	// The first request fails with a 503; the SDK waits and tries again.
	fake.FailNext(1, http.StatusServiceUnavailable, http.Header{"Retry-After": {"0"}})
	c, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithRetryWait(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}

	n, err := ArchiveStaleProjects(context.Background(), c, ws)
	fmt.Println("deleted:", n, "error:", err)
	for _, r := range fake.Requests() {
		fmt.Println(r.Status, r.Method, r.Path, r.Header.Get("Authorization"))
	}
	// Output:
	// deleted: 1 error: <nil>
	// 503 GET /api/workspaces/ws_000002/projects Bearer [REDACTED]
	// 200 GET /api/workspaces/ws_000002/projects Bearer [REDACTED]
	// 204 DELETE /api/workspaces/ws_000002/projects/proj_000004 Bearer [REDACTED]
}

// IssueKey gives a key of another account: here one on a plan without API
// access, which the fake answers 403 as the API does.
func ExampleServer_IssueKey() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	key, _ := fake.IssueKey(seoapitest.PlanAgency)
	c, err := seoapi.NewClient(srv.URL, key)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, _, err = c.Workspaces.List(context.Background(), nil)
	var apiErr *seoapi.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, errors.Is(err, seoapi.ErrForbidden))
	}
	// Output: 403 plan_without_api_access true
}

// SetPaging switches the shape of list answers, to check that code reads
// every page whatever the server's paging style.
func ExampleServer_SetPaging() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	for _, email := range []string{"ana@acme.example", "bo@acme.example", "cy@acme.example"} {
		fake.AddMember(ws, email, "")
	}
	// {"data": [...], "next_cursor": "...", "has_more": true}, 2 a page.
	fake.SetPaging(seoapitest.PagingCursor, 2)

	c, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	n := 0
	for _, err := range c.Members.All(context.Background(), ws, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		n++
	}
	fmt.Println("members:", n)
	for _, r := range fake.Requests() {
		fmt.Println(r.Method, r.Status, "cursor sent:", r.Query.Has("cursor"))
	}
	// Output:
	// members: 3
	// GET 200 cursor sent: false
	// GET 200 cursor sent: true
}

// SetLimits makes the fake stricter than the published limits; Throttled
// counts its 429 answers. The client keeps the server's hold and waits out
// the Retry-After.
func ExampleServer_SetLimits() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.SetLimits(seoapitest.Limits{PerSecond: 1})

	c, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithoutRateLimit())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for range 2 {
		if _, _, err := c.Workspaces.List(ctx, nil); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println("429s:", fake.Throttled())
	for _, r := range fake.Requests() {
		fmt.Println(r.Status, r.Header.Get("Authorization"))
	}
	// Output:
	// 429s: 1
	// 200 Bearer [REDACTED]
	// 429 Bearer [REDACTED]
	// 200 Bearer [REDACTED]
}

// DropNext closes connections unanswered: before the request is handled
// (nothing happened, so even a POST is safe to repeat) or after (the write
// took effect and its answer was lost).
func ExampleServer_DropNext() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")

	c, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithRetryWait(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	// A GET whose connection is dropped is retried.
	fake.DropNext(1, false)
	_, resp, err := c.Projects.List(ctx, ws, nil)
	fmt.Println("list:", err, resp.Attempts)

	// A POST whose answer is lost is not: it may have taken effect.
	fake.DropNext(1, true)
	_, _, err = c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: "Shop"})
	fmt.Println("create:", errors.Is(err, seoapi.ErrOutcomeUnknown))

	projects, _, _ := c.Projects.List(ctx, ws, nil)
	fmt.Println("projects:", len(projects))
	for _, r := range fake.Requests() {
		fmt.Println(r.Method, r.Status) // 0: no answer
	}
	// Output:
	// list: <nil> 2
	// create: true
	// projects: 1
	// GET 0
	// GET 200
	// POST 0
	// GET 200
}

// SetDelay holds every answer, to test deadlines and timeouts.
func ExampleServer_SetDelay() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.SetDelay(time.Second)

	c, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, resp, err := c.Workspaces.List(ctx, nil)
	fmt.Println(resp == nil, errors.Is(err, context.DeadlineExceeded))
	// Output: true true
}

// SetFaultRates makes a fraction of requests fail, at random: here every
// write loses its answer after it took effect, the way a job meets a
// network that cuts answers. SetRandSeed replays a run whose rates are
// between 0 and 1.
func ExampleServer_SetFaultRates() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	fake.SetRandSeed(42)
	fake.SetFaultRates(seoapitest.FaultRates{Drop: 1})

	// No retries, to see each answer: a client that retries waits out the
	// Retry-After of each 503 below.
	c, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithMaxRetries(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	_, _, err = c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: "Shop"})
	fmt.Println("create:", errors.Is(err, seoapi.ErrOutcomeUnknown))
	projects, _, err := c.Projects.List(ctx, ws, nil)
	fmt.Println("projects:", len(projects), err)

	// Now every request is answered 503 with Retry-After: 1, before it is
	// handled.
	fake.SetFaultRates(seoapitest.FaultRates{Fail: 1})
	_, resp, err := c.Projects.List(ctx, ws, nil)
	fmt.Println("list:", errors.Is(err, seoapi.ErrServer), resp.StatusCode, resp.Header.Get("Retry-After"))
	// Output:
	// create: true
	// projects: 1 <nil>
	// list: true 503 1
}
