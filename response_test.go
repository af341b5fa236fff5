package seoapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResponseBodyCap(t *testing.T) {
	t.Parallel()
	big := `[` + strings.Repeat(`{"id":"x"},`, 1000) + `{"id":"y"}]`
	rec := newRecorder(t, respond(200, big))
	c := newClient(t, rec.srv.URL, seoapi.WithMaxResponseBytes(1024))
	_, resp, err := c.Workspaces.List(context.Background(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exceeds 1024 bytes")
	require.NotNil(t, resp)
	assert.Equal(t, 200, resp.StatusCode)

	// 1001 items of 11 bytes: more than the default item limit of such a
	// cap (one per 128 bytes), so the limit is raised to fit them.
	c = newClient(t, rec.srv.URL, seoapi.WithMaxResponseBytes(int64(len(big))), seoapi.WithMaxItems(1001))
	list, _, err := c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, list, 1001)
}

// TestResponsePrintsQuoted: fmt shows a Response's status line and quotes
// what a server sent, so a cursor or request ID cannot break a log line.
func TestResponsePrintsQuoted(t *testing.T) {
	t.Parallel()
	r := seoapi.Response{Response: &http.Response{Status: "404 Not Found", StatusCode: 404},
		NextCursor: "c1\nlevel=ERROR msg=\"forged line\"", RequestID: "req\x1b[2J"}
	for _, verb := range []string{"%v", "%+v", "%s", "%#v"} {
		out := fmt.Sprintf(verb, r)
		assert.Contains(t, out, `Status: "404 Not Found"`, verb)
		assert.NotContains(t, out, "\n", verb)
		assert.NotContains(t, out, "\x1b", verb)
	}
}
