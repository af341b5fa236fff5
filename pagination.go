package seoapi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/go-querystring/query"
)

// ListOptions selects a page of a list. The API publishes no paging
// parameters: page, per_page and cursor are assumed (see the README). The
// zero value asks for the first page.
type ListOptions struct {
	Page    int        `url:"page,omitempty"`
	PerPage int        `url:"per_page,omitempty"`
	Cursor  string     `url:"cursor,omitempty"`
	Extra   url.Values `url:"-"` // any other query parameters, sent as given; a key here replaces a typed one

	// Resume is the Page.Next of an earlier page of the same list: List, All
	// and Pages start at the page it names, with its options, ignoring the
	// other fields, and send nothing for a last page's. A token outlives a
	// rotation of the API key. One that is malformed, or names a page off
	// the list it is given (another list, path or host), fails with
	// ErrInvalidArgument before anything is sent.
	Resume string `url:"-"`
}

// Page is one page of a list, as the services' Pages methods yield it.
type Page[T any] struct {
	// Items are the page's resources in the order the server sent them,
	// less any that an earlier page of the same iteration yielded.
	Items    []*T
	Response *Response // the server's response to the page's request
	// Next is where the next page is, for ListOptions.Resume in any process
	// (a server may expire its cursor). It is never "": the last page's names
	// the end, so a finished job run again does nothing. It is printable and
	// holds no key or secret; it is not signed.
	Next string
}

// linkRe matches a link of a Link header (RFC 8288); relRe its rel.
var (
	linkRe = regexp.MustCompile(`<([^>]*)>([^<]*)`)
	relRe  = regexp.MustCompile(`(?i);\s*rel\s*=\s*("[^"]*"|[^\s;,]+)`)
)

// readLink records the first rel="next" target of the Link headers.
func (r *Response) readLink(values []string) {
	for _, v := range values {
		for _, link := range linkRe.FindAllStringSubmatch(v, 64) {
			if rel := relRe.FindStringSubmatch(link[2]); rel != nil &&
				slices.Contains(strings.Fields(strings.ToLower(strings.Trim(rel[1], `"`))), "next") {
				r.setNextURL(strings.TrimSpace(link[1]))
				return
			}
		}
	}
}

// setNextURL records target, resolved, and the page and cursor it names.
func (r *Response) setNextURL(target string) {
	ref, err := url.Parse(target)
	if err != nil {
		return
	}
	if r.Request != nil && r.Request.URL != nil {
		ref = r.Request.URL.ResolveReference(ref)
	}
	r.NextURL = ref.String()
	q := ref.Query()
	if p, err := strconv.Atoi(q.Get("page")); err == nil && p > 0 {
		r.NextPage = p
	}
	if c := q.Get("cursor"); c != "" {
		r.NextCursor = c
	}
}

// listPages iterates over the pages of the list at ep from where opts say
// until one is empty or names no next page, or an error is yielded.
func listPages[T any](ctx context.Context, c *Client, ep *endpoint, opts *ListOptions, tokens bool, ids ...string) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		// opts are read when each iteration starts, not when it is made.
		path, next, err := c.startPosition(ep, opts, ids...)
		p := &pager[T]{c: c, ep: ep, path: path, url: next, tokens: tokens,
			asked: map[[sha256.Size]byte]bool{}, seen: map[[sha256.Size]byte]bool{}}
		for err == nil && p.url != "" {
			var page *Page[T]
			if page, err = p.next(ctx); err == nil && !yield(page, nil) {
				return
			}
		}
		if err != nil {
			yield(nil, err)
		}
	}
}

// listAll iterates over the items of listPages; an error comes with nil.
func listAll[T any](ctx context.Context, c *Client, ep *endpoint, opts *ListOptions, ids ...string) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		for page, err := range listPages[T](ctx, c, ep, opts, false, ids...) {
			if err != nil {
				yield(nil, err)
				return
			}
			for _, item := range page.Items {
				if !yield(item, nil) {
					return
				}
			}
		}
	}
}

// listPage reads the page opts name; a last page's token reads nothing.
func listPage[T any](ctx context.Context, c *Client, ep *endpoint, opts *ListOptions, ids ...string) ([]*T, *Response, error) {
	_, next, err := c.startPosition(ep, opts, ids...)
	if err != nil {
		return nil, nil, err
	} else if next == "" {
		return []*T{}, nil, nil
	}
	req, err := c.NewRequest(ctx, http.MethodGet, next, nil)
	if err != nil {
		return nil, nil, err
	}
	return fetchList[T](c, ep, req)
}

// startPosition returns the path of the list at ep and the URL of the page
// to read first: opts.Resume's ("" for the end), or the path and opts.
func (c *Client) startPosition(ep *endpoint, opts *ListOptions, ids ...string) (path, next string, err error) {
	path, err = ep.path(ids...)
	switch {
	case err != nil:
		return "", "", err
	case opts == nil:
		return path, path, nil
	case opts.Resume != "":
		next, err = c.resume(path, opts.Resume)
		return path, next, err
	case opts.Page < 0 || opts.PerPage < 0:
		return "", "", invalidArgument("ListOptions: negative Page or PerPage")
	}
	q, _ := query.Values(*opts) // a copy (the encoder keeps it); fails only for a non-struct
	maps.Copy(q, opts.Extra)
	if len(q) == 0 {
		return path, path, nil
	}
	return path, path + "?" + q.Encode(), nil
}

// pager is one iteration over the list at path. Its sets hold SHA-256
// sums, which cost the same for a long cursor or ID as for a short one.
type pager[T any] struct {
	c      *Client
	ep     *endpoint
	path   string
	url    string                     // the next page's URL; "" once the list has ended
	tokens bool                       // whether each page gets its Next token
	asked  map[[sha256.Size]byte]bool // the URL of each page asked for
	seen   map[[sha256.Size]byte]bool // each item yielded (itemSum)
}

// next reads the page at p.url and moves p.url on. It fails on a page it
// asked for before and on a page of items all yielded before (the server
// is looping, or the list moved by a whole page), and on a next page it
// can neither follow nor save in a token.
func (p *pager[T]) next(ctx context.Context) (*Page[T], error) {
	req, err := p.c.NewRequest(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return nil, err
	}
	urlSum := sha256.Sum256([]byte(req.URL.String()))
	if p.asked[urlSum] {
		return nil, unexpectedAnswer(req, nil, "the next page repeats a page already fetched; stopping instead of looping")
	}
	p.asked[urlSum] = true
	items, resp, err := fetchList[T](p.c, p.ep, req)
	if err != nil {
		return nil, err
	}
	page := &Page[T]{Items: p.unseen(items), Response: resp}
	if len(items) > 0 && len(page.Items) == 0 {
		return nil, unexpectedAnswer(req, resp, "the page repeats items already read; stopping instead of looping")
	}
	p.url = ""
	if len(items) > 0 {
		p.url = nextURL(req.URL, resp)
	}
	if err := p.c.checkNextLink(p.url, p.path); err != nil {
		return nil, unexpectedAnswer(req, resp, err.Error())
	}
	if p.tokens {
		if page.Next, err = p.c.token(p.path, p.url); err != nil {
			return nil, unexpectedAnswer(req, resp, err.Error())
		}
	}
	return page, nil
}

// unseen returns the items no earlier page yielded, in order, and
// remembers them: a list paged by offset that gains an item between two
// pages sends the last item of one page again on the next.
func (p *pager[T]) unseen(items []*T) []*T {
	fresh := items[:0]
	for _, item := range items {
		sum := itemSum(any(item).(resource)) // every list holds resources
		if !p.seen[sum] {
			p.seen[sum] = true
			fresh = append(fresh, item)
		}
	}
	return fresh
}

// itemSum is the SHA-256 of the ID of item, quoted, or of its JSON when it
// has none: quoted, an ID never matches the JSON of an item (an object).
func itemSum(item resource) [sha256.Size]byte {
	if id := item.identity(); id != "" {
		return sha256.Sum256(strconv.AppendQuote(nil, id))
	}
	return sha256.Sum256(item.Raw())
}

// nextURL returns the URL of the page after resp, the answer for the page
// at u: the server's link, or u with the cursor or page number it named;
// "" for none.
func nextURL(u *url.URL, resp *Response) string {
	q := u.Query()
	switch {
	case resp.NextURL != "":
		return resp.NextURL
	case resp.NextCursor != "":
		q.Set("cursor", resp.NextCursor)
	case resp.NextPage != 0:
		q.Set("page", strconv.Itoa(resp.NextPage))
	default:
		return ""
	}
	next := *u
	next.RawQuery = q.Encode()
	return next.String()
}

// checkNextLink is the one check of every next page's URL, a server's or
// a token's: "" (the end), or an absolute URL without the key that the key
// may go to, on the list's own escaped path.
func (c *Client) checkNextLink(next, path string) error {
	u, err := url.Parse(next)
	switch {
	case next == "":
		return nil
	case c.holdsKey(next): // the SDK never puts the key in a URL, where logs keep it
		return errors.New("the next link holds the API key")
	case err != nil:
		return errors.New("the next link is not a URL")
	case !u.IsAbs() || !c.keyMayGo(u):
		return fmt.Errorf("the next link %q is not under the client's base URL", u.Redacted())
	case u.EscapedPath() != c.baseURL.EscapedPath()+path:
		return fmt.Errorf("the next link %q leaves the list's path %q", u.Redacted(), path)
	}
	return nil
}

// holdsKey reports whether s holds the API key, in any form or redacted.
func (c *Client) holdsKey(s string) bool {
	return strings.Contains(s, redacted) || c.redact.holds(s, maxRounds)
}

// unexpectedAnswer is the ErrUnexpectedResponse of an answer the SDK cannot
// use, such as a page it cannot follow; resp is nil when nothing was sent.
func unexpectedAnswer(req *http.Request, resp *Response, msg string) error {
	e := &APIError{Method: req.Method, URL: req.URL.Redacted(), Message: msg, kind: ErrUnexpectedResponse}
	if resp != nil && resp.Response != nil {
		e.StatusCode, e.RequestID, e.Attempts, e.Header = resp.StatusCode, resp.RequestID, resp.Attempts, resp.Header
	}
	return e
}

// fetchList sends a list request and decodes the page. A next link or
// cursor that held the API key (dropped from the Response) fails the page.
func fetchList[T any](c *Client, ep *endpoint, req *http.Request) ([]*T, *Response, error) {
	var list []*T
	resp, err := c.newCall(ep, req.Method, nil).send(req, &list)
	switch {
	case err != nil:
		return nil, resp, err
	case resp.nextHeldKey:
		return nil, resp, unexpectedAnswer(req, resp, "the server's next link or cursor holds the API key; it is not followed")
	}
	return list, resp, nil
}

// tokenData is what a Next token holds, as JSON in unpadded base64url:
// the path of its list and the URL of its next page, "" at the end. It is
// not signed: resume accepts it only for its own list and with a next
// URL that passes checkNextLink, so an edited token names at most another
// page of a list the caller already reads.
type tokenData struct {
	Path string `json:"path"`
	Next string `json:"next"`
}

// token encodes next, a URL that passed checkNextLink, as the token of a
// page of the list at path. JSON would change a URL that is not UTF-8.
func (c *Client) token(path, next string) (string, error) {
	if !utf8.ValidString(next) {
		return "", errors.New("the next page's URL is not UTF-8, which a Next token cannot hold")
	}
	data, _ := json.Marshal(tokenData{Path: path, Next: next}) // a struct of strings cannot fail
	return base64.RawURLEncoding.EncodeToString(data), nil
}

// resume returns the URL of the page that the token s names in the list
// at path, "" for its end. It refuses, with ErrInvalidArgument, a token
// that is malformed, of another list, or that fails checkNextLink.
func (c *Client) resume(path, s string) (string, error) {
	// A token made before tokens were plain ends in "." and a tag, which is
	// not read: the checks below keep any token on its list.
	payload, _, _ := strings.Cut(s, ".")
	data, err := base64.RawURLEncoding.Strict().DecodeString(payload)
	var t tokenData
	switch {
	case err != nil || json.Unmarshal(data, &t) != nil:
		return "", invalidArgument("ListOptions.Resume: not a Next token")
	case t.Path != path:
		return "", invalidArgument("ListOptions.Resume: the token is of another list, not %s", path)
	}
	if err := c.checkNextLink(t.Next, path); err != nil {
		return "", invalidArgument("ListOptions.Resume: %v", err)
	}
	return t.Next, nil
}
