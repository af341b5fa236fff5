package seoapi

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/go-querystring/query"
	"github.com/seoapi/seoapi-go/internal/jsonx"
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
	// The token of a last page names the end of the list: All and Pages
	// yield nothing, and List returns no items and a nil Response, all
	// without sending a request. A token is authenticated with a key
	// derived from the client's API key and base URL: one from a client
	// with another key (rotating the key makes every saved token fail)
	// or another base URL, from another list (another path, resource or
	// ID), or one that is malformed or altered fails with
	// ErrInvalidArgument before anything is sent.
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

// readEnvelope records the next page an enveloped list body announces,
// when no Link header did: a next link, a cursor, or page counters, at the
// top level or under meta, pagination, paging or links.
func (r *Response) readEnvelope(body jsonx.Value) {
	if r.NextURL != "" || r.NextCursor != "" || r.NextPage != 0 {
		return
	}
	top := jsonx.Fields(body)
	scopes := []jsonx.Object{top}
	for _, name := range [...]string{"meta", "pagination", "paging", "links"} {
		if v, ok := top.Get(name); ok && v.IsObject() {
			scopes = append(scopes, jsonx.Fields(v))
		}
	}
	for _, scope := range scopes {
		if r.readPaging(scope) {
			return
		}
	}
}

// readPaging reads the paging fields of one object and reports whether it
// settled where the next page is (or that there is none).
func (r *Response) readPaging(obj jsonx.Object) bool {
	hasMore, hasMoreSent := boolField(obj, "hasmore", "hasnext", "hasnextpage")
	if hasMoreSent && !hasMore {
		return true // the server said this is the last page
	}
	if next, ok := obj.Get("nexturl", "next", "nextlink", "nextpageurl"); ok {
		if next.IsObject() {
			next, _ = jsonx.Fields(next).Get("href", "url")
		}
		if s, ok := next.String(); ok && s != "" {
			if strings.ContainsAny(s, "/?") {
				r.setNextURL(s)
			} else {
				r.NextCursor = s
			}
			return true
		}
		if n, ok := next.Int(); ok && n > 0 {
			r.NextPage = n
			return true
		}
	}
	if c, ok := textField(obj, "nextcursor", "nextpagetoken", "nexttoken"); ok {
		r.NextCursor = c
		return true
	}
	if c, ok := textField(obj, "cursor", "endcursor", "after"); ok && hasMore {
		r.NextCursor = c
		return true
	}
	if p, ok := intField(obj, "nextpage"); ok && p > 0 {
		r.NextPage = p
		return true
	}
	return r.readPageCounters(obj)
}

// readPageCounters reads page with totalPages, or page with perPage and
// total.
func (r *Response) readPageCounters(obj jsonx.Object) bool {
	page, ok := intField(obj, "page", "currentpage")
	if !ok || page < 1 {
		return false
	}
	last, ok := intField(obj, "totalpages", "pagecount", "lastpage")
	if !ok {
		perPage, ok1 := intField(obj, "perpage", "pagesize", "limit")
		total, ok2 := intField(obj, "total", "totalcount", "totalitems", "count")
		if !ok1 || !ok2 || perPage < 1 {
			return false
		}
		last = (total + perPage - 1) / perPage
	}
	if page < last {
		r.NextPage = page + 1
	}
	return true
}

func intField(obj jsonx.Object, names ...string) (int, bool) {
	v, ok := obj.Get(names...)
	if !ok {
		return 0, false
	}
	return v.Int()
}

func boolField(obj jsonx.Object, names ...string) (value, ok bool) {
	v, ok := obj.Get(names...)
	if !ok {
		return false, false
	}
	return v.Bool()
}

// textField returns a non-empty string or number member.
func textField(obj jsonx.Object, names ...string) (string, bool) {
	v, ok := obj.Get(names...)
	if !ok {
		return "", false
	}
	s, ok := v.Text()
	return s, ok && s != ""
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
	// another. On the last page it names the end of the list, so that a
	// job that saves Next after each page and runs again after it
	// finished resumes to nothing rather than starting over: Pages never
	// yields a page whose Next is "". It is opaque and printable
	// (base64url), safe to keep in a file, a database or a log: it holds
	// no key and no secret, only the list's path, the options and where
	// the server said the next page is. It is authenticated with a key
	// derived from the client's API key and base URL, so it cannot be
	// forged, and a client with a rotated key refuses it. How long it
	// stays usable is up to the server (a cursor may expire). Its format
	// carries a version, so that a later SDK can keep reading it.
	Next string
}

// listPages iterates over the pages of the list at ep, following the next
// page the server announces; it starts at opts.Resume when that is set.
// It copies opts and never changes them. It yields an error once and
// stops: when a request fails, when a page repeats one already read (see
// loopGuard), when a next link leaves the client's base URL or the list's
// path, or when a next link or cursor holds the API key. It ends quietly
// after an empty page or one that announces no next page. With tokens,
// each page carries its Next token, and each is a new Page the caller may
// keep.
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
		p := &pager[T]{c: c, ep: ep, path: path, position: start, tokens: tokens}
		for !p.end {
			page, err := p.next(ctx)
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(page, nil) {
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

// pager is the state of one iteration over the list at path of ep: where
// the next page is, and what the loop guard remembers.
type pager[T any] struct {
	c    *Client
	ep   *endpoint
	path string
	position
	guard  loopGuard
	tokens bool     // whether each page gets its Next token
	shared *Page[T] // without tokens, one Page serves every page
}

// next reads the page the position names and moves the position to the
// page after it, or to the end. It fails, yielding none of the page's
// items, when the page repeats one already read or its next page cannot
// be followed or saved in a token.
func (p *pager[T]) next(ctx context.Context) (*Page[T], error) {
	req, err := p.request(ctx)
	if err != nil {
		return nil, err
	}
	items, resp, err := fetchList[T](p.c, p.ep, req)
	if err != nil {
		return nil, err
	}
	if p.guard.read(rawItems(items)) {
		return nil, pageError(req, resp, "the page repeats the items of a page already read; stopping instead of looping")
	}
	if len(items) == 0 {
		p.end = true
	} else if err := p.advance(resp); err != nil {
		return nil, err
	}
	page := p.shared
	if page == nil {
		page = new(Page[T])
		if !p.tokens {
			p.shared = page
		}
	}
	*page = Page[T]{Items: items, Response: resp}
	if p.tokens {
		if page.Next, err = p.c.token(p.ep, p.path, &p.position); err != nil {
			return nil, pageError(req, resp, err.Error())
		}
	}
	return page, nil
}

// request builds the request for the page the position names, or fails
// when that page was asked for already.
func (p *pager[T]) request(ctx context.Context) (*http.Request, error) {
	req, page, cursor, err := p.position.request(ctx, p.c, p.path)
	if err != nil {
		return nil, err
	}
	if p.guard.asked(req.URL.String(), page, cursor) {
		return nil, pageError(req, nil, "the next page repeats a page already fetched (its URL, page number or cursor); stopping instead of looping")
	}
	return req, nil
}

// advance moves to the next page resp announces, or to the end when it
// announces none. A next link must pass checkNextLink.
func (p *pager[T]) advance(resp *Response) error {
	switch {
	case resp.NextURL != "":
		if err := p.c.checkNextLink(resp.NextURL, p.path); err != nil {
			return invalidArgument("next page: %v", err)
		}
		p.nextURL, p.nextPage, p.nextCursor = resp.NextURL, resp.NextPage, resp.NextCursor
	case resp.NextCursor != "":
		p.nextURL, p.opts.Cursor = "", resp.NextCursor
	case resp.NextPage != 0:
		p.nextURL, p.opts.Page = "", resp.NextPage
	default:
		p.end = true
	}
	return nil
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

// loopGuard stops an iteration whose server announces a page it already
// sent, before any of that page's items is yielded. It keeps one set of
// SHA-256 sums (a few dozen bytes a page, whatever a cursor's length): of
// each page asked for, by its URL, page number and cursor, and of the
// items of each page read, which catches a server that ignores the page
// or cursor it is asked for and sends a page again under a new link.
type loopGuard struct {
	seen map[[sha256.Size]byte]struct{}
}

// asked reports whether a page with this URL, page number (0: none) or
// cursor ("": none) was asked for already, and records it.
func (g *loopGuard) asked(url string, page int, cursor string) bool {
	ids := [][sha256.Size]byte{sha256.Sum256([]byte("url " + url))}
	if page > 0 {
		ids = append(ids, sha256.Sum256([]byte("page "+strconv.Itoa(page))))
	}
	if cursor != "" {
		ids = append(ids, sha256.Sum256([]byte("cursor "+cursor)))
	}
	return g.record(ids...)
}

// read reports whether a page holding these items, byte for byte, was
// read already, and records it. A page with no items, or whose items keep
// no raw JSON, is never a repeat.
func (g *loopGuard) read(items [][]byte) bool {
	if len(items) == 0 {
		return false
	}
	h := sha256.New()
	h.Write([]byte("items "))
	for _, item := range items {
		h.Write(item)
	}
	var sum [sha256.Size]byte
	return g.record([sha256.Size]byte(h.Sum(sum[:0])))
}

// record reports whether any of ids is in the set, and adds them.
func (g *loopGuard) record(ids ...[sha256.Size]byte) bool {
	if g.seen == nil {
		g.seen = make(map[[sha256.Size]byte]struct{})
	}
	repeat := false
	for _, id := range ids {
		_, ok := g.seen[id]
		repeat = repeat || ok
		g.seen[id] = struct{}{}
	}
	return repeat
}

// rawItems returns the raw JSON of each item, or nil when an item keeps
// none.
func rawItems[T any](items []*T) [][]byte {
	raw := make([][]byte, len(items))
	for i, item := range items {
		r, ok := any(item).(interface{ Raw() json.RawMessage })
		if !ok || r.Raw() == nil {
			return nil
		}
		raw[i] = r.Raw()
	}
	return raw
}

// pageError is the error of a page that cannot be read or followed: not
// sent when resp is nil.
func pageError(req *http.Request, resp *Response, msg string) error {
	e := &APIError{Method: req.Method, URL: redactedURL(req), Message: msg, kind: ErrUnexpectedResponse}
	if resp != nil && resp.Response != nil {
		e.StatusCode, e.RequestID, e.Attempts = resp.StatusCode, resp.RequestID, resp.Attempts
	}
	return e
}

// failed is an iterator that yields err once, for arguments rejected
// before the first page.
func failed[T any](err error) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) { yield(nil, err) }
}

// listPage sends one GET for a page of the list at ep: the page
// opts.Resume names, or the page opts select. The token of a last page
// gives no items and a nil Response, without a request.
func listPage[T any](ctx context.Context, c *Client, ep *endpoint, opts *ListOptions, ids ...string) ([]*T, *Response, error) {
	path, err := ep.path(ids...)
	if err != nil {
		return nil, nil, err
	}
	pos, err := c.startPosition(ep, path, opts)
	if err != nil || pos.end {
		return []*T{}, nil, err
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

// fetchList sends a list request and decodes the page. A next link or
// cursor that holds the API key fails the page with ErrUnexpectedResponse
// and is dropped from the Response: the SDK neither sends it on nor
// rewrites it.
func fetchList[T any](c *Client, ep *endpoint, req *http.Request) ([]*T, *Response, error) {
	var list []*T
	resp, err := c.do(req, ep, &list)
	if err != nil {
		return nil, resp, err
	}
	if c.holdsKey(resp.NextURL) || c.holdsKey(resp.NextCursor) {
		resp.NextURL, resp.NextCursor, resp.NextPage = "", "", 0
		return nil, resp, pageError(req, resp, "the server's next link or cursor holds the API key; it is not followed")
	}
	return list, resp, nil
}
