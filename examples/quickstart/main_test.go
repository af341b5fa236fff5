package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTourAgainstTheFake(t *testing.T) {
	t.Setenv("SEOAPI_BASE_URL", "")
	t.Setenv("SEOAPI_API_KEY", "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var buf bytes.Buffer
	require.NoError(t, run(ctx, &buf, false))
	out := buf.String()

	steps := []struct{ http, goCall string }{
		{"GET /api/workspaces  -> 200 OK", "client.Workspaces.List(ctx, nil)"},
		{"POST /api/workspaces  -> 201 Created", "client.Workspaces.Create(ctx, "},
		{"POST /api/workspaces/:id/projects  -> 201 Created", "client.Projects.Create(ctx, ws.ID, "},
		{"GET /api/workspaces/:id/projects  -> 200 OK", "client.Projects.List(ctx, ws.ID, nil)"},
		{"PATCH /api/workspaces/:id/projects/:projectId  -> 200 OK", "client.Projects.Update(ctx, ws.ID, project.ID, "},
		{"GET /api/workspaces/:id/content-plans  -> 200 OK", "client.ContentPlans.List(ctx, ws.ID, nil)"},
		{"POST /api/workspaces/:id/members  -> 201 Created", "client.Members.Add(ctx, ws.ID, "},
		{"GET /api/workspaces/:id/members  -> 200 OK", "client.Members.List(ctx, ws.ID, nil)"},
		{"GET /api/workspaces/:id/projects/:projectId/competitors  -> 200 OK", "client.Competitors.List(ctx, ws.ID, project.ID, nil)"},
		{"POST /api/workspaces/:id/api-keys  -> 201 Created", "client.APIKeys.Create(ctx, ws.ID, "},
		{"GET /api/workspaces/:id/api-keys  -> 200 OK", "client.APIKeys.List(ctx, ws.ID, nil)"},
		{"DELETE /api/workspaces/:id/projects/:projectId  -> 204 No Content", "client.Projects.Delete(ctx, ws.ID, project.ID)"},
	}
	for i, s := range steps {
		assert.Contains(t, out, fmt.Sprintf("\n%2d. %s\n    %s", i+1, s.http, s.goCall), "step %d with its Go call beside it", i+1)
	}
	for _, want := range []string{
		`seeded one workspace, "Demo workspace"`,
		"The fake seeded two content plans and two competitors",
		"[REDACTED]",
		"SECRET is blank: a list carries no secrets",
		"All twelve endpoints called.",
		"errors.Is(err, seoapi.ErrConflict) = true; status 409",
		"client.ContentPlans.All(ctx, ws.ID, &seoapi.ListOptions{PerPage: 1})",
		"2 requests, one per page.",
		"-> 200 OK after 2 attempts",
	} {
		assert.Contains(t, out, want)
	}
	// Five calls at two a second take two seconds at least. Whether the
	// fake refused one is not asserted: on a loaded machine a request can
	// reach it late; the SDK then waits and sends it again.
	assert.Regexp(t, regexp.MustCompile(`5 calls took ([2-9]|[1-9][0-9])(\.[0-9])?s: the client waited its turn`), out)
	assert.NotContains(t, out, "sk_", "no secret is printed")
}

func TestOnlyOneVariableSetIsAnError(t *testing.T) {
	t.Setenv("SEOAPI_BASE_URL", "https://api.example.com")
	t.Setenv("SEOAPI_API_KEY", "")
	err := run(context.Background(), &bytes.Buffer{}, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SEOAPI_API_KEY")
}

func TestReadOnlyRunAgainstAConfiguredAPI(t *testing.T) {
	srv := seoapitest.NewServer(t)
	ws := srv.AddWorkspace("Acme")
	srv.AddProject(ws, "Shop", "shop.example")
	t.Setenv("SEOAPI_BASE_URL", srv.URL())
	t.Setenv("SEOAPI_API_KEY", srv.Key())

	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, false))
	assert.Contains(t, out.String(), "Workspace "+ws+"  Acme")
	assert.Contains(t, out.String(), "Shop")
	require.NotEmpty(t, srv.Requests())
	for _, r := range srv.Requests() {
		assert.Equal(t, "GET", r.Method, "read-only: %s %s", r.Method, r.Path)
	}
}

func TestReadOnlyRunSaysWhatItFound(t *testing.T) {
	tests := []struct {
		name       string
		workspaces []string
		want       string
	}{
		{"no workspace", nil, "The key sees no workspace; nothing was changed. Run with -write to create one.\n"},
		{"two workspaces", []string{"Acme", "Beta"}, "2 workspaces, 1 project; nothing was changed.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := seoapitest.NewServer(t)
			for _, name := range tt.workspaces {
				ws := srv.AddWorkspace(name)
				if name == "Acme" {
					srv.AddProject(ws, "Shop", "shop.example")
				}
			}
			t.Setenv("SEOAPI_BASE_URL", srv.URL())
			t.Setenv("SEOAPI_API_KEY", srv.Key())

			var out bytes.Buffer
			require.NoError(t, run(context.Background(), &out, false))
			assert.True(t, strings.HasSuffix(out.String(), tt.want), "ends with %q:\n%s", tt.want, out.String())
		})
	}
}

// mockAfterDelete stands for a live API that behaves unlike the fake after
// a delete, as a Prism mock of the contract does: it answers the DELETE
// but keeps the project.
type mockAfterDelete struct{ next http.Handler }

func (m mockAfterDelete) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	m.next.ServeHTTP(w, r)
}

func TestWriteTourReportsWhatALiveAPIAnswered(t *testing.T) {
	fake := seoapitest.New()
	fake.AddWorkspace("Existing")
	srv := newHTTPTestServer(t, mockAfterDelete{next: fake})
	t.Setenv("SEOAPI_BASE_URL", srv)
	t.Setenv("SEOAPI_API_KEY", fake.Key())

	var buf bytes.Buffer
	require.NoError(t, run(context.Background(), &buf, true), "every call got a 2xx, whatever the server does after a delete")
	out := buf.String()
	assert.Contains(t, out, "12. DELETE /api/workspaces/:id/projects/:projectId  -> 204 No Content")
	assert.Contains(t, out, "All twelve endpoints called; every call got a 2xx.")
	assert.NotContains(t, out, "The fake seeded", "nothing is seeded on a live API")
	assert.NotContains(t, out, "What the fake can also show", "no faults against a live API")

	reqs := fake.Requests()
	require.Len(t, reqs, 11, "the twelfth call, the DELETE, was answered by the mock")
	seen := map[string]bool{}
	for _, r := range reqs {
		seen[r.Method+" "+templatePath(r.Path)] = true
	}
	assert.Len(t, seen, 11, "each endpoint once: %v", seen)
}

func TestWriteTourFailsOnANon2xx(t *testing.T) {
	srv := seoapitest.NewServer(t)
	srv.FailNext(1, http.StatusForbidden, nil)
	t.Setenv("SEOAPI_BASE_URL", srv.URL())
	t.Setenv("SEOAPI_API_KEY", srv.Key())
	err := run(context.Background(), &bytes.Buffer{}, true)
	require.ErrorIs(t, err, seoapi.ErrForbidden)
	assert.Len(t, srv.Requests(), 1, "the tour stops at the first failure")
}

// templatePath replaces the IDs in a path with the spec's placeholders.
func templatePath(p string) string {
	parts := strings.Split(p, "/")
	if len(parts) > 3 {
		parts[3] = ":id"
	}
	if len(parts) > 5 {
		parts[5] = ":projectId"
	}
	return strings.Join(parts, "/")
}

// newHTTPTestServer serves h on loopback until the test ends.
func newHTTPTestServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
