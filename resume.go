package seoapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"math"
	"net/url"
	"slices"
)

// A page token (Page.Next, ListOptions.Resume) records where the next page
// of one list is, so that a job can save it and resume there later. It is
// base64url (no padding) of:
//
//	version    1 byte, tokenVersion
//	base       8 bytes: SHA-256 of a label and the client's base URL, truncated
//	operation  string: the endpoint's operation, such as "Projects.List"
//	path       string: the list's path with its IDs, relative to the base URL
//	page       uvarint: ListOptions.Page
//	perPage    uvarint: ListOptions.PerPage
//	cursor     string: ListOptions.Cursor
//	extra      uvarint count, then each key (sorted) as a string, a uvarint
//	           count and its values as strings: ListOptions.Extra
//	nextURL    string: the next page's link, absolute, or "" when the
//	           options above say where the next page is
//	nextPage   uvarint: the page number the link carries (for the loop guard)
//	nextCursor string: the cursor the link carries (for the loop guard)
//	sum        12 bytes: SHA-256 of everything before it, truncated
//
// where a string is a uvarint length and its bytes. The sum catches a token
// that was cut, corrupted or edited by hand; it is no signature (the token
// holds nothing secret to sign with, by design). A token never holds the
// key: every string in it is cleaned of it, as errors are. Whatever a
// token says, its next link is sent only when it lies under the client's
// base URL (resume refuses any other, and Client.NewRequest checks it
// again), so a forged token cannot send the key elsewhere.
const (
	tokenVersion = 1
	tokenBase    = 8  // bytes of the base URL's hash
	tokenSum     = 12 // bytes of the checksum
	// maxToken bounds the length of a token that is decoded.
	maxToken = 64 << 10
	// maxTokenInt bounds the page numbers and sizes a token may hold.
	maxTokenInt = math.MaxInt32
)

// position is where the next page of a list is: the options of the next
// request, or the link the server gave for it.
type position struct {
	opts ListOptions // Resume is always empty
	// nextURL is the next page's link, with the page number and cursor it
	// carries; empty when opts say where the next page is.
	nextURL    string
	nextPage   int
	nextCursor string
}

// baseHash binds a token to the client's base URL.
func (c *Client) baseHash() [tokenBase]byte {
	h := sha256.New()
	h.Write([]byte("seoapi-go page token base URL\x00"))
	h.Write([]byte(c.baseString))
	var out [tokenBase]byte
	copy(out[:], h.Sum(nil))
	return out
}

// token encodes pos, the next page of the list at path of ep, as a Next
// token. Every string it records is cleaned of the key.
func (c *Client) token(ep *endpoint, path string, pos *position) string {
	clean := c.redact.string
	buf := make([]byte, 0, 64+len(path)+len(pos.nextURL)+len(pos.opts.Cursor)+len(pos.nextCursor))
	buf = append(buf, tokenVersion)
	base := c.baseHash()
	buf = append(buf, base[:]...)
	buf = appendString(buf, ep.operation)
	buf = appendString(buf, clean(path))
	buf = binary.AppendUvarint(buf, uint64(max(pos.opts.Page, 0)))
	buf = binary.AppendUvarint(buf, uint64(max(pos.opts.PerPage, 0)))
	buf = appendString(buf, clean(pos.opts.Cursor))
	keys := make([]string, 0, len(pos.opts.Extra))
	for k := range pos.opts.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	buf = binary.AppendUvarint(buf, uint64(len(keys)))
	for _, k := range keys {
		buf = appendString(buf, clean(k))
		values := pos.opts.Extra[k]
		buf = binary.AppendUvarint(buf, uint64(len(values)))
		for _, v := range values {
			buf = appendString(buf, clean(v))
		}
	}
	buf = appendString(buf, clean(pos.nextURL))
	buf = binary.AppendUvarint(buf, uint64(max(pos.nextPage, 0)))
	buf = appendString(buf, clean(pos.nextCursor))
	sum := sha256.Sum256(buf)
	buf = append(buf, sum[:tokenSum]...)
	return base64.RawURLEncoding.EncodeToString(buf)
}

func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// resume decodes a Next token for the list at path of ep. A token that is
// malformed or altered, or that was made for another list or another base
// URL, fails with ErrInvalidArgument; so does one whose next link is not
// under the base URL. Nothing is sent either way.
func (c *Client) resume(ep *endpoint, path, token string) (position, error) {
	var pos position
	if len(token) > base64.RawURLEncoding.EncodedLen(maxToken) {
		return pos, invalidArgument("ListOptions.Resume: the token is longer than any Next token")
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(raw) < 1+tokenBase+tokenSum {
		return pos, invalidArgument("ListOptions.Resume: not a Next token")
	}
	if raw[0] != tokenVersion {
		return pos, invalidArgument("ListOptions.Resume: a token of version %d, which this SDK does not read", raw[0])
	}
	body, sum := raw[:len(raw)-tokenSum], raw[len(raw)-tokenSum:]
	if want := sha256.Sum256(body); !bytes.Equal(sum, want[:tokenSum]) {
		return pos, invalidArgument("ListOptions.Resume: the token was altered or cut (its checksum does not match)")
	}
	if base := c.baseHash(); !bytes.Equal(body[1:1+tokenBase], base[:]) {
		return pos, invalidArgument("ListOptions.Resume: the token is from a client with another base URL")
	}
	r := tokenReader{b: body[1+tokenBase:]}
	operation, tokenPath := r.string(), r.string()
	pos.opts.Page, pos.opts.PerPage = r.int(), r.int()
	pos.opts.Cursor = r.string()
	if n := r.count(); n > 0 {
		pos.opts.Extra = make(url.Values, n)
		for range n {
			k := r.string()
			values := make([]string, r.count())
			for i := range values {
				values[i] = r.string()
			}
			pos.opts.Extra[k] = values
		}
	}
	pos.nextURL, pos.nextPage, pos.nextCursor = r.string(), r.int(), r.string()
	if r.bad || len(r.b) != 0 {
		return position{}, invalidArgument("ListOptions.Resume: not a Next token")
	}
	if operation != ep.operation || tokenPath != path {
		return position{}, invalidArgument("ListOptions.Resume: the token is from another list (%q %q), not %s %s",
			operation, tokenPath, ep.operation, path)
	}
	if pos.nextURL != "" {
		u, err := url.Parse(pos.nextURL)
		if err != nil || !u.IsAbs() || !c.keyMayGo(u) {
			return position{}, invalidArgument("ListOptions.Resume: the token's next link is not under the client's base URL")
		}
	}
	return pos, nil
}

// tokenReader reads the fields of a token; bad is set, and zero values
// returned, once anything is out of bounds.
type tokenReader struct {
	b   []byte
	bad bool
}

func (r *tokenReader) uvarint() uint64 {
	if r.bad {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *tokenReader) int() int {
	v := r.uvarint()
	if v > maxTokenInt {
		r.bad = true
		return 0
	}
	return int(v)
}

// count reads a number of elements, each at least one byte long.
func (r *tokenReader) count() int {
	v := r.uvarint()
	if v > uint64(len(r.b)) {
		r.bad = true
		return 0
	}
	return int(v)
}

func (r *tokenReader) string() string {
	n := r.count()
	if r.bad {
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}
