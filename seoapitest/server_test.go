package seoapitest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fast are client options for tests that inject faults: short retry waits
// and no client-side limiter, so that the fake's answers are what is tested.
func fast() []seoapi.Option {
	return []seoapi.Option{seoapi.WithRetryWait(time.Millisecond, 5*time.Millisecond), seoapi.WithoutRateLimit()}
}

// answer is one raw exchange with the fake.
type answer struct {
	status int
	header http.Header
	body   string
}

// send makes one raw request, so that tests see exactly what the fake
// answers, not what the SDK makes of it.
func send(t *testing.T, base, key, method, path, body string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

func TestNewServerStartsOnLoopbackWithAFreshAccount(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	assert.True(t, strings.HasPrefix(srv.URL(), "http://127.0.0.1:"), srv.URL())
	assert.True(t, strings.HasPrefix(srv.Key(), "sk_"))

	list, resp, err := srv.Client().Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, list, "a fresh account has no workspaces")
	assert.Equal(t, 10000, resp.Rate.Limit, "the published limits are on")
	assert.Equal(t, 9999, resp.Rate.Remaining)
	assert.Equal(t, "req_1", resp.RequestID)
}

func TestNewIsAHandlerForYourOwnListener(t *testing.T) {
	t.Parallel()
	fake := seoapitest.New()
	assert.Empty(t, fake.URL(), "not started")
	assert.PanicsWithValue(t, "seoapitest: Client needs a Server from NewServer; serve one from New yourself and call seoapi.NewClient", func() { fake.Client() })
	ts := httptest.NewServer(fake)
	defer ts.Close()
	ws := fake.AddWorkspace("Acme")

	c, err := seoapi.NewClient(ts.URL, fake.Key())
	require.NoError(t, err)
	list, _, err := c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, ws, list[0].ID)
	assert.Equal(t, "Acme", list[0].Name)
}

func TestClientPassesOptions(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	_, _, err := srv.Client(seoapi.WithUserAgent("my-tool/1.0")).Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.True(t, strings.HasPrefix(reqs[0].Header.Get("User-Agent"), "my-tool/1.0"), reqs[0].Header.Get("User-Agent"))
}

func TestSetKeyFixesTheKey(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	old := srv.Key()
	srv.SetKey("sk_test_fixed")
	assert.Equal(t, "sk_test_fixed", srv.Key())
	assert.Equal(t, 200, send(t, srv.URL(), "sk_test_fixed", "GET", "/api/workspaces", "").status)
	assert.Equal(t, 401, send(t, srv.URL(), old, "GET", "/api/workspaces", "").status, "the old key is gone")
	assert.PanicsWithValue(t, "seoapitest: SetKey: the key is blank", func() { srv.SetKey(" ") })
	other, _ := srv.IssueKey(seoapitest.PlanEnterprise)
	assert.Panics(t, func() { srv.SetKey(other) })
}

// TestAllTwelveEndpoints seeds every kind of record and reads each back
// through the SDK.
func TestAllTwelveEndpoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := seoapitest.NewServer(t)
	ws := srv.AddWorkspace("Acme")
	p := srv.AddProject(ws, "Shop", "shop.example")
	m := srv.AddMember(ws, "ana@acme.example", "admin")
	cp := srv.AddContentPlan(ws, p, "Q3", "active")
	loose := srv.AddContentPlan(ws, "", "Unattached", "draft")
	comp := srv.AddCompetitor(ws, p, "Rival", "rival.example")
	c := srv.Client()

	wss, _, err := c.Workspaces.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, wss, 1)
	assert.Equal(t, ws, wss[0].ID)
	created, _, err := c.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Beta"})
	require.NoError(t, err)
	assert.Equal(t, "Beta", created.Name)

	ps, _, err := c.Projects.List(ctx, ws, nil)
	require.NoError(t, err)
	require.Len(t, ps, 1)
	assert.Equal(t, []string{p, "Shop", "shop.example", ws}, []string{ps[0].ID, ps[0].Name, ps[0].Domain, ps[0].WorkspaceID})
	p2, _, err := c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: "Blog", Domain: "blog.example"})
	require.NoError(t, err)
	up, _, err := c.Projects.Update(ctx, ws, p2.ID, &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("Blog EU")})
	require.NoError(t, err)
	assert.Equal(t, "Blog EU", up.Name)
	assert.Equal(t, "blog.example", up.Domain, "a PATCH changes only what it sends")
	_, err = c.Projects.Delete(ctx, ws, p2.ID)
	require.NoError(t, err)
	_, _, err = c.Projects.Update(ctx, ws, p2.ID, &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("gone")})
	require.ErrorIs(t, err, seoapi.ErrNotFound, "deleted")

	plans, _, err := c.ContentPlans.List(ctx, ws, nil)
	require.NoError(t, err)
	require.Len(t, plans, 2)
	assert.Equal(t, []string{cp, p, "active"}, []string{plans[0].ID, plans[0].ProjectID, plans[0].Status})
	assert.Equal(t, []string{loose, "", "draft"}, []string{plans[1].ID, plans[1].ProjectID, plans[1].Status})

	added, _, err := c.Members.Add(ctx, ws, &seoapi.MemberAddRequest{Email: "bo@acme.example"})
	require.NoError(t, err)
	assert.Equal(t, "member", added.Role, "the default role")
	members, _, err := c.Members.List(ctx, ws, nil)
	require.NoError(t, err)
	require.Len(t, members, 2)
	assert.Equal(t, []string{m, "ana@acme.example", "admin"}, []string{members[0].ID, members[0].Email, members[0].Role})

	comps, _, err := c.Competitors.List(ctx, ws, p, nil)
	require.NoError(t, err)
	require.Len(t, comps, 1)
	assert.Equal(t, []string{comp, "Rival", "rival.example"}, []string{comps[0].ID, comps[0].Name, comps[0].Domain})

	key, _, err := c.APIKeys.Create(ctx, ws, &seoapi.APIKeyCreateRequest{Name: "ci"})
	require.NoError(t, err)
	secret := string(key.Key)
	require.True(t, strings.HasPrefix(secret, "sk_"), "the secret is shown on creation")
	keys, _, err := c.APIKeys.List(ctx, ws, nil)
	require.NoError(t, err)
	require.Len(t, keys, 1, "Key() is listed in no workspace")
	assert.Equal(t, key.ID, keys[0].ID)
	assert.Empty(t, string(keys[0].Key), "the secret is shown once")
	assert.NotContains(t, string(keys[0].Raw()), secret)

	// The new key works for the same account.
	c2, err := seoapi.NewClient(srv.URL(), secret)
	require.NoError(t, err)
	wss, _, err = c2.Workspaces.List(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, wss, 2)
}

func TestIssueKeyCreatesAnotherAccount(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	mine := srv.AddWorkspace("Mine")
	key, ws := srv.IssueKey(seoapitest.PlanEnterprise)
	agency, agencyWS := srv.IssueKey(seoapitest.PlanAgency)

	a := send(t, srv.URL(), key, "GET", "/api/workspaces", "")
	require.Equal(t, 200, a.status)
	var list []map[string]any
	require.NoError(t, json.Unmarshal([]byte(a.body), &list))
	require.Len(t, list, 1)
	assert.Equal(t, ws, list[0]["id"])
	assert.Equal(t, "Default workspace", list[0]["name"])
	assert.Contains(t, send(t, srv.URL(), key, "GET", "/api/workspaces/"+ws+"/api-keys", "").body, `"name":"bootstrap"`)
	assert.Equal(t, 404, send(t, srv.URL(), key, "GET", "/api/workspaces/"+mine+"/projects", "").status, "another account's workspace")

	a = send(t, srv.URL(), agency, "GET", "/api/workspaces/"+agencyWS+"/projects", "")
	assert.Equal(t, 403, a.status)
	assert.Contains(t, a.body, `"code":"plan_without_api_access"`)
}

// TestAddPanicsOnUnknownIDs checks that a setup mistake stops the test
// with a message naming what is missing.
func TestAddPanicsOnUnknownIDs(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	ws := srv.AddWorkspace("Acme")
	p := srv.AddProject(ws, "Shop", "")
	srv.AddMember(ws, "ana@acme.example", "")
	tests := []struct {
		name string
		add  func()
		want string
	}{
		{"project, no workspace", func() { srv.AddProject("ws_nope", "x", "") }, `seoapitest: AddProject: no workspace "ws_nope"`},
		{"member, no workspace", func() { srv.AddMember("ws_nope", "a@b.example", "") }, `seoapitest: AddMember: no workspace "ws_nope"`},
		{"plan, no workspace", func() { srv.AddContentPlan("ws_nope", "", "x", "draft") }, `seoapitest: AddContentPlan: no workspace "ws_nope"`},
		{"plan, no project", func() { srv.AddContentPlan(ws, "proj_nope", "x", "draft") }, `seoapitest: AddContentPlan: no project "proj_nope" in workspace "` + ws + `"`},
		{"competitor, no workspace", func() { srv.AddCompetitor("ws_nope", p, "x", "") }, `seoapitest: AddCompetitor: no workspace "ws_nope"`},
		{"competitor, no project", func() { srv.AddCompetitor(ws, "proj_nope", "x", "") }, `seoapitest: AddCompetitor: no project "proj_nope" in workspace "` + ws + `"`},
		{"blank workspace name", func() { srv.AddWorkspace(" ") }, "seoapitest: AddWorkspace: the name is blank"},
		{"blank project name", func() { srv.AddProject(ws, "", "") }, "seoapitest: AddProject: the name is blank"},
		{"member, not an email", func() { srv.AddMember(ws, "ana", "") }, `seoapitest: AddMember: "ana" is not an email address`},
		{"member, twice", func() { srv.AddMember(ws, "ANA@acme.example", "") }, `seoapitest: AddMember: "ANA@acme.example" is already a member of workspace "` + ws + `"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.PanicsWithValue(t, tt.want, tt.add)
		})
	}
}

func TestValidationAndConflicts(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	ws := srv.AddWorkspace("Acme")
	p := srv.AddProject(ws, "Shop", "")
	srv.AddMember(ws, "ana@acme.example", "")
	base := "/api/workspaces/" + ws
	tests := []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", base + "/members", `{"email":"Ana@Acme.example"}`, 409, "already_member"},
		{"POST", base + "/members", `{"email":"not-an-email"}`, 422, "validation_failed"},
		{"POST", base + "/members", `{"email":"bo@acme.example","role":7}`, 422, "validation_failed"},
		{"POST", base + "/projects", `{"domain":"x.example"}`, 422, "validation_failed"},
		{"POST", base + "/projects", `{"name":"  "}`, 422, "validation_failed"},
		{"PATCH", base + "/projects/" + p, `{"name":""}`, 422, "validation_failed"},
		{"POST", "/api/workspaces", `[1,2]`, 400, "invalid_json"},
		{"POST", "/api/workspaces", `{"name":`, 400, "invalid_json"},
		{"POST", "/api/workspaces", ``, 400, "invalid_json"},
		{"PUT", base + "/projects/" + p, `{}`, 405, "method_not_allowed"},
		{"GET", base + "/nothing", ``, 404, "not_found"},
		{"GET", "/api/other", ``, 404, "not_found"},
		{"DELETE", base + "/projects/proj_nope", ``, 404, "not_found"},
		{"GET", base + "/projects?page=0", ``, 400, "invalid_parameter"},
		{"GET", base + "/projects?per_page=x", ``, 400, "invalid_parameter"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path+" "+tt.body, func(t *testing.T) {
			a := send(t, srv.URL(), srv.Key(), tt.method, tt.path, tt.body)
			assert.Equal(t, tt.status, a.status, a.body)
			assert.Contains(t, a.body, `"code":"`+tt.code+`"`)
			assert.Equal(t, "application/json", a.header.Get("Content-Type"))
		})
	}

	req, err := http.NewRequest("POST", srv.URL()+"/api/workspaces", strings.NewReader(`{"name":"x"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.Key())
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 415, resp.StatusCode)

	a := send(t, srv.URL(), "", "GET", "/api/workspaces", "")
	assert.Equal(t, 401, a.status)
	assert.Equal(t, `Bearer realm="api"`, a.header.Get("WWW-Authenticate"))
}

func TestFailNext(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	srv.FailNext(2, 503, http.Header{"Retry-After": {"0"}})

	list, resp, err := srv.Client(fast()...).Workspaces.List(context.Background(), nil)
	require.NoError(t, err, "the SDK retried both 503s")
	assert.Empty(t, list)
	assert.Equal(t, 3, resp.Attempts)

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	for i, want := range []int{503, 503, 200} {
		assert.Equal(t, want, reqs[i].Status, i)
	}

	srv.FailNext(1, 429, http.Header{"Retry-After": {"7"}})
	a := send(t, srv.URL(), "not even a key", "GET", "/api/workspaces", "")
	assert.Equal(t, 429, a.status, "faults come before authentication")
	assert.Equal(t, "7", a.header.Get("Retry-After"))
	assert.Contains(t, a.body, `"code":"injected_fault"`)
	assert.Equal(t, 1, srv.Throttled(), "an injected 429 counts")
}

func TestDropNext(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := seoapitest.NewServer(t)
	ws := srv.AddWorkspace("Acme")
	c := srv.Client(fast()...)

	srv.DropNext(1, false)
	_, _, err := c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: "before"})
	require.Error(t, err, "a POST is not repeated after a dropped connection")
	srv.DropNext(1, true)
	_, _, err = c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: "after"})
	require.Error(t, err)

	ps, _, err := c.Projects.List(ctx, ws, nil)
	require.NoError(t, err)
	require.Len(t, ps, 1, "only the request dropped after it was handled took effect")
	assert.Equal(t, "after", ps[0].Name)

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Zero(t, reqs[0].Status, "dropped: no answer")
	assert.Zero(t, reqs[1].Status)
	assert.Equal(t, 200, reqs[2].Status)

	srv.DropNext(1, false)
	list, _, err := c.Workspaces.List(ctx, nil)
	require.NoError(t, err, "a GET is sent again")
	assert.Len(t, list, 1)
	reqs = srv.Requests()
	require.Len(t, reqs, 5)
	assert.Equal(t, []int{0, 200}, []int{reqs[3].Status, reqs[4].Status})
}

func TestSetDelay(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	c := srv.Client(fast()...)

	srv.SetDelay(time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, _, err := c.Workspaces.List(ctx, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded, "held for an hour, the call ran out of time")

	srv.SetDelay(30 * time.Millisecond)
	start := time.Now()
	_, _, err = c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), 30*time.Millisecond)

	srv.SetDelay(0)
	_, _, err = c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Zero(t, srv.Requests()[0].Status, "the client left during the delay")
}

func TestSetLimits(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	srv.SetLimits(seoapitest.Limits{PerHour: 2})
	for i, want := range []string{"1", "0"} {
		a := send(t, srv.URL(), srv.Key(), "GET", "/api/workspaces", "")
		require.Equal(t, 200, a.status, i)
		assert.Equal(t, "2", a.header.Get("X-RateLimit-Limit"))
		assert.Equal(t, want, a.header.Get("X-RateLimit-Remaining"))
		assert.Equal(t, "3600", a.header.Get("X-RateLimit-Reset"))
	}
	a := send(t, srv.URL(), srv.Key(), "GET", "/api/workspaces", "")
	assert.Equal(t, 429, a.status)
	assert.Equal(t, "3600", a.header.Get("Retry-After"))
	assert.Contains(t, a.body, `"code":"rate_limited"`)
	assert.Equal(t, 1, srv.Throttled())

	other, _ := srv.IssueKey(seoapitest.PlanEnterprise)
	assert.Equal(t, 200, send(t, srv.URL(), other, "GET", "/api/workspaces", "").status, "each key has its own windows")

	srv.SetLimits(seoapitest.Limits{})
	for range 120 { // more than the published 50 a second
		a := send(t, srv.URL(), srv.Key(), "GET", "/api/workspaces", "")
		require.Equal(t, 200, a.status)
		require.Empty(t, a.header.Get("X-RateLimit-Limit"), "no limits, no headers")
	}
	assert.Equal(t, 1, srv.Throttled())
	assert.Equal(t, seoapitest.Limits{PerSecond: 50, PerHour: 10000}, seoapitest.PublishedLimits())
}

func TestSetPaging(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	ws := srv.AddWorkspace("Acme")
	p := srv.AddProject(ws, "Shop", "")
	for i := range 5 {
		srv.AddCompetitor(ws, p, fmt.Sprintf("c%d", i), "")
	}
	path := "/api/workspaces/" + ws + "/projects/" + p + "/competitors"
	tests := []struct {
		name  string
		style seoapitest.Paging
		first string // what the first page of two holds, as a body fragment
		check func(t *testing.T, a answer)
	}{
		{"link", seoapitest.PagingLink, `[{"id"`, func(t *testing.T, a answer) {
			assert.Contains(t, a.header.Get("Link"), `page=2&per_page=2>; rel="next"`)
			assert.Contains(t, a.header.Get("Link"), `page=3&per_page=2>; rel="last"`)
		}},
		{"page", seoapitest.PagingPage, `"meta":{"page":1,"per_page":2,"total":5,"total_pages":3}`, nil},
		{"cursor", seoapitest.PagingCursor, `"has_more":true`, func(t *testing.T, a answer) {
			assert.Contains(t, a.body, `"next_cursor":"`)
		}},
		{"none", seoapitest.PagingNone, `"c4"`, nil},
	}
	for _, tt := range tests {
		// Not parallel: the paging style is the server's.
		t.Run(tt.name, func(t *testing.T) {
			srv.SetPaging(tt.style, 2)
			a := send(t, srv.URL(), srv.Key(), "GET", path, "")
			require.Equal(t, 200, a.status)
			assert.Contains(t, a.body, tt.first)
			if tt.check != nil {
				tt.check(t, a)
			}
			n := 0
			for c, err := range srv.Client().Competitors.All(context.Background(), ws, p, nil) {
				require.NoError(t, err)
				assert.Equal(t, fmt.Sprintf("c%d", n), c.Name)
				n++
			}
			assert.Equal(t, 5, n, "All reads every page")
		})
	}
	srv.SetPaging(seoapitest.PagingPage, 0)
	a := send(t, srv.URL(), srv.Key(), "GET", path+"?per_page=1000&page=9223372036854775807", "")
	assert.Equal(t, 200, a.status, "a page far past the end is empty")
	assert.Contains(t, a.body, `"data":[]`)
	assert.Contains(t, a.body, fmt.Sprintf(`"per_page":%d`, seoapitest.MaxPageSize))
}

func TestRequestsRecordsWhatArrivedWithoutTheKey(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	ws := srv.AddWorkspace("Acme")
	c := srv.Client()
	_, _, err := c.Projects.Create(context.Background(), ws, &seoapi.ProjectCreateRequest{Name: "Shop", Domain: "shop.example"})
	require.NoError(t, err)
	_, _, err = c.Projects.List(context.Background(), ws, &seoapi.ListOptions{PerPage: 10})
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "POST", reqs[0].Method)
	assert.Equal(t, "/api/workspaces/"+ws+"/projects", reqs[0].Path)
	assert.JSONEq(t, `{"name":"Shop","domain":"shop.example"}`, string(reqs[0].Body))
	assert.Equal(t, 201, reqs[0].Status)
	assert.Equal(t, "Bearer [REDACTED]", reqs[0].Header.Get("Authorization"))
	assert.Equal(t, "application/json", reqs[0].Header.Get("Content-Type"))
	assert.False(t, reqs[0].At.IsZero())
	assert.Equal(t, "GET", reqs[1].Method)
	assert.Equal(t, "10", reqs[1].Query.Get("per_page"))
	assert.Empty(t, reqs[1].Body)
	assert.Equal(t, 200, reqs[1].Status)
	assert.NotContains(t, fmt.Sprintf("%+v %#v", reqs, reqs), srv.Key())

	reqs[0].Header.Set("Authorization", "changed")
	reqs[0].Body[0] = 'x'
	assert.Equal(t, "Bearer [REDACTED]", srv.Requests()[0].Header.Get("Authorization"), "a copy")
	assert.Equal(t, byte('{'), srv.Requests()[0].Body[0], "a copy")
}

// TestParallelUse runs many clients at one server; -race checks the rest.
func TestParallelUse(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	srv.SetLimits(seoapitest.Limits{})
	ws := srv.AddWorkspace("Acme")
	c := srv.Client(seoapi.WithoutRateLimit())
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, _, err := c.Projects.Create(context.Background(), ws, &seoapi.ProjectCreateRequest{Name: fmt.Sprintf("p%d", i)})
			assert.NoError(t, err)
			srv.AddContentPlan(ws, "", fmt.Sprintf("cp%d", i), "draft")
			_ = srv.Requests()
		})
	}
	wg.Wait()
	ps, _, err := c.Projects.List(context.Background(), ws, &seoapi.ListOptions{PerPage: 100})
	require.NoError(t, err)
	assert.Len(t, ps, n)
	assert.Len(t, srv.Requests(), n+1)
}

// FuzzServeHTTP holds the promise that nothing a client sends makes the
// fake panic, and that every request is answered with a status.
func FuzzServeHTTP(f *testing.F) {
	f.Add("GET", "/api/workspaces", "", true)
	f.Add("POST", "/api/workspaces/ws_000002/members", `{"email":"a@b"}`, true)
	f.Add("GET", "/api/workspaces/ws_000002/projects?page=99999999999999999&per_page=1", "", true)
	f.Add("GET", "/api/workspaces/ws_000002/projects?cursor=b2Zmc2V0Oi0x", "", true)
	f.Add("PATCH", "/api/workspaces/ws_000002/projects/proj_000003", `{"name":null,"domain":{}}`, true)
	f.Add("DELETE", "//api//workspaces/%2F/projects/", "\x00", false)
	f.Fuzz(func(t *testing.T, method, target, body string, auth bool) {
		fake := seoapitest.New()
		ws := fake.AddWorkspace("Acme")
		fake.AddProject(ws, "Shop", "")
		for _, style := range []seoapitest.Paging{seoapitest.PagingLink, seoapitest.PagingPage, seoapitest.PagingCursor, seoapitest.PagingNone} {
			req, err := http.NewRequest(method, "http://fake"+target, strings.NewReader(body))
			if err != nil {
				return
			}
			if auth {
				req.Header.Set("Authorization", "Bearer "+fake.Key())
			}
			req.Header.Set("Content-Type", "application/json")
			fake.SetPaging(style, 1)
			rec := httptest.NewRecorder()
			fake.ServeHTTP(rec, req)
			if rec.Code < 200 || rec.Code > 599 {
				t.Fatalf("%s %q answered %d", method, target, rec.Code)
			}
		}
	})
}
