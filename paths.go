package seoapi

import (
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
	switch u.Scheme {
	case "https":
	case "http":
		if !insecureHTTP && !isLoopback(u.Hostname()) {
			return nil, invalidArgument("base URL %q uses plain http to a host that is not loopback; use https, or WithInsecureHTTP", u.Redacted())
		}
	default:
		return nil, invalidArgument("base URL %q is not an absolute http(s) URL", u.Redacted())
	}
	if u.User != nil {
		return nil, invalidArgument("base URL must not carry credentials; the API key authenticates")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, invalidArgument("base URL %q must not have a query or fragment", u.Redacted())
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// resolve returns the URL for path. A plain relative path (the SDK's own)
// is joined to the base URL as text, parsed once by http.NewRequest; any
// other reference is resolved and checked against the base URL.
func (c *Client) resolve(path string) (string, error) {
	if plainRelative(path) {
		return c.baseString + strings.TrimPrefix(path, "/"), nil
	}
	ref, err := url.Parse(path)
	if err != nil {
		return "", invalidArgument("path %q: %v", path, err)
	}
	if ref.IsAbs() || ref.Host != "" {
		// Resolving removes dot segments, which could climb out of the
		// base path once the server reads them.
		ref = c.baseURL.ResolveReference(ref)
		if !c.underBase(ref) {
			return "", invalidArgument("URL %q is not under the client's base URL", ref.Redacted())
		}
		return ref.String(), nil
	}
	ref, err = url.Parse(strings.TrimLeft(path, "/"))
	if err != nil {
		return "", invalidArgument("path %q: %v", path, err)
	}
	return c.baseURL.ResolveReference(ref).String(), nil
}

// plainRelative reports a path that can be appended to the base URL as
// it is: no scheme or authority, no dot segment, no fragment, nothing
// that needs escaping.
func plainRelative(path string) bool {
	if strings.HasPrefix(path, "//") {
		return false
	}
	p := strings.TrimPrefix(path, "/")
	if p == "" || strings.HasPrefix(p, ".") || strings.Contains(p, "/.") {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-._~/%?&=+,;@!$'()*", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// underBase reports whether u has the base URL's scheme, host and port and
// lies under its path prefix.
func (c *Client) underBase(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, c.baseURL.Scheme) &&
		strings.EqualFold(u.Hostname(), c.baseURL.Hostname()) &&
		portOf(u) == c.serverPort &&
		u.User == nil &&
		strings.HasPrefix(u.EscapedPath(), c.baseURL.EscapedPath())
}

// relativePath returns the path of u under the base URL.
func (c *Client) relativePath(u *url.URL) string {
	return strings.TrimPrefix(u.EscapedPath(), c.baseURL.EscapedPath())
}

func redactedURL(req *http.Request) string {
	if req == nil || req.URL == nil {
		return ""
	}
	return req.URL.Redacted()
}
