package seoapitest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// do sends one request straight to the handler and decodes its JSON body.
func do(t *testing.T, s *Server, method, path, body string) (int, any) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.Key())
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	resp := rec.Result()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var v any
	if len(raw) > 0 {
		require.NoError(t, json.Unmarshal(raw, &v), string(raw))
	}
	return resp.StatusCode, v
}

// names lists the "name" (or "email") of each element of a list answer.
func names(t *testing.T, list any) []string {
	t.Helper()
	items, ok := list.([]any)
	require.True(t, ok, "a bare array: %v", list)
	out := []string{}
	for _, it := range items {
		m := it.(map[string]any)
		if e, ok := m["email"].(string); ok {
			out = append(out, e)
			continue
		}
		out = append(out, m["name"].(string))
	}
	return out
}

func TestListLagHidesACreatedResourceFromListsOnly(t *testing.T) {
	t.Parallel()
	s := New()
	s.SetLimits(Limits{})
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }
	ws := s.AddWorkspace("Acme")
	s.AddProject(ws, "Seeded", "seeded.example")
	s.SetListLag(time.Second)

	status, created := do(t, s, http.MethodPost, "/api/workspaces/"+ws+"/projects", `{"name":"Shop","domain":"shop.example"}`)
	require.Equal(t, http.StatusCreated, status)
	id := created.(map[string]any)["id"].(string)
	status, _ = do(t, s, http.MethodPost, "/api/workspaces/"+ws+"/members", `{"email":"a@example.com"}`)
	require.Equal(t, http.StatusCreated, status)
	status, _ = do(t, s, http.MethodPost, "/api/workspaces", `{"name":"Beta"}`)
	require.Equal(t, http.StatusCreated, status)

	lists := []struct {
		path        string
		before, all []string
	}{
		{"/api/workspaces/" + ws + "/projects", []string{"Seeded"}, []string{"Seeded", "Shop"}},
		{"/api/workspaces/" + ws + "/members", []string{}, []string{"a@example.com"}},
		{"/api/workspaces", []string{"Acme"}, []string{"Acme", "Beta"}},
	}
	clock = clock.Add(999 * time.Millisecond)
	for _, l := range lists {
		_, list := do(t, s, http.MethodGet, l.path, "")
		assert.Equal(t, l.before, names(t, list), "%s before the lag has passed", l.path)
	}
	status, _ = do(t, s, http.MethodPatch, "/api/workspaces/"+ws+"/projects/"+id, `{"name":"Shop EU"}`)
	assert.Equal(t, http.StatusOK, status, "an update by ID finds it at once")
	status, _ = do(t, s, http.MethodPost, "/api/workspaces/"+ws+"/members", `{"email":"A@example.com"}`)
	assert.Equal(t, http.StatusConflict, status, "a second add meets it at once")

	clock = clock.Add(time.Millisecond)
	lists[0].all[1] = "Shop EU"
	for _, l := range lists {
		_, list := do(t, s, http.MethodGet, l.path, "")
		assert.Equal(t, l.all, names(t, list), "%s once the lag has passed", l.path)
	}
}

func TestListLagZeroListsEverythingAtOnce(t *testing.T) {
	t.Parallel()
	s := New()
	s.SetLimits(Limits{})
	ws := s.AddWorkspace("Acme")
	s.SetListLag(time.Hour)
	status, _ := do(t, s, http.MethodPost, "/api/workspaces/"+ws+"/projects", `{"name":"Shop"}`)
	require.Equal(t, http.StatusCreated, status)
	_, list := do(t, s, http.MethodGet, "/api/workspaces/"+ws+"/projects", "")
	assert.Empty(t, names(t, list))
	s.SetListLag(0)
	_, list = do(t, s, http.MethodGet, "/api/workspaces/"+ws+"/projects", "")
	assert.Equal(t, []string{"Shop"}, names(t, list), "created under the lag, listed once it is 0")
}

func TestListLagKeepsADeletedProjectListed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		after func(t *testing.T, s *Server, ws string, clock *time.Time) // what happens after the delete
		want  []string                                                   // the list then
	}{
		{"within the lag", func(_ *testing.T, _ *Server, _ string, c *time.Time) { *c = c.Add(999 * time.Millisecond) }, []string{"Kept", "Gone"}},
		{"once the lag has passed", func(_ *testing.T, _ *Server, _ string, c *time.Time) { *c = c.Add(time.Second) }, []string{"Kept"}},
		{"when the lag becomes 0", func(_ *testing.T, s *Server, _ string, _ *time.Time) { s.SetListLag(0) }, []string{"Kept"}},
		{"not again once a list has dropped it", func(t *testing.T, s *Server, ws string, c *time.Time) {
			*c = c.Add(time.Second)
			do(t, s, http.MethodGet, "/api/workspaces/"+ws+"/projects", "")
			s.SetListLag(time.Hour)
		}, []string{"Kept"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := New()
			s.SetLimits(Limits{})
			clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			s.now = func() time.Time { return clock }
			ws := s.AddWorkspace("Acme")
			s.AddProject(ws, "Kept", "")
			gone := s.AddProject(ws, "Gone", "")
			s.SetListLag(time.Second)

			status, _ := do(t, s, http.MethodDelete, "/api/workspaces/"+ws+"/projects/"+gone, "")
			require.Equal(t, http.StatusNoContent, status)
			for _, r := range []struct{ method, path, body string }{
				{http.MethodDelete, "/projects/" + gone, ""},
				{http.MethodPatch, "/projects/" + gone, `{"name":"Back"}`},
				{http.MethodGet, "/projects/" + gone + "/competitors", ""},
			} {
				status, _ = do(t, s, r.method, "/api/workspaces/"+ws+r.path, r.body)
				assert.Equal(t, http.StatusNotFound, status, "%s %s: gone at once by its ID", r.method, r.path)
			}

			tt.after(t, s, ws, &clock)
			_, list := do(t, s, http.MethodGet, "/api/workspaces/"+ws+"/projects", "")
			assert.Equal(t, tt.want, names(t, list))
		})
	}
}
