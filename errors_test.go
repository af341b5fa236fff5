package seoapi_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var allKinds = []error{
	seoapi.ErrInvalidArgument, seoapi.ErrUnauthorized, seoapi.ErrForbidden, seoapi.ErrNotFound,
	seoapi.ErrConflict, seoapi.ErrValidation, seoapi.ErrRateLimited, seoapi.ErrServer,
}

func TestStatusKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		kind   error
	}{
		{400, seoapi.ErrValidation}, {422, seoapi.ErrValidation}, {401, seoapi.ErrUnauthorized},
		{403, seoapi.ErrForbidden}, {404, seoapi.ErrNotFound}, {409, seoapi.ErrConflict},
		{429, seoapi.ErrRateLimited}, {500, seoapi.ErrServer}, {501, seoapi.ErrServer},
		{503, seoapi.ErrServer}, {599, seoapi.ErrServer}, {418, nil}, {302, nil},
	}
	for _, tt := range tests {
		rec := newRecorder(t, respond(tt.status, `{"message":"m"}`, "Retry-After", "0"))
		c := newClient(t, rec.srv.URL, seoapi.WithMaxRetries(0))
		_, _, err := c.Workspaces.List(context.Background(), nil)
		var apiErr *seoapi.APIError
		require.True(t, errors.As(err, &apiErr), tt.status)
		assert.Equal(t, tt.status, apiErr.StatusCode)
		for _, kind := range allKinds {
			assert.Equal(t, kind == tt.kind, errors.Is(err, kind), "status %d, kind %v", tt.status, kind)
		}
		assert.Contains(t, err.Error(), "GET")
		assert.Contains(t, err.Error(), "/api/workspaces")
	}
}

func TestErrorBodyShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		body        string
		contentType string
		message     string
		code        string
	}{
		{"error string", `{"error":"name is required"}`, "", "name is required", ""},
		{"error object", `{"error":{"message":"name is required","code":"missing_field"}}`, "", "name is required", "missing_field"},
		{"top-level message", `{"message":"name is required","code":"missing_field"}`, "", "name is required", "missing_field"},
		{"numeric code", `{"message":"m","code":4001}`, "", "m", "4001"},
		{"errors array", `{"errors":[{"message":"name is required","field":"name"},{"message":"x"}]}`, "", "name is required", ""},
		{"errors array of strings", `{"errors":["name is required"]}`, "", "name is required", ""},
		{"detail", `{"detail":"name is required"}`, "", "name is required", ""},
		{"plain text", "name is required\n", "text/plain", "name is required", ""},
		{"html page", "<html><head><title>502</title></head><body><h1>Bad   Gateway</h1>\n<p>nginx</p></body></html>", "text/html", "502 Bad Gateway nginx", ""},
		{"empty body", "", "", "", ""},
		{"json without message", `{"status":"bad"}`, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			kv := []string{"X-Request-Id", "req-42"}
			if tt.contentType != "" {
				kv = append(kv, "Content-Type", tt.contentType)
			}
			rec := newRecorder(t, respond(422, tt.body, kv...))
			_, _, err := newClient(t, rec.srv.URL).Projects.Create(context.Background(), "ws", &seoapi.ProjectCreateRequest{})
			var apiErr *seoapi.APIError
			require.True(t, errors.As(err, &apiErr))
			assert.ErrorIs(t, err, seoapi.ErrValidation)
			assert.Equal(t, tt.message, apiErr.Message)
			assert.Equal(t, tt.code, apiErr.Code)
			assert.Equal(t, "req-42", apiErr.RequestID)
			assert.Equal(t, 422, apiErr.StatusCode)
			assert.Equal(t, "POST", apiErr.Method)
			assert.Equal(t, tt.body, string(apiErr.Body))
			assert.Contains(t, err.Error(), "422")
			if tt.message != "" {
				assert.Contains(t, err.Error(), tt.message)
			}
		})
	}
}

func TestErrorBodyIsCappedAndSnippetShort(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200<<10)
	rec := newRecorder(t, respond(500, long, "Content-Type", "text/plain"))
	_, _, err := newClient(t, rec.srv.URL, seoapi.WithMaxRetries(0)).Workspaces.List(context.Background(), nil)
	var apiErr *seoapi.APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Len(t, apiErr.Body, 64<<10)
	assert.LessOrEqual(t, len(apiErr.Message), 200)
	assert.Less(t, len(err.Error()), 400)
}

func TestErrorRequestIDAndRetryAfter(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(429, `{}`, "Request-Id", "abc", "Retry-After", "7"))
	_, _, err := newClient(t, rec.srv.URL, seoapi.WithMaxRetries(0)).Workspaces.List(context.Background(), nil)
	var apiErr *seoapi.APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Equal(t, "abc", apiErr.RequestID)
	assert.Equal(t, 7*time.Second, apiErr.RetryAfter)
	assert.Equal(t, 1, apiErr.Attempts)
	assert.Equal(t, "7", apiErr.Header.Get("Retry-After"))
}

// handBuiltRefusal is a Limiter that refuses every request with an
// *APIError it builds itself (StatusCode 0), not with RefuseWait.
type handBuiltRefusal struct{}

func (handBuiltRefusal) Wait(context.Context) error {
	return &seoapi.APIError{Message: "fleet limit: too long"}
}

// TestHandBuiltRefusalHasOneKind: a Limiter's own *APIError refusal is a
// rate-limit refusal, matching ErrRateLimited and nothing else.
func TestHandBuiltRefusalHasOneKind(t *testing.T) {
	t.Parallel()
	srv := seoapitest.NewServer(t)
	c, err := seoapi.NewClient(srv.URL(), srv.Key(), seoapi.WithLimiter(waitFunc(handBuiltRefusal{}.Wait)))
	require.NoError(t, err)
	for _, call := range []func() error{
		func() error {
			_, _, err := c.Workspaces.Create(context.Background(), &seoapi.WorkspaceCreateRequest{Name: "x"})
			return err
		},
		func() error { _, _, err := c.Workspaces.List(context.Background(), nil); return err },
	} {
		err := call()
		for _, kind := range append(allKinds, seoapi.ErrConnection, seoapi.ErrUnexpectedResponse) {
			assert.Equal(t, kind == seoapi.ErrRateLimited, errors.Is(err, kind), "%v: kind %v", err, kind)
		}
		assert.Equal(t, "rate_limited", seoapi.ErrorType(err))
		assert.Contains(t, err.Error(), "fleet limit: too long")
	}
}

// sharedRefusal refuses every wait with the one *APIError it holds.
type sharedRefusal struct{ err *seoapi.APIError }

func (l sharedRefusal) Wait(context.Context) error { return l.err }

// TestSharedRefusalStaysTheLimiters: a Limiter that refuses every wait
// with one shared *APIError gets it back unchanged, and each call's error
// names its own URL and still matches the refusal, also when calls are
// refused at the same time.
func TestSharedRefusalStaysTheLimiters(t *testing.T) {
	t.Parallel()
	shared := seoapi.RefuseWait(time.Hour, "fleet limit: too long")
	srv := seoapitest.NewServer(t)
	c, err := seoapi.NewClient(srv.URL(), srv.Key(), seoapi.WithLimiter(waitFunc(sharedRefusal{shared}.Wait)))
	require.NoError(t, err)
	var wg sync.WaitGroup
	for _, ws := range []string{"ws_1", "ws_2", "ws_3", "ws_4"} {
		wg.Go(func() {
			_, _, err := c.Projects.List(context.Background(), ws, nil)
			var ae *seoapi.APIError
			if !assert.ErrorAs(t, err, &ae) {
				return
			}
			assert.Equal(t, srv.URL()+"/api/workspaces/"+ws+"/projects", ae.URL)
			assert.Equal(t, "fleet limit: too long", ae.Message)
			assert.Equal(t, time.Hour, ae.RetryAfter)
			assert.ErrorIs(t, err, shared, "the limiter's refusal stays reachable")
			for _, kind := range append(allKinds, seoapi.ErrConnection, seoapi.ErrUnexpectedResponse) {
				assert.Equal(t, kind == seoapi.ErrRateLimited, errors.Is(err, kind), "%v: kind %v", err, kind)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, seoapi.RefuseWait(time.Hour, "fleet limit: too long"), shared, "the limiter's refusal is unchanged")
}
