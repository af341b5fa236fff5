package bulk_test

import (
	"context"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/bulk"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRestartRules starts a job on a journal an earlier run left: each
// item's last record decides what happens to it.
func TestRestartRules(t *testing.T) {
	t.Parallel()
	srv, ws := fakeAPI(t)
	adoptID := srv.AddProject(ws, "Adopt", "adopt.example")
	earlier := time.Now().Add(-time.Minute)
	rec := func(key string, st bulk.State, id, kind string) bulk.Record {
		return bulk.Record{Time: earlier, Resource: "project", Parent: ws, Key: key, Op: bulk.OpCreate, State: st, ID: id, Err: kind}
	}
	j := &memJournal{recs: []bulk.Record{
		rec("done.example", bulk.StateIntended, "", ""),
		rec("done.example", bulk.StateDone, "proj_lagging", ""),
		rec("invalid.example", bulk.StateFailed, "", "validation"),
		rec("busy.example", bulk.StateFailed, "", "server"),
		rec("adopt.example", bulk.StateIntended, "", ""),
		rec("lost.example", bulk.StateUnknown, "", "connection"),
		rec("lost.example", bulk.StateIntended, "", ""),
	}}
	want := []seoapi.ProjectCreateRequest{
		{Name: "Done", Domain: "done.example"},
		{Name: "Invalid", Domain: "invalid.example"},
		{Name: "Busy", Domain: "busy.example"},
		{Name: "Adopt", Domain: "adopt.example"},
		{Name: "Lost", Domain: "lost.example"},
	}
	ctx := context.Background()
	job := bulk.New(fastClient(t, srv), j, bulk.WithSettle(10*time.Millisecond))
	plan, err := job.PlanProjects(ctx, ws, want)
	require.NoError(t, err)

	type row struct {
		op    bulk.Op
		prior bulk.State
		id    string
	}
	got := map[string]row{}
	for _, a := range plan.Actions {
		got[a.Key] = row{a.Op, a.Prior, a.ID}
	}
	assert.Equal(t, map[string]row{
		"done.example":    {bulk.OpNone, bulk.StateDone, "proj_lagging"}, // done: skipped, though not listed yet
		"invalid.example": {bulk.OpCreate, bulk.StateFailed, ""},         // reported, not sent
		"busy.example":    {bulk.OpCreate, bulk.StateFailed, ""},         // a retry can help
		"adopt.example":   {bulk.OpNone, bulk.StateIntended, adoptID},    // found: adopted
		"lost.example":    {bulk.OpCreate, bulk.StateIntended, ""},       // absent: look again, then create
	}, got)
	assert.Equal(t, 3, plan.Requests, "two creates and one more read of the list")
	assert.Contains(t, plan.String(), "(1 adopted), 1 failed earlier and not retried")

	rep, err := job.Apply(ctx, plan)
	require.NoError(t, err)
	require.Len(t, rep.Failed, 1)
	assert.Equal(t, "invalid.example", rep.Failed[0].Key)
	assert.ErrorIs(t, rep.Failed[0].Err, seoapi.ErrValidation)
	rep.Failed = nil
	assert.Equal(t, bulk.Report{Created: 2, Adopted: 1, Unchanged: 1}, *rep)
	assert.Equal(t, 2, count(srv, "GET", "/projects"), "one read to plan, one to settle")
	assert.Equal(t, 2, count(srv, "POST", "/projects"))
	have := projectsOf(t, fastClient(t, srv), ws)
	assert.Contains(t, have, "busy.example")
	assert.Contains(t, have, "lost.example")
	assert.NotContains(t, have, "invalid.example")
	assert.NotContains(t, have, "done.example", "a done record is trusted")

	last := j.records()[len(j.records())-1]
	assert.Equal(t, bulk.StateDone, last.State)
}

// TestSettleWaitsForAListThatLags: an earlier run's create that the list
// does not show yet is found once the settle time has passed, not created
// again.
func TestSettleWaitsForAListThatLags(t *testing.T) {
	t.Parallel()
	srv, ws := fakeAPI(t)
	srv.SetListLag(time.Second)
	c := fastClient(t, srv)
	ctx := context.Background()
	// An earlier run: the create took effect, its answer never recorded.
	p, _, err := c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: "Site 0", Domain: "site-0.example"})
	require.NoError(t, err)
	j := &memJournal{recs: []bulk.Record{{Time: time.Now(), Resource: "project", Parent: ws, Key: "site-0.example", Op: bulk.OpCreate, State: bulk.StateIntended}}}

	job := bulk.New(c, j, bulk.WithSettle(1100*time.Millisecond))
	plan, err := job.PlanProjects(ctx, ws, wantProjects(1))
	require.NoError(t, err)
	// The list does not show it yet, unless this machine took a second
	// to plan; either way it is adopted, not created again.
	t.Logf("planned: %s", plan.Actions[0].Op)
	rep, err := job.Apply(ctx, plan)
	require.NoError(t, err)
	assert.Equal(t, bulk.Report{Adopted: 1}, *rep)
	assert.Equal(t, 1, count(srv, "POST", "/projects"), "only the earlier run's")
	assert.Equal(t, p.ID, j.records()[len(j.records())-1].ID)
}

// TestPlanResumesAnUnfinishedRead: a read of the list that stopped half-way
// (here the journal refused to record more) carries on from its last
// recorded page in the next run.
func TestPlanResumesAnUnfinishedRead(t *testing.T) {
	t.Parallel()
	srv, ws := fakeAPI(t)
	srv.SetPaging(seoapitest.PagingLink, 10)
	for i := range 45 {
		srv.AddProject(ws, "Existing", "existing-"+string(rune('a'+i/26))+string(rune('a'+i%26))+".example")
	}
	c := fastClient(t, srv)
	ctx := context.Background()
	j := &memJournal{failAfter: 2}
	_, err := bulk.New(c, j).PlanProjects(ctx, ws, wantProjects(3))
	require.Error(t, err, "the journal refused the third page")
	assert.Equal(t, 3, count(srv, "GET", "/projects"))

	j.failAfter = 0
	plan, err := bulk.New(c, j).PlanProjects(ctx, ws, wantProjects(3), bulk.Prune())
	require.NoError(t, err)
	assert.Equal(t, 3+3, count(srv, "GET", "/projects"), "pages 3 to 5 only")
	assert.Equal(t, map[bulk.Op]int{bulk.OpCreate: 3, bulk.OpDelete: 45}, ops(plan), "the recorded pages count as read")

	_, err = bulk.New(c, j).PlanProjects(ctx, ws, wantProjects(3))
	require.NoError(t, err)
	assert.Equal(t, 6+5, count(srv, "GET", "/projects"), "a finished read is not resumed: a new plan reads afresh")
}

// TestUnknownOutcomesSettleInOneApply: answers lost after the server
// created (DropNext) and 5xx answers to writes are looked for once the
// settle time has passed, and each item ends up created exactly once.
func TestUnknownOutcomesSettleInOneApply(t *testing.T) {
	t.Parallel()
	srv, ws := fakeAPI(t)
	c := fastClient(t, srv)
	ctx := context.Background()
	job := bulk.New(c, &memJournal{}, bulk.WithConcurrency(1), bulk.WithSettle(time.Millisecond))
	plan, err := job.PlanProjects(ctx, ws, wantProjects(4))
	require.NoError(t, err)
	srv.DropNext(1, true)     // created, answer lost
	srv.FailNext(1, 503, nil) // not created, but a 5xx says nothing
	rep, err := job.Apply(ctx, plan)
	require.NoError(t, err)
	assert.Equal(t, bulk.Report{Created: 3, Adopted: 1}, *rep)
	assert.Equal(t, 5, count(srv, "POST", "/projects"))
	assert.Equal(t, 2, count(srv, "GET", "/projects"), "one read to plan, one look")
	assert.Len(t, projectsOf(t, c, ws), 4)
}

// cancelJournal is a memJournal that cancels a context once it holds n
// records.
type cancelJournal struct {
	memJournal
	n      int
	cancel context.CancelFunc
}

func (c *cancelJournal) Append(ctx context.Context, r bulk.Record) error {
	err := c.memJournal.Append(ctx, r)
	if len(c.records()) == c.n {
		c.cancel()
	}
	return err
}

// TestApplyAgainAfterAnInterruption: an Apply whose context ends half-way
// returns the context's error; applying the same plan again finishes the
// job without sending any write twice.
func TestApplyAgainAfterAnInterruption(t *testing.T) {
	t.Parallel()
	srv, ws := fakeAPI(t)
	c := fastClient(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	j := &cancelJournal{n: 1 + 2*10 + 1, cancel: cancel} // the read, ten writes, one intended
	job := bulk.New(c, j, bulk.WithConcurrency(1), bulk.WithSettle(time.Millisecond))
	plan, err := job.PlanProjects(ctx, ws, wantProjects(30))
	require.NoError(t, err)
	rep, err := job.Apply(ctx, plan)
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, rep)
	assert.Equal(t, 10, rep.Created)

	rep, err = job.Apply(context.Background(), plan)
	require.NoError(t, err)
	assert.Equal(t, 30, rep.Created+rep.Adopted+rep.Unchanged)
	assert.Equal(t, 10, rep.Unchanged, "done by the first Apply")
	assert.Equal(t, 30, count(srv, "POST", "/projects"), "no write sent twice")
	assert.Len(t, projectsOf(t, c, ws), 30)

	rep, err = job.Apply(context.Background(), plan)
	require.NoError(t, err)
	assert.Equal(t, bulk.Report{Unchanged: 30}, *rep, "a plan applied again sends nothing")
	assert.Equal(t, 30, count(srv, "POST", "/projects"))
}
