package seoapitest_test

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outcome sends one raw request and says what came back: the status, or
// "dropped" when the connection closed without an answer.
func outcome(t *testing.T, base, key, method, path, body string) string {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	// A new connection each time: net/http sends a GET again by itself when
	// a reused connection closes without an answer, which would hide a drop.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return "dropped"
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusServiceUnavailable {
		return "503 Retry-After " + resp.Header.Get("Retry-After")
	}
	return strconv.Itoa(resp.StatusCode)
}

func TestSetFaultRates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		rates        seoapitest.FaultRates
		method, path string // path under the workspace
		body         string
		want         string
		projects     int // in the workspace afterwards, which holds one to begin with
	}{
		{"none", seoapitest.FaultRates{}, "POST", "/projects", `{"name":"New"}`, "201", 2},
		{"fail 1: a read", seoapitest.FaultRates{Fail: 1}, "GET", "/projects", "", "503 Retry-After 1", 1},
		{"fail 1: a write is not handled", seoapitest.FaultRates{Fail: 1}, "POST", "/projects", `{"name":"New"}`, "503 Retry-After 1", 1},
		{"fail 1 comes before authentication", seoapitest.FaultRates{Fail: 1}, "GET", "/no-such-endpoint", "", "503 Retry-After 1", 1},
		{"drop 1: a create takes effect", seoapitest.FaultRates{Drop: 1}, "POST", "/projects", `{"name":"New"}`, "dropped", 2},
		{"drop 1: a delete takes effect", seoapitest.FaultRates{Drop: 1}, "DELETE", "/projects/{p}", "", "dropped", 0},
		{"drop 1: an update takes effect", seoapitest.FaultRates{Drop: 1}, "PATCH", "/projects/{p}", `{"name":"Renamed"}`, "dropped", 1},
		{"drop 1: a read is answered", seoapitest.FaultRates{Drop: 1}, "GET", "/projects", "", "200", 1},
		{"drop 1: a refused write is answered", seoapitest.FaultRates{Drop: 1}, "POST", "/projects", `{"name":""}`, "422", 1},
		{"drop 1: a write of a missing project is answered", seoapitest.FaultRates{Drop: 1}, "DELETE", "/projects/proj_999999", "", "404", 1},
		{"fail comes before drop", seoapitest.FaultRates{Fail: 1, Drop: 1}, "POST", "/projects", `{"name":"New"}`, "503 Retry-After 1", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := seoapitest.NewServer(t)
			ws := srv.AddWorkspace("Acme")
			p := srv.AddProject(ws, "Shop", "shop.example")
			srv.SetFaultRates(tt.rates)
			path := "/api/workspaces/" + ws + strings.ReplaceAll(tt.path, "{p}", p)

			assert.Equal(t, tt.want, outcome(t, srv.URL(), srv.Key(), tt.method, path, tt.body))

			srv.SetFaultRates(seoapitest.FaultRates{})
			list := send(t, srv.URL(), srv.Key(), "GET", "/api/workspaces/"+ws+"/projects", "")
			assert.Equal(t, tt.projects, strings.Count(list.body, `"id"`), list.body)
		})
	}
}

func TestQueuedFaultsComeBeforeRandomOnes(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	srv.SetFaultRates(seoapitest.FaultRates{Fail: 1, Drop: 1})
	srv.FailNext(1, http.StatusTeapot, nil)
	srv.DropNext(1, false)
	got := []string{
		outcome(t, srv.URL(), srv.Key(), "GET", "/api/workspaces", ""),
		outcome(t, srv.URL(), srv.Key(), "GET", "/api/workspaces", ""),
		outcome(t, srv.URL(), srv.Key(), "GET", "/api/workspaces", ""),
	}
	assert.Equal(t, []string{"418", "dropped", "503 Retry-After 1"}, got)
}

func TestSetRandSeedReplaysTheFaults(t *testing.T) {
	t.Parallel()
	// run sends 40 creates, one at a time, to a new fake with seed and
	// says what each met.
	run := func(t *testing.T, seed uint64) []string {
		srv := seoapitest.NewServer(t)
		srv.SetLimits(seoapitest.Limits{})
		srv.SetRandSeed(seed)
		srv.SetFaultRates(seoapitest.FaultRates{Fail: 0.3, Drop: 0.3})
		out := make([]string, 40)
		for i := range out {
			out[i] = outcome(t, srv.URL(), srv.Key(), "POST", "/api/workspaces", `{"name":"W"}`)
		}
		return out
	}
	tests := []struct {
		name     string
		a, b     uint64
		wantSame bool
	}{
		{"the same seed", 7, 7, true},
		{"another seed", 7, 8, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := run(t, tt.a), run(t, tt.b)
			assert.Equal(t, tt.wantSame, slices.Equal(a, b), "%v\n%v", a, b)
			for _, kind := range []string{"201", "503 Retry-After 1", "dropped"} {
				assert.Contains(t, a, kind, "each outcome is drawn at these rates")
			}
		})
	}
}

func TestSetFaultRatesPanicsOnARateOutside0To1(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rates seoapitest.FaultRates
	}{
		{"negative fail", seoapitest.FaultRates{Fail: -0.1}},
		{"drop over 1", seoapitest.FaultRates{Drop: 1.5}},
		{"NaN", seoapitest.FaultRates{Fail: math.NaN()}},
		{"infinite", seoapitest.FaultRates{Drop: math.Inf(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := seoapitest.New()
			defer func() {
				r := recover()
				require.NotNil(t, r)
				assert.Contains(t, r, "is not a rate from 0 to 1")
			}()
			srv.SetFaultRates(tt.rates)
		})
	}
}
