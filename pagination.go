package seoapi

import (
	"context"
	"crypto/sha256"
	"iter"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

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
	// other fields, and send nothing for a last page's. A token that is
	// malformed, of another list, or names a page off that list's path or
	// outside the base URL fails with ErrInvalidArgument before anything is
	// sent.
	Resume string `url:"-"`
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

// Page is one page of a list, as the services' Pages methods yield it.
type Page[T any] struct {
	// Items are the page's resources in the order the server sent them,
	// less any that an earlier page of the same iteration already held.
	Items    []*T
	Response *Response // the server's response to the page's request
	// Next is where the next page is, for ListOptions.Resume in any process
	// (a server may expire its cursor). It is never "": the last page's names
	// the end, so a finished job run again does nothing. It is printable and
	// holds no key or secret; it is not signed (see ListOptions.Resume).
	Next string
}

// listPages iterates over the pages of the list at ep from where opts say
// until one is empty or names no next page, or an error is yielded. A page
// yields only the items no earlier page of the iteration yielded.
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

// pager is the state of one iteration over the list at path of ep. Its
// sets hold SHA-256 sums, so that they cost the same for a long cursor
// or ID as for a short one.
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
		if p.url, err = p.nextURL(req.URL, resp); err != nil {
			return nil, unexpectedAnswer(req, resp, err.Error())
		}
	}
	if p.tokens {
		if page.Next, err = p.c.token(p.path, p.url); err != nil {
			return nil, unexpectedAnswer(req, resp, err.Error())
		}
	}
	return page, nil
}

// unseen returns the items not yielded before, in order, and remembers
// them: a list paged by offset that gains an item between two pages
// sends an item of one page again on the next.
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
// has none: quoting keeps an ID from matching the JSON of an item without
// one, which is an object.
func itemSum(item resource) [sha256.Size]byte {
	if id := item.identity(); id != "" {
		return sha256.Sum256(strconv.AppendQuote(nil, id))
	}
	return sha256.Sum256(item.Raw())
}

// nextURL returns the URL of the page that resp, the page at u, names
// next: its link, or u with the cursor or page number; "" for none.
func (p *pager[T]) nextURL(u *url.URL, resp *Response) (string, error) {
	if resp.NextURL != "" {
		if err := p.c.checkNextLink(resp.NextURL, p.path); err != nil {
			return "", err
		}
		return resp.NextURL, nil
	}
	next, q := *u, u.Query()
	switch {
	case resp.NextCursor != "":
		q.Set("cursor", resp.NextCursor)
	case resp.NextPage != 0:
		q.Set("page", strconv.Itoa(resp.NextPage))
	default:
		return "", nil
	}
	next.RawQuery = q.Encode()
	return next.String(), nil
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
