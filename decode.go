package seoapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/seoapi/seoapi-go/internal/jsonx"
)

// resource is implemented by pointers to the six resource types.
type resource interface {
	json.Unmarshaler
	Raw() json.RawMessage
	// fields reads mem into the field it names, if any: one line a field.
	fields(mem member)
	setRaw(span rawJSON)
	// identity is the resource's ID, which tells pages apart.
	identity() string
}

// resourcePtr constrains a type parameter to a pointer to a resource type.
type resourcePtr[T any] interface {
	*T
	resource
}

// rawJSON is where a resource's object lies in the body, held by pointer
// so that fmt prints an address, never the JSON (it may hold a secret).
type rawJSON struct {
	body       *[]byte
	start, end int
}

func (r *rawJSON) setRaw(span rawJSON) { *r = span }

// Raw returns the exact JSON object the resource was decoded from, capped
// so that appending to it never writes over the next item.
func (r rawJSON) Raw() json.RawMessage {
	if r.body == nil {
		return nil
	}
	return (*r.body)[r.start:r.end:r.end]
}

var (
	errMalformed      = errors.New("malformed JSON")
	errNoObject       = errors.New("no object found in the response")
	errNoList         = errors.New("no list found in the response")
	errAmbiguousList  = errors.New("more than one list in the response") // the SDK does not guess which
	errTooManyItems   = errors.New("too many items in the list")
	errNotObject      = errors.New("not an object")
	errStringsTooLong = errors.New("the strings of the response decode to more bytes than the response holds (invalid UTF-8)")
	errNilResource    = errors.New("cannot decode into a nil resource pointer")
)

// bytesPerItem of the response cap allow one item by default: no resource
// with its pointer takes over 160 bytes, so items stay under 1.25× the cap.
const bytesPerItem = 128

// defaultMaxItems is the item limit for WithMaxItems n (0: unset) and maxBytes.
func defaultMaxItems(n int, maxBytes int64) int {
	if n > 0 {
		return n
	}
	return int(max(1, min(maxBytes/bytesPerItem, math.MaxInt)))
}

const (
	ctxCheckEvery = 1024      // elements or members read between two looks at the context
	jsonSpace     = " \t\n\r" // the white space JSON allows around a value
	stringChunk   = 4 << 10   // the size of the buffers short strings share
	maxChunk      = 1024      // bounds the resources allocated together: a bad guess wastes little
)

// decodeBody decodes a 2xx body into v; an empty or null body leaves v as
// it is. A resource (or a **T) is the body's object, or its data or
// singular-name member when the object has no id; a slice is a bare array
// or an envelope's list, whose paging goes to resp; anything else goes to
// encoding/json. Resources keep subslices of body for Raw: keep it unchanged.
func decodeBody(ctx context.Context, body []byte, v any, resp *Response, maxItems int) error {
	trimmed := bytes.Trim(body, jsonSpace)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return nil
	}
	d := &decoder{ctx: ctx, body: &body, budget: len(body)}
	d.r.Reset(body)
	res, ok := v.(resource)
	switch {
	case !ok:
		return d.decodeOther(v, resp, max(maxItems, 1))
	case reflect.ValueOf(res).IsNil():
		return errNilResource
	}
	return d.decodeResource(res, true)
}

// decodeResource decodes the body, an object, into res, unwrapping an
// envelope when unwrap is set; on failure res is left zero.
func (d *decoder) decodeResource(res resource, unwrap bool) error {
	reflect.ValueOf(res).Elem().SetZero()
	if d.r.Peek() == '{' {
		d.decodeObject(res, unwrap)
	} else {
		d.r.Value()
		d.failed = errNoObject
	}
	err := d.result(d.r.Done())
	if err != nil {
		reflect.ValueOf(res).Elem().SetZero()
	}
	return err
}

// decoder reads resources from one body in one pass.
type decoder struct {
	r       jsonx.Reader
	body    *[]byte // what the resources' Raw points into
	ctx     context.Context
	stopped error            // ctx's error, once it ended during decoding
	failed  error            // why the decoding stopped short, such as errStringsTooLong
	reads   int              // elements and members read, for the context checks
	budget  int              // how many more bytes of strings may be decoded
	strings *strings.Builder // the buffer a list's short strings share
}

// result returns the error of a read that found the body valid or not.
func (d *decoder) result(valid bool) error {
	switch {
	case d.stopped != nil:
		return d.stopped
	case !valid:
		return errMalformed
	}
	return d.failed
}

// tick counts an element or member read and, every ctxCheckEvery of them,
// stops the reader once the call's context has ended.
func (d *decoder) tick() {
	if d.reads++; d.reads%ctxCheckEvery != 0 {
		return
	}
	if err := d.ctx.Err(); err != nil && d.stopped == nil {
		d.stopped = stopped(err)
		d.r.Stop()
	}
}

// stopped wraps the error of a context that ended during decoding.
func stopped(err error) error { return fmt.Errorf("decoding the response: %w", err) }

// isJSONName reports whether a normalised key is t's normalised name plus
// suffix ("contentplan" wraps one, "contentplans" lists them). Keys fold
// ASCII only: "worKſpace" is not "workspace".
func isJSONName(key []byte, t reflect.Type, suffix string) bool {
	var buf [64]byte
	return string(key) == string(jsonx.NormalizeKey(&buf, []byte(t.Name())))+suffix
}

// decodeObject decodes the object at the reader into res, its span as
// Raw. With unwrap, an object without an id is an envelope when its data or
// singular-name member holds an object, which is then the resource.
func (d *decoder) decodeObject(res resource, unwrap bool) {
	var inner resource
	hasID := false
	start, end := d.r.Object(func(key []byte) {
		hasID = hasID || string(key) == "id"
		wrapper := unwrap && inner == nil && d.r.Peek() == '{'
		if wrapper && (string(key) == "data" || isJSONName(key, reflect.TypeOf(res).Elem(), "")) {
			inner = reflect.New(reflect.TypeOf(res).Elem()).Interface().(resource)
			d.decodeObject(inner, false)
			return
		}
		d.tick()
		if val := d.r.Value(); val != nil && d.failed == nil && d.stopped == nil {
			res.fields(member{key: key, val: val, d: d})
		}
	})
	res.setRaw(rawJSON{body: d.body, start: start, end: end})
	if inner != nil && !hasID {
		reflect.ValueOf(res).Elem().Set(reflect.ValueOf(inner).Elem())
	}
}

// member is an object's member as a resource's fields reads it.
type member struct {
	key []byte
	val jsonx.Value
	d   *decoder
}

// jsonID marks a field holding an ID: a string, or a number's exact text
// (12345678901234567 never passes through a float).
type jsonID string

// set sets *dst from m when m's key is name and its value's JSON type fits
// dst, else does nothing (a schema guess never fails a call): *string takes a
// string, *jsonID a string or number, *time.Time and **time.Time a Value.Time.
func (m *member) set(dst any, name string) {
	if string(m.key) != name {
		return
	}
	switch dst := dst.(type) {
	case *string:
		if s, ok := m.d.str(m.val); ok {
			*dst = s
		}
	case *jsonID:
		if s, ok := m.d.str(m.val); ok {
			*dst = jsonID(s)
		} else if c := m.val[0]; c == '-' || '0' <= c && c <= '9' {
			*dst = jsonID(m.val)
		}
	case *time.Time:
		if t, ok := m.val.Time(); ok {
			*dst = t
		}
	case **time.Time:
		if t, ok := m.val.Time(); ok && *dst != nil {
			**dst = t // a duplicate member reuses the first one's time
		} else if ok {
			*dst = &t
		}
	}
}

// str returns v when it is a JSON string within the budget of string
// bytes. A list's short strings are slices of shared strings.Builder
// buffers, so a page's strings cost a few allocations, not one each.
func (d *decoder) str(v jsonx.Value) (string, bool) {
	if v[0] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	plain := bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) // its own decoding
	n := len(inner)
	if !plain {
		n, _ = v.StringLen()
	}
	if n > d.budget {
		d.failed = errStringsTooLong
		return "", false
	}
	d.budget -= n
	switch {
	case !plain:
		return v.String()
	case d.strings == nil || n > stringChunk/16:
		return string(inner), true
	case d.strings.Cap()-d.strings.Len() < n:
		*d.strings = strings.Builder{} // the strings made so far keep the old buffer
		d.strings.Grow(min(stringChunk, d.budget+n))
	}
	start := d.strings.Len()
	d.strings.Write(inner)
	return d.strings.String()[start:], true
}

// unmarshalResource implements UnmarshalJSON on a copy of data: the
// object itself, never unwrapped, so that a resource decodes its own
// Raw(). Null leaves the resource zero; any other non-object fails.
func unmarshalResource(data []byte, res resource) error {
	reflect.ValueOf(res).Elem().SetZero()
	v := jsonx.Value(bytes.Trim(data, jsonSpace))
	if string(v) == "null" {
		return nil
	}
	if !v.IsObject() {
		name := strings.ToLower(reflect.TypeOf(res).Elem().Name())
		return fmt.Errorf("seoapi: cannot decode %s into a %s", jsonType(v.Kind()), name)
	}
	body := slices.Clone([]byte(v))
	d := &decoder{ctx: context.Background(), body: &body, budget: len(body)}
	d.r.Reset(body)
	return d.decodeResource(res, false)
}

// decodeOther decodes into anything but a resource: what decodeInto takes,
// else by encoding/json, a slice from the body's list of at most maxItems.
func (d *decoder) decodeOther(v any, resp *Response, maxItems int) error {
	targets := [...]func(*decoder, any, *Response, int) (bool, error){
		decodeInto[Project], decodeInto[Workspace], decodeInto[Member],
		decodeInto[ContentPlan], decodeInto[Competitor], decodeInto[APIKey],
	}
	for _, decode := range targets {
		if ok, err := decode(d, v, resp, maxItems); ok {
			return err
		}
	}
	body := *d.body
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.Elem().Kind() == reflect.Slice {
		list, err := d.readList(nil, resp, func(i int) error {
			if i >= maxItems {
				return tooManyItems(maxItems)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if body = list; list == nil {
			body = []byte("[]") // an envelope's list was null
		}
	} else if !json.Valid(body) {
		return errMalformed
	}
	if err := d.ctx.Err(); err != nil {
		return stopped(err)
	}
	return json.Unmarshal(body, v)
}

// decodeInto decodes into a []*T (the SDK's lists), a []T or a **T (from
// Client.Do); ok is false for any other v.
func decodeInto[T any, PT resourcePtr[T]](d *decoder, v any, resp *Response, maxItems int) (ok bool, err error) {
	switch dst := v.(type) {
	case *[]*T:
		return true, decodeList[T, PT](d, dst, nil, resp, maxItems)
	case *[]T:
		// Counting first allocates the values once (the memory bound).
		n := 0
		if _, err = d.readList(reflect.TypeFor[T](), resp, func(int) error { n++; return nil }); err != nil {
			return true, err
		}
		d.r.Reset(*d.body)
		var list []*T
		values := make([]T, min(n, maxItems))
		if err = decodeList[T, PT](d, &list, values, resp, maxItems); err == nil {
			*dst = values[:len(list)]
		}
		return true, err
	case **T:
		item := new(T)
		if err = decodeBody(d.ctx, *d.body, PT(item), resp, maxItems); err == nil {
			*dst = item
		}
		return true, err
	}
	return false, nil
}

// decodeList decodes a list of at most maxItems resources into dst,
// skipping null elements. Its items come from chunk, then from grow.
func decodeList[T any, PT resourcePtr[T]](d *decoder, dst *[]*T, chunk []T, resp *Response, maxItems int) error {
	list := []*T{}
	d.strings = new(strings.Builder)
	first := 0 // where the list's first element starts
	_, err := d.readList(reflect.TypeFor[T](), resp, func(i int) error {
		if i == 0 {
			first = d.r.Pos()
		}
		switch c := d.r.Peek(); {
		case c == 'n':
			return nil
		case c != '{':
			return fmt.Errorf("element %d of the list is %s, %w", i, jsonType(c), errNotObject)
		case len(list) == maxItems:
			return tooManyItems(maxItems)
		case len(chunk) == 0: // used: the items so far, each with the '[' or ',' before it
			chunk, list = grow(list, len(*d.body)-d.r.Pos(), d.r.Pos()-first+1, maxItems)
		}
		item := &chunk[0]
		chunk = chunk[1:]
		d.decodeObject(PT(item), false)
		list = append(list, item)
		return d.failed
	})
	if err != nil {
		return err
	}
	*dst = list
	return nil
}

// grow returns a chunk of as many new items as the bytes left hold at the
// average item size so far (one at first, at most maxChunk and maxItems),
// and list with room for them, at least doubled so copying stays linear.
func grow[T any](list []*T, left, used, maxItems int) ([]T, []*T) {
	n := 1
	if len(list) > 0 && used > 0 {
		n = min(left/(used/len(list)+1)+1, maxChunk)
	}
	n = min(n, maxItems-len(list))
	if cap(list)-len(list) < n {
		list = append(make([]*T, 0, max(len(list)+n, min(2*cap(list), maxItems))), list...)
	}
	return make([]T, n), list
}

// readList reads a list body, calling element at each element, and
// returns the list's JSON: the body, or an envelope's data, items, results
// or t-plural member, else its only array (two named lists fail rather
// than a guess). The paging members it passes go to resp.
func (d *decoder) readList(t reflect.Type, resp *Response, element func(i int) error) ([]byte, error) {
	e := envelope{t: t}
	switch d.r.Peek() {
	case '[':
		e.list, e.err = d.readArray(element)
		return e.list, cmp.Or(d.result(d.r.Done()), e.err)
	case '{':
		d.r.Object(func(key []byte) { e.member(d, key, element) })
	default:
		d.r.Value()
	}
	if err := d.result(d.r.Done()); err != nil {
		return nil, err
	}
	if resp != nil && resp.NextURL == "" && resp.NextCursor == "" && resp.NextPage == 0 {
		// The first scope to tell the next page wins; a Link header wins over all.
		for i := range e.scopes {
			if resp.readPaging(&e.scopes[i]) {
				break
			}
		}
	}
	switch {
	case e.lists > 1:
		return nil, errAmbiguousList
	case e.lists == 1:
		return e.list, e.err
	case e.arrays != 1:
		return nil, errNoList
	}
	// The only array, known to be the list only at the end, is read again.
	d.r.Seek(e.only)
	list, err := d.readArray(element)
	return list, cmp.Or(d.stopped, err)
}

// readArray calls element at each element of the array at the reader
// until one fails, skipping what element leaves unread.
func (d *decoder) readArray(element func(i int) error) (list []byte, err error) {
	i := 0
	start, end := d.r.Array(func() {
		d.tick()
		at := d.r.Pos()
		if err == nil {
			err = element(i)
		}
		if d.r.Pos() == at {
			d.r.Value()
		}
		i++
	})
	return (*d.body)[start:end], err
}

// envelope is what readList learns from the members of a list body.
type envelope struct {
	t      reflect.Type // the resource listed, if any
	lists  int          // members named as a list holding an array or null
	arrays int          // other members holding an array
	only   int          // where the last of those starts
	list   []byte       // the list read
	err    error        // the list's error
	// scopes: the top level, then pagingScopes; of a duplicate scope, as
	// of any member, the first is read.
	scopes [1 + len(pagingScopes)]paging
	read   [len(pagingScopes)]bool
}

// pagingScopes are the envelope members that may hold paging members.
var pagingScopes = [...]string{"meta", "pagination", "paging", "links"}

// member reads one member of the envelope.
func (e *envelope) member(d *decoder, key []byte, element func(int) error) {
	d.tick()
	scope := slices.Index(pagingScopes[:], string(key))
	named := string(key) == "data" || string(key) == "items" || string(key) == "results" || e.t != nil && isJSONName(key, e.t, "s")
	switch next := d.r.Peek(); {
	case named && (next == '[' || next == 'n'):
		if e.lists++; e.lists == 1 && next == '[' {
			e.list, e.err = d.readArray(element)
		} else {
			d.r.Value()
		}
	case next == '[':
		e.arrays++
		e.only = d.r.Pos()
		d.r.Value()
	case scope >= 0 && next == '{' && !e.read[scope]:
		e.read[scope] = true
		p := &e.scopes[scope+1]
		d.r.Object(func(key []byte) { p.set(key, d.r.Value()) })
	default:
		e.scopes[0].set(key, d.r.Value())
	}
}

// tooManyItems is the error of a list over the item limit.
func tooManyItems(limit int) error {
	return fmt.Errorf("%w: more than %d (WithMaxItems)", errTooManyItems, limit)
}

// jsonType names the JSON type of a value from its first byte.
func jsonType(c byte) string { return cmp.Or(jsonTypes[c], "a number") }

var jsonTypes = map[byte]string{'"': "a string", '[': "an array", 't': "a boolean", 'f': "a boolean", '{': "an object", 'n': "null"}

// paging holds one envelope object's paging members: for each of
// pagingNames, the value of the first of its names present.
type paging struct {
	vals [len(pagingNames)]jsonx.Value
	rank [len(pagingNames)]int // 1 + the index in pagingNames of the name that set vals
}

// The paging members, each by the names servers use for it.
const (
	hasMore = iota
	nextLink
	nextCursor
	cursor
	nextPage
	page
	totalPages
	perPage
	total
)

var pagingNames = [...][]string{
	hasMore:    {"hasmore", "hasnext", "hasnextpage"},
	nextLink:   {"nexturl", "next", "nextlink", "nextpageurl"},
	nextCursor: {"nextcursor", "nextpagetoken", "nexttoken"},
	cursor:     {"cursor", "endcursor", "after"},
	nextPage:   {"nextpage"},
	page:       {"page", "currentpage"},
	totalPages: {"totalpages", "pagecount", "lastpage"},
	perPage:    {"perpage", "pagesize", "limit"},
	total:      {"total", "totalcount", "totalitems", "count"},
}

// set records member key when it is a paging member.
func (p *paging) set(key []byte, v jsonx.Value) {
	for i, names := range pagingNames {
		rank := slices.Index(names, string(key)) + 1
		if rank > 0 && (p.rank[i] == 0 || rank < p.rank[i]) {
			p.vals[i], p.rank[i] = v, rank
		}
	}
}

// readPaging reads one object's paging members and reports whether they
// tell the next page, or that there is none.
func (r *Response) readPaging(p *paging) bool {
	more := string(p.vals[hasMore]) == "true"
	if string(p.vals[hasMore]) == "false" {
		return true // the server said this is the last page
	}
	next := p.vals[nextLink]
	if next.IsObject() {
		next, _ = jsonx.Member(next, "href", "url")
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
	c, _ := p.vals[nextCursor].Text()
	if c == "" && more {
		c, _ = p.vals[cursor].Text() // a cursor is the next page's only when there is one
	}
	if c != "" {
		r.NextCursor = c
		return true
	}
	if n, ok := p.vals[nextPage].Int(); ok && n > 0 {
		r.NextPage = n
		return true
	}
	return r.readPageCounters(p)
}

// readPageCounters reads page with totalPages, or with perPage and total.
func (r *Response) readPageCounters(p *paging) bool {
	current, ok := p.vals[page].Int()
	if !ok || current < 1 {
		return false
	}
	last, ok := p.vals[totalPages].Int()
	if !ok {
		size, ok1 := p.vals[perPage].Int()
		count, ok2 := p.vals[total].Int()
		if !ok1 || !ok2 || size < 1 {
			return false
		}
		last = (count + size - 1) / size
	}
	if current < last {
		r.NextPage = current + 1
	}
	return true
}

// parseErrorBody reads a message and code from the common error shapes
// (error, the body itself, errors[0], detail), else a snippet of the body.
func parseErrorBody(body []byte) (message, code string) {
	v := jsonx.Value(bytes.Trim(body, jsonSpace))
	if !v.IsObject() {
		return snippet(body), ""
	}
	e, _ := jsonx.Member(v, "error")
	if message, code = messageAndCode(e); message == "" && code == "" {
		message, code = messageAndCode(v)
	}
	errs, _ := jsonx.Member(v, "errors")
	if first, ok := jsonx.First(errs); ok && message == "" {
		message, code = messageAndCode(first)
	}
	if detail, _ := jsonx.Member(v, "detail"); message == "" {
		message, _ = detail.String()
	}
	return message, code
}

// messageAndCode reads a string as a message, and an object's message
// (msg, description) and code (type) members.
func messageAndCode(v jsonx.Value) (message, code string) {
	if s, ok := v.String(); ok {
		return s, ""
	}
	m, _ := jsonx.Member(v, "message", "msg", "description")
	c, _ := jsonx.Member(v, "code", "type")
	message, _ = m.String()
	code, _ = c.Text()
	return message, code
}

// snippet turns a non-JSON body into one short line: tags dropped, white
// space and control characters folded to single spaces, maxSnippet runes.
func snippet(body []byte) string {
	text := htmlTag.ReplaceAllLiteralString(string(body[:min(len(body), 4*maxSnippet+1024)]), " ")
	words := strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
	s := []rune(strings.Join(words, " "))
	return strings.TrimSpace(string(s[:min(len(s), maxSnippet)]))
}

// htmlTag matches a tag, or an unclosed one to the end.
var htmlTag = regexp.MustCompile(`<[^>]*>?`)
