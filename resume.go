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

// A Next token (Page.Next, ListOptions.Resume) is
//
//	base64url(JSON of tokenData) "." base64url(HMAC-SHA256(key, the part before the dot))
//
// where key is HMAC-SHA256 of tokenLabel and the base URL, keyed by the API
// key: forging one needs the key, and another key or base URL refuses it.
const (
	tokenVersion = 3
	tokenLabel   = "seoapi-go resume token\x00"
	maxToken     = 1 << 20 // bytes; a longer token fails when its page is read
)

// tokenData is what a token holds: its list and its next page's URL.
type tokenData struct {
	V     int    `json:"v"`
	Route string `json:"route"`
	Path  string `json:"path"`
	Next  string `json:"next"`
}

// tokenTag is the authentication tag of a token's payload.
func (c *Client) tokenTag(payload string) []byte {
	key := hmac.New(sha256.New, []byte(*c.apiKey))
	key.Write([]byte(tokenLabel + c.baseString))
	tag := hmac.New(sha256.New, key.Sum(nil))
	tag.Write([]byte(payload))
	return tag.Sum(nil)
}

// token encodes next, the list's next page ("" at its end), as a token. It
// fails for a URL not UTF-8 or holding the key, and over maxToken bytes.
func (c *Client) token(ep *endpoint, path, next string) (string, error) {
	if !utf8.ValidString(next) || c.holdsKey(next) {
		return "", errors.New("the next page's URL cannot be saved in a Next token: it is not UTF-8, or holds the API key")
	}
	data, _ := json.Marshal(tokenData{V: tokenVersion, Route: ep.route, Path: path, Next: next}) // a struct of strings cannot fail
	payload := base64.RawURLEncoding.EncodeToString(data)
	t := payload + "." + base64.RawURLEncoding.EncodeToString(c.tokenTag(payload))
	if len(t) > maxToken {
		return "", fmt.Errorf("the next page's URL is too long for a Next token (over %d bytes)", maxToken)
	}
	return t, nil
}

// holdsKey reports whether s holds the API key, in any form or redacted.
func (c *Client) holdsKey(s string) bool {
	return strings.Contains(s, redacted) || c.redact.holds(s, maxRounds)
}

// resume decodes the token s of the list at path of ep into the URL of its
// page ("" for the end). A token malformed, altered, from another key, base
// URL or list, or failing checkNextLink is an ErrInvalidArgument.
func (c *Client) resume(ep *endpoint, path, s string) (string, error) {
	payload, tag, _ := strings.Cut(s, ".")
	sum, err := base64.RawURLEncoding.Strict().DecodeString(tag)
	data, _ := base64.RawURLEncoding.Strict().DecodeString(payload) // read only once the tag is checked
	var t tokenData
	switch {
	case len(s) > maxToken || err != nil || !hmac.Equal(sum, c.tokenTag(payload)) ||
		json.Unmarshal(data, &t) != nil || t.V != tokenVersion:
		return "", invalidArgument("ListOptions.Resume: not a Next token of this client (altered, or made with another API key, base URL or SDK version)")
	case t.Route != ep.route || t.Path != path:
		return "", invalidArgument("ListOptions.Resume: the token is from another list (%q), not %s", t.Path, path)
	case t.Next == "":
		return "", nil
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
