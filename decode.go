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
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// resource is implemented by pointers to the six resource types.
type resource interface {
	json.Unmarshaler
	Raw() json.RawMessage
	// identity is the resource's ID, which tells pages apart.
	identity() string
}

// resourcePtr constrains a type parameter to a pointer to a resource type.
type resourcePtr[T any] interface {
	*T
	resource
}

// wirePtr constrains a type parameter to a pointer to the struct a
// resource T is decoded into: its fields under each name servers use, IDs
// and times in any form. build makes the resource from it.
type wirePtr[W, T any] interface {
	*W
	build(raw rawJSON) T
}

// rawJSON holds a resource's own JSON behind a pointer, so that fmt
// prints an address, never the JSON (it may hold a secret).
type rawJSON struct{ raw *json.RawMessage }

// newRaw returns a rawJSON holding a copy of data: a resource must not
// keep the whole page it came from alive.
func newRaw(data []byte) rawJSON {
	raw := json.RawMessage(bytes.Clone(data))
	return rawJSON{&raw}
}

// Raw returns the JSON object the resource was decoded from, unknown
// fields included.
func (r rawJSON) Raw() json.RawMessage {
	if r.raw == nil {
		return nil
	}
	return slices.Clip(*r.raw)
}

var (
	errMalformed     = errors.New("malformed JSON")
	errNotUTF8       = errors.New("the response is not valid UTF-8")
	errNoObject      = errors.New("no object found in the response")
	errNoList        = errors.New("no list found in the response")
	errAmbiguousList = errors.New("more than one list in the response") // the SDK does not guess which
	errTooManyItems  = errors.New("too many items in the list")
	errNotObject     = errors.New("not an object")
	errNilResource   = errors.New("cannot decode into a nil resource pointer")
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
)

// decodeBody decodes a 2xx body into v; an empty or null body leaves v as
// it is. A resource (or a **T) is the body's object, or its data or
// singular-name member when the object has no id; a slice is a bare array
// or an envelope's list, whose paging goes to resp; anything else goes to
// encoding/json.
func decodeBody(ctx context.Context, body []byte, v any, resp *Response, maxItems int) error {
	body = bytes.Trim(body, jsonSpace)
	switch {
	case len(body) == 0 || string(body) == "null":
		return nil
	case !json.Valid(body):
		return errMalformed
	case !utf8.Valid(body):
		// Then no string decodes to more bytes than the body holds.
		return errNotUTF8
	}
	if err := ctx.Err(); err != nil {
		return stopped(err)
	}
	d := &decoder{ctx: ctx, body: body, resp: resp, maxItems: max(maxItems, 1)}
	targets := [...]func(*decoder, any) (bool, error){
		decodeInto[Project, projectJSON], decodeInto[Workspace, workspaceJSON], decodeInto[Member, memberJSON],
		decodeInto[ContentPlan, contentPlanJSON], decodeInto[Competitor, competitorJSON], decodeInto[APIKey, apiKeyJSON],
	}
	for _, decode := range targets {
		if ok, err := decode(d, v); ok {
			return err
		}
	}
	return d.decodeOther(v)
}

// stopped wraps the error of a context that ended during decoding.
func stopped(err error) error { return fmt.Errorf("decoding the response: %w", err) }

// decoder reads one body, valid JSON and UTF-8 without white space around
// it, with a json.Decoder that starts at body[base].
type decoder struct {
	ctx      context.Context
	body     []byte
	resp     *Response
	maxItems int
	dec      *json.Decoder
	base     int
	reads    int // object members and values skipped
}

// start reads the body from body[base] on.
func (d *decoder) start(base int) {
	d.dec, d.base = json.NewDecoder(bytes.NewReader(d.body[base:])), base
}

// next returns where the next value starts in the body, past a comma or a
// colon, so that its kind can be told before it is read.
func (d *decoder) next() int {
	return len(d.body) - len(bytes.TrimLeft(d.body[d.end():], jsonSpace+",:"))
}

// end returns where the last token read ends in the body.
func (d *decoder) end() int { return d.base + int(d.dec.InputOffset()) }

// look returns the context's error, once it has ended, at every
// ctxCheckEvery-th element or member.
func (d *decoder) look(n int) error {
	if n%ctxCheckEvery != ctxCheckEvery-1 {
		return nil
	}
	if err := d.ctx.Err(); err != nil {
		return stopped(err)
	}
	return nil
}

// count counts an object member or a value skipped: a body may hold as
// many as a list items, and at least ctxCheckEvery, since reading one
// costs more than its bytes. It looks at the context every ctxCheckEvery
// of them.
func (d *decoder) count() error {
	if d.reads++; d.reads > max(d.maxItems, ctxCheckEvery) {
		return fmt.Errorf("%w: more than %d members and skipped values in the response (WithMaxItems)",
			errTooManyItems, max(d.maxItems, ctxCheckEvery))
	}
	return d.look(d.reads)
}

// skip reads the next value and drops it.
func (d *decoder) skip() error {
	if err := d.count(); err != nil {
		return err
	}
	return d.dec.Decode(new(skip))
}

// skip is a JSON value read and dropped.
type skip struct{}

func (*skip) UnmarshalJSON([]byte) error { return nil }

// decodeInto decodes into a *T, a **T, a []*T (the SDK's lists) or a []T;
// ok is false for any other v.
func decodeInto[T, W any, PT resourcePtr[T], PW wirePtr[W, T]](d *decoder, v any) (ok bool, err error) {
	switch dst := v.(type) {
	case PT:
		if dst == nil {
			return true, errNilResource
		}
		return true, decodeSingle[T, W, PW](d, dst)
	case **T:
		item := new(T)
		if err = decodeSingle[T, W, PW](d, item); err == nil {
			*dst = item
		}
		return true, err
	case *[]*T:
		return true, decodeList[T, W, PW](d, dst, func(item T) *T { return &item })
	case *[]T:
		return true, decodeList[T, W, PW](d, dst, func(item T) T { return item })
	}
	return false, nil
}

// unmarshalResource implements a resource's UnmarshalJSON: the object
// itself, never unwrapped, so that a resource decodes its own Raw(). Null
// leaves the resource zero; any other non-object fails.
func unmarshalResource[T, W any, PW wirePtr[W, T]](data []byte, dst *T) error {
	*dst = *new(T)
	data = bytes.Trim(data, jsonSpace)
	switch {
	case string(data) == "null":
		return nil
	case len(data) == 0 || data[0] != '{':
		return fmt.Errorf("seoapi: cannot decode %s into a %s", jsonType(data), jsonName(reflect.TypeFor[T]().Name()))
	}
	var w W
	if err := fieldError(json.Unmarshal(data, &w)); err != nil {
		return err
	}
	*dst = PW(&w).build(newRaw(data))
	return nil
}

// fieldError is err, unless all it says is that a field's JSON has another
// type: that field is left zero, since the API publishes no schema.
func fieldError(err error) error {
	var typeErr *json.UnmarshalTypeError
	if err != nil && errors.As(err, &typeErr) {
		return nil
	}
	return err
}

// decodeSingle decodes the body's object into dst, or its data or
// singular-name member when the body has no id and that member is an
// object.
func decodeSingle[T, W any, PW wirePtr[W, T]](d *decoder, dst *T) error {
	if d.body[0] != '{' {
		*dst = *new(T)
		return errNoObject
	}
	if err := unmarshalResource[T, W, PW](d.body, dst); err != nil || any(dst).(resource).identity() != "" {
		return err
	}
	var inner []byte
	name := jsonName(reflect.TypeFor[T]().Name())
	d.start(0)
	err := d.eachMember(func(key string, at int) (bool, error) {
		if key == "id" {
			inner = nil // the body is the resource
			return false, nil
		}
		err := d.skip()
		if (key == "data" || key == name) && d.body[at] == '{' && inner == nil {
			inner = d.body[at:d.end()]
		}
		return true, err
	})
	if err != nil || inner == nil {
		return err
	}
	return unmarshalResource[T, W, PW](inner, dst)
}

// eachMember calls member with each key of the object at d.dec, normalised
// by jsonName, and where its value starts in the body, until member
// returns false or an error; member reads the value.
func (d *decoder) eachMember(member func(key string, at int) (more bool, err error)) error {
	if _, err := d.dec.Token(); err != nil {
		return err
	}
	for d.dec.More() {
		if err := d.count(); err != nil {
			return err
		}
		key, err := d.dec.Token()
		if err != nil {
			return err
		}
		if more, err := member(jsonName(key.(string)), d.next()); !more || err != nil {
			return err
		}
	}
	_, err := d.dec.Token()
	return err
}

// jsonName folds a name the way the SDK compares member names: ASCII in
// lower case, without '_' and '-' ("next_cursor" and "nextCursor" read
// "nextcursor"). Other letters stay: "worKſpace" is not "workspace".
func jsonName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '_' || r == '-':
			return -1
		case 'A' <= r && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// decodeList decodes the body's list into *dst, at most d.maxItems
// resources, each made an E by elem; null elements are skipped.
func decodeList[T, W any, PW wirePtr[W, T], E any](d *decoder, dst *[]E, elem func(T) E) error {
	list := []E{}
	used := 0 // bytes of the objects read
	var w W   // reused: an element allocates only its resource, its Raw and its strings
	_, err := d.readList(jsonName(reflect.TypeFor[T]().Name())+"s", func(at, i int) error {
		switch {
		case d.body[at] == 'n':
			return d.skip()
		case d.body[at] != '{':
			return fmt.Errorf("element %d of the list is %s, %w", i, jsonType(d.body[at:]), errNotObject)
		case len(list) == d.maxItems:
			return tooManyItems(d.maxItems)
		}
		w = *new(W)
		if err := fieldError(d.dec.Decode(&w)); err != nil {
			return err
		}
		raw := bytes.TrimRight(d.body[at:d.end()], jsonSpace+",")
		list = append(grow(list, used, len(d.body)-at, d.maxItems), elem(PW(&w).build(newRaw(raw))))
		used += len(raw)
		return nil
	})
	if err == nil {
		*dst = list
	}
	return err
}

// grow returns list with room for one more item. When full, it makes room
// for as many items as the bytes left would hold at the average size so
// far, so that a list of alike items is allocated once; at least doubled,
// never past limit.
func grow[E any](list []E, used, left, limit int) []E {
	if len(list) < cap(list) {
		return list
	}
	n := 1
	if len(list) > 0 {
		n = max(len(list), left/(used/len(list)+1))
	}
	// Not slices.Grow: under the race detector, its append of a make
	// allocates the room twice.
	grown := make([]E, len(list), len(list)+min(n, limit-len(list)))
	copy(grown, list)
	return grown
}

// decodeOther decodes into anything but a resource by encoding/json: a
// slice from the body's list, once it is known to hold at most
// d.maxItems elements.
func (d *decoder) decodeOther(v any) error {
	body := d.body
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.Elem().Kind() == reflect.Slice {
		list, err := d.readList("", func(_, i int) error {
			if i == d.maxItems {
				return tooManyItems(d.maxItems)
			}
			return d.dec.Decode(new(skip)) // held to the item cap, not to count's limit
		})
		if err != nil {
			return err
		}
		if body = list; list == nil {
			body = []byte("[]") // an envelope's list was null
		}
	}
	return json.Unmarshal(body, v)
}

// readList reads the body's list, calling element with where each element
// starts and its index, and returns the list's JSON: the body, or an
// envelope's data, items, results or plural member, else its only array
// (two named lists fail rather than a guess). An envelope's paging goes
// to d.resp.
func (d *decoder) readList(plural string, element func(at, i int) error) ([]byte, error) {
	d.start(0)
	switch d.body[0] {
	case '[':
		return d.readArray(element)
	case '{':
	default:
		return nil, errNoList
	}
	e := envelope{plural: plural}
	err := d.eachMember(func(key string, at int) (bool, error) { return true, e.member(d, key, at, element) })
	switch {
	case err != nil:
		return nil, err
	case e.lists == 0 && e.arrays != 1:
		return nil, errNoList
	case e.lists == 0:
		// The only array, known to be the list only at the end, is read again.
		d.start(e.only)
		e.list, err = d.readArray(element)
	}
	if err == nil && d.resp != nil && d.resp.NextURL == "" && d.resp.NextCursor == "" && d.resp.NextPage == 0 {
		// The first scope to tell the next page wins; a Link header wins over all.
		for i := range e.scopes {
			if d.resp.readPaging(&e.scopes[i]) {
				break
			}
		}
	}
	return e.list, err
}

// readArray calls element at each element of the array at d.dec and
// returns the array's JSON. It looks at the context every ctxCheckEvery
// elements.
func (d *decoder) readArray(element func(at, i int) error) ([]byte, error) {
	start := d.next()
	if _, err := d.dec.Token(); err != nil {
		return nil, err
	}
	for i := 0; d.dec.More(); i++ {
		if err := d.look(i); err != nil {
			return nil, err
		}
		if err := element(d.next(), i); err != nil {
			return nil, err
		}
	}
	_, err := d.dec.Token()
	return d.body[start:d.end()], err
}

// envelope is what readList learns from the members of a list body.
type envelope struct {
	plural string // the resource's list name, if any
	lists  int    // members named as a list holding an array or null
	list   []byte // the list read
	arrays int    // other members holding an array
	only   int    // where the last of those starts
	// scopes: the top level, then pagingScopes; of a duplicate scope, as
	// of any member, the first is read.
	scopes [1 + len(pagingScopes)]paging
	read   [len(pagingScopes)]bool
}

// pagingScopes are the envelope members that may hold paging members.
var pagingScopes = [...]string{"meta", "pagination", "paging", "links"}

// member reads one member of the envelope, whose value starts at at.
func (e *envelope) member(d *decoder, key string, at int, element func(at, i int) error) (err error) {
	scope := slices.Index(pagingScopes[:], key)
	named := key == "data" || key == "items" || key == "results" || e.plural != "" && key == e.plural
	switch kind := d.body[at]; {
	case named && (kind == '[' || kind == 'n'):
		if e.lists++; e.lists > 1 {
			return errAmbiguousList
		} else if kind == 'n' {
			return d.skip()
		}
		e.list, err = d.readArray(element)
		return err
	case kind == '[':
		e.arrays, e.only = e.arrays+1, at
		_, err = d.readArray(func(int, int) error { return d.skip() })
		return err
	case scope >= 0 && kind == '{' && !e.read[scope]:
		e.read[scope] = true
		return d.eachMember(func(key string, _ int) (bool, error) { return true, e.scopes[scope+1].set(d, key) })
	}
	return e.scopes[0].set(d, key)
}

// tooManyItems is the error of a list over the item limit.
func tooManyItems(limit int) error {
	return fmt.Errorf("%w: more than %d (WithMaxItems)", errTooManyItems, limit)
}

// jsonType names the JSON type of a value.
func jsonType(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	return cmp.Or(jsonTypes[v[0]], "a number")
}

var jsonTypes = map[byte]string{'"': "a string", '[': "an array", 't': "a boolean", 'f': "a boolean", '{': "an object", 'n': "null"}

// jsonID reads an ID: a string, or a number's exact text (12345678901234567
// never passes through a float). Any other JSON leaves it as it is.
type jsonID string

// UnmarshalJSON implements json.Unmarshaler.
func (id *jsonID) UnmarshalJSON(b []byte) error {
	switch {
	case b[0] == '"' && bytes.IndexByte(b, '\\') < 0:
		*id = jsonID(b[1 : len(b)-1]) // without escapes, a string is its own text
	case b[0] == '"':
		return json.Unmarshal(b, (*string)(id))
	case isNumber(b):
		*id = jsonID(b)
	}
	return nil
}

// isNumber reports whether a JSON value is a number.
func isNumber(b []byte) bool { return b[0] == '-' || '0' <= b[0] && b[0] <= '9' }

// jsonTime reads a time: an RFC 3339 string, or a number of Unix seconds
// or milliseconds. Any other JSON leaves it as it is.
type jsonTime struct{ time.Time }

// A numeric time of millisDigits integer digits or more is Unix
// milliseconds (as seconds, 10^11 is the year 5138); from maxTimeDigits on
// it is no time. A string over maxTimeText bytes (RFC 3339 needs at most
// 35) is no time either: its parse error would copy it.
const (
	millisDigits  = 12
	maxTimeDigits = 16
	maxTimeText   = 64
)

// UnmarshalJSON implements json.Unmarshaler.
func (t *jsonTime) UnmarshalJSON(b []byte) error {
	switch {
	case b[0] == '"' && len(b) <= maxTimeText:
		var v time.Time
		if v.UnmarshalJSON(b) == nil {
			t.Time = v
		}
	case isNumber(b):
		if v, ok := unixTime(b); ok {
			t.Time = v
		}
	}
	return nil
}

// unixTime reads a JSON number as a Unix time, rounded to the nanosecond
// half away from zero. It reads the digits as written, since a float
// would lose nanoseconds (1700000000.123456789); only a number with an
// exponent passes through one.
func unixTime(num []byte) (time.Time, bool) {
	if bytes.ContainsAny(num, "eE") {
		f, err := strconv.ParseFloat(string(num), 64)
		if err != nil || math.Abs(f) >= 1e16 {
			return time.Time{}, false
		}
		if math.Abs(f) >= 1e11 {
			f /= 1000
		}
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC(), true
	}
	whole, frac, _ := bytes.Cut(bytes.TrimPrefix(num, []byte("-")), []byte("."))
	whole = bytes.TrimLeft(whole, "0")
	if len(whole) > maxTimeDigits {
		return time.Time{}, false
	}
	digits := 9 // of the fraction: nanoseconds of a second, or of a millisecond from 6
	if len(whole) >= millisDigits {
		digits = 6
	}
	var n, part int64
	for _, c := range whole {
		n = n*10 + int64(c-'0')
	}
	for i := range digits {
		part = part*10 + digit(frac, i)
	}
	if digit(frac, digits) >= 5 {
		part++
	}
	sec, nsec := n, part
	if digits == 6 {
		sec, nsec = n/1000, n%1000*1e6+part
	}
	if num[0] == '-' {
		sec, nsec = -sec, -nsec
	}
	return time.Unix(sec, nsec).UTC(), true
}

// digit returns the i-th digit of b, 0 past its end.
func digit(b []byte, i int) int64 {
	if i >= len(b) {
		return 0
	}
	return int64(b[i] - '0')
}

// paging holds one envelope object's paging members: for each of
// pagingNames, the value of the first of its names present.
type paging struct {
	vals [len(pagingNames)]json.RawMessage
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

// set reads the next value, keeping it when key is a paging member.
func (p *paging) set(d *decoder, key string) error {
	for i, names := range pagingNames {
		rank := slices.Index(names, key) + 1
		if rank > 0 && (p.rank[i] == 0 || rank < p.rank[i]) {
			p.rank[i] = rank
			return d.dec.Decode(&p.vals[i])
		}
	}
	return d.skip()
}

// readPaging reads one object's paging members and reports whether they
// tell the next page, or that there is none.
func (r *Response) readPaging(p *paging) bool {
	more := string(p.vals[hasMore]) == "true"
	if string(p.vals[hasMore]) == "false" {
		return true // the server said this is the last page
	}
	next := p.vals[nextLink]
	var link struct{ Href, URL json.RawMessage }
	if json.Unmarshal(next, &link) == nil {
		next = firstOf(link.Href, link.URL)
	}
	if s, ok := jsonString(next); ok && s != "" {
		if strings.ContainsAny(s, "/?") {
			r.setNextURL(s)
		} else {
			r.NextCursor = s
		}
		return true
	}
	if n, ok := jsonInt(next); ok && n > 0 {
		r.NextPage = n
		return true
	}
	c, _ := jsonText(p.vals[nextCursor])
	if c == "" && more {
		c, _ = jsonText(p.vals[cursor]) // a cursor is the next page's only when there is one
	}
	if c != "" {
		r.NextCursor = c
		return true
	}
	if n, ok := jsonInt(p.vals[nextPage]); ok && n > 0 {
		r.NextPage = n
		return true
	}
	return r.readPageCounters(p)
}

// readPageCounters reads page with totalPages, or with perPage and total.
func (r *Response) readPageCounters(p *paging) bool {
	current, ok := jsonInt(p.vals[page])
	if !ok || current < 1 {
		return false
	}
	last, ok := jsonInt(p.vals[totalPages])
	if !ok {
		size, ok1 := jsonInt(p.vals[perPage])
		count, ok2 := jsonInt(p.vals[total])
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

// firstOf returns the first of vs that is set.
func firstOf(vs ...json.RawMessage) json.RawMessage {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

// jsonString returns v when it is a JSON string.
func jsonString(v json.RawMessage) (s string, ok bool) {
	return s, len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil
}

// jsonText returns a JSON string, or a number's exact text.
func jsonText(v json.RawMessage) (string, bool) {
	if len(v) > 0 && isNumber(v) {
		return string(v), true
	}
	return jsonString(v)
}

// jsonInt returns a JSON number, or a string holding one, that is a whole
// number and fits an int.
func jsonInt(v json.RawMessage) (int, bool) {
	text, ok := jsonText(v)
	n, err := strconv.Atoi(text)
	return n, ok && err == nil
}

// parseErrorBody reads a message and code from the common error shapes
// (error, the body itself, errors[0], detail), else a snippet of the body.
func parseErrorBody(body []byte) (message, code string) {
	var e struct{ Error, Errors, Detail json.RawMessage }
	if body := bytes.Trim(body, jsonSpace); len(body) == 0 || body[0] != '{' {
		return snippet(body), ""
	} else if json.Unmarshal(body, &e) != nil {
		return "", ""
	}
	if message, code = messageAndCode(e.Error); message == "" && code == "" {
		message, code = messageAndCode(body)
	}
	var errs []json.RawMessage
	if json.Unmarshal(e.Errors, &errs) == nil && len(errs) > 0 && message == "" {
		message, code = messageAndCode(errs[0])
	}
	if message == "" {
		message, _ = jsonString(e.Detail)
	}
	return message, code
}

// messageAndCode reads a string as a message, and an object's message
// (msg, description) and code (type) members.
func messageAndCode(v json.RawMessage) (message, code string) {
	if s, ok := jsonString(v); ok {
		return s, ""
	}
	var m struct{ Message, Msg, Description, Code, Type json.RawMessage }
	if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &m) != nil {
		return "", ""
	}
	message, _ = jsonString(firstOf(m.Message, m.Msg, m.Description))
	code, _ = jsonText(firstOf(m.Code, m.Type))
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
