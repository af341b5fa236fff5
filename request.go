package seoapi

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/hashicorp/go-retryablehttp"
)

// NewRequest builds a request for path, which is relative to the base URL
// (a leading slash is ignored) or an absolute URL under the base URL, such
// as a next-page link. A non-nil body is sent as JSON. The request carries
// the Authorization, Content-Type, Accept and User-Agent headers. A URL
// outside the base URL fails with ErrInvalidArgument, so the key is never
// sent to another host.
func (c *Client) NewRequest(ctx context.Context, method, path string, body any) (*http.Request, error) {
	if ctx == nil {
		return nil, invalidArgument("nil context")
	}
	target, err := c.resolve(path)
	if err != nil {
		return nil, err
	}
	var reader io.Reader
	if body != nil {
		buf, err := encodeBody(body)
		if err != nil {
			return nil, invalidArgument("encoding request body: %v", err)
		}
		// A *bytes.Reader: net/http writes it with the headers in one go,
		// and bodyWasRead can tell whether it left.
		reader = bytes.NewReader(buf)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return nil, invalidArgument("building request: %v", err)
	}
	// One backing array for the four header values: one allocation, not four.
	values := [...]string{c.authHeader, "application/json", "application/json", c.userAgent}
	req.Header["Authorization"] = values[0:1:1]
	req.Header["Content-Type"] = values[1:2:2]
	req.Header["Accept"] = values[2:3:3]
	req.Header["User-Agent"] = values[3:4:4]
	return req, nil
}

// bodyWasRead tells whether any of an attempt's body was read, for a
// body of a known in-memory type (as http.NewRequest makes from a
// *bytes.Reader or *strings.Reader, the SDK's own included); known is false
// for any other body. A transport reads the body only once it has a
// connection and has written the headers, so an unread body means the
// request never left, whatever error the attempt reports.
func bodyWasRead(body io.ReadCloser) (read, known bool) {
	var r io.Reader = body
	// io.NopCloser's wrapper has one exported field, the reader; net/http
	// looks through it the same way.
	if v := reflect.ValueOf(body); v.Kind() == reflect.Struct && v.NumField() == 1 && v.Type().PkgPath() == "io" && v.Field(0).CanInterface() {
		if inner, ok := v.Field(0).Interface().(io.Reader); ok {
			r = inner
		}
	}
	switch r := r.(type) {
	case *bytes.Reader:
		return int64(r.Len()) < r.Size(), r.Size() > 0
	case *strings.Reader:
		return int64(r.Len()) < r.Size(), r.Size() > 0
	}
	return false, false
}

// retryableRequest wraps req for retryablehttp without copying its body
// when it can be read again (GetBody, as http.NewRequest sets for the
// SDK's own requests); rewindBody gives each retry a fresh copy.
func retryableRequest(req *http.Request) (*retryablehttp.Request, error) {
	if req.Body == nil || req.Body == http.NoBody || req.GetBody != nil {
		return &retryablehttp.Request{Request: req}, nil
	}
	rreq, err := retryablehttp.FromRequest(req)
	if err != nil {
		return nil, invalidArgument("reading request body: %v", err)
	}
	return rreq, nil
}

// Ptr returns a pointer to v, for the optional fields of request types:
// ProjectUpdateRequest{Name: seoapi.Ptr("new name")}.
func Ptr[T any](v T) *T { return &v }
