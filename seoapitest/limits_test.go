package seoapitest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests drive the windows with a fake clock, which only the package
// itself can set; the rest of the tests are written from outside.

func get(t *testing.T, s *Server, key string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/api/workspaces", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	resp := rec.Result()
	_, err := io.Copy(io.Discard, resp.Body)
	require.NoError(t, err)
	return resp
}

func TestPerSecondWindowIsStrict(t *testing.T) {
	t.Parallel()
	s := New()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }
	s.SetLimits(Limits{PerSecond: 3, PerHour: 100})
	key := s.Key()

	for i := range 3 {
		assert.Equal(t, 200, get(t, s, key).StatusCode, i)
		clock = clock.Add(300 * time.Millisecond)
	}
	// 900 ms after the first: the rolling second still holds 3.
	resp := get(t, s, key)
	assert.Equal(t, 429, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Equal(t, "97", resp.Header.Get("X-RateLimit-Remaining"))
	assert.Equal(t, 1, s.Throttled())
	clock = clock.Add(100 * time.Millisecond)
	assert.Equal(t, 200, get(t, s, key).StatusCode, "the first left the window")
}

func TestPerHourWindowIsStrict(t *testing.T) {
	t.Parallel()
	s := New()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }
	s.SetLimits(Limits{PerHour: 2})
	key := s.Key()
	assert.Equal(t, 200, get(t, s, key).StatusCode)
	clock = clock.Add(30 * time.Minute)
	resp := get(t, s, key)
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "0", resp.Header.Get("X-RateLimit-Remaining"))
	assert.Equal(t, "1800", resp.Header.Get("X-RateLimit-Reset"))
	clock = clock.Add(29 * time.Minute)
	resp = get(t, s, key)
	assert.Equal(t, 429, resp.StatusCode)
	assert.Equal(t, "60", resp.Header.Get("Retry-After"))
	clock = clock.Add(time.Minute)
	assert.Equal(t, 200, get(t, s, key).StatusCode)
}
