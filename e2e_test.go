package seoapi_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEndToEnd walks all twelve endpoints against the fake API and checks
// that what was written is what is read back.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	fake, c, home := newFake(t)
	ctx := context.Background()

	workspaces, resp, err := c.Workspaces.List(ctx, nil) // 1
	require.NoError(t, err)
	require.Len(t, workspaces, 1)
	assert.Equal(t, home, workspaces[0].ID)
	assert.NotEmpty(t, resp.RequestID)
	assert.Equal(t, 1, resp.Attempts)

	ws, resp, err := c.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"}) // 2
	require.NoError(t, err)
	assert.Equal(t, 201, resp.StatusCode)
	assert.Equal(t, "Acme", ws.Name)
	assert.False(t, ws.CreatedAt.IsZero())

	p, _, err := c.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Name: "Shop", Domain: "shop.example"}) // 4
	require.NoError(t, err)
	assert.Equal(t, ws.ID, p.WorkspaceID)

	projects, _, err := c.Projects.List(ctx, ws.ID, nil) // 3
	require.NoError(t, err)
	require.Len(t, projects, 1)
	assert.Equal(t, p.ID, projects[0].ID)
	assert.Equal(t, "shop.example", projects[0].Domain)

	updated, _, err := c.Projects.Update(ctx, ws.ID, p.ID, &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("Shop EU")}) // 5
	require.NoError(t, err)
	assert.Equal(t, "Shop EU", updated.Name)
	assert.Equal(t, "shop.example", updated.Domain, "PATCH changes only the fields sent")

	fake.AddContentPlan(ws.ID, p.ID, "Q3 calendar", "active")
	plans, _, err := c.ContentPlans.List(ctx, ws.ID, nil) // 7
	require.NoError(t, err)
	require.Len(t, plans, 1)
	assert.Equal(t, "active", plans[0].Status)
	assert.Equal(t, p.ID, plans[0].ProjectID)

	m, _, err := c.Members.Add(ctx, ws.ID, &seoapi.MemberAddRequest{Email: "ana@acme.example", Role: "editor"}) // 9
	require.NoError(t, err)
	assert.Equal(t, "editor", m.Role)
	_, _, err = c.Members.Add(ctx, ws.ID, &seoapi.MemberAddRequest{Email: "ana@acme.example"})
	assert.ErrorIs(t, err, seoapi.ErrConflict)
	members, _, err := c.Members.List(ctx, ws.ID, nil) // 8
	require.NoError(t, err)
	require.Len(t, members, 1)
	assert.Equal(t, "ana@acme.example", members[0].Email)

	fake.AddCompetitor(ws.ID, p.ID, "Rival", "rival.example")
	competitors, _, err := c.Competitors.List(ctx, ws.ID, p.ID, nil) // 10
	require.NoError(t, err)
	require.Len(t, competitors, 1)
	assert.Equal(t, p.ID, competitors[0].ProjectID)

	key, _, err := c.APIKeys.Create(ctx, ws.ID, &seoapi.APIKeyCreateRequest{Name: "ci"}) // 12
	require.NoError(t, err)
	require.NotEmpty(t, string(key.Key), "the secret is returned once")
	keys, _, err := c.APIKeys.List(ctx, ws.ID, nil) // 11
	require.NoError(t, err)
	require.Len(t, keys, 1)
	assert.Equal(t, key.ID, keys[0].ID)
	assert.Empty(t, string(keys[0].Key), "the secret is not listed")

	// The new key authenticates.
	srvURL := c.BaseURL().String()
	c2, err := seoapi.NewClient(srvURL, string(key.Key), fastOptions()...)
	require.NoError(t, err)
	_, _, err = c2.Projects.List(ctx, ws.ID, nil)
	require.NoError(t, err)

	_, err = c.Projects.Delete(ctx, ws.ID, p.ID) // 6
	require.NoError(t, err)
	_, err = c.Projects.Delete(ctx, ws.ID, p.ID)
	assert.ErrorIs(t, err, seoapi.ErrNotFound, "deleted means gone")
	projects, _, err = c.Projects.List(ctx, ws.ID, nil)
	require.NoError(t, err)
	assert.Empty(t, projects)
}

func TestEndToEndFailures(t *testing.T) {
	t.Parallel()
	fake, c, ws := newFake(t)
	ctx := context.Background()
	srvURL := c.BaseURL().String()

	_, _, err := c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Domain: "no-name.example"})
	assert.ErrorIs(t, err, seoapi.ErrValidation, "a missing required field is the server's to reject")

	_, _, err = c.Projects.List(ctx, "ws_missing", nil)
	assert.ErrorIs(t, err, seoapi.ErrNotFound)

	wrong, err := seoapi.NewClient(srvURL, "sk_not_issued", fastOptions()...)
	require.NoError(t, err)
	_, _, err = wrong.Workspaces.List(ctx, nil)
	assert.ErrorIs(t, err, seoapi.ErrUnauthorized)

	agencyKey, _ := fake.IssueKey(seoapitest.PlanAgency)
	agency, err := seoapi.NewClient(srvURL, agencyKey, fastOptions()...)
	require.NoError(t, err)
	_, _, err = agency.Workspaces.List(ctx, nil)
	assert.ErrorIs(t, err, seoapi.ErrForbidden, "a plan without API access")

	// A request without the Authorization header, built with NewRequest.
	req, err := c.NewRequest(ctx, "GET", "api/workspaces", nil)
	require.NoError(t, err)
	req.Header.Del("Authorization")
	_, err = c.Do(req, nil)
	assert.ErrorIs(t, err, seoapi.ErrUnauthorized)

	// Another account's workspace is invisible.
	otherKey, otherWS := fake.IssueKey(seoapitest.PlanEnterprise)
	_ = otherKey
	_, _, err = c.Projects.List(ctx, otherWS, nil)
	assert.ErrorIs(t, err, seoapi.ErrNotFound)
}

func TestFakeServesOnHTTPTest(t *testing.T) {
	t.Parallel()
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, _ := fake.IssueKey(seoapitest.PlanEnterprise)
	c, err := seoapi.NewClient(srv.URL, key)
	require.NoError(t, err)
	list, resp, err := c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, list, 1)
	assert.Equal(t, seoapitest.PublishedLimits().PerHour, resp.Rate.Limit)
	assert.Equal(t, seoapitest.PublishedLimits().PerHour-1, resp.Rate.Remaining)
	assert.False(t, resp.Rate.Reset.IsZero())
}
