package seoapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorBodyWithBackslashKey is issue 17 item 7 as a user meets it: a
// key with a run of backslashes, and a server answering 400 with the key
// JSON-escaped in its body, exactly or with its last character wrong. The
// call fails at once with the body cleaned of the key, and the near miss
// left as it is. (Before, the near miss took 38 ms at 20 backslashes and
// did not finish at 40.) The work is held linear by TestRedactorWorkIsLinear,
// which counts it; the deadline here only guards against a hang.
func TestErrorBodyWithBackslashKey(t *testing.T) {
	t.Parallel()
	key := "sk_" + strings.Repeat(`\`, 200) + "z"
	escaped := "sk_" + strings.Repeat(`\\`, 200)
	for _, tc := range []struct {
		name, body, want string
	}{
		{"near miss", `{"error":"invalid key ` + escaped + `y"}`, `{"error":"invalid key ` + escaped + `y"}`},
		{"exact", `{"error":"invalid key ` + escaped + `z"}`, `{"error":"invalid key [REDACTED]"}`},
		{"exact twice, \\u005c", `{"error":"` + escaped + `z ` + strings.ReplaceAll(escaped, `\\`, `\u005c`) + `z"}`,
			`{"error":"[REDACTED] [REDACTED]"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(http.StatusBadRequest, tc.body))
			c, err := seoapi.NewClient(rec.srv.URL, key, fastOptions()...)
			require.NoError(t, err)
			done := make(chan error, 1)
			go func() {
				_, _, err := c.Workspaces.List(context.Background(), nil)
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatal("the call did not return within a minute")
			}
			require.ErrorIs(t, err, seoapi.ErrValidation)
			var apiErr *seoapi.APIError
			require.True(t, errors.As(err, &apiErr))
			assert.Equal(t, tc.want, string(apiErr.Body))
		})
	}
}
