package seoapi

import (
	"context"
	"crypto/sha256"
	"iter"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/go-querystring/query"
)

// ListOptions selects a page of a list. The API publishes no paging
// parameters; page, per_page and cursor are the SDK's assumption (see the
// README). The zero value asks for the server's first page.
type ListOptions struct {
	Page    int        `url:"page,omitempty"`
	PerPage int        `url:"per_page,omitempty"`
	Cursor  string     `url:"cursor,omitempty"`
	Extra   url.Values `url:"-"` // any other query parameters, sent as given; a key here replaces a typed one

	// Resume is the Next token of an earlier page of the same list
	// (Page.Next): List, All and Pages given it start at the page it
	// names, with the options it recorded, and ignore the other fields.
	// Given a last page's token, All and Pages yield nothing and List
	// returns no items and a nil Response, sending nothing. A token made
	// by a client with another API key (rotating the key makes saved
	// tokens fail) or base URL, for another list, or altered fails with
	// ErrInvalidArgument before anything is sent.
	Resume string `url:"-"`
}

// maxLinks bounds the links read from one Link header.
const maxLinks = 64

// linkRe matches one link of a Link header (RFC 8288), its target and its
// parameters; relRe matches a rel parameter, quoted or not.
var (
	linkRe = regexp.MustCompile(`<([^>]*)>([^<]*)`)
	relRe  = regexp.MustCompile(`(?i);\s*rel\s*=\s*("[^"]*"|[^\s;,]+)`)
)

// readLink records the first rel="next" target of the Link headers,
// resolved against the request URL.
func (r *Response) readLink(values []string) {
	for _, v := range values {
		for _, link := range linkRe.FindAllStringSubmatch(v, maxLinks) {
			rel := relRe.FindStringSubmatch(link[2])
			if rel == nil {
				continue
			}
			for _, name := range strings.Fields(strings.Trim(rel[1], `"`)) {
				if strings.EqualFold(name, "next") {
					r.setNextURL(strings.TrimSpace(link[1]))
					return
				}
			}
		}
	}
}

// setNextURL records target, resolved against the request URL, with the
// page number and cursor its query holds.
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
	// Items are the page's resources, in the order the server sent them.
	Items []*T
	// Response is the server's response to the page's request.
	Response *Response
	// Next says where the next page is: set it as ListOptions.Resume to
	// start there later, in this process or another. On the last page it
	// names the end of the list, so a finished job run again does nothing;
	// it is never "". It is printable and holds no key or secret; it is
	// authenticated with a key derived from the client's API key, so it
	// cannot be forged and rotating the key makes it fail. A server may
	// expire the cursor it holds.
	Next string
}

// listPages iterates over the pages of the list at ep, from where opts
// say, following the next page each page announces, until a page is empty
// or announces none. An error is yielded once and ends it. With tokens,
// each page gets its Next token.
func listPages[T any](ctx context.Context, c *Client, ep *endpoint, opts *ListOptions, tokens bool, ids ...string) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		// opts are read when each iteration starts, not when it is made.
		path, next, err := c.startPosition(ep, opts, ids...)
		p := &pager[T]{c: c, ep: ep, path: path, url: next, seen: map[[sha256.Size]byte]bool{}, tokens: tokens}
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

// listAll iterates over every item of the list at ep: the items of
// listPages, in order. An error is yielded once, with a nil item.
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

// listPage sends one GET for a page of the list at ep: the page
// opts.Resume names, or the page opts select. The token of a last page
// gives no items and a nil Response, and nothing is sent.
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

// startPosition returns the path of the list at ep and the URL of its
// first page: the page opts.Resume names ("" for the end of the list), or
// the list's path with the query of opts. Negative page numbers or sizes
// fail with ErrInvalidArgument.
func (c *Client) startPosition(ep *endpoint, opts *ListOptions, ids ...string) (path, next string, err error) {
	path, err = ep.path(ids...)
	switch {
	case err != nil:
		return "", "", err
	case opts == nil:
		return path, path, nil
	case opts.Resume != "":
		next, err = c.resume(ep, path, opts.Resume)
		return path, next, err
	case opts.Page < 0 || opts.PerPage < 0:
		return "", "", invalidArgument("ListOptions: negative Page or PerPage")
	}
	o := *opts // the encoder keeps its argument: opts stay where they are
	q, err := query.Values(&o)
	if err != nil {
		return "", "", invalidArgument("ListOptions: %v", err)
	}
	maps.Copy(q, opts.Extra)
	if len(q) == 0 {
		return path, path, nil
	}
	return path, path + "?" + q.Encode(), nil
}

// pager is the state of one iteration over the list at path of ep.
type pager[T any] struct {
	c      *Client
	ep     *endpoint
	path   string
	url    string // the URL of the next page; "" once the list has ended
	tokens bool   // whether each page gets its Next token
	// seen holds the SHA-256 of the URL of each page asked for and of the
	// item IDs of each page read (see itemsSum): a server that announces a
	// page again, or ignores the page or cursor asked for and sends a page
	// again, is stopped before any item is yielded twice.
	seen map[[sha256.Size]byte]bool
}

// next reads the page at p.url and moves p.url on. It fails, before the
// page's items are yielded, when the page repeats one already asked for or
// read, or its next page can be neither followed nor saved in a token.
func (p *pager[T]) next(ctx context.Context) (*Page[T], error) {
	req, err := p.c.NewRequest(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return nil, err
	}
	if p.repeats(sha256.Sum256([]byte("url " + req.URL.String()))) {
		return nil, unexpectedAnswer(req, nil, "the next page repeats a page already fetched; stopping instead of looping")
	}
	items, resp, err := fetchList[T](p.c, p.ep, req)
	if err != nil {
		return nil, err
	}
	if sum, ok := itemsSum(items); ok && p.repeats(sum) {
		return nil, unexpectedAnswer(req, resp, "the page repeats the items of a page already read; stopping instead of looping")
	}
	if err := p.advance(req.URL, resp, len(items) == 0); err != nil {
		return nil, err
	}
	page := &Page[T]{Items: items, Response: resp}
	if p.tokens {
		if page.Next, err = p.c.token(p.ep, p.path, p.url); err != nil {
			return nil, unexpectedAnswer(req, resp, err.Error())
		}
	}
	return page, nil
}

// repeats reports whether sum was seen already, and records it.
func (p *pager[T]) repeats(sum [sha256.Size]byte) bool {
	repeat := p.seen[sum]
	p.seen[sum] = true
	return repeat
}

// advance moves p.url to the next page resp announces for the page at u:
// its link, or u with the cursor or page number it names; or to the end
// ("") when it announces none or the page was empty.
func (p *pager[T]) advance(u *url.URL, resp *Response, empty bool) error {
	switch {
	case empty || resp.NextURL == "" && resp.NextCursor == "" && resp.NextPage == 0:
		p.url = ""
		return nil
	case resp.NextURL != "":
		if err := p.c.checkNextLink(resp.NextURL, p.path); err != nil {
			return invalidArgument("next page: %v", err)
		}
		p.url = resp.NextURL
		return nil
	}
	next, q := *u, u.Query()
	if resp.NextCursor != "" {
		q.Set("cursor", resp.NextCursor)
	} else {
		q.Set("page", strconv.Itoa(resp.NextPage))
	}
	next.RawQuery = q.Encode()
	p.url = next.String()
	return nil
}

// itemsSum is the SHA-256 of the items' IDs, in order, or of an item's
// raw JSON when it has no ID: a page whose items change a field on every
// answer is still known by its IDs. ok is false for a page with no items
// or with an item that has neither.
func itemsSum[T any](items []*T) (sum [sha256.Size]byte, ok bool) {
	h := sha256.New()
	h.Write([]byte("items"))
	for _, item := range items {
		res, ok := any(item).(resource)
		if !ok {
			return sum, false
		}
		kind, key := " id ", []byte(res.identity())
		if len(key) == 0 {
			kind, key = " raw ", res.Raw()
		}
		if key == nil {
			return sum, false
		}
		// Length-prefixed: the IDs "ab","c" and "a","bc" differ.
		h.Write(strconv.AppendInt([]byte(kind), int64(len(key)), 10))
		h.Write([]byte{' '})
		h.Write(key)
	}
	return [sha256.Size]byte(h.Sum(nil)), len(items) > 0
}

// unexpectedAnswer is the ErrUnexpectedResponse of an answer the SDK
// cannot use (a page that cannot be read or followed, a write answered
// without its resource); resp is nil when its request was not sent.
func unexpectedAnswer(req *http.Request, resp *Response, msg string) error {
	e := &APIError{Method: req.Method, URL: redactedURL(req), Message: msg, kind: ErrUnexpectedResponse}
	if resp != nil && resp.Response != nil {
		e.StatusCode, e.RequestID, e.Attempts, e.Header = resp.StatusCode, resp.RequestID, resp.Attempts, resp.Header
	}
	return e
}

// fetchList sends a list request and decodes the page. A next link or
// cursor that holds the API key fails the page and is dropped from the
// Response: the SDK neither follows nor rewrites it.
func fetchList[T any](c *Client, ep *endpoint, req *http.Request) ([]*T, *Response, error) {
	var list []*T
	resp, err := c.newCall(ep, req.Method, nil).send(req, &list)
	if err != nil {
		return nil, resp, err
	}
	if resp.nextHeldKey {
		return nil, resp, unexpectedAnswer(req, resp, "the server's next link or cursor holds the API key; it is not followed")
	}
	return list, resp, nil
}
