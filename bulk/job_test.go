package bulk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/bulk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlanAndApplyProjects(t *testing.T) {
	t.Parallel()
	srv, ws := fakeAPI(t)
	srv.AddProject(ws, "A", "a.example")
	bID := srv.AddProject(ws, "Old name", "B.example")
	strayID := srv.AddProject(ws, "Stray", "stray.example")
	c := fastClient(t, srv)
	ctx := context.Background()
	job := bulk.New(c, &memJournal{})

	want := []seoapi.ProjectCreateRequest{
		{Name: "A", Domain: "a.example"},
		{Name: "B", Domain: "b.example"},
		{Name: "C", Domain: "c.example"},
		{Name: "Notes"},
	}
	plan, err := job.PlanProjects(ctx, ws, want, bulk.Prune())
	require.NoError(t, err)
	require.Len(t, plan.Actions, 5)
	got := make([]string, len(plan.Actions))
	for i, a := range plan.Actions {
		got[i] = a.Op.String() + " " + a.Key
	}
	assert.Equal(t, []string{"none a.example", "update b.example", "create c.example", "create name:Notes", "delete stray.example"}, got)
	assert.Equal(t, []string{"name"}, plan.Actions[1].Fields, "only the field that differs; the domain's case is no difference")
	assert.Equal(t, bID, plan.Actions[1].ID)
	assert.Equal(t, 4, plan.Requests)
	assert.Equal(t, 1, count(srv, "GET", "/projects"), "planning reads the list once")

	rep, err := job.Apply(ctx, plan)
	require.NoError(t, err)
	assert.Equal(t, bulk.Report{Created: 2, Updated: 1, Deleted: 1, Unchanged: 1}, *rep)

	reqs := srv.Requests()[1:]
	require.Len(t, reqs, 4, "exactly the plan's requests")
	base := "/api/workspaces/" + ws + "/projects"
	var posts []string
	for _, r := range reqs {
		switch r.Method {
		case "PATCH":
			assert.Equal(t, base+"/"+bID, r.Path)
			assert.JSONEq(t, `{"name":"B"}`, string(r.Body), "only the field that differs")
		case "DELETE":
			assert.Equal(t, base+"/"+strayID, r.Path)
		case "POST":
			assert.Equal(t, base, r.Path)
			posts = append(posts, string(r.Body))
		}
	}
	assert.ElementsMatch(t, []string{`{"name":"C","domain":"c.example"}`, `{"name":"Notes"}`}, posts)
	have := projectsOf(t, c, ws)
	assert.Len(t, have, 4)
	for _, w := range want {
		p := have[bulk.ProjectKey(w.Name, w.Domain)]
		require.NotNil(t, p, w)
		assert.Equal(t, w.Name, p.Name)
	}

	again, err := job.PlanProjects(ctx, ws, want, bulk.Prune())
	require.NoError(t, err)
	assert.Equal(t, map[bulk.Op]int{bulk.OpNone: 4}, ops(again))
	assert.Zero(t, again.Requests)
}

func TestPlanRefusesBeforeSending(t *testing.T) {
	t.Parallel()
	srv, ws := fakeAPI(t)
	job := bulk.New(fastClient(t, srv), &memJournal{})
	ctx := context.Background()
	cases := []struct {
		name string
		plan func() (*bulk.Plan, error)
	}{
		{"two projects with one domain", func() (*bulk.Plan, error) {
			return job.PlanProjects(ctx, ws, []seoapi.ProjectCreateRequest{{Name: "A", Domain: "x.example"}, {Name: "B", Domain: "X.example"}})
		}},
		{"a project with neither name nor domain", func() (*bulk.Plan, error) {
			return job.PlanProjects(ctx, ws, []seoapi.ProjectCreateRequest{{}})
		}},
		{"no workspace", func() (*bulk.Plan, error) { return job.PlanProjects(ctx, "", nil) }},
		{"members with Prune", func() (*bulk.Plan, error) { return job.PlanMembers(ctx, ws, wantMembers(1), bulk.Prune()) }},
		{"workspaces with Prune", func() (*bulk.Plan, error) {
			return job.PlanWorkspaces(ctx, []seoapi.WorkspaceCreateRequest{{Name: "W"}}, bulk.Prune())
		}},
		{"two members with one email", func() (*bulk.Plan, error) {
			return job.PlanMembers(ctx, ws, []seoapi.MemberAddRequest{{Email: "a@x.example"}, {Email: "A@x.example"}})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.plan()
			assert.Nil(t, p)
			assert.ErrorIs(t, err, seoapi.ErrInvalidArgument)
		})
	}
	assert.Empty(t, srv.Requests(), "nothing sent")

	_, err := bulk.New(nil, &memJournal{}).PlanWorkspaces(ctx, nil)
	assert.ErrorIs(t, err, seoapi.ErrInvalidArgument)
	other, err := bulk.New(fastClient(t, srv), &memJournal{}).PlanWorkspaces(ctx, nil)
	require.NoError(t, err)
	_, err = job.Apply(ctx, other)
	assert.ErrorIs(t, err, seoapi.ErrInvalidArgument, "a plan is applied by the Job that made it")
}

func TestMembersAndWorkspaces(t *testing.T) {
	t.Parallel()
	srv, ws := fakeAPI(t)
	srv.AddMember(ws, "Ann@Example.com", "owner")
	// The published limits, so that the plan's ETA is known.
	c := srv.Client()
	ctx := context.Background()
	job := bulk.New(c, &memJournal{})

	mp, err := job.PlanMembers(ctx, ws, []seoapi.MemberAddRequest{{Email: "ann@example.com", Role: "editor"}, {Email: "bob@example.com", Role: "editor"}})
	require.NoError(t, err)
	assert.Equal(t, map[bulk.Op]int{bulk.OpNone: 1, bulk.OpCreate: 1}, ops(mp), "an existing member is left as is, whatever its role")
	rep, err := job.Apply(ctx, mp)
	require.NoError(t, err)
	assert.Equal(t, bulk.Report{Created: 1, Unchanged: 1}, *rep)
	assert.Len(t, membersOf(t, c, ws), 2)

	wp, err := job.PlanWorkspaces(ctx, []seoapi.WorkspaceCreateRequest{{Name: "Acme"}, {Name: "Beta"}})
	require.NoError(t, err)
	assert.Equal(t, "workspace: 1 create, 0 update, 0 delete, 1 none; 1 requests, ETA 20ms", wp.String())
	rep, err = job.Apply(ctx, wp)
	require.NoError(t, err)
	assert.Equal(t, bulk.Report{Created: 1, Unchanged: 1}, *rep)
	var names []string
	for w, err := range c.Workspaces.All(ctx, nil) {
		require.NoError(t, err)
		names = append(names, w.Name)
	}
	assert.Equal(t, []string{"Acme", "Beta"}, names)
}

func TestJournalRecordsEachWriteBeforeAndAfter(t *testing.T) {
	t.Parallel()
	srv, ws := fakeAPI(t)
	j := &memJournal{}
	job := bulk.New(fastClient(t, srv), j)
	ctx := context.Background()
	plan, err := job.PlanProjects(ctx, ws, wantProjects(1))
	require.NoError(t, err)
	_, err = job.Apply(ctx, plan)
	require.NoError(t, err)

	recs := j.records()
	require.Len(t, recs, 5)
	assert.Equal(t, bulk.StateRead, recs[0].State)
	assert.Equal(t, 1, recs[0].Page)
	assert.NotEmpty(t, recs[0].Next, "the only page: its Next resumes to the end")
	assert.Equal(t, bulk.StateRead, recs[1].State)
	assert.Empty(t, recs[1].Next, "the read is over")
	for i, st := range []bulk.State{bulk.StateIntended, bulk.StateDone} {
		r := recs[i+2]
		assert.Equal(t, st, r.State)
		assert.Equal(t, bulk.OpCreate, r.Op)
		assert.Equal(t, "project", r.Resource)
		assert.Equal(t, ws, r.Parent)
		assert.Equal(t, "site-0.example", r.Key)
		assert.False(t, r.Time.IsZero())
	}
	assert.Empty(t, recs[2].ID)
	assert.NotEmpty(t, recs[3].ID)
	assert.Equal(t, "Site 0", recs[3].Name, "the values the write set")
	assert.Equal(t, bulk.Record{Time: recs[4].Time, Resource: "project", Parent: ws, State: bulk.StateApplied}, recs[4], "the Apply ran to its end")
	line, err := json.Marshal(recs[3])
	require.NoError(t, err)
	assert.Contains(t, string(line), `"op":"create","state":"done"`)
	assert.NotContains(t, string(line), srv.Key())
}

func TestPlanString(t *testing.T) {
	t.Parallel()
	var nilPlan *bulk.Plan
	assert.Equal(t, "<nil plan>", nilPlan.String())
	assert.Equal(t, "0 create, 0 update, 0 delete, 0 none; 0 requests, ETA 0s", (&bulk.Plan{}).String())
	p := &bulk.Plan{Actions: []bulk.Action{{Op: bulk.OpCreate}, {Op: bulk.OpNone}, {Op: bulk.OpNone, Prior: bulk.StateUnknown}}, Requests: 1, ETA: 20 * time.Millisecond}
	assert.Equal(t, "1 create, 0 update, 0 delete, 2 none (1 adopted); 1 requests, ETA 20ms", p.String())
}

func TestProjectKey(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, domain, want string }{
		{"Shop", "Shop.Example ", "shop.example"},
		{"shop", "", "name:shop"},
		{"Shop", "name:shop", "domain:name:shop"},
		{"Shop", "Domain:name:shop", "domain:domain:name:shop"},
		{"", "", "name:"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, bulk.ProjectKey(tc.name, tc.domain), "%q %q", tc.name, tc.domain)
	}
}

// TestADomainLikeANameKey: a project whose domain reads like the key of a
// project without a domain is not that project.
func TestADomainLikeANameKey(t *testing.T) {
	t.Parallel()
	srv, ws := fakeAPI(t)
	srv.AddProject(ws, "Other", "name:shop")
	job := bulk.New(fastClient(t, srv), &memJournal{})
	plan, err := job.PlanProjects(context.Background(), ws, []seoapi.ProjectCreateRequest{{Name: "shop"}, {Name: "Other", Domain: "name:shop"}})
	require.NoError(t, err)
	require.Len(t, plan.Actions, 2)
	assert.Equal(t, bulk.OpCreate, plan.Actions[0].Op, "a project without a domain matches only one without a domain")
	assert.Equal(t, bulk.OpNone, plan.Actions[1].Op)
}

// TestApplySaysWhenThePlanOutlastsItsContext: a plan whose requests take
// longer on the client's budget than Apply's context allows fails before
// anything is sent; one that fits is applied.
func TestApplySaysWhenThePlanOutlastsItsContext(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		limits  seoapi.Option
		refused bool
	}{
		{"ten requests an hour: 20 writes take two hours", seoapi.WithRateLimit(10, 10), true},
		{"the published limits: 20 writes take 400ms", seoapi.WithRateLimit(seoapi.DefaultRequestsPerHour, seoapi.DefaultRequestsPerSecond), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, ws := fakeAPI(t)
			j := &memJournal{}
			job := bulk.New(srv.Client(tc.limits), j)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			plan, err := job.PlanProjects(ctx, ws, wantProjects(20))
			require.NoError(t, err)
			reads := len(srv.Requests())
			rep, err := job.Apply(ctx, plan)
			if !tc.refused {
				require.NoError(t, err)
				assert.Equal(t, 20, rep.Created)
				return
			}
			require.ErrorIs(t, err, seoapi.ErrInvalidArgument)
			assert.Contains(t, err.Error(), "20 requests take 2h0m0s")
			assert.Contains(t, err.Error(), "nothing was sent")
			assert.Len(t, srv.Requests(), reads, "nothing sent")
			assert.Empty(t, lastWrite(j.records()).Key, "nothing recorded")
		})
	}
}

// TestApplyWaitsForItsSlots: a client made for a service refuses waits
// over 100ms, but Apply's writes wait for their slots (here 1-2s at five
// requests a second) within Apply's context, so all of them are sent.
func TestApplyWaitsForItsSlots(t *testing.T) {
	t.Parallel()
	srv, ws := fakeAPI(t)
	client := srv.Client(seoapi.WithRateLimit(seoapi.DefaultRequestsPerHour, 5), seoapi.WithMaxWait(100*time.Millisecond))
	job := bulk.New(client, &memJournal{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	plan, err := job.PlanProjects(ctx, ws, wantProjects(12))
	require.NoError(t, err)
	rep, err := job.Apply(ctx, plan)
	require.NoError(t, err)
	assert.Empty(t, rep.Failed)
	assert.Equal(t, 12, rep.Created)
	assert.Equal(t, 12, count(srv, http.MethodPost, "/projects"))
}
