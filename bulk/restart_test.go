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

// TestRestartRules starts a job on a journal earlier runs left: each
// item's last record decides what happens to it.
func TestRestartRules(t *testing.T) {
	t.Parallel()
	srv, ws := fakeAPI(t)
	adoptID := srv.AddProject(ws, "Adopt", "adopt.example")
	renamedID := srv.AddProject(ws, "First", "renamed.example")
	earlier := time.Now().Add(-time.Minute)
	rec := func(key, name string, st bulk.State, id, kind string) bulk.Record {
		return bulk.Record{Time: earlier, Resource: "project", Parent: ws, Key: key, Name: name, Domain: key, Op: bulk.OpCreate, State: st, ID: id, Err: kind}
	}
	j := &memJournal{recs: []bulk.Record{
		{Time: earlier.Add(-time.Hour), Resource: "project", Parent: ws, Key: "retried.example", Name: "Retried", Domain: "retried.example",
			Op: bulk.OpCreate, State: bulk.StateFailed, Err: "validation"},
		{Time: earlier.Add(-time.Hour), Resource: "project", Parent: ws, State: bulk.StateApplied}, // the run above ran to its end
		rec("deleted.example", "Deleted", bulk.StateIntended, "", ""),
		rec("deleted.example", "Deleted", bulk.StateDone, "proj_deleted", ""),
		rec("renamed.example", "First", bulk.StateDone, renamedID, ""),
		rec("invalid.example", "Invalid", bulk.StateFailed, "", "validation"),
		rec("fixed.example", "Fixed?", bulk.StateFailed, "", "validation"),
		rec("busy.example", "Busy", bulk.StateFailed, "", "server"),
		rec("adopt.example", "Adopt", bulk.StateIntended, "", ""),
		rec("lost.example", "Lost", bulk.StateUnknown, "", "connection"),
		rec("lost.example", "Lost", bulk.StateIntended, "", ""),
	}}
	want := []seoapi.ProjectCreateRequest{
		{Name: "Retried", Domain: "retried.example"},
		{Name: "Deleted", Domain: "deleted.example"},
		{Name: "Second", Domain: "renamed.example"},
		{Name: "Invalid", Domain: "invalid.example"},
		{Name: "Fixed", Domain: "fixed.example"},
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
		if a.Op != bulk.OpUpdate {
			assert.Empty(t, a.Fields, "only an update has fields")
		}
	}
	assert.Equal(t, map[string]row{
		"retried.example": {bulk.OpCreate, bulk.StateFailed, ""},      // failed in a run that ended: tried again
		"deleted.example": {bulk.OpCreate, bulk.StateDone, ""},        // done long ago, not listed: deleted since
		"renamed.example": {bulk.OpUpdate, bulk.StateDone, renamedID}, // done with other values: another run's
		"invalid.example": {bulk.OpCreate, bulk.StateFailed, ""},      // reported, not sent
		"fixed.example":   {bulk.OpCreate, bulk.StateFailed, ""},      // the values that failed were others
		"busy.example":    {bulk.OpCreate, bulk.StateFailed, ""},      // a retry can help
		"adopt.example":   {bulk.OpNone, bulk.StateIntended, adoptID}, // found: adopted
		"lost.example":    {bulk.OpCreate, bulk.StateIntended, ""},    // absent: look again, then create
	}, got)
	assert.Equal(t, 7, plan.Requests, "five creates, an update and one more read of the list")
	assert.Contains(t, plan.String(), "(1 adopted), 1 failed earlier and not retried")

	rep, err := job.Apply(ctx, plan)
	require.NoError(t, err)
	require.Len(t, rep.Failed, 1)
	assert.Equal(t, "invalid.example", rep.Failed[0].Key)
	assert.ErrorIs(t, rep.Failed[0].Err, seoapi.ErrValidation)
	rep.Failed = nil
	assert.Equal(t, bulk.Report{Created: 5, Updated: 1, Adopted: 1}, *rep)
	assert.Equal(t, 2, count(srv, "GET", "/projects"), "one read to plan, one to settle")
	assert.Equal(t, 5, count(srv, "POST", "/projects"))
	have := projectsOf(t, fastClient(t, srv), ws)
	for _, key := range []string{"retried.example", "deleted.example", "fixed.example", "busy.example", "lost.example"} {
		assert.Contains(t, have, key)
	}
	assert.Equal(t, "Second", have["renamed.example"].Name)
	assert.NotContains(t, have, "invalid.example")

	last := j.records()[len(j.records())-1]
	assert.Equal(t, bulk.StateApplied, last.State, "the Apply ran to its end")
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
	assert.Equal(t, p.ID, lastWrite(j.records()).ID)
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
// returns the context's error; applying the same plan again, or a new
// plan in a new process, finishes the job without sending any write
// twice. The items the first Apply made count as Resumed, and the
// progress counts only the writes left.
func TestApplyAgainAfterAnInterruption(t *testing.T) {
	t.Parallel()
	type restart func(t *testing.T, first *bulk.Job, plan *bulk.Plan, newJob func() *bulk.Job, ws string) (*bulk.Job, *bulk.Plan)
	cases := []struct {
		name  string
		again restart
	}{
		{"the same plan", func(_ *testing.T, first *bulk.Job, plan *bulk.Plan, _ func() *bulk.Job, _ string) (*bulk.Job, *bulk.Plan) {
			return first, plan
		}},
		{"a new plan in a new process", func(t *testing.T, _ *bulk.Job, _ *bulk.Plan, newJob func() *bulk.Job, ws string) (*bulk.Job, *bulk.Plan) {
			job := newJob()
			plan, err := job.PlanProjects(context.Background(), ws, wantProjects(30))
			require.NoError(t, err)
			assert.Equal(t, map[bulk.Op]int{bulk.OpCreate: 20, bulk.OpNone: 10}, ops(plan))
			return job, plan
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, ws := fakeAPI(t)
			c := fastClient(t, srv)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			j := &cancelJournal{n: 2 + 2*10, cancel: cancel} // the read's two records, ten writes
			var progress []bulk.Progress
			newJob := func() *bulk.Job {
				return bulk.New(c, j, bulk.WithConcurrency(1), bulk.WithSettle(time.Millisecond),
					bulk.WithProgress(func(p bulk.Progress) { progress = append(progress, p) }))
			}
			job := newJob()
			plan, err := job.PlanProjects(ctx, ws, wantProjects(30))
			require.NoError(t, err)
			rep, err := job.Apply(ctx, plan)
			require.ErrorIs(t, err, context.Canceled)
			require.NotNil(t, rep)
			assert.Equal(t, 10, rep.Created)

			job, plan = tc.again(t, job, plan, newJob, ws)
			progress = nil
			rep, err = job.Apply(context.Background(), plan)
			require.NoError(t, err)
			assert.Equal(t, bulk.Report{Created: 20, Resumed: 10}, *rep, "the first Apply made ten")
			assert.Equal(t, 30, count(srv, "POST", "/projects"), "no write sent twice")
			assert.Len(t, projectsOf(t, c, ws), 30)
			require.NotEmpty(t, progress)
			assert.Equal(t, 20, progress[0].Total, "the writes left")
			last := progress[len(progress)-1]
			assert.Equal(t, []int{20, 20, 0, 20}, []int{last.Done, last.Total, last.Failed, last.Requests})

			rep, err = job.Apply(context.Background(), plan)
			require.NoError(t, err)
			assert.Equal(t, bulk.Report{Unchanged: 30}, *rep, "a plan applied again sends nothing; the run ran to its end")
			assert.Equal(t, 30, count(srv, "POST", "/projects"))
		})
	}
}
