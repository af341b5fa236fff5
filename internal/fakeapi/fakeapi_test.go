package fakeapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func get(t *testing.T, srv *httptest.Server, key, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func TestPerSecondWindowIsStrict(t *testing.T) {
	t.Parallel()
	s := New()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }
	s.SetLimits(Limits{PerSecond: 3, PerHour: 100})
	srv := httptest.NewServer(s)
	defer srv.Close()
	key, _ := s.IssueKey(PlanEnterprise)

	for i := range 3 {
		resp := get(t, srv, key, "/api/workspaces")
		assert.Equal(t, 200, resp.StatusCode, i)
		clock = clock.Add(300 * time.Millisecond)
	}
	// 900 ms after the first: the rolling second still holds 3.
	resp := get(t, srv, key, "/api/workspaces")
	assert.Equal(t, 429, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Equal(t, "97", resp.Header.Get("X-RateLimit-Remaining"))
	assert.Equal(t, 1, s.Throttled())
	clock = clock.Add(100 * time.Millisecond)
	assert.Equal(t, 200, get(t, srv, key, "/api/workspaces").StatusCode, "the first left the window")
}

func TestPerHourWindowIsStrict(t *testing.T) {
	t.Parallel()
	s := New()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }
	s.SetLimits(Limits{PerHour: 2})
	srv := httptest.NewServer(s)
	defer srv.Close()
	key, _ := s.IssueKey(PlanEnterprise)
	assert.Equal(t, 200, get(t, srv, key, "/api/workspaces").StatusCode)
	clock = clock.Add(30 * time.Minute)
	resp := get(t, srv, key, "/api/workspaces")
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "0", resp.Header.Get("X-RateLimit-Remaining"))
	assert.Equal(t, "1800", resp.Header.Get("X-RateLimit-Reset"))
	clock = clock.Add(29 * time.Minute)
	resp = get(t, srv, key, "/api/workspaces")
	assert.Equal(t, 429, resp.StatusCode)
	assert.Equal(t, "60", resp.Header.Get("Retry-After"))
	clock = clock.Add(time.Minute)
	assert.Equal(t, 200, get(t, srv, key, "/api/workspaces").StatusCode)
}

func TestAuthAndPlan(t *testing.T) {
	t.Parallel()
	s := New()
	srv := httptest.NewServer(s)
	defer srv.Close()
	assert.Equal(t, 401, get(t, srv, "nope", "/api/workspaces").StatusCode)
	agency, _ := s.IssueKey(PlanAgency)
	assert.Equal(t, 403, get(t, srv, agency, "/api/workspaces").StatusCode)
	key, _ := s.IssueKey(PlanEnterprise)
	assert.Equal(t, 200, get(t, srv, key, "/api/workspaces").StatusCode)
	assert.Equal(t, 404, get(t, srv, key, "/api/nothing").StatusCode)
}

func TestFaults(t *testing.T) {
	t.Parallel()
	s := New()
	srv := httptest.NewServer(s)
	defer srv.Close()
	key, ws := s.IssueKey(PlanEnterprise)
	s.FailNext(2, 502, http.Header{"Retry-After": {"3"}})
	for range 2 {
		resp := get(t, srv, key, "/api/workspaces")
		assert.Equal(t, 502, resp.StatusCode)
		assert.Equal(t, "3", resp.Header.Get("Retry-After"))
	}
	assert.Equal(t, 200, get(t, srv, key, "/api/workspaces").StatusCode)

	s.DropNext(1, true)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/workspaces/"+ws+"/projects", strings.NewReader(`{"name":"p"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	_, err := srv.Client().Do(req)
	require.Error(t, err, "the connection was dropped")
	s.mu.Lock()
	n := len(s.findWorkspace(ws).projects)
	s.mu.Unlock()
	assert.Equal(t, 1, n, "dropped after the request took effect")

	s.SetDelay(50 * time.Millisecond)
	start := time.Now()
	get(t, srv, key, "/api/workspaces")
	assert.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)
}
