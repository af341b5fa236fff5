package seoapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// A Next token (Page.Next, ListOptions.Resume) records where the next page
// of one list is, so that a job can save it and resume there later. It is
// plain data with an authentication tag:
//
//	base64url(JSON of tokenData) "." base64url(HMAC-SHA256(tokenKey, the part before the dot))
//
// where tokenKey is derived from the API key and the base URL (see
// tokenKey): only a client holding the same key and base URL makes or
// accepts a token, so forging one needs the key itself, and a new key
// makes every saved token fail. The token never holds the key: a server's
// next link or cursor that holds it fails its page (see fetchList), and a
// token is not made from any string that holds it.
const (
	tokenVersion = 2
	// maxToken bounds a token's length, made or read: a position whose
	// token would be longer fails when its page is read.
	maxToken = 1 << 20
	// tokenLabel separates the token key from any other use of the API key.
	tokenLabel = "seoapi-go resume token\x00"
)

// tokenData is what a token records. Route and Path name the list; End
// marks the token of a last page; the rest is the position.
type tokenData struct {
	V          int        `json:"v"`
	Route      string     `json:"route"`
	Path       string     `json:"path"`
	End        bool       `json:"end,omitempty"`
	Page       int        `json:"page,omitempty"`
	PerPage    int        `json:"perPage,omitempty"`
	Cursor     string     `json:"cursor,omitempty"`
	Extra      url.Values `json:"extra,omitempty"`
	Next       string     `json:"next,omitempty"`
	NextPage   int        `json:"nextPage,omitempty"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

// position is where the next page of a list is: the options of the next
// request, or the link the server gave for it; or, with end, nowhere.
type position struct {
	opts ListOptions // Resume is always empty
	// nextURL is the next page's link, with the page number and cursor it
	// carries; empty when opts say where the next page is.
	nextURL    string
	nextPage   int
	nextCursor string
	end        bool // the list was read to its end
}

// tokenKey is the key that authenticates this client's tokens.
func (c *Client) tokenKey() []byte {
	m := hmac.New(sha256.New, []byte(*c.apiKey))
	m.Write([]byte(tokenLabel + c.baseString))
	return m.Sum(nil)
}

// tokenTag is the authentication tag of a token's payload.
func (c *Client) tokenTag(payload string) []byte {
	m := hmac.New(sha256.New, c.tokenKey())
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// token encodes pos, the next page of the list at path of ep, as a Next
// token. It fails when a token cannot say it: a string that is not UTF-8
// or that holds the key, or a token longer than maxToken.
func (c *Client) token(ep *endpoint, path string, pos *position) (string, error) {
	d := tokenData{V: tokenVersion, Route: ep.route, Path: path, End: pos.end}
	if !pos.end {
		d.Page, d.PerPage, d.Cursor, d.Extra = pos.opts.Page, pos.opts.PerPage, pos.opts.Cursor, pos.opts.Extra
		d.Next, d.NextPage, d.NextCursor = pos.nextURL, pos.nextPage, pos.nextCursor
	}
	for _, s := range d.strings() {
		if !utf8.ValidString(s) || c.holdsKey(s) {
			return "", errors.New("the next page's position cannot be saved in a Next token: it is not UTF-8, or holds the API key")
		}
	}
	data, err := json.Marshal(&d)
	if err != nil {
		return "", fmt.Errorf("the next page's position cannot be saved in a Next token: %w", err)
	}
	payload := base64.RawURLEncoding.EncodeToString(data)
	token := payload + "." + base64.RawURLEncoding.EncodeToString(c.tokenTag(payload))
	if len(token) > maxToken {
		return "", fmt.Errorf("the next page's position is too long for a Next token (over %d bytes)", maxToken)
	}
	return token, nil
}

// strings lists every string d holds.
func (d *tokenData) strings() []string {
	s := []string{d.Path, d.Cursor, d.Next, d.NextCursor}
	for k, values := range d.Extra {
		s = append(s, k)
		s = append(s, values...)
	}
	return s
}

// holdsKey reports whether s holds the API key in any form, or was
// cleaned of it already (a header the redactor rewrote).
func (c *Client) holdsKey(s string) bool {
	return strings.Contains(s, redacted) || c.redact.string(s) != s
}

// resume decodes a Next token for the list at path of ep. A token that is
// malformed or altered, made with another key or base URL, made for
// another list, or whose next link leaves the list's own path fails with
// ErrInvalidArgument. Nothing is sent either way.
func (c *Client) resume(ep *endpoint, path, token string) (position, error) {
	d, err := c.readToken(token)
	if err != nil {
		return position{}, err
	}
	if d.Route != ep.route || d.Path != path {
		return position{}, invalidArgument("ListOptions.Resume: the token is from another list (%q), not %s", d.Path, path)
	}
	if d.End {
		return position{end: true}, nil
	}
	if d.Page < 0 || d.PerPage < 0 || d.NextPage < 0 {
		return position{}, invalidArgument("ListOptions.Resume: the token holds a negative page number or size")
	}
	if d.Next != "" {
		if err := c.checkNextLink(d.Next, path); err != nil {
			return position{}, invalidArgument("ListOptions.Resume: %v", err)
		}
	}
	return position{
		opts:    ListOptions{Page: d.Page, PerPage: d.PerPage, Cursor: d.Cursor, Extra: d.Extra},
		nextURL: d.Next, nextPage: d.NextPage, nextCursor: d.NextCursor,
	}, nil
}

// readToken checks a token's tag and decodes its data.
func (c *Client) readToken(token string) (tokenData, error) {
	var d tokenData
	if len(token) > maxToken {
		return d, invalidArgument("ListOptions.Resume: the token is longer than any Next token")
	}
	payload, tag, ok := strings.Cut(token, ".")
	sum, err := base64.RawURLEncoding.Strict().DecodeString(tag)
	if !ok || err != nil {
		return d, invalidArgument("ListOptions.Resume: not a Next token")
	}
	if !hmac.Equal(sum, c.tokenTag(payload)) {
		return d, invalidArgument("ListOptions.Resume: the token was altered, or made by a client with another API key or base URL")
	}
	data, err := base64.RawURLEncoding.Strict().DecodeString(payload)
	if err != nil || json.Unmarshal(data, &d) != nil {
		return d, invalidArgument("ListOptions.Resume: not a Next token")
	}
	if d.V != tokenVersion {
		return d, invalidArgument("ListOptions.Resume: a token of version %d, which this SDK does not read", d.V)
	}
	return d, nil
}

// checkNextLink is the one check a next link passes before a request is
// built from it, whether a server sent it or a token holds it: it is an
// absolute URL the key may go to, and it names the list's own path.
func (c *Client) checkNextLink(next, path string) error {
	u, err := url.Parse(next)
	if err != nil {
		return errors.New("the next link is not a URL")
	}
	if !u.IsAbs() || !c.underBase(u) {
		return fmt.Errorf("the next link %q is not under the client's base URL", u.Redacted())
	}
	if !samePath(u.EscapedPath(), c.baseURL.EscapedPath()+path) {
		return fmt.Errorf("the next link %q leaves the list's path %q", u.Redacted(), path)
	}
	return nil
}

// samePath reports whether two escaped paths have the same segments once
// each is unescaped: "ws%2F1" and "ws%2f1" are one segment, "ws/1" two,
// "%2e%2e" is "..".
func samePath(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	if len(as) != len(bs) {
		return false
	}
	for i := range as {
		x, err1 := url.PathUnescape(as[i])
		y, err2 := url.PathUnescape(bs[i])
		if err1 != nil || err2 != nil || x != y {
			return false
		}
	}
	return true
}
