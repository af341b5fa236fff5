package seoapi

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// tokenData is what a Next token (Page.Next, ListOptions.Resume) holds,
// as JSON in unpadded base64url: the path of its list and the URL of the
// list's next page, "" at its end. A token is neither secret nor signed:
// resume accepts one only for its own list and with a next URL on that
// list's path, so an edited token names at most another page of a list
// the caller already reads.
type tokenData struct {
	Path string `json:"path"`
	Next string `json:"next"`
}

// token encodes next, the URL of the next page of the list at path, as a
// token. It fails for a URL that is not UTF-8 (JSON would change it) or
// that holds the key.
func (c *Client) token(path, next string) (string, error) {
	if !utf8.ValidString(next) || c.holdsKey(next) {
		return "", errors.New("the next page's URL cannot be saved in a Next token: it is not UTF-8, or holds the API key")
	}
	data, _ := json.Marshal(tokenData{Path: path, Next: next}) // a struct of strings cannot fail
	return base64.RawURLEncoding.EncodeToString(data), nil
}

// holdsKey reports whether s holds the API key, in any form or redacted.
func (c *Client) holdsKey(s string) bool {
	return strings.Contains(s, redacted) || c.redact.holds(s, maxRounds)
}

// resume returns the URL of the page that the token s names in the list
// at path, or "" for the list's end. A token that is malformed, of another
// list, or whose URL holds the key or fails checkNextLink is an
// ErrInvalidArgument.
func (c *Client) resume(path, s string) (string, error) {
	// A token of an earlier release is followed by "." and a tag, which
	// proved nothing the checks below do not.
	payload, _, _ := strings.Cut(s, ".")
	data, err := base64.RawURLEncoding.Strict().DecodeString(payload)
	var t tokenData
	switch {
	case err != nil || json.Unmarshal(data, &t) != nil:
		return "", invalidArgument("ListOptions.Resume: not a Next token")
	case t.Path != path:
		return "", invalidArgument("ListOptions.Resume: the token is of another list, not %s", path)
	case t.Next == "":
		return "", nil
	case c.holdsKey(t.Next): // the SDK never puts the key in a URL, where logs keep it
		return "", invalidArgument("ListOptions.Resume: the token's next link holds the API key")
	}
	if err := c.checkNextLink(t.Next, path); err != nil {
		return "", invalidArgument("ListOptions.Resume: %v", err)
	}
	return t.Next, nil
}

// checkNextLink is the one check of a next link, a server's or a token's:
// an absolute URL the key may go to, on the list's own escaped path.
func (c *Client) checkNextLink(next, path string) error {
	u, err := url.Parse(next)
	switch {
	case err != nil:
		return errors.New("the next link is not a URL")
	case !u.IsAbs() || !c.keyMayGo(u):
		return fmt.Errorf("the next link %q is not under the client's base URL", u.Redacted())
	case u.EscapedPath() != c.baseURL.EscapedPath()+path:
		return fmt.Errorf("the next link %q leaves the list's path %q", u.Redacted(), path)
	}
	return nil
}
