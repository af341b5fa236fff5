//go:build prism

// The Prism tests run the SDK against Prism mocking openapi.yaml: software
// we did not write, which validates every request against the contract and
// answers from its schemas. .ci/run starts Prism and sets the variables;
// plain `go test ./...` does not build this file.
package contract_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// prismClient returns a client for the Prism mock whose URL is in env.
func prismClient(t *testing.T, env string) *seoapi.Client {
	t.Helper()
	url := os.Getenv(env)
	require.NotEmpty(t, url, "%s must name a running Prism mock (see .ci/run)", env)
	c, err := seoapi.NewClient(url, "sk_prism_test_key", seoapi.WithMaxRetries(0))
	require.NoError(t, err)
	return c
}

// callAll calls the twelve endpoints, each through client(), and returns
// the first failure.
func callAll(ctx context.Context, client func() *seoapi.Client) error {
	const ws, p = "ws_1", "proj_1"
	var c *seoapi.Client
	steps := []struct {
		name string
		call func() error
	}{
		{"list workspaces", func() error {
			return listOK(c.Workspaces.List(ctx, &seoapi.ListOptions{Page: 1, PerPage: 10}))
		}},
		{"create workspace", func() error {
			return oneOK(c.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"}))
		}},
		{"list projects", func() error { return listOK(c.Projects.List(ctx, ws, nil)) }},
		{"create project", func() error {
			return oneOK(c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: "Shop", Domain: "shop.example"}))
		}},
		{"update project", func() error {
			return oneOK(c.Projects.Update(ctx, ws, p, &seoapi.ProjectUpdateRequest{Domain: seoapi.Ptr("new.example")}))
		}},
		{"delete project", func() error { _, err := c.Projects.Delete(ctx, ws, p); return err }},
		{"list content plans", func() error { return listOK(c.ContentPlans.List(ctx, ws, &seoapi.ListOptions{Cursor: "abc"})) }},
		{"list members", func() error { return listOK(c.Members.List(ctx, ws, nil)) }},
		{"add member", func() error {
			return oneOK(c.Members.Add(ctx, ws, &seoapi.MemberAddRequest{Email: "ana@acme.example", Role: "editor"}))
		}},
		{"list competitors", func() error { return listOK(c.Competitors.List(ctx, ws, p, nil)) }},
		{"list API keys", func() error { return listOK(c.APIKeys.List(ctx, ws, nil)) }},
		{"create API key", func() error {
			k, resp, err := c.APIKeys.Create(ctx, ws, &seoapi.APIKeyCreateRequest{Name: "ci"})
			if err == nil && k != nil && k.Key == "" {
				return errors.New("the created key has no secret")
			}
			return oneOK(k, resp, err)
		}},
	}
	for _, step := range steps {
		c = client()
		if err := step.call(); err != nil {
			return fmt.Errorf("%s: %w", step.name, err)
		}
	}
	return nil
}

type resource interface{ Raw() json.RawMessage }

// listOK checks that a list call succeeded and every item has an ID.
func listOK[T any, PT interface {
	*T
	resource
}](list []PT, _ *seoapi.Response, err error) error {
	if err != nil {
		return err
	}
	for _, item := range list {
		if err := hasID(item); err != nil {
			return err
		}
	}
	return nil
}

// oneOK checks that a call returning one record succeeded with an ID.
func oneOK[T any, PT interface {
	*T
	resource
}](v PT, _ *seoapi.Response, err error) error {
	if err != nil {
		return err
	}
	if v == nil {
		return errors.New("no record in the response")
	}
	return hasID(v)
}

func hasID(r resource) error {
	var obj struct {
		ID any `json:"id"`
	}
	if err := json.Unmarshal(r.Raw(), &obj); err != nil || obj.ID == nil || obj.ID == "" {
		return fmt.Errorf("record without an id: %s", r.Raw())
	}
	return nil
}

// TestPrismStaticMock: Prism validates every request (run with --errors,
// an invalid one fails the call) and answers from the contract's schemas.
func TestPrismStaticMock(t *testing.T) {
	c := prismClient(t, "SEOAPI_PRISM_URL")
	require.NoError(t, callAll(context.Background(), func() *seoapi.Client { return c }))
}

// TestPrismRejectsMissingAuthorization: the contract requires Bearer auth on
// every operation, and Prism enforces it.
func TestPrismRejectsMissingAuthorization(t *testing.T) {
	c := prismClient(t, "SEOAPI_PRISM_URL")
	req, err := c.NewRequest(context.Background(), http.MethodGet, "api/workspaces", nil)
	require.NoError(t, err)
	req.Header.Del("Authorization")
	_, err = c.Do(req, nil)
	require.ErrorIs(t, err, seoapi.ErrUnauthorized)
	var apiErr *seoapi.APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Equal(t, 401, apiErr.StatusCode)
}

// TestPrismDynamicMock: with --dynamic Prism generates new data from the
// schemas on every call; every call must still decode. Each call gets a
// fresh client: generated rate-limit headers may say Remaining 0, which a
// client rightly obeys for its later requests, and this test is about
// decoding.
func TestPrismDynamicMock(t *testing.T) {
	fresh := func() *seoapi.Client { return prismClient(t, "SEOAPI_PRISM_DYNAMIC_URL") }
	for round := range 10 {
		require.NoError(t, callAll(context.Background(), fresh), "round %d", round)
	}
}
