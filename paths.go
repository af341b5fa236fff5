package seoapi

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

func portOf(u *url.URL) int {
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return p
	}
	if u.Scheme == "http" {
		return 80
	}
	return 443
}

// parseBaseURL checks baseURL and returns it with a trailing slash, so
// that relative paths resolve under any path prefix it carries.
func parseBaseURL(raw string, insecureHTTP bool) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return nil, invalidArgument("base URL %q is not an absolute http(s) URL", raw)
	}
	if err := checkBaseURL(u, insecureHTTP); err != nil {
		return nil, err
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u, nil
}

// checkBaseURL refuses a base URL the key may not be sent to, or that a
// relative path cannot be joined to.
func checkBaseURL(u *url.URL, insecureHTTP bool) error {
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return invalidArgument("base URL %q is not an absolute http(s) URL", u.Redacted())
	case u.Scheme == "http" && !insecureHTTP && !isLoopback(u.Hostname()):
		return invalidArgument("base URL %q uses plain http to a host that is not loopback; use https, or WithInsecureHTTP", u.Redacted())
	case u.User != nil:
		return invalidArgument("base URL must not carry credentials; the API key authenticates")
	case u.RawQuery != "" || u.Fragment != "":
		return invalidArgument("base URL %q must not have a query or fragment", u.Redacted())
	case !plainPath(u.EscapedPath()):
		return invalidArgument("base URL %q has a path servers may read differently (%s)", u.Redacted(), refusedInPaths)
	}
	return nil
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || ip != nil && ip.IsLoopback()
}

// resolve returns the URL for path: an absolute http(s) URL as it is, any
// other path joined to the base URL as text, without one leading slash
// ("//host/x" keeps one and fails keyMayGo). Either way the result still
// has to pass keyMayGo.
func (c *Client) resolve(path string) string {
	if looksLikeURL(path) {
		return path
	}
	return c.baseString + strings.TrimPrefix(path, "/")
}

// keyMayGo is the one place that decides whether the API key may be sent
// to u, and every URL the SDK sends to passes it (NewRequest, Do,
// redirects, next links, resume tokens): the base URL's scheme, host and
// port, no user info, and a plain path (plainPath) under the base URL's.
func (c *Client) keyMayGo(u *url.URL) bool {
	if u == nil || u.Opaque != "" || u.User != nil ||
		!strings.EqualFold(u.Scheme, c.baseURL.Scheme) ||
		!strings.EqualFold(u.Hostname(), c.baseURL.Hostname()) || portOf(u) != c.serverPort {
		return false
	}
	path := u.EscapedPath()
	return plainPath(path) && strings.HasPrefix(path, c.basePath)
}

// refusedInPaths names what plainPath refuses, for errors.
const refusedInPaths = `%2e, %2f, %3b, %5c, "\", ";", "//" or a dot segment`

// plainPath reports an escaped path that servers and gateways read alike.
// One they may read otherwise is refused, not interpreted: an escaped dot,
// slash, semicolon or backslash, a backslash, a semicolon (";params"),
// "//", or a "." or ".." segment.
func plainPath(path string) bool {
	lower := strings.ToLower(path)
	if strings.ContainsAny(path, `\;`) || strings.Contains(path, "//") ||
		strings.Contains(lower, "%2e") || strings.Contains(lower, "%2f") || strings.Contains(lower, "%3b") ||
		strings.Contains(lower, "%5c") {
		return false
	}
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// maxRedirects is how many redirects one attempt follows, as net/http.
const maxRedirects = 10

// redirectError is a redirect the caller's own CheckRedirect refused, or
// one too many.
type redirectError struct{ err error }

func (e *redirectError) Error() string { return "redirect not followed: " + e.err.Error() }
func (e *redirectError) Unwrap() error { return e.err }

// checkRedirect follows a redirect only when it keeps the method, the
// method is GET, HEAD or DELETE, and the target passes keyMayGo, so the
// key never goes to another origin and a write is never turned into a
// GET. Any other redirect is handed back as the response, which becomes
// an *APIError with the 3xx status and its Location. The caller's own
// check runs after ours.
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
