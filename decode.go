package seoapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
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
	// jsonNames returns the singular and plural names, normalised (lower
	// case, no separators), that may wrap the resource in a response.
	jsonNames() (singular, plural string)
	// fields reads the member d is at into the field it names, if any:
	// one line per field.
	fields(d *decoder)
	// rawJSON returns where the resource records its JSON object.
	rawJSON() *rawJSON
}

// rawJSON is where a resource's JSON object lies in the body it was decoded
// from. The items of one list share that body, so keeping Raw costs no copy
// per item. It holds a pointer rather than the bytes so that fmt, which
// prints a pointer nested in a struct as an address, never prints the JSON
// (a created key's secret, or any field a server adds, may be in it).
type rawJSON struct {
	body       *[]byte
	start, end int
}

// bytes returns the object's JSON, capped so that appending to it can
// never write over the next item's.
func (r rawJSON) bytes() json.RawMessage {
	if r.body == nil {
		return nil
	}
	return (*r.body)[r.start:r.end:r.end]
}

var resourceType = reflect.TypeFor[resource]()

var (
	errMalformed = errors.New("malformed JSON")
	errNoObject  = errors.New("no object found in the response")
	errNoList    = errors.New("no list found in the response")
	// errAmbiguousList is the error of an envelope with two members that
	// may each be the list: the SDK does not guess which.
	errAmbiguousList  = errors.New("more than one list in the response")
	errTooManyItems   = errors.New("too many items in the list")
	errNotObject      = errors.New("not an object")
	errStringsTooLong = errors.New("the strings of the response decode to more bytes than the response holds (invalid UTF-8)")
	errNilResource    = errors.New("cannot decode into a nil resource pointer")
)

// bytesPerItem is how many bytes of the response cap allow one item by
// default: no resource takes more than 160 bytes with its pointer, so the
// items of a list allowed by a cap take at most 1.25 times the cap
// (docs/decoding.md).
const bytesPerItem = 128

// defaultMaxItems is the item limit of a client whose WithMaxItems is n
// (0 when not given) and whose response cap is maxBytes.
func defaultMaxItems(n int, maxBytes int64) int {
	if n > 0 {
		return n
	}
	return int(max(1, min(maxBytes/bytesPerItem, math.MaxInt)))
}

// ctxCheckEvery is how many list elements or object members the decoder
// reads between two looks at the call's context.
const ctxCheckEvery = 1024

// decodeBody decodes a 2xx body into v. An empty or null body leaves v as
// it is. A resource (or a pointer to one, as in `var p *Project; Do(req,
// &p)`) is unwrapped from a data or singular-name envelope; a slice from a
// bare array or a list envelope, whose paging fields are recorded in resp;
// anything else is decoded by encoding/json.
//
// Invalid JSON anywhere in the body fails with errMalformed; otherwise a
// list of more than maxItems elements fails with errTooManyItems, a list
// element that is neither an object nor null with errNotObject, strings
// that decode to more bytes than the body holds with errStringsTooLong.
// When ctx ends during a long decode, decodeBody returns ctx's error,
// wrapped.
//
// Decoded resources keep subslices of body for Raw, so body must belong to
// the call: the caller must not reuse or change it afterwards.
func decodeBody(ctx context.Context, body []byte, v any, resp *Response, maxItems int) error {
	if data := jsonx.Trim(body); len(data) == 0 || string(data) == "null" {
		return nil
	}
	if res, ok := v.(resource); ok {
		if reflect.ValueOf(res).IsNil() {
			return errNilResource
		}
		return decodeResource(ctx, body, res)
	}
	maxItems = max(maxItems, 1)
	if list, err := decodeResourceList(ctx, body, v, resp, maxItems); list {
		return err
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
		switch target := rv.Elem(); {
		case target.Kind() == reflect.Pointer && target.Type().Implements(resourceType):
			res := reflect.New(target.Type().Elem())
			if err := decodeResource(ctx, body, res.Interface().(resource)); err != nil {
				return err
			}
			target.Set(res)
			return nil
		case target.Kind() == reflect.Slice:
			return decodeOtherList(ctx, body, target, resp, maxItems)
		}
	}
	if !jsonx.Valid(body) {
		return errMalformed
	}
	if err := ctx.Err(); err != nil {
		return stopped(err)
	}
	return json.Unmarshal(body, v)
}

// newDecoder returns a decoder over body, its string budget the body's
// length.
func newDecoder(ctx context.Context, body []byte) *decoder {
	d := &decoder{body: &body, ctx: ctx, budget: len(body)}
	d.r.Reset(body)
	return d
}

// decodeResourceList decodes a list of one of the SDK's resources,
// reporting whether v is one.
func decodeResourceList(ctx context.Context, body []byte, v any, resp *Response, maxItems int) (bool, error) {
	switch dst := v.(type) {
	case *[]*Project:
		return true, decodeList(ctx, body, dst, resp, maxItems)
	case *[]*Workspace:
		return true, decodeList(ctx, body, dst, resp, maxItems)
	case *[]*Member:
		return true, decodeList(ctx, body, dst, resp, maxItems)
	case *[]*ContentPlan:
		return true, decodeList(ctx, body, dst, resp, maxItems)
	case *[]*Competitor:
		return true, decodeList(ctx, body, dst, resp, maxItems)
	case *[]*APIKey:
		return true, decodeList(ctx, body, dst, resp, maxItems)
	}
	return false, nil
}

// stopped wraps the error of a context that ended during decoding.
func stopped(err error) error { return fmt.Errorf("decoding the response: %w", err) }

// decoder reads resources from one body in one pass.
type decoder struct {
	r       jsonx.Reader
	body    *[]byte // what the resources' Raw points into
	ctx     context.Context
	stopped error // ctx's error, once it ended during decoding
	reads   int   // elements and members read, for the context checks
	budget  int   // how many more bytes of strings may be decoded
	failed  error // errStringsTooLong once the budget is spent
	strings strings.Builder
	key     []byte      // the member fields reads
	val     jsonx.Value // and its value
}

// done reports, looking every ctxCheckEvery calls, whether the call's
// context ended, recording its error.
func (d *decoder) done() bool {
	d.reads++
	if d.stopped == nil && d.reads%ctxCheckEvery == 0 {
		if err := d.ctx.Err(); err != nil {
			d.stopped = stopped(err)
		}
	}
	return d.stopped != nil
}

// finish returns the error of a decode that read up to the reader's end:
// the context's, else errMalformed for invalid JSON, else err.
func (d *decoder) finish(err error) error {
	switch {
	case d.stopped != nil:
		return d.stopped
	case !d.r.Done():
		return errMalformed
	}
	return err
}

// abandon returns err once the rest of the array is validated (d.finish
// puts invalid JSON first): from the element the reader is at when at is
// true, else from the one after.
func (d *decoder) abandon(err error, at bool) error {
	for more := at || d.r.ArrayNext(); more && !d.done(); more = d.r.ArrayNext() {
		d.r.Value()
	}
	return err
}

// The field readers: each sets its field when the member d is at has the
// field's name and a JSON type the field can take, and does nothing
// otherwise, so that a guess about the schema never fails a call.

// str reads a string field.
func (d *decoder) str(dst *string, name string) {
	if string(d.key) == name {
		d.setString(dst)
	}
}

// id reads an ID: a string, or a number's exact text.
func (d *decoder) id(dst *string, name string) {
	if string(d.key) != name {
		return
	}
	if !d.setString(dst) {
		if s, ok := d.val.Text(); ok {
			*dst = s
		}
	}
}

// time reads an RFC 3339 string or a Unix time in seconds or milliseconds.
func (d *decoder) time(dst *time.Time, name string) {
	if string(d.key) == name {
		if t, ok := d.val.Time(); ok {
			*dst = t
		}
	}
}

// optionalTime reads a time that may be absent or null. A duplicate
// member reuses the time the first allocated.
func (d *decoder) optionalTime(dst **time.Time, name string) {
	if string(d.key) != name {
		return
	}
	if t, ok := d.val.Time(); ok && *dst != nil {
		**dst = t
	} else if ok {
		*dst = &t
	}
}

// setString sets *dst to the member's value when it is a JSON string
// and the budget allows it, reporting whether it is a string. Short
// strings are written into shared buffers of stringChunk bytes and sliced
// from them: a buffer's bytes are never written again, and a
// strings.Builder hands them out as strings without a copy, so the
// strings of a page cost a few allocations instead of one each.
func (d *decoder) setString(dst *string) bool {
	inner, plain, ok := d.val.Content()
	n := len(inner)
	if ok && !plain {
		n, ok = d.val.StringLen()
	}
	switch {
	case !ok:
		return false
	case n > d.budget:
		d.failed = errStringsTooLong
		return true
	case n > stringChunk/16:
		*dst, _ = d.val.String()
		d.budget -= n
		return true
	}
	if d.strings.Cap()-d.strings.Len() < n {
		d.strings = strings.Builder{} // the strings made so far keep the old buffer
		d.strings.Grow(min(stringChunk, d.budget))
	}
	d.budget -= n
	start := d.strings.Len()
	if plain {
		d.strings.Write(inner)
	} else {
		d.val.WriteString(&d.strings)
	}
	*dst = d.strings.String()[start:]
	return true
}

// stringChunk is the size of the buffers short strings share.
const stringChunk = 4 << 10

// decodeObject decodes the object at the reader into res and records its
// span as res's raw JSON. A member that handle takes is left to it.
func (d *decoder) decodeObject(res resource, handle func(key []byte) bool) {
	start := d.r.Pos()
	for more := d.r.ObjectStart(); more; more = d.r.ObjectNext() {
		d.key = d.r.Key()
		if handle != nil && handle(d.key) {
			continue
		}
		d.val = d.r.Value()
		if d.val == nil || d.done() {
			return
		}
		if d.failed == nil {
			res.fields(d)
		}
	}
	*res.rawJSON() = rawJSON{body: d.body, start: start, end: d.r.Pos()}
}

// decodeResource decodes a single resource: the body's object itself
// when it has an id member or no data or singular-name member holding an
// object, else that member. The body's own members are decoded as they
// are read; an inner object, when it is the resource, then again.
func decodeResource(ctx context.Context, body []byte, res resource) error {
	d := newDecoder(ctx, body)
	if d.r.Peek() != '{' {
		d.r.Value()
		return d.finish(errNoObject)
	}
	singular, _ := res.jsonNames()
	reflect.ValueOf(res).Elem().SetZero()
	hasID, inner := false, 0
	d.decodeObject(res, func(key []byte) bool {
		hasID = hasID || string(key) == "id"
		if inner > 0 || (string(key) != "data" && string(key) != singular) || d.r.Peek() != '{' {
			return false
		}
		inner = d.r.Pos()
		d.r.Value()
		return true
	})
	if err := d.finish(d.failed); err != nil || hasID || inner == 0 {
		if err != nil {
			reflect.ValueOf(res).Elem().SetZero()
		}
		return err
	}
	reflect.ValueOf(res).Elem().SetZero()
	d.r.Seek(inner)
	d.decodeObject(res, nil)
	if err := cmp.Or(d.stopped, d.failed); err != nil {
		reflect.ValueOf(res).Elem().SetZero()
		return err
	}
	return nil
}

// unmarshalResource implements UnmarshalJSON: encoding/json may reuse data
// after the call, so the resource keeps a copy of its own. A JSON value
// other than an object fails, as encoding/json fails for a struct; null
// leaves the resource zero.
func unmarshalResource(data []byte, res resource) error {
	reflect.ValueOf(res).Elem().SetZero()
	v := jsonx.Trim(data)
	switch {
	case string(v) == "null":
		return nil
	case !v.IsObject():
		singular, _ := res.jsonNames()
		return fmt.Errorf("seoapi: cannot decode %s into a %s", jsonType(v.Kind()), singular)
	}
	body := []byte(slices.Clone(v))
	d := newDecoder(context.Background(), body)
	d.decodeObject(res, nil)
	if err := d.finish(d.failed); err != nil {
		reflect.ValueOf(res).Elem().SetZero()
		return err
	}
	return nil
}

// resourcePtr constrains a type parameter to a pointer to a resource type.
type resourcePtr[T any] interface {
	*T
	resource
}

// decodeList decodes a list of resources, bare or enveloped, in one pass.
func decodeList[T any, PT resourcePtr[T]](ctx context.Context, body []byte, dst *[]*T, resp *Response, maxItems int) error {
	d := newDecoder(ctx, body)
	_, plural := PT(nil).jsonNames()
	list := []*T{}
	err := d.readList(plural, resp, func() error {
		var err error
		list, err = decodeArray[T, PT](d, maxItems)
		return err
	})
	if err != nil {
		return err
	}
	*dst = list
	return nil
}

// decodeOtherList fills dst, a slice of anything but the SDK's resources,
// by encoding/json from the list found in body, once the list is known to
// hold at most maxItems elements.
func decodeOtherList(ctx context.Context, body []byte, dst reflect.Value, resp *Response, maxItems int) error {
	d := newDecoder(ctx, body)
	list := []byte("[]")
	err := d.readList("", resp, func() error {
		start := d.r.Pos()
		n := 0
		for more := d.r.ArrayStart(); more && !d.done(); more = d.r.ArrayNext() {
			if n == maxItems {
				return d.abandon(tooManyItems(maxItems), true)
			}
			d.r.Value()
			n++
		}
		list = body[start:d.r.Pos()]
		return nil
	})
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return stopped(err)
	}
	return json.Unmarshal(list, dst.Addr().Interface())
}

// readList reads a list body with readArray, which reads the array at the
// reader: the body itself, or the list of an envelope (see readEnvelope).
func (d *decoder) readList(plural string, resp *Response, readArray func() error) error {
	switch d.r.Peek() {
	case '[':
		return d.finish(readArray())
	case '{':
		return d.readEnvelope(plural, resp, readArray)
	}
	d.r.Value()
	return d.finish(errNoList)
}

// envelope is what readEnvelope learns from the members of a list body.
type envelope struct {
	lists  int   // members named as a list (data, items, results, the plural) holding an array or null
	arrays int   // other members holding an array
	only   int   // where the last of those starts
	err    error // readArray's error
	// scopes are the paging members at the top level, then under each
	// of pagingScopes.
	scopes [1 + len(pagingScopes)]paging
	seen   [len(pagingScopes)]bool
}

// member reads one member of the envelope.
func (e *envelope) member(d *decoder, key []byte, plural string, readArray func() error) {
	scope := slices.Index(pagingScopes[:], string(key))
	switch next := d.r.Peek(); {
	case isListKey(key, plural) && (next == '[' || next == 'n'):
		if e.lists++; e.lists == 1 && next == '[' {
			e.err = readArray()
		} else {
			d.r.Value()
		}
	case next == '[':
		e.arrays++
		e.only = d.r.Pos()
		d.r.Value()
	case scope >= 0 && next == '{' && !e.seen[scope]:
		e.seen[scope] = true
		d.readScope(&e.scopes[scope+1])
	default:
		e.scopes[0].set(key, d.r.Value())
	}
}

// pagingScopes are the objects of an envelope that may hold its paging
// members, after the top level.
var pagingScopes = [...]string{"meta", "pagination", "paging", "links"}

// readEnvelope reads a list envelope in one pass: the list is the member
// named data, items, results or plural, or else the only member holding
// an array; two named members holding an array or null fail with
// errAmbiguousList rather than a guess. The paging members read on the
// way, at the top level or under meta, pagination, paging or links, are
// recorded in resp when no Link header said where the next page is.
func (d *decoder) readEnvelope(plural string, resp *Response, readArray func() error) error {
	var e envelope
	for more := d.r.ObjectStart(); more && !d.done(); more = d.r.ObjectNext() {
		e.member(d, d.r.Key(), plural, readArray)
	}
	if err := d.finish(nil); err != nil {
		return err
	}
	if resp != nil {
		resp.readEnvelope(&e.scopes)
	}
	switch {
	case e.lists > 1:
		return errAmbiguousList
	case e.lists == 1:
		return e.err
	case e.arrays != 1:
		return errNoList
	}
	// The only array, known only at the end, is read again as the list.
	d.r.Reset(*d.body)
	d.r.Seek(e.only)
	err := readArray()
	return cmp.Or(d.stopped, err)
}

// isListKey reports whether key names the list of an envelope.
func isListKey(key []byte, plural string) bool {
	switch string(key) {
	case "data", "items", "results":
		return true
	}
	return plural != "" && string(key) == plural
}

// readScope reads the paging members of the object at the reader.
func (d *decoder) readScope(p *paging) {
	for more := d.r.ObjectStart(); more && !d.done(); more = d.r.ObjectNext() {
		key := d.r.Key()
		p.set(key, d.r.Value())
	}
}

// maxChunk bounds how many resources are allocated together, so that a
// wrong estimate (a small first item, then large ones) wastes little.
const maxChunk = 1024

// decodeArray decodes the array at the reader into at most maxItems
// resources, skipping null elements. Resources are allocated in chunks
// whose size is estimated from the bytes left and the size of the items
// so far, never past maxItems, so a page of similar items costs a few
// allocations instead of one per item. Each item's Raw is a subslice of
// the body.
//
// An element that is neither an object nor null, or one past maxItems,
// ends the decoding: the rest of the array is then only validated, and
// the error returned (d.finish puts invalid JSON first). It returns nil
// on invalid JSON or when the context ends.
func decodeArray[T any, PT resourcePtr[T]](d *decoder, maxItems int) ([]*T, error) {
	list := []*T{}
	var chunk []T
	first := d.r.Pos()
	for more, index := d.r.ArrayStart(), 0; more && !d.done(); more, index = d.r.ArrayNext(), index+1 {
		switch c := d.r.Peek(); {
		case d.r.Null():
			continue
		case c != '{':
			return nil, d.abandon(fmt.Errorf("element %d of the list is %s, %w", index, jsonType(c), errNotObject), true)
		case len(list) == maxItems:
			return nil, d.abandon(tooManyItems(maxItems), true)
		}
		if len(chunk) == 0 {
			n := min(estimateItems(len(*d.body)-d.r.Pos(), d.r.Pos()-first, len(list)), maxItems-len(list))
			chunk = make([]T, n)
			if cap(list)-len(list) < n {
				// Doubling keeps a long list's copies linear in its length.
				list = append(make([]*T, 0, max(len(list)+n, min(2*cap(list), maxItems))), list...)
			}
		}
		item := &chunk[0]
		chunk = chunk[1:]
		d.decodeObject(PT(item), nil)
		if d.failed != nil {
			return nil, d.abandon(d.failed, false)
		}
		list = append(list, item)
	}
	if d.r.Failed() || d.stopped != nil {
		return nil, nil
	}
	return list, nil
}

// estimateItems guesses how many items the remaining bytes hold from the
// average size of the items decoded so far; with none yet it guesses one.
func estimateItems(remaining, consumed, items int) int {
	if items == 0 || consumed <= 0 {
		return 1
	}
	return max(1, min(remaining/(consumed/items+1)+1, maxChunk))
}

// tooManyItems is the error of a list over the item limit.
func tooManyItems(limit int) error {
	return fmt.Errorf("%w: more than %d (WithMaxItems)", errTooManyItems, limit)
}

// jsonType names the JSON type of a value from its first byte.
func jsonType(c byte) string {
	switch c {
	case '"':
		return "a string"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case '{':
		return "an object"
	case 'n':
		return "null"
	}
	return "a number"
}

// paging holds the paging members of one object of an envelope: for each
// of pagingNames, the value of the first name of its list that is present.
type paging struct {
	vals [len(pagingNames)]jsonx.Value
	rank [len(pagingNames)]int // 1 + the index of the name that set vals
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
		for rank, name := range names {
			if string(key) == name {
				if p.rank[i] == 0 || rank+1 < p.rank[i] {
					p.vals[i], p.rank[i] = v, rank+1
				}
				return
			}
		}
	}
}

func (p *paging) int(i int) (int, bool) { return p.vals[i].Int() }

// text returns a non-empty string or number member.
func (p *paging) text(i int) (string, bool) {
	s, ok := p.vals[i].Text()
	return s, ok && s != ""
}

// readEnvelope records the next page an enveloped list body announces,
// when no Link header did: the first of scopes (the top level, then meta,
// pagination, paging and links) that says where it is, or that there is
// none.
func (r *Response) readEnvelope(scopes *[1 + len(pagingScopes)]paging) {
	if r.NextURL != "" || r.NextCursor != "" || r.NextPage != 0 {
		return
	}
	for i := range scopes {
		if r.readPaging(&scopes[i]) {
			return
		}
	}
}

// readPaging reads the paging members of one object and reports whether it
// settled where the next page is (or that there is none).
func (r *Response) readPaging(p *paging) bool {
	more, moreSent := p.vals[hasMore].Bool()
	if moreSent && !more {
		return true // the server said this is the last page
	}
	if next := p.vals[nextLink]; next != nil {
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
	}
	if c, ok := p.text(nextCursor); ok {
		r.NextCursor = c
		return true
	}
	if c, ok := p.text(cursor); ok && more {
		r.NextCursor = c
		return true
	}
	if n, ok := p.int(nextPage); ok && n > 0 {
		r.NextPage = n
		return true
	}
	return r.readPageCounters(p)
}

// readPageCounters reads page with totalPages, or page with perPage and
// total.
func (r *Response) readPageCounters(p *paging) bool {
	current, ok := p.int(page)
	if !ok || current < 1 {
		return false
	}
	last, ok := p.int(totalPages)
	if !ok {
		size, ok1 := p.int(perPage)
		count, ok2 := p.int(total)
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

// parseErrorBody reads a message and code from the error shapes APIs
// commonly use, and falls back to a short snippet of any other body.
func parseErrorBody(body []byte) (message, code string) {
	v := jsonx.Trim(body)
	if !v.IsObject() {
		return snippet(body), ""
	}
	if e, ok := jsonx.Member(v, "error"); ok {
		if s, ok := e.String(); ok {
			message = s
		} else if e.IsObject() {
			message, code = messageAndCode(e)
		}
	}
	if message == "" && code == "" {
		message, code = messageAndCode(v)
	}
	if errs, ok := jsonx.Member(v, "errors"); ok && message == "" {
		if first, ok := jsonx.First(errs); ok {
			if s, ok := first.String(); ok {
				message = s
			} else {
				message, code = messageAndCode(first)
			}
		}
	}
	if d, ok := jsonx.Member(v, "detail"); ok && message == "" {
		message, _ = d.String()
	}
	return message, code
}

func messageAndCode(obj jsonx.Value) (message, code string) {
	if m, ok := jsonx.Member(obj, "message", "msg", "description"); ok {
		message, _ = m.String()
	}
	if c, ok := jsonx.Member(obj, "code", "type"); ok {
		code, _ = c.Text()
	}
	return message, code
}

// snippet turns a non-JSON body (plain text, an HTML error page) into a
// short single-line message: tags dropped, white space folded, cut at
// maxSnippet runes.
func snippet(body []byte) string {
	if len(body) > 4*maxSnippet+1024 {
		body = body[:4*maxSnippet+1024]
	}
	var b strings.Builder
	inTag, space := false, false
	runes := 0
	for len(body) > 0 && runes < maxSnippet {
		r, size := utf8.DecodeRune(body)
		body = body[size:]
		switch {
		case r == '<':
			inTag = true
		case r == '>' && inTag:
			inTag = false
			space = b.Len() > 0
		case inTag:
		case unicode.IsSpace(r) || unicode.IsControl(r):
			space = b.Len() > 0
		default:
			need := 1
			if space {
				need++
			}
			if runes+need > maxSnippet {
				return b.String()
			}
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
			runes += need
		}
	}
	return b.String()
}
