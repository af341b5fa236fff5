package seoapi

import (
	"context"
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
}

func (o *ListOptions) clone() ListOptions {
	if o == nil {
		return ListOptions{}
	}
	c := *o
	c.Extra = make(url.Values, len(o.Extra))
	for k, v := range o.Extra {
		c.Extra[k] = append([]string(nil), v...)
	}
	return c
}

// withListOptions adds the query parameters of opts to path. Negative page
// numbers or sizes fail with ErrInvalidArgument.
func withListOptions(path string, opts *ListOptions) (string, error) {
	if opts == nil {
		return path, nil
	}
	if opts.Page < 0 || opts.PerPage < 0 {
		return "", invalidArgument("ListOptions: negative Page or PerPage")
	}
	q, err := query.Values(opts)
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

// listAll iterates over every item of a list, following the next page the
// server announces. It copies opts and never changes them. It ends with an
// error when a next page repeats one already fetched, or when a next link
// leaves the client's base URL; it ends quietly on an empty page or when
// no next page is announced.
func listAll[T any](ctx context.Context, c *Client, path string, opts *ListOptions) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		p := newPager(opts)
		for {
			req, err := p.request(ctx, c, path)
			if err != nil {
				yield(nil, err)
				return
			}
			items, resp, err := fetchList[T](c, req)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, item := range items {
				if !yield(item, nil) {
					return
				}
			}
			if len(items) == 0 {
				return
			}
			more, err := p.advance(resp)
			if err != nil {
				yield(nil, err)
				return
			}
			if !more {
				return
			}
		}
	}
}

// pager is the state of one iteration: where the next page is and which
// pages were already fetched.
type pager struct {
	opts       ListOptions
	nextURL    string
	seenURL    map[string]bool
	seenCursor map[string]bool
	seenPage   map[int]bool
}

func newPager(opts *ListOptions) *pager {
	return &pager{
		opts:       opts.clone(),
		seenURL:    map[string]bool{},
		seenCursor: map[string]bool{},
		seenPage:   map[int]bool{},
	}
}

// request builds the request for the next page and records it as fetched.
func (p *pager) request(ctx context.Context, c *Client, path string) (*http.Request, error) {
	if p.nextURL != "" {
		req, err := c.NewRequest(ctx, http.MethodGet, p.nextURL, nil)
		if err != nil {
			return nil, fmt.Errorf("seoapi: next page: %w", err)
		}
		p.seenURL[req.URL.String()] = true
		return req, nil
	}
	req, err := newListRequest(ctx, c, path, &p.opts)
	if err != nil {
		return nil, err
	}
	p.seenURL[req.URL.String()] = true
	p.seenPage[max(p.opts.Page, 1)] = true
	if p.opts.Cursor != "" {
		p.seenCursor[p.opts.Cursor] = true
	}
	return req, nil
}

// advance moves to the next page resp announces and reports whether there
// is one.
func (p *pager) advance(resp *Response) (bool, error) {
	repeated := func(what string) (bool, error) {
		return false, fmt.Errorf("seoapi: %s %s: the next page repeats %s already fetched; stopping instead of looping", resp.Request.Method, redactedURL(resp.Request), what)
	}
	switch {
	case resp.NextURL != "":
		if p.seenURL[resp.NextURL] || (resp.NextCursor != "" && p.seenCursor[resp.NextCursor]) || (resp.NextPage != 0 && p.seenPage[resp.NextPage]) {
			return repeated("URL " + resp.NextURL)
		}
		p.nextURL = resp.NextURL
		if resp.NextCursor != "" {
			p.seenCursor[resp.NextCursor] = true
		}
		if resp.NextPage != 0 {
			p.seenPage[resp.NextPage] = true
		}
	case resp.NextCursor != "":
		if p.seenCursor[resp.NextCursor] {
			return repeated("cursor " + strconv.Quote(resp.NextCursor))
		}
		p.nextURL, p.opts.Cursor = "", resp.NextCursor
	case resp.NextPage != 0:
		if p.seenPage[resp.NextPage] {
			return repeated("page " + strconv.Itoa(resp.NextPage))
		}
		p.nextURL, p.opts.Page = "", resp.NextPage
	default:
		return false, nil
	}
	return true, nil
}
