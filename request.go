package seoapi

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync/atomic"
)

// NewRequest builds a request for path, which is relative to the base URL
// (a leading slash is ignored) or an absolute URL under the base URL, such
// as a next-page link. A non-nil body is sent as JSON. The request carries
// the Authorization, Content-Type, Accept and User-Agent headers. A URL
// the key may not go to (another origin, or a path that leaves the base
// URL's path once dot segments in any encoding are removed) fails with
// ErrInvalidArgument.
func (c *Client) NewRequest(ctx context.Context, method, path string, body any) (*http.Request, error) {
	data, err := encodeBody(body)
	if err != nil {
		return nil, err
	}
	var r io.Reader
	if data != nil {
		r = bytes.NewReader(data)
	}
	return c.newRequest(ctx, method, path, r)
}

// newRequest is NewRequest with its body encoded. The SDK's own calls
// give none: they give the encoded body to their call, which gives each
// attempt its copy.
func (c *Client) newRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	if ctx == nil {
		return nil, invalidArgument("nil context")
	}
	target, err := c.resolve(path)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, invalidArgument("building request: %v", err)
	}
	if !c.keyMayGo(req.URL) {
		return nil, invalidArgument("URL %q is not under the client's base URL", req.URL.Redacted())
	}
	// One backing array for the four header values: one allocation, not four.
	values := [...]string{*c.authHeader, "application/json", "application/json", c.userAgent}
	req.Header["Authorization"] = values[0:1:1]
	req.Header["Content-Type"] = values[1:2:2]
	req.Header["Accept"] = values[2:3:3]
	req.Header["User-Agent"] = values[3:4:4]
	return req, nil
}

// sentBody is the body of one attempt. It marks left once read: a
// transport reads a body only once it has a connection (see call.prepare).
type sentBody struct {
	r    bytes.Reader
	left *atomic.Bool
}

func (b *sentBody) Read(p []byte) (int, error) {
	b.left.Store(true)
	return b.r.Read(p)
}

func (b *sentBody) Close() error { return nil }

// Ptr returns a pointer to v, for the optional fields of request types:
// ProjectUpdateRequest{Name: seoapi.Ptr("new name")}.
func Ptr[T any](v T) *T { return &v }
