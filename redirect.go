package seoapi

import (
	"fmt"
	"net/http"
)

// maxRedirects is how many redirects one attempt follows, as net/http.
const maxRedirects = 10

// redirectError is a redirect the caller's own CheckRedirect refused, or
// one too many.
type redirectError struct{ err error }

func (e *redirectError) Error() string { return "redirect not followed: " + e.err.Error() }
func (e *redirectError) Unwrap() error { return e.err }

// checkRedirect follows a redirect only when it keeps the method, the
// method is GET, HEAD or DELETE, and the target is under the base URL
// (same scheme, host, port and path prefix), so the key never goes to
// another origin and a write is never turned into a GET. Any other
// redirect is handed back as the response, which becomes an *APIError
// with the 3xx status and its Location. The caller's own check runs
// after ours.
func (c *Client) checkRedirect(user func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		switch method := via[0].Method; {
		case req.Method != method || !c.keyMayGo(req.URL),
			method != http.MethodGet && method != http.MethodHead && method != http.MethodDelete:
			return http.ErrUseLastResponse
		case len(via) >= maxRedirects:
			return &redirectError{fmt.Errorf("stopped after %d redirects", maxRedirects)}
		case user == nil:
			return nil
		}
		err := user(req, via)
		if err != nil && err != http.ErrUseLastResponse {
			return &redirectError{err}
		}
		return err
	}
}
