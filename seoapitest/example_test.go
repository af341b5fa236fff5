package seoapitest_test

import (
	"context"
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
