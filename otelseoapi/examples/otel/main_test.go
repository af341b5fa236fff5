package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunPrintsTheSessionsTelemetry(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	require.NoError(t, run(ctx, &out))
	text := out.String()

	for _, want := range []string{
		"sync shop [internal, ",
		"\n  POST /api/workspaces/{id}/projects [client, ",
		"\n    HTTP POST /api/workspaces/{id}/projects [client, ",
		"\n  GET /api/workspaces/{id}/projects [client, ",
		" seoapi.operation=Projects.List http.response.status_code=200 seoapi.attempts=2\n",
		" http.response.status_code=503 seoapi.retry.wait=0.",
		" error.type=server status=Error(server)\n",
		"\n    HTTP GET /api/workspaces/{id}/projects [client, ",
		" http.request.resend_count=1\n",
		"\n  PATCH /api/workspaces/{id}/projects/{projectId} [client, ",
		" http.response.status_code=404 seoapi.attempts=1 error.type=not_found status=Error(not_found)\n",
		// The PATCH, fourth request in a second, waited inside its attempt.
		"\n    HTTP PATCH /api/workspaces/{id}/projects/{projectId} [client, ",
		"status=Error(not_found)\n      seoapi.limiter.wait [internal, ",
		"] seoapi.wait.level=per_second\n",
		"\n  GET /api/workspaces/{id}/members [client, ",
		"The server got 5 requests, 5 of them with a traceparent.",
		"\nhttp.client.request.duration (s)\n",
		"\nseoapi.client.call.duration (s)\n",
		"\nseoapi.client.retries ({retry})\n  1 {error.type=server,http.request.method=GET,http.response.status_code=503,",
		"\nseoapi.client.limiter.wait.duration (s)\n  count=",
	} {
		assert.Contains(t, text, want)
	}
	// No ID, and no key, anywhere: the fake's IDs are ws_..., proj_...;
	// its keys sk_....
	for _, id := range []string{"ws_", "proj_", "sk_"} {
		assert.NotContains(t, text, id)
	}
}
