package bulk_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/bulk"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/require"
)

// memJournal is a Journal in memory, as a store other than a file would
// implement it.
type memJournal struct {
	mu   sync.Mutex
	recs []bulk.Record
	// failAfter, when positive, fails every Append after that many.
	failAfter int
}

func (m *memJournal) Load(context.Context) ([]bulk.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.recs), nil
}

func (m *memJournal) Append(_ context.Context, r bulk.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failAfter > 0 && len(m.recs) >= m.failAfter {
		return fmt.Errorf("memJournal: full")
	}
	m.recs = append(m.recs, r)
	return nil
}

// age moves every record d into the past, as if the runs that wrote
// them had run d earlier.
func (m *memJournal) age(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.recs {
		m.recs[i].Time = m.recs[i].Time.Add(-d)
	}
}

func (m *memJournal) records() []bulk.Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.recs)
}

// fakeAPI starts the fake with its limits off and one workspace.
func fakeAPI(t *testing.T) (*seoapitest.Server, string) {
	t.Helper()
	srv := seoapitest.NewServer(t)
	srv.SetLimits(seoapitest.Limits{})
	return srv, srv.AddWorkspace("Acme")
}

// fastClient is a client for srv with short retry waits and a limiter
// too wide to wait.
func fastClient(t *testing.T, srv *seoapitest.Server) *seoapi.Client {
	t.Helper()
	return srv.Client(seoapi.WithRateLimit(1_000_000, 10_000), seoapi.WithRetryWait(time.Millisecond, 5*time.Millisecond))
}

// count counts the requests of srv with method (any when "") whose path
// ends with suffix.
func count(srv *seoapitest.Server, method, suffix string) int {
	n := 0
	for _, r := range srv.Requests() {
		if (method == "" || r.Method == method) && len(r.Path) >= len(suffix) && r.Path[len(r.Path)-len(suffix):] == suffix {
			n++
		}
	}
	return n
}

// projectsOf lists the projects of ws as the fake holds them, by key,
// failing the test when a key is there twice.
func projectsOf(t *testing.T, c *seoapi.Client, ws string) map[string]*seoapi.Project {
	t.Helper()
	out := map[string]*seoapi.Project{}
	for p, err := range c.Projects.All(context.Background(), ws, &seoapi.ListOptions{PerPage: seoapitest.MaxPageSize}) {
		require.NoError(t, err)
		key := bulk.ProjectKey(p.Name, p.Domain)
		require.NotContains(t, out, key, "project %q exists twice", key)
		out[key] = p
	}
	return out
}

// membersOf lists the members of ws by key, failing on a duplicate.
func membersOf(t *testing.T, c *seoapi.Client, ws string) map[string]*seoapi.Member {
	t.Helper()
	out := map[string]*seoapi.Member{}
	for m, err := range c.Members.All(context.Background(), ws, &seoapi.ListOptions{PerPage: seoapitest.MaxPageSize}) {
		require.NoError(t, err)
		key := bulk.MemberKey(m.Email)
		require.NotContains(t, out, key, "member %q exists twice", key)
		out[key] = m
	}
	return out
}

// wantProjects returns n projects site-0.example ... with names.
func wantProjects(n int) []seoapi.ProjectCreateRequest {
	out := make([]seoapi.ProjectCreateRequest, n)
	for i := range out {
		out[i] = seoapi.ProjectCreateRequest{Name: fmt.Sprintf("Site %d", i), Domain: fmt.Sprintf("site-%d.example", i)}
	}
	return out
}

// wantMembers returns n members user-0@example.com ...
func wantMembers(n int) []seoapi.MemberAddRequest {
	out := make([]seoapi.MemberAddRequest, n)
	for i := range out {
		out[i] = seoapi.MemberAddRequest{Email: fmt.Sprintf("user-%d@example.com", i), Role: "editor"}
	}
	return out
}

// lastWrite returns the last record of recs that records a write.
func lastWrite(recs []bulk.Record) bulk.Record {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Key != "" {
			return recs[i]
		}
	}
	return bulk.Record{}
}

// ops counts a plan's actions by Op.
func ops(p *bulk.Plan) map[bulk.Op]int {
	out := map[bulk.Op]int{}
	for _, a := range p.Actions {
		out[a.Op]++
	}
	return out
}

var _ = http.MethodGet
