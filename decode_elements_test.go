package seoapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A list element that is not an object is not a resource: the call fails,
// naming the element and its JSON type. Null elements stay skipped.
func TestListElementNotAnObject(t *testing.T) {
	t.Parallel()
	tests := []struct{ body, want string }{
		{`[1,"x",true,[],{"id":"w1"}]`, "element 0 of the list is a number, not an object"},
		{`[{"id":"w1"},"x"]`, "element 1 of the list is a string, not an object"},
		{`[null,{"id":"w1"},false]`, "element 2 of the list is a boolean, not an object"},
		{`[[]]`, "element 0 of the list is an array, not an object"},
		{`[-1.5e3]`, "element 0 of the list is a number, not an object"},
		{`{"data":[{"id":"w1"},7],"meta":{"page":1}}`, "element 1 of the list is a number, not an object"},
		{`{"workspaces":[null,"w2"]}`, "element 1 of the list is a string, not an object"},
		// Invalid JSON after the element is reported as such.
		{`[1,{"id":]`, "malformed JSON"},
		{`{"data":[true,{]}`, "malformed JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(200, tt.body))
			list, resp, err := newClient(t, rec.srv.URL).Workspaces.List(context.Background(), nil)
			require.Error(t, err)
			assert.Nil(t, list)
			assert.True(t, errors.Is(err, seoapi.ErrUnexpectedResponse), "%v", err)
			assert.Contains(t, err.Error(), tt.want)
			require.NotNil(t, resp)
		})
	}
}

// A caller's own type decoded by encoding/json fails on a non-object
// element too: SDK resources refuse to be made of one.
func TestResourceUnmarshalNonObject(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `{"data":[{"id":"a"},1]}`))
	c := newClient(t, rec.srv.URL)
	req, err := c.NewRequest(context.Background(), http.MethodGet, "api/workspaces", nil)
	require.NoError(t, err)
	var out struct{ Data []*seoapi.Workspace }
	_, err = c.Do(req, &out)
	require.Error(t, err)
	assert.True(t, errors.Is(err, seoapi.ErrUnexpectedResponse), "%v", err)
	assert.Contains(t, err.Error(), "cannot decode a number into a workspace")

	var w seoapi.Workspace
	require.NoError(t, w.UnmarshalJSON([]byte(`null`)))
	assert.Nil(t, w.Raw())
}

// A single-resource answer that is not an object fails.
func TestSingleResourceNotAnObject(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`1`, `"w1"`, `true`, `[]`, `[{"id":"w1"}]`} {
		rec := newRecorder(t, respond(201, body))
		w, _, err := newClient(t, rec.srv.URL).Workspaces.Create(context.Background(), &seoapi.WorkspaceCreateRequest{Name: "a"})
		require.Error(t, err, body)
		assert.Nil(t, w, body)
		assert.True(t, errors.Is(err, seoapi.ErrUnexpectedResponse), "%s: %v", body, err)
		assert.Contains(t, err.Error(), "no object found", body)
	}
}

func TestWithMaxItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	list := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat(`{"id":"p"},`, n), ",") + "]" }
	tests := []struct {
		name, body string
		items      int // -1: the call fails
	}{
		{"at the limit", list(3), 3},
		{"over the limit", list(4), -1},
		{"nulls do not count", "[null," + list(3)[1:len(list(3))-1] + ",null]", 3},
		{"envelope over the limit", `{"data":` + list(4) + `}`, -1},
		{"envelope at the limit", `{"data":` + list(3) + `,"next_cursor":"c"}`, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(200, tt.body))
			c := newClient(t, rec.srv.URL, seoapi.WithMaxItems(3))
			projects, resp, err := c.Projects.List(ctx, "ws", nil)
			require.NotNil(t, resp)
			if tt.items < 0 {
				require.Error(t, err)
				assert.True(t, errors.Is(err, seoapi.ErrUnexpectedResponse), "%v", err)
				assert.Contains(t, err.Error(), "too many items in the list: more than 3 (WithMaxItems)")
				return
			}
			require.NoError(t, err)
			assert.Len(t, projects, tt.items)
		})
	}

	// A caller's own slice type: the list's elements are counted before
	// encoding/json makes anything of them.
	rec := newRecorder(t, respond(200, `{"items":[1,2,3,4]}`))
	c := newClient(t, rec.srv.URL, seoapi.WithMaxItems(3))
	req, err := c.NewRequest(ctx, http.MethodGet, "api/anything", nil)
	require.NoError(t, err)
	var ints []int
	_, err = c.Do(req, &ints)
	require.Error(t, err)
	assert.True(t, errors.Is(err, seoapi.ErrUnexpectedResponse), "%v", err)
	assert.Contains(t, err.Error(), "more than 3 (WithMaxItems)")
	assert.Nil(t, ints)

	// A body holds at most as many members and skipped values as a list
	// items, and at least 1024, since reading one costs more than its
	// bytes: here each member is two, itself and its value.
	body := `{"data":[]` + strings.Repeat(`,"x":1`, 512) + `}`
	rec = newRecorder(t, respond(200, body))
	_, _, err = newClient(t, rec.srv.URL, seoapi.WithMaxItems(3)).Projects.List(ctx, "ws", nil)
	assert.True(t, errors.Is(err, seoapi.ErrUnexpectedResponse), "%v", err)
	assert.Contains(t, err.Error(), "more than 1024 members and skipped values in the response (WithMaxItems)")

	for _, n := range []int{0, -1} {
		_, err := seoapi.NewClient("https://api.example.com", "sk_test_key", seoapi.WithMaxItems(n))
		assert.True(t, errors.Is(err, seoapi.ErrInvalidArgument), "WithMaxItems(%d): %v", n, err)
	}
}

// The default item limit follows the response cap: one item per 128
// bytes, 8 192 at 1 MiB.
func TestDefaultMaxItemsFollowsTheCap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tt := range []struct {
		items int
		ok    bool
	}{{8192, true}, {8193, false}} {
		body := "[" + strings.TrimSuffix(strings.Repeat(`{},`, tt.items), ",") + "]"
		rec := newRecorder(t, respond(200, body))
		c := newClient(t, rec.srv.URL, seoapi.WithMaxResponseBytes(1<<20))
		list, _, err := c.Workspaces.List(ctx, nil)
		if tt.ok {
			require.NoError(t, err)
			assert.Len(t, list, tt.items)
			continue
		}
		require.Error(t, err)
		assert.Contains(t, err.Error(), "more than 8192 (WithMaxItems)")
	}
}
