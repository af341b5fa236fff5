package bulk_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/bulk"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faulty sits in front of the fake and, once on, loses the answer of 10 %
// of the writes after the fake handled them (DropNext(1, true)) and
// starts a burst of two 503s before 5 % of the requests (FailNext). It
// serves one request at a time, so that each fault reaches the request it
// was queued for.
type faulty struct {
	fake *seoapitest.Server

	mu              sync.Mutex
	rng             *rand.Rand
	on              bool
	dropped, bursts int
}

func (f *faulty) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.on {
		switch {
		case r.Method == http.MethodPost && f.rng.IntN(10) == 0:
			f.fake.DropNext(1, true)
			f.dropped++
		case f.rng.IntN(20) == 0:
			f.fake.FailNext(2, http.StatusServiceUnavailable, nil)
			f.bursts++
		}
	}
	f.fake.ServeHTTP(w, r)
}

func (f *faulty) switchOn(on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.on = on
}

// TestFaultsExactlyOnceInOneApply: lost answers of writes that took
// effect, 5xx bursts and a list that shows a new resource only after a
// second; one Apply of each plan creates every item exactly once and
// leaves none failed.
func TestFaultsExactlyOnceInOneApply(t *testing.T) {
	t.Parallel()
	fake := seoapitest.New()
	fake.SetLimits(seoapitest.Limits{})
	fake.SetListLag(time.Second)
	ws := fake.AddWorkspace("Acme")
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	f := &faulty{fake: fake, rng: rand.New(rand.NewPCG(seed, seed))}
	ts := httptest.NewServer(f)
	defer ts.Close()
	c, err := seoapi.NewClient(ts.URL, fake.Key(), seoapi.WithRateLimit(1_000_000, 10_000), seoapi.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	require.NoError(t, err)

	ctx := context.Background()
	job := bulk.New(c, &memJournal{}, bulk.WithSettle(time.Second+100*time.Millisecond))
	pp, err := job.PlanProjects(ctx, ws, wantProjects(120))
	require.NoError(t, err)
	mp, err := job.PlanMembers(ctx, ws, wantMembers(30))
	require.NoError(t, err)
	f.switchOn(true)
	prep, err := job.Apply(ctx, pp)
	require.NoError(t, err)
	mrep, err := job.Apply(ctx, mp)
	require.NoError(t, err)
	f.switchOn(false)

	t.Logf("%d answers lost, %d bursts of 503; projects %+v, members %+v", f.dropped, f.bursts, *prep, *mrep)
	assert.Empty(t, prep.Failed)
	assert.Empty(t, mrep.Failed)
	assert.Equal(t, 120, prep.Created+prep.Adopted)
	assert.Equal(t, 30, mrep.Created+mrep.Adopted)
	assert.Positive(t, f.dropped)
	assert.Positive(t, prep.Adopted+mrep.Adopted, "some lost answers were found in the list")

	fake.SetListLag(0)
	direct := httptest.NewServer(fake)
	defer direct.Close()
	dc, err := seoapi.NewClient(direct.URL, fake.Key(), seoapi.WithoutRateLimit())
	require.NoError(t, err)
	have := projectsOf(t, dc, ws)
	assert.Len(t, have, 120, "each project exactly once")
	assert.Len(t, membersOf(t, dc, ws), 30, "each member exactly once")
}

// TestReconcilingCostsOneReadOfTheList: 200 writes whose outcome is
// unknown, in a workspace of 5 000 projects, are settled by one more read
// of the list: at most ⌈5 000 / 50⌉ requests beyond the writes.
func TestReconcilingCostsOneReadOfTheList(t *testing.T) {
	t.Parallel()
	const total, unknown, pageSize = 5000, 200, 50
	want := wantProjects(total)
	limit := (total + pageSize - 1) / pageSize

	t.Run("in one run", func(t *testing.T) {
		t.Parallel()
		srv, ws := fakeAPI(t)
		for _, w := range want[unknown:] {
			srv.AddProject(ws, w.Name, w.Domain)
		}
		c := fastClient(t, srv)
		job := bulk.New(c, &memJournal{}, bulk.WithSettle(time.Millisecond))
		plan, err := job.PlanProjects(context.Background(), ws, want)
		require.NoError(t, err)
		require.Equal(t, unknown, plan.Requests)
		before := len(srv.Requests())
		srv.DropNext(unknown, true) // every create takes effect, every answer is lost
		rep, err := job.Apply(context.Background(), plan)
		require.NoError(t, err)
		assert.Equal(t, bulk.Report{Adopted: unknown, Unchanged: total - unknown}, *rep)
		sent := len(srv.Requests()) - before
		assert.LessOrEqual(t, sent-unknown, limit, "%d requests beyond the %d writes", sent-unknown, unknown)
		assert.Len(t, projectsOf(t, c, ws), total)
	})

	t.Run("after a restart", func(t *testing.T) {
		t.Parallel()
		srv, ws := fakeAPI(t)
		j := &memJournal{}
		for i, w := range want {
			srv.AddProject(ws, w.Name, w.Domain)
			if i < unknown { // an earlier run sent these and died
				j.recs = append(j.recs, bulk.Record{Time: time.Now(), Resource: "project", Parent: ws, Key: bulk.ProjectKey(w.Name, w.Domain), Op: bulk.OpCreate, State: bulk.StateIntended})
			}
		}
		c := fastClient(t, srv)
		job := bulk.New(c, j, bulk.WithSettle(time.Millisecond))
		plan, err := job.PlanProjects(context.Background(), ws, want)
		require.NoError(t, err)
		before := len(srv.Requests())
		rep, err := job.Apply(context.Background(), plan)
		require.NoError(t, err)
		assert.Equal(t, bulk.Report{Adopted: unknown, Unchanged: total - unknown}, *rep)
		assert.LessOrEqual(t, len(srv.Requests())-before, limit)
	})
}
