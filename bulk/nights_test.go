package bulk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/bulk"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// night is one run of a nightly job: what changed by hand during the day
// before it, what it wants, and the plan it should make.
type night struct {
	byHand func(t *testing.T, srv *seoapitest.Server, ws string)
	want   []seoapi.ProjectCreateRequest
	ops    map[bulk.Op]int
}

// TestNightsOnOneJournal runs a nightly job three times with one journal
// kept across the nights: each night converges to what that night wants,
// whatever was changed by hand during the day.
func TestNightsOnOneJournal(t *testing.T) {
	t.Parallel()
	shop := seoapi.ProjectCreateRequest{Name: "Shop", Domain: "shop.example"}
	blog := seoapi.ProjectCreateRequest{Name: "Blog", Domain: "blog.example"}
	named := func(name string) []seoapi.ProjectCreateRequest {
		return []seoapi.ProjectCreateRequest{{Name: name, Domain: "shop.example"}, blog}
	}
	cases := []struct {
		name  string
		prune bool
		// apart is how long before a night the one before it ran; the
		// list lags behind writes by lag, and the job's settle time is
		// twice that.
		apart, lag time.Duration
		nights     []night
	}{
		{name: "create, delete by hand, want again", apart: 24 * time.Hour, nights: []night{
			{want: []seoapi.ProjectCreateRequest{shop, blog}, ops: map[bulk.Op]int{bulk.OpCreate: 2}},
			{byHand: deleteProject("shop.example"), want: []seoapi.ProjectCreateRequest{shop, blog}, ops: map[bulk.Op]int{bulk.OpCreate: 1, bulk.OpNone: 1}},
			{want: []seoapi.ProjectCreateRequest{shop, blog}, ops: map[bulk.Op]int{bulk.OpNone: 2}},
		}},
		{name: "rename twice", apart: 24 * time.Hour, nights: []night{
			{want: named("Shop"), ops: map[bulk.Op]int{bulk.OpCreate: 2}},
			{want: named("Shop EU"), ops: map[bulk.Op]int{bulk.OpUpdate: 1, bulk.OpNone: 1}},
			{want: named("Shop"), ops: map[bulk.Op]int{bulk.OpUpdate: 1, bulk.OpNone: 1}},
		}},
		{name: "a duplicate deleted, another added by hand", prune: true, apart: 24 * time.Hour, nights: []night{
			{byHand: addProjects(shop, seoapi.ProjectCreateRequest{Name: "Shop", Domain: "Shop.example"}), want: []seoapi.ProjectCreateRequest{shop, blog},
				ops: map[bulk.Op]int{bulk.OpNone: 1, bulk.OpCreate: 1, bulk.OpDelete: 1}},
			{byHand: addProjects(shop), want: []seoapi.ProjectCreateRequest{shop, blog}, ops: map[bulk.Op]int{bulk.OpDelete: 1, bulk.OpNone: 2}},
			{byHand: addProjects(shop), want: []seoapi.ProjectCreateRequest{shop, blog}, ops: map[bulk.Op]int{bulk.OpDelete: 1, bulk.OpNone: 2}},
		}},
		{name: "a list that lags behind the run just before", apart: 0, lag: 300 * time.Millisecond, nights: []night{
			{want: []seoapi.ProjectCreateRequest{shop, blog}, ops: map[bulk.Op]int{bulk.OpCreate: 2}},
			{want: []seoapi.ProjectCreateRequest{shop, blog}, ops: map[bulk.Op]int{bulk.OpNone: 2}},
			{want: named("Shop EU"), ops: map[bulk.Op]int{bulk.OpUpdate: 1, bulk.OpNone: 1}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, ws := fakeAPI(t)
			srv.SetListLag(tc.lag)
			c := fastClient(t, srv)
			j := &memJournal{}
			var opts []bulk.PlanOption
			if tc.prune {
				opts = append(opts, bulk.Prune())
			}
			for i, n := range tc.nights {
				j.age(tc.apart)
				if n.byHand != nil {
					n.byHand(t, srv, ws)
				}
				// A new process each night, with the journal of the nights before.
				job := bulk.New(c, j, bulk.WithSettle(2*tc.lag))
				plan, err := job.PlanProjects(context.Background(), ws, n.want, opts...)
				require.NoError(t, err)
				assert.Equal(t, n.ops, ops(plan), "night %d: %s", i+1, plan)
				for _, a := range plan.Actions {
					if a.Op != bulk.OpUpdate {
						assert.Empty(t, a.Fields, "night %d: %s %s", i+1, a.Op, a.Key)
					}
				}
				rep, err := job.Apply(context.Background(), plan)
				require.NoError(t, err)
				assert.Empty(t, rep.Failed, "night %d", i+1)
				assert.ElementsMatch(t, n.want, listed(t, srv, ws, tc.lag), "night %d converged", i+1)
			}
		})
	}
}

// listed returns the projects of ws as wanted items, once a list that
// lags by lag shows them.
func listed(t *testing.T, srv *seoapitest.Server, ws string, lag time.Duration) []seoapi.ProjectCreateRequest {
	t.Helper()
	srv.SetListLag(0)
	defer srv.SetListLag(lag)
	var out []seoapi.ProjectCreateRequest
	for _, p := range projectsOf(t, srv.Client(seoapi.WithoutRateLimit()), ws) {
		out = append(out, seoapi.ProjectCreateRequest{Name: p.Name, Domain: p.Domain})
	}
	return out
}

// deleteProject deletes the project with domain by hand.
func deleteProject(domain string) func(t *testing.T, srv *seoapitest.Server, ws string) {
	return func(t *testing.T, srv *seoapitest.Server, ws string) {
		c := srv.Client(seoapi.WithoutRateLimit())
		p := projectsOf(t, c, ws)[domain]
		require.NotNil(t, p, domain)
		_, err := c.Projects.Delete(context.Background(), ws, p.ID)
		require.NoError(t, err)
	}
}

// addProjects adds projects by hand.
func addProjects(ps ...seoapi.ProjectCreateRequest) func(t *testing.T, srv *seoapitest.Server, ws string) {
	return func(_ *testing.T, srv *seoapitest.Server, ws string) {
		for _, p := range ps {
			srv.AddProject(ws, p.Name, p.Domain)
		}
	}
}

// nightNameEnv tells the nightly child process which names it wants.
const nightNameEnv = "BULK_NIGHT_NAME"

// TestNightKilledMidApplyIsFinishedByTheNext: a nightly job in a child
// process, with one journal file kept across nights. The first night
// creates 40 projects; ten are deleted by hand during the day; the second
// night wants them back and every project renamed, and is killed
// (SIGKILL) just after the fake made one of its creates; the next run,
// started at once, finishes the night: 40 projects, each once, each
// renamed, and no create sent twice.
func TestNightKilledMidApplyIsFinishedByTheNext(t *testing.T) {
	if os.Getenv(crashChildEnv) != "" {
		os.Exit(nightChild())
	}
	t.Parallel()
	fake := seoapitest.New()
	fake.SetLimits(seoapitest.Limits{})
	ws := fake.AddWorkspace("Nightly")
	direct := httptest.NewServer(fake) // the test's own requests
	defer direct.Close()
	c, err := seoapi.NewClient(direct.URL, fake.Key(), seoapi.WithoutRateLimit())
	require.NoError(t, err)
	addr := crashAddr(t, rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano()))))
	k := &killer{fake: fake}
	journal := filepath.Join(t.TempDir(), "nightly.journal")
	env := func(name string) []string {
		return append(os.Environ(), crashChildEnv+"=1", crashURLEnv+"=http://"+addr, crashKeyEnv+"="+fake.Key(),
			crashWSEnv+"="+ws, crashFileEnv+"="+journal, nightNameEnv+"="+name)
	}

	require.False(t, runChild(t, k, addr, env("Site"), 0, false), "the first night runs to its end")
	ageFile(t, journal, 24*time.Hour)
	for i := range 10 {
		p := projectsOf(t, c, ws)[fmt.Sprintf("site-%d.example", i)]
		_, err := c.Projects.Delete(context.Background(), ws, p.ID)
		require.NoError(t, err)
	}
	// The second night reads the list, then creates the ten again: its
	// sixth request is its fifth create, made, and its answer lost.
	require.True(t, runChild(t, k, addr, env("Renamed"), 6, true), "the second night is killed")
	require.False(t, runChild(t, k, addr, env("Renamed"), 0, false), "the next run finishes it")

	have := projectsOf(t, c, ws)
	require.Len(t, have, 40)
	for i := range 40 {
		p := have[fmt.Sprintf("site-%d.example", i)]
		require.NotNil(t, p, i)
		assert.Equal(t, fmt.Sprintf("Renamed %d", i), p.Name)
	}
	posts := 0
	for _, r := range fake.Requests() {
		if r.Method == "POST" {
			posts++
		}
	}
	assert.Equal(t, 40+10, posts, "no create sent twice")
}

// nightChild is the nightly job as a program runs it: the projects
// site-0.example ... site-39.example named as nightNameEnv says.
func nightChild() int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := seoapi.NewClient(os.Getenv(crashURLEnv), os.Getenv(crashKeyEnv),
		seoapi.WithRateLimit(1_000_000, 10_000), seoapi.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		return 2
	}
	j, err := bulk.OpenFile(os.Getenv(crashFileEnv))
	if err != nil {
		return 2
	}
	defer j.Close()
	want := wantProjects(40)
	for i := range want {
		want[i].Name = fmt.Sprintf("%s %d", os.Getenv(nightNameEnv), i)
	}
	job := bulk.New(c, j, bulk.WithConcurrency(crashConcurrency), bulk.WithSettle(50*time.Millisecond))
	plan, err := job.PlanProjects(ctx, os.Getenv(crashWSEnv), want)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 3
	}
	if err := applied(job.Apply(ctx, plan)); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 3
	}
	return 0
}

// ageFile moves every record of the journal file at path d into the
// past, as if the runs that wrote it had run d earlier.
func ageFile(t *testing.T, path string, d time.Duration) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out bytes.Buffer
	for line := range bytes.Lines(data) {
		var r bulk.Record
		require.NoError(t, json.Unmarshal(line, &r))
		r.Time = r.Time.Add(-d)
		b, err := json.Marshal(r)
		require.NoError(t, err)
		out.Write(append(b, '\n'))
	}
	require.NoError(t, os.WriteFile(path, out.Bytes(), 0o600))
}
