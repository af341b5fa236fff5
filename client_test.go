package seoapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewClientRejectsBadArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		baseURL string
		key     string
		opts    []seoapi.Option
	}{
		{"empty key", "https://api.example.com", "", nil},
		{"key with space", "https://api.example.com", "sk abc", nil},
		{"key with newline", "https://api.example.com", "sk\nabc", nil},
		{"key with tab", "https://api.example.com", "sk\tabc", nil},
		{"relative URL", "api.example.com", testKey, nil},
		{"empty URL", "", testKey, nil},
		{"ftp scheme", "ftp://api.example.com", testKey, nil},
		{"plain http to remote host", "http://api.example.com", testKey, nil},
		{"credentials in URL", "https://user:pw@api.example.com", testKey, nil},
		{"query in URL", "https://api.example.com/?x=1", testKey, nil},
		{"zero max response", "https://api.example.com", testKey, []seoapi.Option{seoapi.WithMaxResponseBytes(0)}},
		{"nil http client", "https://api.example.com", testKey, []seoapi.Option{seoapi.WithHTTPClient(nil)}},
		{"user agent with newline", "https://api.example.com", testKey, []seoapi.Option{seoapi.WithUserAgent("a\r\nX-Evil: 1")}},
		{"negative retries", "https://api.example.com", testKey, []seoapi.Option{seoapi.WithMaxRetries(-1)}},
		{"retry wait min > max", "https://api.example.com", testKey, []seoapi.Option{seoapi.WithRetryWait(2, 1)}},
		{"zero rate limit", "https://api.example.com", testKey, []seoapi.Option{seoapi.WithRateLimit(0, 50)}},
		{"nil limiter", "https://api.example.com", testKey, []seoapi.Option{seoapi.WithLimiter(nil)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := seoapi.NewClient(tt.baseURL, tt.key, tt.opts...)
			require.ErrorIs(t, err, seoapi.ErrInvalidArgument)
			assert.Nil(t, c)
			if tt.key != "" {
				assert.NotContains(t, err.Error(), tt.key)
			}
		})
	}
}

func TestNewClientAcceptsLoopbackAndInsecureOptIn(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"http://localhost:8080", "http://127.0.0.1", "http://127.1.2.3:9", "http://[::1]:80", "https://api.example.com/seo/"} {
		_, err := seoapi.NewClient(u, testKey)
		assert.NoError(t, err, u)
	}
	_, err := seoapi.NewClient("http://api.internal", testKey, seoapi.WithInsecureHTTP())
	assert.NoError(t, err)
}

func TestNewClientFromEnv(t *testing.T) {
	t.Setenv(seoapi.EnvBaseURL, "https://api.example.com")
	t.Setenv(seoapi.EnvAPIKey, testKey)
	c, err := seoapi.NewClientFromEnv()
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.com/", c.BaseURL().String())

	t.Setenv(seoapi.EnvAPIKey, "")
	_, err = seoapi.NewClientFromEnv()
	require.ErrorIs(t, err, seoapi.ErrInvalidArgument)
	assert.Contains(t, err.Error(), seoapi.EnvAPIKey)
}

func TestBaseURLPathPrefix(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{"/seo", "/seo/"} {
		rec := newRecorder(t, respond(200, `[]`))
		c := newClient(t, rec.srv.URL+prefix)
		_, _, err := c.Workspaces.List(context.Background(), nil)
		require.NoError(t, err)
		require.Len(t, rec.requests(), 1)
		assert.Equal(t, "/seo/api/workspaces", rec.requests()[0].Path, prefix)
	}
}

func TestEveryRequestCarriesTheHeaders(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `{"id":"w1"}`))
	c := newClient(t, rec.srv.URL, seoapi.WithUserAgent("myapp/1.2"))
	_, err := c.Projects.Delete(context.Background(), "ws1", "p1")
	require.NoError(t, err)
	_, _, err = c.Workspaces.Create(context.Background(), &seoapi.WorkspaceCreateRequest{Name: "x"})
	require.NoError(t, err)
	for _, r := range rec.requests() {
		assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"), r.Method)
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"), r.Method)
		assert.Equal(t, "application/json", r.Header.Get("Accept"), r.Method)
		assert.Equal(t, "myapp/1.2 seoapi-go/"+seoapi.Version, r.Header.Get("User-Agent"), r.Method)
	}
}

func TestNewRequestRefusesURLsOutsideTheBase(t *testing.T) {
	t.Parallel()
	c, err := seoapi.NewClient("https://api.example.com/seo", testKey)
	require.NoError(t, err)
	ctx := context.Background()
	for _, u := range []string{
		"https://evil.example.com/seo/api/workspaces",
		"http://api.example.com/seo/api/workspaces",
		"https://api.example.com/other/api",
		"//evil.example.com/seo/api",
	} {
		_, err := c.NewRequest(ctx, http.MethodGet, u, nil)
		assert.ErrorIs(t, err, seoapi.ErrInvalidArgument, u)
	}
	req, err := c.NewRequest(ctx, http.MethodGet, "https://api.example.com/seo/api/workspaces?page=2", nil)
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.com/seo/api/workspaces?page=2", req.URL.String())
	req, err = c.NewRequest(ctx, http.MethodGet, "/api/workspaces", nil)
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.com/seo/api/workspaces", req.URL.String())
}

func TestAPIKeyNeverPrinted(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	// The server echoes the key back, as a careless error page might.
	rec := newRecorder(t, respond(401, `{"error":{"message":"invalid key `+testKey+`","code":"bad_key"}}`, "X-Request-Id", "r1"))
	c := newClient(t, rec.srv.URL, seoapi.WithLogger(logger))

	_, _, err := c.Workspaces.List(context.Background(), nil)
	require.ErrorIs(t, err, seoapi.ErrUnauthorized)
	var apiErr *seoapi.APIError
	require.True(t, errors.As(err, &apiErr))

	outputs := []string{
		err.Error(), apiErr.Message, string(apiErr.Body), logs.String(),
		fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%s", c),
		fmt.Sprintf("%v", *c), fmt.Sprintf("%+v", *c),
		fmt.Sprintf("%+v", apiErr), fmt.Sprintf("%#v", apiErr),
	}
	for i, out := range outputs {
		assert.NotContains(t, out, testKey, "output %d", i)
	}
	assert.Contains(t, logs.String(), "seoapi: attempt", "the logger was used")
}

func TestSecretNeverPrinted(t *testing.T) {
	t.Parallel()
	const value = "sk_live_supersecret"
	k := seoapi.APIKey{ID: "k1", Key: seoapi.Secret(value)}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("created", "key", k.Key, "apikey", k)
	for _, out := range []string{
		fmt.Sprint(k.Key), fmt.Sprintf("%v|%+v|%#v|%s|%q|%x|%X|%10s", k.Key, k.Key, k.Key, k.Key, k.Key, k.Key, k.Key, k.Key),
		fmt.Sprintf("%v|%+v|%#v", k, k, &k), k.Key.String(), k.Key.GoString(), logs.String(),
	} {
		assert.NotContains(t, out, value)
		assert.NotContains(t, out, fmt.Sprintf("%x", value))
	}
	assert.Equal(t, value, string(k.Key))
}

func TestWithHTTPClientIsNotModified(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `[]`))
	hc := &http.Client{}
	c := newClient(t, rec.srv.URL, seoapi.WithHTTPClient(hc))
	_, _, err := c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Nil(t, hc.Transport, "the caller's client keeps its transport")
}

func TestDoDecodesIntoCallerTypes(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `{"data":[{"id":1,"name":"a"}],"meta":{"total":1}}`))
	c := newClient(t, rec.srv.URL)
	ctx := context.Background()

	req, err := c.NewRequest(ctx, http.MethodGet, "api/workspaces", nil)
	require.NoError(t, err)
	var typed []*seoapi.Workspace
	_, err = c.Do(req, &typed)
	require.NoError(t, err)
	require.Len(t, typed, 1)
	assert.Equal(t, "1", typed[0].ID)

	rec = newRecorder(t, respond(200, `{"workspace":{"id":"w1","name":"a"}}`))
	c = newClient(t, rec.srv.URL)
	req, err = c.NewRequest(ctx, http.MethodGet, "api/workspaces/w1", nil)
	require.NoError(t, err)
	var single *seoapi.Workspace
	_, err = c.Do(req, &single)
	require.NoError(t, err)
	require.NotNil(t, single)
	assert.Equal(t, "w1", single.ID, "unwrapped from its envelope")

	req, err = c.NewRequest(ctx, http.MethodGet, "api/workspaces", nil)
	require.NoError(t, err)
	var generic map[string]any
	_, err = c.Do(req, &generic)
	require.NoError(t, err)
	assert.Contains(t, generic, "workspace")
}

func TestNilContextIsRejected(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://api.example.com")
	//lint:ignore SA1012 the test is about a nil context
	_, _, err := c.Workspaces.List(nil, nil) //nolint:staticcheck
	require.ErrorIs(t, err, seoapi.ErrInvalidArgument)
}

func TestDecodeErrorNeverQuotesTheKey(t *testing.T) {
	t.Parallel()
	// A caller's own type whose decoder quotes the value it failed on.
	rec := newRecorder(t, respond(200, `{"t":"`+testKey+`"}`))
	c := newClient(t, rec.srv.URL)
	req, err := c.NewRequest(context.Background(), http.MethodGet, "api/other", nil)
	require.NoError(t, err)
	var dst struct {
		T time.Time `json:"t"`
	}
	_, err = c.Do(req, &dst)
	require.ErrorIs(t, err, seoapi.ErrUnexpectedResponse)
	var apiErr *seoapi.APIError
	require.ErrorAs(t, err, &apiErr)
	for _, out := range []string{err.Error(), apiErr.Message, apiErr.Err.Error(), fmt.Sprintf("%+v", *apiErr), string(apiErr.Body)} {
		assert.NotContains(t, out, testKey)
	}
}

func TestHeadWithContentLengthSucceeds(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "42")
		w.WriteHeader(200)
	})
	c := newClient(t, rec.srv.URL)
	req, err := c.NewRequest(context.Background(), http.MethodHead, "api/workspaces", nil)
	require.NoError(t, err)
	resp, err := c.Do(req, nil)
	require.NoError(t, err, "a HEAD answer declares a length it does not send")
	assert.Equal(t, 1, resp.Attempts)
	assert.Len(t, rec.requests(), 1)
}

// ctxLimiter waits for its context and fails with an error that also
// names a kind.
type ctxLimiter struct{}

func (ctxLimiter) Wait(ctx context.Context) error {
	<-ctx.Done()
	return errors.Join(seoapi.ErrConnection, ctx.Err())
}

func TestContextErrorMatchesNoKind(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `[]`))
	c := newLimitedClient(t, rec.srv.URL, waitFunc(ctxLimiter{}.Wait))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, _, err := c.Workspaces.List(ctx, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	for _, kind := range allKinds {
		assert.NotErrorIs(t, err, kind, "the context's error and no kind")
	}
	assert.Equal(t, "deadline_exceeded", seoapi.ErrorType(err))
}

func TestCreatedSecretCannotBeReadAgainFromTheResponse(t *testing.T) {
	t.Parallel()
	_, c, ws := newFake(t)
	key, resp, err := c.APIKeys.Create(context.Background(), ws, &seoapi.APIKeyCreateRequest{Name: "ci"})
	require.NoError(t, err)
	require.NotEmpty(t, string(key.Key))
	rest, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Empty(t, rest, "the body was read and closed")
}

func TestZeroClientFormatsWithoutPanicking(t *testing.T) {
	t.Parallel()
	var c seoapi.Client
	assert.Contains(t, fmt.Sprintf("%v", &c), "[REDACTED]")
	out, err := json.Marshal(&c)
	require.NoError(t, err)
	assert.Contains(t, string(out), "[REDACTED]")
}

// TestBaseURLWithDoubleSlash: a base path holding "//" is refused: a
// server that merges slashes and one that does not would put different
// paths under it.
func TestBaseURLWithDoubleSlash(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"https://api.example.com/a//b/", "https://api.example.com//"} {
		_, err := seoapi.NewClient(base, testKey)
		assert.ErrorIs(t, err, seoapi.ErrInvalidArgument, base)
	}
}

// TestDotSegmentIDsNameTheID: an ID a server may read as a dot segment
// ("." or ".." with ";params") fails before anything is sent, with an
// error that names the argument rather than the URL.
func TestDotSegmentIDsNameTheID(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(204, ""))
	c := newClient(t, rec.srv.URL)
	for _, id := range []string{".;x", "..;x", "..;", ".;"} {
		_, err := c.Projects.Delete(context.Background(), "ws", id)
		require.ErrorIs(t, err, seoapi.ErrInvalidArgument, id)
		assert.Contains(t, err.Error(), "projectID", id)
		assert.NotContains(t, err.Error(), "base URL", id)
		_, err = c.Projects.Delete(context.Background(), id, "p")
		require.ErrorIs(t, err, seoapi.ErrInvalidArgument, id)
		assert.Contains(t, err.Error(), "workspaceID", id)
	}
	assert.Empty(t, rec.requests(), "nothing may reach the server")
}
