package seoapi

import (
	"net"
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
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, invalidArgument("base URL %q is not an absolute http(s) URL", u.Redacted())
	case u.Scheme == "http" && !insecureHTTP && !isLoopback(u.Hostname()):
		return nil, invalidArgument("base URL %q uses plain http to a host that is not loopback; use https, or WithInsecureHTTP", u.Redacted())
	case u.User != nil:
		return nil, invalidArgument("base URL must not carry credentials; the API key authenticates")
	case u.RawQuery != "" || u.Fragment != "":
		return nil, invalidArgument("base URL %q must not have a query or fragment", u.Redacted())
	}
	if _, ok := serverPath(u.EscapedPath()); !ok || strings.Contains(u.EscapedPath(), "//") {
		return nil, invalidArgument("base URL %q has a path servers may read differently (\"//\", an escaped slash, a backslash or \"..;\")", u.Redacted())
	}
	addTrailingSlash(u)
	return u, nil
}

func addTrailingSlash(u *url.URL) {
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || ip != nil && ip.IsLoopback()
}

// resolve returns the URL for path: a plain relative path (the SDK's
// own) is joined to the base URL as text, any other reference resolved
// against it. Either way the result still has to pass keyMayGo.
func (c *Client) resolve(path string) (string, error) {
	if plainRelative(path) {
		return c.baseString + strings.TrimPrefix(path, "/"), nil
	}
	ref, err := url.Parse(path)
	if err == nil && !ref.IsAbs() && ref.Host == "" {
		ref, err = url.Parse(strings.TrimLeft(path, "/"))
	}
	if err != nil {
		return "", invalidArgument("path %q: %v", path, err)
	}
	return c.baseURL.ResolveReference(ref).String(), nil
}

// plainRelative reports a path that can be appended to the base URL as
// it is: no scheme or authority, no dot segment, no fragment, nothing
// that needs escaping.
func plainRelative(path string) bool {
	p := strings.TrimPrefix(path, "/")
	return p != "" && p[0] != '.' && p[0] != '/' && !strings.Contains(p, "/.") && strings.Trim(p, plainPathChars) == ""
}

// unreserved are the characters RFC 3986 lets a URL hold unescaped
// anywhere; plainPathChars those a plain relative path may hold.
const (
	unreserved     = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"
	plainPathChars = unreserved + "/%?&=+,;@!$'()*"
)

// keyMayGo is the one place that decides whether the API key may be sent
// to u, and every URL the SDK sends to passes it (NewRequest, Do,
// redirects, next links, resume tokens): the base URL's scheme, host and
// port, no user info, and a path under the base URL's path as a server or
// a gateway reads it, with escaped dots decoded and dot segments removed.
func (c *Client) keyMayGo(u *url.URL) bool {
	if u == nil || u.Opaque != "" || u.User != nil ||
		!strings.EqualFold(u.Scheme, c.baseURL.Scheme) ||
		!strings.EqualFold(u.Hostname(), c.baseURL.Hostname()) || portOf(u) != c.serverPort {
		return false
	}
	path := u.EscapedPath()
	if strings.ContainsAny(path, `%\`) || strings.Contains(path, "/.") || strings.Contains(path, "//") {
		var ok bool
		if path, ok = serverPath(path); !ok {
			return false
		}
	}
	return strings.HasPrefix(path, c.basePath)
}

// serverPath returns an escaped path as a server may read it: each segment
// through decodeUnreserved, "//" merged, dot segments removed. ok is false
// for a path servers may read differently: decodeUnreserved refuses it, or
// it has a dot segment with ";params" ("..;").
func serverPath(escaped string) (path string, ok bool) {
	segments := strings.Split(escaped, "/")
	out := make([]string, 0, len(segments))
	for i, seg := range segments {
		seg, ok := decodeUnreserved(seg)
		if !ok || seg != "." && seg != ".." && dotSegment(strings.ReplaceAll(seg, "%3B", ";")) {
			return "", false
		}
		last := i == len(segments)-1
		switch {
		case seg == "" && i > 0 && !last:
			// A server may merge "//" into one slash.
			continue
		case seg == "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
		case seg != ".":
			out = append(out, seg)
			continue
		}
		if last {
			out = append(out, "")
		}
	}
	return strings.Join(out, "/"), true
}

// dotSegment reports a segment that is "." or "..", alone or with
// ";params": "..;x" is ".." to some servers and a name to others.
func dotSegment(seg string) bool {
	name, _, _ := strings.Cut(seg, ";")
	return name == "." || name == ".."
}

// decodeUnreserved decodes the escapes of unreserved characters in one
// path segment (RFC 3986 makes %2E a dot) and upper-cases the others; it
// refuses a backslash, an escaped slash or backslash, and a bad escape.
func decodeUnreserved(seg string) (string, bool) {
	if strings.Contains(seg, `\`) {
		return "", false
	}
	if !strings.Contains(seg, "%") {
		return seg, true
	}
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		if seg[i] != '%' {
			b.WriteByte(seg[i])
			continue
		}
		c, err := url.PathUnescape(seg[i:min(i+3, len(seg))])
		switch {
		case err != nil || c == "/" || c == `\`:
			return "", false
		case strings.Contains(unreserved, c):
			b.WriteString(c)
		default:
			b.WriteString(strings.ToUpper(seg[i : i+3]))
		}
		i += 2
	}
	return b.String(), true
}
