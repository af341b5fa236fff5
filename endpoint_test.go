package seoapi_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endpoint calls one SDK method and says what must reach the server.
type endpoint struct {
	name   string
	call   func(ctx context.Context, c *seoapi.Client) error
	method string
	path   string
	query  string
	body   string // JSON, compared semantically; "" for none
}

func ignore2[A, B any](_ A, _ B, err error) error { return err }

var listOpts = &seoapi.ListOptions{Page: 2, PerPage: 25, Extra: url.Values{"sort": {"name"}}}

var endpoints = []endpoint{
	{"Workspaces.List", func(ctx context.Context, c *seoapi.Client) error {
		return ignore2(c.Workspaces.List(ctx, listOpts))
	}, "GET", "/api/workspaces", "page=2&per_page=25&sort=name", ""},
	{"Workspaces.Create", func(ctx context.Context, c *seoapi.Client) error {
		return ignore2(c.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme", Extra: map[string]any{"region": "eu"}}))
	}, "POST", "/api/workspaces", "", `{"name":"Acme","region":"eu"}`},
	{"Projects.List", func(ctx context.Context, c *seoapi.Client) error {
		return ignore2(c.Projects.List(ctx, "ws 1", nil))
	}, "GET", "/api/workspaces/ws%201/projects", "", ""},
	{"Projects.Create", func(ctx context.Context, c *seoapi.Client) error {
		return ignore2(c.Projects.Create(ctx, "ws1", &seoapi.ProjectCreateRequest{Name: "Shop", Domain: "shop.example"}))
	}, "POST", "/api/workspaces/ws1/projects", "", `{"name":"Shop","domain":"shop.example"}`},
	{"Projects.Update", func(ctx context.Context, c *seoapi.Client) error {
		return ignore2(c.Projects.Update(ctx, "ws1", "p 1", &seoapi.ProjectUpdateRequest{Domain: seoapi.Ptr("new.example")}))
	}, "PATCH", "/api/workspaces/ws1/projects/p%201", "", `{"domain":"new.example"}`},
	{"Projects.Delete", func(ctx context.Context, c *seoapi.Client) error {
		_, err := c.Projects.Delete(ctx, "ws1", "p1")
		return err
	}, "DELETE", "/api/workspaces/ws1/projects/p1", "", ""},
	{"ContentPlans.List", func(ctx context.Context, c *seoapi.Client) error {
		return ignore2(c.ContentPlans.List(ctx, "ws1", &seoapi.ListOptions{Cursor: "abc"}))
	}, "GET", "/api/workspaces/ws1/content-plans", "cursor=abc", ""},
	{"Members.List", func(ctx context.Context, c *seoapi.Client) error {
		return ignore2(c.Members.List(ctx, "ws1", nil))
	}, "GET", "/api/workspaces/ws1/members", "", ""},
	{"Members.Add", func(ctx context.Context, c *seoapi.Client) error {
		return ignore2(c.Members.Add(ctx, "ws1", &seoapi.MemberAddRequest{Email: "a@b.example", Role: "editor"}))
	}, "POST", "/api/workspaces/ws1/members", "", `{"email":"a@b.example","role":"editor"}`},
	{"Competitors.List", func(ctx context.Context, c *seoapi.Client) error {
		return ignore2(c.Competitors.List(ctx, "ws1", "p1", nil))
	}, "GET", "/api/workspaces/ws1/projects/p1/competitors", "", ""},
	{"APIKeys.List", func(ctx context.Context, c *seoapi.Client) error {
		return ignore2(c.APIKeys.List(ctx, "ws1", nil))
	}, "GET", "/api/workspaces/ws1/api-keys", "", ""},
	{"APIKeys.Create", func(ctx context.Context, c *seoapi.Client) error {
		return ignore2(c.APIKeys.Create(ctx, "ws1", &seoapi.APIKeyCreateRequest{Name: "ci"}))
	}, "POST", "/api/workspaces/ws1/api-keys", "", `{"name":"ci"}`},
}

func TestEndpointsSendWhatTheSpecSays(t *testing.T) {
	t.Parallel()
	require.Len(t, endpoints, 12)
	for _, ep := range endpoints {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(200, `{"data":[]}`))
			if ep.method == "POST" || ep.method == "PATCH" {
				rec = newRecorder(t, respond(201, `{"id":"x"}`))
			}
			require.NoError(t, ep.call(context.Background(), newClient(t, rec.srv.URL)))
			reqs := rec.requests()
			require.Len(t, reqs, 1)
			r := reqs[0]
			assert.Equal(t, ep.method, r.Method)
			assert.Equal(t, ep.path, r.Path)
			assert.Equal(t, ep.query, r.Query)
			assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
			assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
			assert.Equal(t, "application/json", r.Header.Get("Accept"))
			assert.Contains(t, r.Header.Get("User-Agent"), "seoapi-go/")
			if ep.body == "" {
				assert.Empty(t, r.Body)
			} else {
				assert.JSONEq(t, ep.body, r.Body)
			}
		})
	}
}

func TestRequestExtraAndOptionalFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  any
		want string
	}{
		{"update sends only set fields", seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("n")}, `{"name":"n"}`},
		{"update can send empty string", seoapi.ProjectUpdateRequest{Domain: seoapi.Ptr("")}, `{"domain":""}`},
		{"update with nothing set", seoapi.ProjectUpdateRequest{}, `{}`},
		{"typed field wins over Extra", seoapi.ProjectCreateRequest{Name: "typed", Extra: map[string]any{"name": "extra", "tags": []string{"a"}}}, `{"name":"typed","tags":["a"]}`},
		{"Extra fills an unset typed field", seoapi.MemberAddRequest{Email: "a@b.example", Extra: map[string]any{"role": "owner"}}, `{"email":"a@b.example","role":"owner"}`},
		{"empty create fields left out", seoapi.ProjectCreateRequest{Name: "n"}, `{"name":"n"}`},
		{"api key extra", seoapi.APIKeyCreateRequest{Name: "k", Extra: map[string]any{"expiresInDays": 30}}, `{"name":"k","expiresInDays":30}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newClient(t, "https://api.example.com")
			req, err := c.NewRequest(context.Background(), "POST", "api/x", tt.req)
			require.NoError(t, err)
			body := make([]byte, req.ContentLength)
			_, err = req.Body.Read(body)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(body))
		})
	}
}

// TestInvalidArgumentsSendNothing checks that every argument the SDK can
// judge alone fails with ErrInvalidArgument before any request.
func TestInvalidArgumentsSendNothing(t *testing.T) {
	t.Parallel()
	badIDs := []string{"", ".", "..", "a\nb", "a\x00b", "tab\there", "\x7f"}
	type call func(ctx context.Context, c *seoapi.Client, id string) error
	calls := map[string]call{
		"Projects.List ws": func(ctx context.Context, c *seoapi.Client, id string) error {
			return ignore2(c.Projects.List(ctx, id, nil))
		},
		"Projects.Create ws": func(ctx context.Context, c *seoapi.Client, id string) error {
			return ignore2(c.Projects.Create(ctx, id, &seoapi.ProjectCreateRequest{Name: "n"}))
		},
		"Projects.Update project": func(ctx context.Context, c *seoapi.Client, id string) error {
			return ignore2(c.Projects.Update(ctx, "ws", id, &seoapi.ProjectUpdateRequest{}))
		},
		"Projects.Delete ws": func(ctx context.Context, c *seoapi.Client, id string) error {
			_, err := c.Projects.Delete(ctx, id, "p")
			return err
		},
		"Projects.Delete project": func(ctx context.Context, c *seoapi.Client, id string) error {
			_, err := c.Projects.Delete(ctx, "ws", id)
			return err
		},
		"ContentPlans.List ws": func(ctx context.Context, c *seoapi.Client, id string) error {
			return ignore2(c.ContentPlans.List(ctx, id, nil))
		},
		"Members.List ws": func(ctx context.Context, c *seoapi.Client, id string) error {
			return ignore2(c.Members.List(ctx, id, nil))
		},
		"Members.Add ws": func(ctx context.Context, c *seoapi.Client, id string) error {
			return ignore2(c.Members.Add(ctx, id, &seoapi.MemberAddRequest{}))
		},
		"Competitors.List project": func(ctx context.Context, c *seoapi.Client, id string) error {
			return ignore2(c.Competitors.List(ctx, "ws", id, nil))
		},
		"APIKeys.List ws": func(ctx context.Context, c *seoapi.Client, id string) error {
			return ignore2(c.APIKeys.List(ctx, id, nil))
		},
		"APIKeys.Create ws": func(ctx context.Context, c *seoapi.Client, id string) error {
			return ignore2(c.APIKeys.Create(ctx, id, &seoapi.APIKeyCreateRequest{Name: "k"}))
		},
		"Projects.All ws": func(ctx context.Context, c *seoapi.Client, id string) error {
			for _, err := range c.Projects.All(ctx, id, nil) {
				return err
			}
			return nil
		},
	}
	rec := newRecorder(t, respond(200, `{}`))
	c := newClient(t, rec.srv.URL)
	ctx := context.Background()
	for name, call := range calls {
		for _, id := range badIDs {
			assert.ErrorIs(t, call(ctx, c, id), seoapi.ErrInvalidArgument, "%s(%q)", name, id)
		}
	}
	nilRequests := []error{
		ignore2(c.Workspaces.Create(ctx, nil)),
		ignore2(c.Projects.Create(ctx, "ws", nil)),
		ignore2(c.Projects.Update(ctx, "ws", "p", nil)),
		ignore2(c.Members.Add(ctx, "ws", nil)),
		ignore2(c.APIKeys.Create(ctx, "ws", nil)),
		ignore2(c.Workspaces.List(ctx, &seoapi.ListOptions{Page: -1})),
		ignore2(c.Workspaces.List(ctx, &seoapi.ListOptions{PerPage: -5})),
	}
	for i, err := range nilRequests {
		assert.ErrorIs(t, err, seoapi.ErrInvalidArgument, "case %d", i)
	}
	assert.Empty(t, rec.requests(), "nothing may reach the server")
}

func TestIDsAreOnePathSegment(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"a?b=c":       "a%3Fb=c",
		"a#frag":      "a%23frag",
		"%2e%2e":      "%252e%252e",
		"ü":           "%C3%BC",
		"12345678901": "12345678901",
	}
	for id, want := range tests {
		rec := newRecorder(t, respond(204, ""))
		_, err := newClient(t, rec.srv.URL).Projects.Delete(context.Background(), id, "p")
		require.NoError(t, err, id)
		require.Len(t, rec.requests(), 1)
		assert.Equal(t, "/api/workspaces/"+want+"/projects/p", rec.requests()[0].Path, id)
		assert.Empty(t, rec.requests()[0].Query, id)
	}
}

// TestIDsWithASlashAreRefused: a slash or a backslash in an ID could be
// read as a segment boundary by a server or a gateway (an escaped slash
// is not under the base URL to the key's gate): such an ID fails before
// anything is sent.
func TestIDsWithASlashAreRefused(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"a/b", "../admin", `a\b`, "/"} {
		rec := newRecorder(t, respond(204, ""))
		_, err := newClient(t, rec.srv.URL).Projects.Delete(context.Background(), id, "p")
		require.ErrorIs(t, err, seoapi.ErrInvalidArgument, id)
		require.Empty(t, rec.requests(), id)
	}
}
