package seoapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListBodyShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		ids  []string
	}{
		{"bare array", `[{"id":"a"},{"id":"b"}]`, []string{"a", "b"}},
		{"data envelope", `{"data":[{"id":"a"}],"meta":{"total":1}}`, []string{"a"}},
		{"items envelope", `{"items":[{"id":"a"}],"count":1}`, []string{"a"}},
		{"results envelope", `{"results":[{"id":"a"}],"next":null}`, []string{"a"}},
		{"plural camelCase", `{"contentPlans":[{"id":"a"}],"tags":[]}`, []string{"a"}},
		{"plural snake_case", `{"content_plans":[{"id":"a"}],"tags":[]}`, []string{"a"}},
		{"only array field", `{"page":1,"records":[{"id":"a"},{"id":"b"}]}`, []string{"a", "b"}},
		{"data before other arrays", `{"warnings":[],"data":[{"id":"a"}]}`, []string{"a"}},
		{"null data is empty", `{"data":null}`, []string{}},
		{"empty array", `[]`, []string{}},
		{"null elements skipped", `[null,{"id":"a"},null]`, []string{"a"}},
		{"white space around", " \n\t[{\"id\":\"a\"}] \n", []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(200, tt.body))
			plans, _, err := newClient(t, rec.srv.URL).ContentPlans.List(context.Background(), "ws", nil)
			require.NoError(t, err)
			ids := []string{}
			for _, p := range plans {
				ids = append(ids, p.ID)
			}
			assert.Equal(t, tt.ids, ids)
		})
	}
}

func TestListBodyWithoutAList(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"ok":true}`, `{"a":[],"b":[]}`, `"text"`} {
		rec := newRecorder(t, respond(200, body))
		_, resp, err := newClient(t, rec.srv.URL).Projects.List(context.Background(), "ws", nil)
		require.Error(t, err, body)
		assert.Contains(t, err.Error(), "200")
		assert.NotNil(t, resp)
	}
}

// TestAmbiguousListEnvelope: an envelope with two members that may each
// be the list is refused rather than read as an empty page.
func TestAmbiguousListEnvelope(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"data":null,"projects":[{"id":"a"}]}`,
		`{"data":[],"projects":[{"id":"a"}]}`,
		`{"projects":[{"id":"a"}],"items":[]}`,
		`{"data":[{"id":"a"}],"results":[{"id":"b"}]}`,
	} {
		rec := newRecorder(t, respond(200, body))
		list, resp, err := newClient(t, rec.srv.URL).Projects.List(context.Background(), "ws", nil)
		ae := requireOneKind(t, err, seoapi.ErrUnexpectedResponse)
		assert.Contains(t, ae.Message, "more than one list", body)
		assert.Nil(t, list, body)
		assert.NotNil(t, resp, body)
	}
}

func TestSingleBodyShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		id   string
		raw  string
	}{
		{"object itself", `{"id":"p1","name":"n"}`, "p1", `{"id":"p1","name":"n"}`},
		{"data envelope", `{"data":{"id":"p1","name":"n"}}`, "p1", `{"id":"p1","name":"n"}`},
		{"singular name", `{"project":{"id":"p1"},"links":{}}`, "p1", `{"id":"p1"}`},
		{"object with id and a data field", `{"id":"p1","data":{"id":"other"}}`, "p1", `{"id":"p1","data":{"id":"other"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(201, tt.body))
			p, _, err := newClient(t, rec.srv.URL).Projects.Create(context.Background(), "ws", &seoapi.ProjectCreateRequest{Name: "n"})
			require.NoError(t, err)
			assert.Equal(t, tt.id, p.ID)
			assert.JSONEq(t, tt.raw, string(p.Raw()))
		})
	}
}

// TestEmptySuccessBodies: a method that returns a resource never returns
// (nil, nil): a 2xx answer without one fails with ErrUnexpectedResponse,
// not ErrOutcomeUnknown (the write took effect), and keeps the Response
// (issue 17 item 5).
func TestEmptySuccessBodies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		body   string
	}{{204, ""}, {200, ""}, {201, "  \n"}, {200, "null"}} {
		rec := newRecorder(t, respond(tc.status, tc.body))
		c := newClient(t, rec.srv.URL)
		ctx := context.Background()
		calls := map[string]func() (any, *seoapi.Response, error){
			"Workspaces.Create": func() (any, *seoapi.Response, error) {
				return c.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "x"})
			},
			"Projects.Create": func() (any, *seoapi.Response, error) {
				return c.Projects.Create(ctx, "ws", &seoapi.ProjectCreateRequest{Name: "x"})
			},
			"Projects.Update": func() (any, *seoapi.Response, error) {
				return c.Projects.Update(ctx, "ws", "p", &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("x")})
			},
			"Members.Add": func() (any, *seoapi.Response, error) {
				return c.Members.Add(ctx, "ws", &seoapi.MemberAddRequest{Email: "a@b.example", Role: "editor"})
			},
			"APIKeys.Create": func() (any, *seoapi.Response, error) {
				return c.APIKeys.Create(ctx, "ws", &seoapi.APIKeyCreateRequest{Name: "x"})
			},
		}
		for name, call := range calls {
			v, resp, err := call()
			ae := requireOneKind(t, err, seoapi.ErrUnexpectedResponse)
			assert.False(t, errors.Is(err, seoapi.ErrOutcomeUnknown), name)
			assert.Contains(t, ae.Message, name)
			assert.Equal(t, tc.status, ae.StatusCode, name)
			assert.True(t, reflect.ValueOf(v).IsNil(), name)
			require.NotNil(t, resp, name)
			assert.Equal(t, tc.status, resp.StatusCode, name)
		}
	}
}

func TestMalformedSuccessBody(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"id":`, `[{"id":"a"},`, `<html>oops</html>`, `{"id":"a"} trailing`} {
		rec := newRecorder(t, respond(200, body, "Content-Type", "application/json"))
		var ws *seoapi.Workspace
		var err error
		require.NotPanics(t, func() {
			ws, _, err = newClient(t, rec.srv.URL).Workspaces.Create(context.Background(), &seoapi.WorkspaceCreateRequest{Name: "x"})
		})
		require.Error(t, err, body)
		assert.Nil(t, ws)
		assert.Contains(t, err.Error(), "200")
		assert.Contains(t, err.Error(), "malformed JSON")
	}
}

func TestFieldDecoding(t *testing.T) {
	t.Parallel()
	want := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	tests := []struct {
		name  string
		obj   string
		check func(t *testing.T, p *seoapi.ContentPlan)
	}{
		{"string id", `{"id":"cp_1"}`, func(t *testing.T, p *seoapi.ContentPlan) { assert.Equal(t, "cp_1", p.ID) }},
		{"numeric id stays exact", `{"id":12345678901234567}`, func(t *testing.T, p *seoapi.ContentPlan) { assert.Equal(t, "12345678901234567", p.ID) }},
		{"numeric id beyond int64", `{"id":123456789012345678901234567890}`, func(t *testing.T, p *seoapi.ContentPlan) {
			assert.Equal(t, "123456789012345678901234567890", p.ID)
		}},
		{"camelCase keys", `{"workspaceId":"w","projectId":7,"createdAt":"2025-03-04T05:06:07Z"}`, func(t *testing.T, p *seoapi.ContentPlan) {
			assert.Equal(t, "w", p.WorkspaceID)
			assert.Equal(t, "7", p.ProjectID)
			assert.True(t, want.Equal(p.CreatedAt))
		}},
		{"snake_case keys", `{"workspace_id":"w","project_id":"p","updated_at":"2025-03-04T05:06:07Z"}`, func(t *testing.T, p *seoapi.ContentPlan) {
			assert.Equal(t, "w", p.WorkspaceID)
			assert.Equal(t, "p", p.ProjectID)
			assert.True(t, want.Equal(p.UpdatedAt))
		}},
		{"RFC 3339 with fraction and offset", `{"createdAt":"2025-03-04T07:06:07.123456+02:00"}`, func(t *testing.T, p *seoapi.ContentPlan) {
			assert.True(t, want.Add(123456*time.Microsecond).Equal(p.CreatedAt))
		}},
		{"Unix seconds", `{"createdAt":1741064767}`, func(t *testing.T, p *seoapi.ContentPlan) { assert.True(t, want.Equal(p.CreatedAt), p.CreatedAt) }},
		{"Unix milliseconds", `{"createdAt":1741064767250}`, func(t *testing.T, p *seoapi.ContentPlan) {
			assert.True(t, want.Add(250*time.Millisecond).Equal(p.CreatedAt), p.CreatedAt)
		}},
		{"wrong types left zero", `{"id":true,"name":42,"status":{"a":1},"createdAt":"yesterday","updatedAt":[1]}`, func(t *testing.T, p *seoapi.ContentPlan) {
			assert.Empty(t, p.ID)
			assert.Empty(t, p.Name)
			assert.Empty(t, p.Status)
			assert.True(t, p.CreatedAt.IsZero())
			assert.True(t, p.UpdatedAt.IsZero())
			assert.Contains(t, string(p.Raw()), `"name":42`)
		}},
		{"escaped strings", `{"name":"caf\u00e9 \"plan\"\n"}`, func(t *testing.T, p *seoapi.ContentPlan) { assert.Equal(t, "café \"plan\"\n", p.Name) }},
		{"unknown fields kept in Raw", `{"id":"x","priority":"high"}`, func(t *testing.T, p *seoapi.ContentPlan) {
			var m map[string]any
			require.NoError(t, json.Unmarshal(p.Raw(), &m))
			assert.Equal(t, "high", m["priority"])
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(200, "["+tt.obj+"]"))
			plans, _, err := newClient(t, rec.srv.URL).ContentPlans.List(context.Background(), "ws", nil)
			require.NoError(t, err)
			require.Len(t, plans, 1)
			tt.check(t, plans[0])
		})
	}
}

func TestAPIKeySecretFieldNames(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"key", "apiKey", "api_key", "token", "secret"} {
		var k seoapi.APIKey
		require.NoError(t, json.Unmarshal([]byte(`{"id":"k","`+key+`":"sk_abc","lastUsedAt":null,"expires_at":"2030-01-01T00:00:00Z"}`), &k))
		assert.Equal(t, "sk_abc", string(k.Key), key)
		assert.Nil(t, k.LastUsedAt)
		require.NotNil(t, k.ExpiresAt)
		assert.Equal(t, 2030, k.ExpiresAt.Year())
	}
}

func TestResourcesUnmarshalWithEncodingJSON(t *testing.T) {
	t.Parallel()
	var ws []seoapi.Workspace
	require.NoError(t, json.Unmarshal([]byte(`[{"id":1,"Name":"a","created_at":0}]`), &ws))
	require.Len(t, ws, 1)
	assert.Equal(t, "1", ws[0].ID)
	assert.Equal(t, "a", ws[0].Name)
	assert.Equal(t, `{"id":1,"Name":"a","created_at":0}`, string(ws[0].Raw()))
}

// UnmarshalJSON reads the object it is given, never unwrapped, so that a
// resource decodes its own Raw().
func TestResourceUnmarshalReadsTheObjectItself(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"name":"Shop","data":{"name":"inner"}}`:         "Shop",
		`{"name":"Shop","project":{"name":"inner"}}`:      "Shop",
		`{"id":"p3","name":"Shop","data":{"id":"other"}}`: "Shop",
	} {
		var p seoapi.Project
		require.NoError(t, json.Unmarshal([]byte(body), &p), body)
		assert.Equal(t, want, p.Name, body)
		var again seoapi.Project
		require.NoError(t, json.Unmarshal(p.Raw(), &again), body)
		assert.Equal(t, want, again.Name, "its own Raw: %s", body)
	}
}

// createdKeyJSON is a created key as a server might send it: the secret
// in token, letters JSON may escape, and an unknown field that only Raw
// holds.
const (
	createdSecret  = "sk_live_S3CRET/+x"
	createdKeyJSON = `{"id":"k1","name":"ci","token":"sk_live_S3CRET\/+x","note":"RAW_ONLY_MARKER","createdAt":1700000000123}`
)

// secretOutputs renders v every way a user might print, log or encode it.
func secretOutputs(t *testing.T, v any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, verb := range []string{"%v", "%+v", "%s", "%#v", "%q", "%x"} {
		out[verb] = fmt.Sprintf(verb, v)
	}
	for name, newHandler := range map[string]func(io.Writer) slog.Handler{
		"slog text": func(w io.Writer) slog.Handler {
			return slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})
		},
		"slog JSON": func(w io.Writer) slog.Handler {
			return slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})
		},
	} {
		var buf bytes.Buffer
		slog.New(newHandler(&buf)).Debug("created", "value", v)
		out[name] = buf.String()
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	out["encoding/json"] = string(b)
	return out
}

func TestCreatedSecretNeverPrinted(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(201, createdKeyJSON))
	key, _, err := newClient(t, rec.srv.URL).APIKeys.Create(context.Background(), "ws", &seoapi.APIKeyCreateRequest{Name: "ci"})
	require.NoError(t, err)
	require.Equal(t, createdSecret, string(key.Key), "the secret is still there for whoever asks")
	require.Equal(t, createdKeyJSON, string(key.Raw()), "Raw is the exact JSON")

	type holder struct {
		Key  *seoapi.APIKey
		Keys []*seoapi.APIKey
		Val  seoapi.APIKey
	}
	values := map[string]any{
		"APIKey": *key, "*APIKey": key, "[]*APIKey": []*seoapi.APIKey{key},
		"[]APIKey": []seoapi.APIKey{*key}, "struct": holder{Key: key, Keys: []*seoapi.APIKey{key}, Val: *key},
	}
	for name, v := range values {
		for how, text := range secretOutputs(t, v) {
			for _, leak := range []string{createdSecret, "S3CRET", "RAW_ONLY_MARKER"} {
				assert.NotContains(t, text, leak, "%s printed with %s", name, how)
			}
		}
	}
	out := secretOutputs(t, key)
	assert.Contains(t, out["%+v"], "Key:[REDACTED]")
	assert.Contains(t, out["%#v"], `seoapi.APIKey{ID:"k1"`)
	assert.Contains(t, out["slog JSON"], `"key":"[REDACTED]"`)
	assert.Contains(t, out["slog text"], "value.key=[REDACTED]")
	assert.JSONEq(t, `{"id":"k1","name":"ci","key":"[REDACTED]","createdAt":"2023-11-14T22:13:20.123Z"}`, out["encoding/json"])
}

func TestAPIKeyJSONRoundTripCarriesNoSecret(t *testing.T) {
	t.Parallel()
	var k seoapi.APIKey
	require.NoError(t, json.Unmarshal([]byte(createdKeyJSON), &k))
	b, err := json.Marshal(k)
	require.NoError(t, err)
	var back seoapi.APIKey
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Empty(t, back.Key, "a redacted placeholder is not read back as a secret")
	assert.Equal(t, "k1", back.ID)
}

func TestRawNeverPrintedByFmt(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `[{"id":"p1","note":"RAW_ONLY_MARKER"}]`))
	list, _, err := newClient(t, rec.srv.URL).Projects.List(context.Background(), "ws", nil)
	require.NoError(t, err)
	require.Len(t, list, 1)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.NotContains(t, fmt.Sprintf(verb, list[0]), "RAW_ONLY_MARKER", verb)
		assert.NotContains(t, fmt.Sprintf(verb, *list[0]), "RAW_ONLY_MARKER", verb)
	}
	assert.Equal(t, `{"id":"p1","note":"RAW_ONLY_MARKER"}`, string(list[0].Raw()))
}

// TestRawIsEachItemsOwnCopy: each item's Raw is its own bytes, not a
// window into the page: appending to one never writes over another.
func TestRawIsEachItemsOwnCopy(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `[{"id":"a"},{"id":"b"}]`))
	list, _, err := newClient(t, rec.srv.URL).Projects.List(context.Background(), "ws", nil)
	require.NoError(t, err)
	require.Len(t, list, 2)
	_ = append(list[0].Raw(), "XXXXXXXX"...)
	assert.Equal(t, `{"id":"b"}`, string(list[1].Raw()), "appending to one item's Raw must not write over the next")
	assert.Equal(t, `{"id":"a"}`, string(list[0].Raw()))
	assert.Equal(t, len(list[0].Raw()), cap(list[0].Raw()), "Raw holds the item and nothing more")
}

// TestSuccessBodyNotUTF8: a 2xx body that is not UTF-8 fails, as JSON
// requires, so that its strings never decode to more bytes than it holds.
func TestSuccessBodyNotUTF8(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, "[{\"id\":\"a\",\"name\":\"caf\xe9\"}]"))
	list, resp, err := newClient(t, rec.srv.URL).Projects.List(context.Background(), "ws", nil)
	requireOneKind(t, err, seoapi.ErrUnexpectedResponse)
	assert.Contains(t, err.Error(), "not valid UTF-8")
	assert.Nil(t, list)
	assert.NotNil(t, resp)
}

func TestExactNumericTimes(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `[{"id":"a","createdAt":1700000000123,"updatedAt":1700000000.123456789}]`))
	list, _, err := newClient(t, rec.srv.URL).Projects.List(context.Background(), "ws", nil)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "2023-11-14T22:13:20.123Z", list[0].CreatedAt.Format(time.RFC3339Nano))
	assert.Equal(t, "2023-11-14T22:13:20.123456789Z", list[0].UpdatedAt.Format(time.RFC3339Nano))
}

func TestMalformedListBodies(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`[{"id":"a"},]`, `[{"id":"a"}] x`, `{"data":[{"id":"a",}]}`,
		`{"data":[{"id":"a"}],"warnings":[1,]}`, `{"warnings":["\q"],"data":[{"id":"a"}]}`,
		`{"a":[],"b":[],"c":[],"d":[],"e":[,],"data":[]}`, `{"data":[{"id":"a"}],"meta":{"x":}}`,
	} {
		rec := newRecorder(t, respond(200, body))
		list, _, err := newClient(t, rec.srv.URL).Projects.List(context.Background(), "ws", nil)
		require.Error(t, err, body)
		assert.Contains(t, err.Error(), "malformed JSON", body)
		assert.Nil(t, list, body)
	}
}

// TestDoIntoResourceValues: Client.Do decodes a list into a slice of
// resource values as into a slice of pointers: tolerant fields, Raw,
// null elements skipped, an envelope's list and paging.
func TestDoIntoResourceValues(t *testing.T) {
	t.Parallel()
	body := `{"data":[{"id":1,"Name":"a"},null,{"id":"p2","name":"b","extra":true}],"nextCursor":"c2"}`
	rec := newRecorder(t, respond(200, body))
	c := newClient(t, rec.srv.URL)
	req, err := c.NewRequest(context.Background(), "GET", "api/workspaces/w1/projects", nil)
	require.NoError(t, err)
	var values []seoapi.Project
	resp, err := c.Do(req, &values)
	require.NoError(t, err)
	require.Len(t, values, 2)
	assert.Equal(t, []string{"1", "p2"}, []string{values[0].ID, values[1].ID})
	assert.Equal(t, []string{"a", "b"}, []string{values[0].Name, values[1].Name})
	assert.JSONEq(t, `{"id":"p2","name":"b","extra":true}`, string(values[1].Raw()))
	assert.Equal(t, "c2", resp.NextCursor)

	rec = newRecorder(t, respond(200, `[{"id":"a"},1]`))
	c = newClient(t, rec.srv.URL)
	req, err = c.NewRequest(context.Background(), "GET", "api/workspaces", nil)
	require.NoError(t, err)
	_, err = c.Do(req, &[]seoapi.Workspace{})
	assert.ErrorIs(t, err, seoapi.ErrUnexpectedResponse, "a list element that is not an object")
}
