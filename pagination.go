package seoapi

import (
	"context"
	"fmt"
	"hash/maphash"
	"iter"
	"net/http"
	"net/url"
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
	// A token from another list (another path, resource or ID), from a
	// client with another base URL, or one that is malformed or altered
	// fails with ErrInvalidArgument before anything is sent.
	Resume string `url:"-"`
}

func (o *ListOptions) clone() ListOptions {
	if o == nil {
		return ListOptions{}
	}
	c := *o
	if o.Extra != nil {
		c.Extra = make(url.Values, len(o.Extra))
		for k, v := range o.Extra {
			c.Extra[k] = append([]string(nil), v...)
		}
	}
	return c
}

// withListOptions adds the query parameters of opts to path. Negative page
// numbers or sizes fail with ErrInvalidArgument.
func withListOptions(path string, opts *ListOptions) (string, error) {
	if opts == nil || opts.Page == 0 && opts.PerPage == 0 && opts.Cursor == "" && len(opts.Extra) == 0 {
		return path, nil
	}
	if opts.Page < 0 || opts.PerPage < 0 {
		return "", invalidArgument("ListOptions: negative Page or PerPage")
	}
	// A copy: the encoder keeps its argument, so opts itself (a pager's,
	// say) stays where it is.
	o := *opts
	q, err := query.Values(&o)
	if err != nil {
		return "", invalidArgument("ListOptions: %v", err)
	}
	for k, v := range opts.Extra {
		q[k] = v
	}
	if len(q) == 0 {
		return path, nil
	}
	return path + "?" + q.Encode(), nil
}

// readLink records the rel="next" target of the Link header (RFC 8288),
// resolved against the request URL.
func (r *Response) readLink(h http.Header) {
	for _, v := range h.Values("Link") {
		for _, link := range parseLinkHeader(v) {
			if !link.hasRel("next") {
				continue
			}
			r.setNextURL(link.target)
			return
		}
	}
}

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

type link struct {
	target string
	rels   []string
}

func (l link) hasRel(rel string) bool {
	for _, r := range l.rels {
		if strings.EqualFold(r, rel) {
			return true
		}
	}
	return false
}

// maxLinks bounds the work spent on one Link header.
const maxLinks = 64

// parseLinkHeader reads `<target>; rel="next"; title="x", <target2>; ...`.
// Commas inside <...> or quoted parameter values do not split links.
func parseLinkHeader(v string) []link {
	var links []link
	for len(links) < maxLinks {
		start := strings.IndexByte(v, '<')
		if start < 0 {
			break
		}
		end := strings.IndexByte(v[start:], '>')
		if end < 0 {
			break
		}
		l := link{target: strings.TrimSpace(v[start+1 : start+end])}
		v = v[start+end+1:]
		params, rest := splitLinkParams(v)
		v = rest
		for _, p := range params {
			name, value, ok := strings.Cut(p, "=")
			if !ok || !strings.EqualFold(strings.TrimSpace(name), "rel") {
				continue
			}
			l.rels = append(l.rels, strings.Fields(strings.Trim(strings.TrimSpace(value), `"`))...)
		}
		links = append(links, l)
	}
	return links
}

// splitLinkParams returns the ';'-separated parameters up to the comma
// that ends this link, and what follows it.
func splitLinkParams(v string) (params []string, rest string) {
	inQuote := false
	last := 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			inQuote = !inQuote
		case c == '\\' && inQuote:
			i++
		case c == ';' && !inQuote:
			params = append(params, v[last:i])
			last = i + 1
		case c == ',' && !inQuote:
			return append(params, v[last:i]), v[i+1:]
		}
	}
	return append(params, v[last:]), ""
}

// Page is one page of a list, as the services' Pages methods yield it.
type Page[T any] struct {
	// Items are the page's resources, in the order the server sent them.
	Items []*T
	// Response is the server's response to the page's request.
	Response *Response
	// Next says where the next page is, whatever paging style the server
	// used (a Link header, a next link, a cursor or a page number): set
	// it as ListOptions.Resume to start there later, in this process or
	// another. It is "" on the last page. It is opaque and printable
	// (base64url), safe to keep in a file, a database or a log: it holds
	// no key and no secret, only the list's path, the options and where
	// the server said the next page is, bound to the list and to the
	// client's base URL. How long it stays usable is up to the server (a
	// cursor may expire). Its format carries a version, so that a later
	// SDK can keep reading it.
	Next string
}

// listPages iterates over the pages of the list at ep, following the next
// page the server announces; it starts at opts.Resume when that is set.
// It copies opts and never changes them. It yields an error once and
// stops: when a request fails, when a next page repeats one already
// fetched (see loopGuard), or when a next link leaves the client's base
// URL. It ends quietly after an empty page or one that announces no next
// page. With tokens, each page but the last carries its Next token, and
// each is a new Page the caller may keep. Its memory does not grow with
// the number of pages.
func listPages[T any](ctx context.Context, c *Client, ep *endpoint, opts *ListOptions, tokens bool, ids ...string) iter.Seq2[*Page[T], error] {
	path, err := ep.path(ids...)
	if err != nil {
		return failed[Page[T]](err)
	}
	return func(yield func(*Page[T], error) bool) {
		// opts are read when each iteration starts, not when it is made.
		start, err := c.startPosition(ep, path, opts)
		if err != nil {
			yield(nil, err)
			return
		}
		p := newPager(start)
		// Without tokens (for All, which reads only Items and keeps no
		// page), one Page serves every page.
		var shared *Page[T]
		if !tokens {
			shared = new(Page[T])
		}
		for {
			req, err := p.request(ctx, c, path)
			if err != nil {
				yield(nil, err)
				return
			}
			items, resp, err := fetchList[T](c, ep, req)
			if err != nil {
				yield(nil, err)
				return
			}
			page := shared
			if page == nil {
				page = new(Page[T])
			}
			*page = Page[T]{Items: items, Response: resp}
			more := len(items) > 0 && p.advance(resp)
			if more && tokens {
				page.Next = c.token(ep, path, &p.position)
			}
			if !yield(page, nil) || !more {
				return
			}
		}
	}
}

// listAll iterates over every item of the list at ep: the items of
// listPages, in order. An error is yielded once, with a nil item, and ends
// the iteration.
func listAll[T any](ctx context.Context, c *Client, ep *endpoint, opts *ListOptions, ids ...string) iter.Seq2[*T, error] {
	pages := listPages[T](ctx, c, ep, opts, false, ids...)
	return func(yield func(*T, error) bool) {
		for page, err := range pages {
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

// startPosition is where a list starts: the page opts.Resume names, or
// the page opts select.
func (c *Client) startPosition(ep *endpoint, path string, opts *ListOptions) (position, error) {
	if opts != nil && opts.Resume != "" {
		return c.resume(ep, path, opts.Resume)
	}
	pos := position{opts: opts.clone()}
	pos.opts.Resume = ""
	return pos, nil
}

// pager is the state of one iteration: where the next page is, and what
// loopGuard remembers of the pages fetched.
type pager struct {
	position
	loop loopGuard
}

func newPager(start position) *pager {
	// The pager changes only the page number and cursor of its options,
	// never Extra, which it shares with start.
	p := &pager{position: start}
	p.loop.init()
	return p
}

// request builds the request for the next page, or fails when that page
// repeats one already fetched.
func (p *pager) request(ctx context.Context, c *Client, path string) (*http.Request, error) {
	req, page, cursor, err := p.position.request(ctx, c, path)
	if err != nil {
		return nil, err
	}
	if p.loop.repeats(req.URL.String(), page, cursor) {
		return nil, &APIError{
			Method:  req.Method,
			URL:     redactedURL(req),
			Message: "the next page repeats a page already fetched (its URL, page number or cursor); stopping instead of looping",
			kind:    ErrUnexpectedResponse,
		}
	}
	return req, nil
}

// request builds the GET for the page pos names, and returns the page
// number (0: none) and cursor ("": none) that identify it.
func (pos *position) request(ctx context.Context, c *Client, path string) (req *http.Request, page int, cursor string, err error) {
	if pos.nextURL != "" {
		if req, err = c.NewRequest(ctx, http.MethodGet, pos.nextURL, nil); err != nil {
			return nil, 0, "", fmt.Errorf("seoapi: next page: %w", err)
		}
		return req, pos.nextPage, pos.nextCursor, nil
	}
	if req, err = newListRequest(ctx, c, path, &pos.opts); err != nil {
		return nil, 0, "", err
	}
	// A cursor, when there is one, says which page this is; the page
	// number then stays as the caller gave it.
	page, cursor = max(pos.opts.Page, 1), pos.opts.Cursor
	if cursor != "" {
		page = 0
	}
	return req, page, cursor, nil
}

// advance moves to the next page resp announces and reports whether there
// is one.
func (pos *position) advance(resp *Response) bool {
	switch {
	case resp.NextURL != "":
		pos.nextURL, pos.nextPage, pos.nextCursor = resp.NextURL, resp.NextPage, resp.NextCursor
	case resp.NextCursor != "":
		pos.nextURL, pos.opts.Cursor = "", resp.NextCursor
	case resp.NextPage != 0:
		pos.nextURL, pos.opts.Page = "", resp.NextPage
	default:
		return false
	}
	return true
}

// recentIDs is how many page identifiers (URL, page number, cursor; up to
// three a page) loopGuard keeps exactly: at least the last 32 pages.
const recentIDs = 96

// loopGuard stops an iteration whose server keeps announcing pages already
// fetched, in constant memory, however many pages a list has:
//
//   - A next page whose URL, page number or cursor is that of one of the
//     last 32 pages or more is refused before it is sent: a loop of up to
//     32 pages yields no item twice. These are the loops seen in practice
//     (a server ignoring the page parameter, a cursor that never moves).
//   - A longer loop, where the next-page links cycle through λ pages after
//     μ others, is refused before 2·max(μ+2, λ) + λ pages are fetched:
//     Brent's cycle detection keeps one remembered URL and moves it to the
//     latest page whenever the count since the last move reaches a power of
//     two, so the remembered page ends up inside the cycle with a stride at
//     least as long as it.
//
// Pages are remembered as 64-bit hashes with a seed of their own: the
// chance that two different pages of a million-page list are taken for
// one another is about 10⁻¹¹. The guard takes under a kilobyte.
type loopGuard struct {
	seed   maphash.Seed
	recent [recentIDs]uint64 // ring of identifier hashes
	n      int               // identifiers recorded

	tortoise uint64 // Brent: the remembered URL
	power    int    // the stride before the tortoise moves
	steps    int    // pages since it last moved
}

func (g *loopGuard) init() {
	g.seed = maphash.MakeSeed()
	g.power = 1
}

// repeats reports whether the page identified by url, page (0: none) and
// cursor ("": none) repeats one already fetched, and records it when not.
func (g *loopGuard) repeats(url string, page int, cursor string) bool {
	ids := [3]uint64{g.hash('u', url)}
	n := 1
	if page > 0 {
		var buf [20]byte
		ids[n] = g.hash('p', string(strconv.AppendInt(buf[:0], int64(page), 10)))
		n++
	}
	if cursor != "" {
		ids[n] = g.hash('c', cursor)
		n++
	}
	if g.n > 0 && ids[0] == g.tortoise {
		return true
	}
	for _, id := range ids[:n] {
		if g.seen(id) {
			return true
		}
	}
	for _, id := range ids[:n] {
		g.recent[g.n%recentIDs] = id
		g.n++
	}
	g.brent(ids[0])
	return false
}

// seen reports whether id is among the recent identifiers.
func (g *loopGuard) seen(id uint64) bool {
	for _, r := range g.recent[:min(g.n, recentIDs)] {
		if r == id {
			return true
		}
	}
	return false
}

// brent moves the tortoise to url when the stride is complete, and
// doubles the stride: the tortoise sits on pages 0, 2, 6, 14, ... (2^k-2)
// and is compared with the 2^k pages after it.
func (g *loopGuard) brent(url uint64) {
	g.steps++
	if g.steps >= g.power {
		g.tortoise, g.power, g.steps = url, g.power*2, 0
	}
}

// hash is the hash of one identifier of a kind (URL, page, cursor).
func (g *loopGuard) hash(kind byte, s string) uint64 {
	var h maphash.Hash
	h.SetSeed(g.seed)
	h.WriteByte(kind)
	h.WriteString(s)
	return h.Sum64()
}

// failed is an iterator that yields err once, for arguments rejected
// before the first page.
func failed[T any](err error) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) { yield(nil, err) }
}

// listPage sends one GET for a page of the list at ep: the page
// opts.Resume names, or the page opts select.
func listPage[T any](ctx context.Context, c *Client, ep *endpoint, opts *ListOptions, ids ...string) ([]*T, *Response, error) {
	path, err := ep.path(ids...)
	if err != nil {
		return nil, nil, err
	}
	pos, err := c.startPosition(ep, path, opts)
	if err != nil {
		return nil, nil, err
	}
	req, _, _, err := pos.request(ctx, c, path)
	if err != nil {
		return nil, nil, err
	}
	return fetchList[T](c, ep, req)
}

// newListRequest builds the GET for path with the query of opts.
func newListRequest(ctx context.Context, c *Client, path string, opts *ListOptions) (*http.Request, error) {
	u, err := withListOptions(path, opts)
	if err != nil {
		return nil, err
	}
	return c.NewRequest(ctx, http.MethodGet, u, nil)
}

// fetchList sends a list request and decodes the page.
func fetchList[T any](c *Client, ep *endpoint, req *http.Request) ([]*T, *Response, error) {
	var list []*T
	resp, err := c.do(req, ep, &list)
	if err != nil {
		return nil, resp, err
	}
	return list, resp, nil
}
