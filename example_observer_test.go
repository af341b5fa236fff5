package seoapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

// callPrinter is an Observer that prints what each call did. An Observer
// must be safe for concurrent use: this one keeps no state.
type callPrinter struct{}

func (callPrinter) Observe(ctx context.Context, e seoapi.Event) context.Context {
	outcome := e.ErrorType // the error's kind, such as "not_found"
	if outcome == "" {
		outcome = "ok"
	}
	switch e.Type {
	case seoapi.EventAttemptEnd:
		// Route holds no ID, so it suits metric labels; URL holds IDs.
		fmt.Printf("%s attempt %d: %d %s retry=%t\n", e.Route, e.Attempt, e.StatusCode, outcome, e.Retry)
	case seoapi.EventCallEnd:
		fmt.Printf("%s: %d %s after %d attempt(s)\n", e.Operation, e.StatusCode, outcome, e.Attempt)
	}
	// An observer that starts a span returns a context holding it; the
	// events that follow get that context.
	return ctx
}

func ExampleWithObserver() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	fake.FailNext(1, http.StatusServiceUnavailable, nil)

	client, err := seoapi.NewClient(srv.URL, fake.Key(),
		seoapi.WithObserver(callPrinter{}),
		seoapi.WithRetryWait(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	if _, _, err := client.Projects.List(ctx, ws, nil); err != nil {
		fmt.Println(err)
	}
	_, err = client.Projects.Delete(ctx, ws, "proj_gone")
	fmt.Println(seoapi.ErrorType(err))
	// Output:
	// GET /api/workspaces/{id}/projects attempt 1: 503 server retry=true
	// GET /api/workspaces/{id}/projects attempt 2: 200 ok retry=false
	// Projects.List: 200 ok after 2 attempt(s)
	// DELETE /api/workspaces/{id}/projects/{projectId} attempt 1: 404 not_found retry=false
	// Projects.Delete: 404 not_found after 1 attempt(s)
	// not_found
}
