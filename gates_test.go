package seoapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file hold each promise at its gate: whether a request
// may have left (a write is never repeated once it may have taken
// effect), where the key may go, and what a call reports.

// cloningTransport sends a clone of each request with its body from
// GetBody, as signing and mirroring transports do (and net/http's HTTP/2
// transport after REFUSED_STREAM).
type cloningTransport struct{ next http.RoundTripper }

func (t cloningTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	out := r.Clone(r.Context())
	if r.GetBody != nil {
		body, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		out.Body = body
	}
	return t.next.RoundTrip(out)
}

// TestWriteSentFromAGetBodyCopyIsNotRepeated: a create whose body a
// transport sent from a GetBody copy, and whose answer was lost after it
// took effect, is not sent again: it ends in ErrOutcomeUnknown and one
// workspace exists.
func TestWriteSentFromAGetBodyCopyIsNotRepeated(t *testing.T) {
	t.Parallel()
	hc := &http.Client{Transport: cloningTransport{http.DefaultTransport}}
	fake, c, _ := newFake(t, seoapi.WithHTTPClient(hc))
	before, _, err := c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)

	fake.DropNext(1, true)
	_, _, err = c.Workspaces.Create(context.Background(), &seoapi.WorkspaceCreateRequest{Name: "once"})
	require.ErrorIs(t, err, seoapi.ErrOutcomeUnknown)
	require.ErrorIs(t, err, seoapi.ErrConnection)

	after, _, err := c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, after, len(before)+1, "the create was sent more than once")
}

// closedURL returns the URL of a server that no longer listens: a
// connection to it is refused.
func closedURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	return srv.URL
}

// TestRefusedConnectionIsRetriedForAWrite: a POST through Do whose body
// has no GetBody, refused at connect, never left: it is retried, and its
// error is ErrConnection, not ErrOutcomeUnknown.
func TestRefusedConnectionIsRetriedForAWrite(t *testing.T) {
	t.Parallel()
	c := newClient(t, closedURL(t), seoapi.WithMaxRetries(2))
	req, err := c.NewRequest(context.Background(), http.MethodPost, "api/workspaces", nil)
	require.NoError(t, err)
	req.Body = io.NopCloser(strings.NewReader(`{"name":"x"}`))
	req.GetBody = nil
	_, err = c.Do(req, nil)
	ae := requireOneKind(t, err, seoapi.ErrConnection)
	assert.False(t, errors.Is(err, seoapi.ErrOutcomeUnknown), "a refused connection never left: %v", err)
	assert.Equal(t, 3, ae.Attempts)
}

// TestDeleteThatTookEffectSucceeds: a DELETE whose answer was lost after
// it took effect, and whose retry finds the project gone, did what was
// asked: success, with the Response of the retry's 404.
func TestDeleteThatTookEffectSucceeds(t *testing.T) {
	t.Parallel()
	fake, c, ws := newFake(t)
	p, _, err := c.Projects.Create(context.Background(), ws, &seoapi.ProjectCreateRequest{Name: "gone", Domain: "gone.example"})
	require.NoError(t, err)

	fake.DropNext(1, true)
	resp, err := c.Projects.Delete(context.Background(), ws, p.ID)
	require.NoError(t, err)
	require.NotNil(t, resp)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, 2, resp.Attempts)

	// A DELETE whose first answer is a 404 is still ErrNotFound.
	_, err = c.Projects.Delete(context.Background(), ws, p.ID)
	require.ErrorIs(t, err, seoapi.ErrNotFound)
}

// TestDoChecksItsDestinationBeforeSending: a v that decoding cannot fill
// fails with ErrInvalidArgument and nothing is sent.
func TestDoChecksItsDestinationBeforeSending(t *testing.T) {
	t.Parallel()
	for name, v := range map[string]any{
		"a struct value":  seoapi.Workspace{},
		"a nil pointer":   (*seoapi.Workspace)(nil),
		"a map value":     map[string]any{},
		"a slice value":   []*seoapi.Workspace{},
		"a string value":  "",
		"a nil map value": map[string]any(nil),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(201, `{"id":"w1"}`))
			c := newClient(t, rec.srv.URL)
			req, err := c.NewRequest(context.Background(), http.MethodPost, "api/workspaces", map[string]string{"name": "x"})
			require.NoError(t, err)
			resp, err := c.Do(req, v)
			require.ErrorIs(t, err, seoapi.ErrInvalidArgument)
			assert.Nil(t, resp)
			assert.Empty(t, rec.requests(), "sent before the destination was checked")
		})
	}
}

// TestContextCauseIsNotThisCallsOutcome: a context cancelled with another
// call's error as its cause (errgroup, context.WithCancelCause) ends an
// in-flight create with the context's error and ErrOutcomeUnknown, never
// with the other call's *APIError.
func TestContextCauseIsNotThisCallsOutcome(t *testing.T) {
	t.Parallel()
	other := newClient(t, closedURL(t), seoapi.WithMaxRetries(0))
	_, _, otherErr := other.Workspaces.List(context.Background(), nil)
	require.ErrorIs(t, otherErr, seoapi.ErrConnection)

	arrived := make(chan struct{})
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	})
	c := newClient(t, rec.srv.URL)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		<-arrived
		cancel(fmt.Errorf("shutting down: %w", otherErr))
	}()
	_, _, err := c.Projects.Create(ctx, "ws", &seoapi.ProjectCreateRequest{Name: "p"})

	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, err, seoapi.ErrOutcomeUnknown)
	assert.Equal(t, "canceled", seoapi.ErrorType(err))
	assert.False(t, errors.Is(err, seoapi.ErrConnection), "the other call's kind: %v", err)
	var ae *seoapi.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.MethodPost, ae.Method)
	assert.Contains(t, ae.URL, "/api/workspaces/ws/projects")
	assert.Len(t, rec.requests(), 1)
}

// TestKeyStaysUnderTheBasePath: on a base URL with a path prefix, no
// reference, escaped dot or escaped slash takes the key out of the prefix,
// whether the caller, a next link or a redirect names it.
func TestKeyStaysUnderTheBasePath(t *testing.T) {
	t.Parallel()
	var rec *recorder
	rec = newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/seoapi/api/workspaces" && r.URL.RawQuery == "":
			w.Header().Set("Link", `</seoapi/%2e%2e/other/items?page=2>; rel="next"`)
			respond(200, `[{"id":"w1"}]`)(w, r)
		case r.URL.Path == "/seoapi/api/redirect":
			http.Redirect(w, r, rec.srv.URL+"/seoapi/%2e%2e/other/x", http.StatusTemporaryRedirect)
		default:
			respond(200, `[]`)(w, r)
		}
	})
	c := newClient(t, rec.srv.URL+"/seoapi/")
	for _, path := range []string{
		"../admin/users", "a/../../admin/users", "%2e%2e/admin/users", "/%2E%2E/admin/users",
		rec.srv.URL + "/seoapi/%2e%2e/admin/users", rec.srv.URL + "/seoapi/..%2fadmin/users",
		"..;/admin/users", `..\admin\users`,
	} {
		_, err := c.NewRequest(context.Background(), http.MethodGet, path, nil)
		assert.ErrorIs(t, err, seoapi.ErrInvalidArgument, path)
	}

	var listErr error
	for _, err := range c.Workspaces.All(context.Background(), nil) {
		listErr = err
	}
	assert.Error(t, listErr, "a next link out of the base path was followed")

	req, err := c.NewRequest(context.Background(), http.MethodGet, "api/redirect", nil)
	require.NoError(t, err)
	_, err = c.Do(req, nil)
	assert.ErrorIs(t, err, seoapi.ErrUnexpectedResponse)

	for _, r := range rec.requests() {
		assert.True(t, strings.HasPrefix(r.Path, "/seoapi/api/"), "the key went to %s", r.Path)
	}
}

// TestKeyInTheReasonPhrase: a server that writes the key into its status
// line does not get it printed with the Response or the error.
func TestKeyInTheReasonPhrase(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprintf(buf, "HTTP/1.1 401 Invalid key %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", testKey)
		buf.Flush()
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL)
	_, resp, err := c.Workspaces.List(context.Background(), nil)
	requireOneKind(t, err, seoapi.ErrUnauthorized)
	require.NotNil(t, resp)
	for _, printed := range []string{
		fmt.Sprintf("%v", resp), fmt.Sprintf("%+v", resp), fmt.Sprintf("%#v", resp), resp.Status,
		err.Error(), fmt.Sprintf("%+v", err),
	} {
		assert.NotContains(t, printed, testKey)
	}
}

// TestClientInAnUnexportedField: fmt prints an unexported field by
// reflection, without calling its methods: every copy of the key in a
// Client sits behind a pointer, where fmt finds only an address.
func TestClientInAnUnexportedField(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://api.example.com")
	holder := struct{ api seoapi.Client }{*c}
	for _, verb := range []string{"%v", "%+v", "%#v"} {
		assert.NotContains(t, fmt.Sprintf(verb, holder), testKey, verb)
		assert.NotContains(t, fmt.Sprintf(verb, holder), testKey[3:], verb)
	}
}

// TestShortKeysAreRefused: a key too short to be a real one fails
// NewClient, before the redactor could rewrite ordinary text with it.
func TestShortKeysAreRefused(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"k", "api", "sk_1234"} {
		_, err := seoapi.NewClient("https://api.example.com", key)
		require.ErrorIs(t, err, seoapi.ErrInvalidArgument, key)
		assert.Contains(t, err.Error(), "shorter than 8 characters")
	}
	_, err := seoapi.NewClient("https://api.example.com", "sk_12345")
	require.NoError(t, err)
}

// TestRetryWaitKeepsTheClientsMaxWait: the wait before a retry is held to
// the client's own WithMaxWait, not the default: with a max wait of 0 no
// retry waits, and the call ends with the answer it got.
func TestRetryWaitKeepsTheClientsMaxWait(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(503, `{}`))
	c := newClient(t, rec.srv.URL, seoapi.WithMaxWait(0))
	_, resp, err := c.Workspaces.List(context.Background(), nil)
	requireOneKind(t, err, seoapi.ErrServer)
	require.NotNil(t, resp)
	assert.Equal(t, 1, resp.Attempts)
	assert.Len(t, rec.requests(), 1, "a retry waited longer than WithMaxWait")
}
