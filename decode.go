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

// rawJSON holds a resource's own JSON behind a pointer, so that fmt
// prints an address, never the JSON (it may hold a secret).
type rawJSON struct{ raw *json.RawMessage }

// Raw returns the JSON object the resource was decoded from, unknown
// fields included.
func (r rawJSON) Raw() json.RawMessage {
	if r.raw == nil {
		return nil
	}
	return slices.Clip(*r.raw)
}

// wirePtr constrains a type parameter to a pointer to the struct a
// resource T is decoded into: its members under each name servers use
// (encoding/json matches a field's name in any case, so a snake_case name
// needs a field of its own), IDs and times in any form. build makes the
// resource.
type wirePtr[W, T any] interface {
	*W
	build() T
	setRaw(raw rawJSON)
}

// wireBase holds what every resource's wire struct has: the ID, the
// times, and the Raw the resource keeps.
type wireBase struct {
	ID             jsonID   `json:"id"`
	CreatedAt      jsonTime `json:"createdAt"` // comparable: cmp.Or picks the one set
	CreatedAtSnake jsonTime `json:"created_at"`
	UpdatedAt      jsonTime `json:"updatedAt"`
	UpdatedAtSnake jsonTime `json:"updated_at"`

	raw rawJSON
}

func (w *wireBase) setRaw(raw rawJSON) { w.raw = raw }
func (w *wireBase) created() time.Time { return cmp.Or(w.CreatedAt, w.CreatedAtSnake).Time }
func (w *wireBase) updated() time.Time { return cmp.Or(w.UpdatedAt, w.UpdatedAtSnake).Time }

// either is the first of an ID's two spellings that is set.
func either(camel, snake jsonID) string { return string(cmp.Or(camel, snake)) }

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
	if r, ok := v.(resource); ok {
		if reflect.ValueOf(r).IsNil() {
			return errNilResource
		}
		return decodeSingle(ctx, body, r, maxItems)
	}
	d := &decoder{ctx: ctx, body: body, resp: resp, maxItems: max(maxItems, 1)}
	for _, decode := range [...]func(*decoder, any) (bool, error){
		decodeInto[Project, projectJSON], decodeInto[Workspace, workspaceJSON], decodeInto[Member, memberJSON],
		decodeInto[ContentPlan, contentPlanJSON], decodeInto[Competitor, competitorJSON], decodeInto[APIKey, apiKeyJSON],
	} {
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
// costs more than its bytes.
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

// decodeInto decodes into a **T, a []*T (the SDK's lists) or a []T; ok
// is false for any other v.
func decodeInto[T, W any, PT resourcePtr[T], PW wirePtr[W, T]](d *decoder, v any) (ok bool, err error) {
	switch dst := v.(type) {
	case **T:
		item := PT(new(T))
		if err = decodeSingle(d.ctx, d.body, item, d.maxItems); err == nil {
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
	PW(&w).setRaw(newRaw(data))
	*dst = PW(&w).build()
	return nil
}

// newRaw returns a rawJSON holding a copy of data: a resource must not
// keep the whole page it came from alive.
func newRaw(data []byte) rawJSON {
	raw := json.RawMessage(bytes.Clone(data))
	return rawJSON{&raw}
}

// decodeSingle decodes the body's object into dst, or its data or
// singular-name member when the body has no id and that member is an
// object.
func decodeSingle(ctx context.Context, body []byte, dst resource, maxItems int) error {
	if body[0] != '{' {
		_ = dst.UnmarshalJSON([]byte("null")) // zero
		return errNoObject
	}
	if err := dst.UnmarshalJSON(body); err != nil || dst.identity() != "" {
		return err
	}
	var inner []byte
	hasID, name := false, jsonName(reflect.TypeOf(dst).Elem().Name())
	d := &decoder{ctx: ctx, body: body, maxItems: max(maxItems, 1)}
	d.start(0)
	err := d.eachMember(func(key string) error {
		at := d.next()
		err := d.skip()
		switch {
		case key == "id":
			hasID = true // the body is the resource
		case inner == nil && (key == "data" || key == name) && d.body[at] == '{':
			inner = d.body[at:d.end()]
		}
		return err
	})
	if err != nil || inner == nil || hasID {
		return err
	}
	return dst.UnmarshalJSON(inner)
}

// eachMember calls member with each key of the object at d.dec, folded by
// jsonName; member reads the value.
func (d *decoder) eachMember(member func(key string) error) error {
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
		if err := member(jsonName(key.(string))); err != nil {
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
	_, err := d.readList(jsonName(reflect.TypeFor[T]().Name())+"s", func(i int) error {
		at := d.next()
		switch kind := d.body[at]; {
		case kind == 'n':
			return d.skip()
		case kind != '{':
			return fmt.Errorf("element %d of the list is %s, %w", i, jsonType(d.body[at:]), errNotObject)
		case len(list) == d.maxItems:
			return tooManyItems(d.maxItems)
		}
		w = *new(W)
		if err := fieldError(d.dec.Decode(&w)); err != nil {
			return err
		}
		PW(&w).setRaw(newRaw(d.body[at:d.end()]))
		list = append(grow(list, used, len(d.body)-at, d.maxItems), elem(PW(&w).build()))
		used += d.end() - at
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
		list, err := d.readList("", func(i int) error {
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

// readList reads the body's list, calling element with the index of each
// of its elements, which element reads, and returns the list's JSON: the
// body, or an envelope's data, items, results or plural member, else its
// only array (two named lists fail rather than a guess). The paging of an
// envelope, at its top level or in its first meta, pagination, paging or
// links object, goes to d.resp.
func (d *decoder) readList(plural string, element func(i int) error) ([]byte, error) {
	d.start(0)
	switch d.body[0] {
	case '[':
		return d.readArray(element)
	case '{':
	default:
		return nil, errNoList
	}
	e := envelope{plural: plural, scopes: map[string]paging{"": {}}}
	err := d.eachMember(func(key string) error { return e.member(d, key, element) })
	switch {
	case err != nil:
		return nil, err
	case e.lists == 0 && e.arrays != 1:
		return nil, errNoList
	case e.lists == 0:
		// The only array, known to be the list only at the end, is read again.
		d.start(e.only)
		if e.list, err = d.readArray(element); err != nil {
			return nil, err
		}
	}
	if r := d.resp; r != nil && r.NextURL == "" && r.NextCursor == "" && r.NextPage == 0 {
		// The first scope to tell the next page wins; a Link header wins over all.
		for _, scope := range pagingScopes {
			if r.readPaging(e.scopes[scope]) {
				break
			}
		}
	}
	return e.list, nil
}

// envelope is what readList learns from the members of a list body.
type envelope struct {
	plural string            // the resource's list name, if any
	lists  int               // members named as a list holding an array or null
	list   []byte            // the list read
	arrays int               // other members holding an array
	only   int               // where the last of those starts
	scopes map[string]paging // by pagingScopes, the first of each
}

// member reads one member of the envelope.
func (e *envelope) member(d *decoder, key string, element func(i int) error) (err error) {
	at := d.next()
	named := key == "data" || key == "items" || key == "results" || e.plural != "" && key == e.plural
	switch _, seen := e.scopes[key]; {
	case named && (d.body[at] == '[' || d.body[at] == 'n'):
		if e.lists++; e.lists > 1 {
			return errAmbiguousList
		} else if d.body[at] == 'n' {
			return d.skip()
		}
		e.list, err = d.readArray(element)
		return err
	case d.body[at] == '[':
		e.arrays, e.only = e.arrays+1, at
		_, err = d.readArray(func(int) error { return d.skip() })
		return err
	case d.body[at] == '{' && slices.Contains(pagingScopes, key) && !seen:
		e.scopes[key] = paging{}
		return d.eachMember(func(name string) error { return e.scopes[key].keep(d, name) })
	}
	return e.scopes[""].keep(d, key)
}

// pagingScopes are where paging members may be: the top level, then these
// envelope members.
var pagingScopes = []string{"", "meta", "pagination", "paging", "links"}

// readArray calls element at each element of the array at d.dec and
// returns the array's JSON. It looks at the context every ctxCheckEvery
// elements.
func (d *decoder) readArray(element func(i int) error) ([]byte, error) {
	start := d.next()
	if _, err := d.dec.Token(); err != nil {
		return nil, err
	}
	for i := 0; d.dec.More(); i++ {
		if err := d.look(i); err != nil {
			return nil, err
		}
		if err := element(i); err != nil {
			return nil, err
		}
	}
	_, err := d.dec.Token()
	return d.body[start:d.end()], err
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
func isNumber[T string | []byte](b T) bool { return b[0] == '-' || '0' <= b[0] && b[0] <= '9' }

// jsonTime reads a time: an RFC 3339 string, or a number of Unix seconds
// or milliseconds. Any other JSON leaves it as it is.
type jsonTime struct{ time.Time }

// A string over maxTimeText bytes (RFC 3339 needs at most 35) is no time:
// its parse error would copy it.
const maxTimeText = 64

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

// unixTime reads a JSON number as Unix seconds, or milliseconds from 10^11
// on (as seconds, the year 5138); from 10^16 on it is no time, nor is a
// number with an exponent. The whole part and the fraction are read
// apart, since a float would lose nanoseconds (1700000000.123456789), and
// rounded to the nanosecond, half away from zero.
func unixTime(num []byte) (time.Time, bool) {
	whole, frac, _ := bytes.Cut(num, []byte("."))
	frac = frac[:min(len(frac), 10)]
	sec, err1 := strconv.ParseInt(string(whole), 10, 64)
	part, err2 := strconv.ParseInt(string(frac)+"0000000000"[len(frac):], 10, 64) // tenths of a nanosecond
	if err1 != nil || err2 != nil || bytes.ContainsAny(num, "eE") || sec >= 1e16 || sec <= -1e16 {
		return time.Time{}, false
	}
	millis := sec >= 1e11 || sec <= -1e11
	unit := int64(10) // of part in a nanosecond
	if millis {
		unit = 1e4 // part is of a millisecond
	}
	nsec := (part + unit/2) / unit
	if num[0] == '-' {
		nsec = -nsec
	}
	if millis {
		sec, nsec = sec/1000, sec%1000*1e6+nsec
	}
	return time.Unix(sec, nsec).UTC(), true
}

// paging holds one object's paging members by folded name; of a
// duplicate, the first.
type paging map[string]string

// keep reads the next value, keeping it when name is a paging member's.
func (p paging) keep(d *decoder, name string) error {
	_, dup := p[name]
	if dup || !slices.ContainsFunc(pagingNames[:], func(names []string) bool { return slices.Contains(names, name) }) {
		return d.skip()
	}
	var v json.RawMessage
	err := d.dec.Decode(&v)
	p[name] = string(v)
	return err
}

// get returns the value of the paging member, under the first of its
// names present.
func (p paging) get(member int) string {
	for _, name := range pagingNames[member] {
		if v, ok := p[name]; ok {
			return v
		}
	}
	return ""
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

// readPaging reads one scope's paging members and reports whether they
// tell the next page, or that there is none.
func (r *Response) readPaging(p paging) bool {
	more, next := p.get(hasMore), p.get(nextLink)
	if more == "false" {
		return true // the server said this is the last page
	}
	var link struct{ Href, URL json.RawMessage }
	if json.Unmarshal([]byte(next), &link) == nil {
		next = cmp.Or(string(link.Href), string(link.URL))
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
	c := jsonText(p.get(nextCursor))
	if c == "" && more == "true" {
		c = jsonText(p.get(cursor)) // a cursor is the next page's only when there is one
	}
	if c != "" {
		r.NextCursor = c
		return true
	}
	if n, ok := jsonInt(p.get(nextPage)); ok && n > 0 {
		r.NextPage = n
		return true
	}
	return r.readPageCounters(p)
}

// readPageCounters reads page with totalPages, or with perPage and total.
func (r *Response) readPageCounters(p paging) bool {
	current, ok := jsonInt(p.get(page))
	last, lastOK := jsonInt(p.get(totalPages))
	size, _ := jsonInt(p.get(perPage))
	if count, countOK := jsonInt(p.get(total)); !lastOK && countOK && size > 0 {
		last, lastOK = (count+size-1)/size, true
	}
	if !ok || current < 1 || !lastOK {
		return false
	}
	if current < last {
		r.NextPage = current + 1
	}
	return true
}

// jsonString returns v when it is a JSON string.
func jsonString(v string) (s string, ok bool) {
	return s, strings.HasPrefix(v, `"`) && json.Unmarshal([]byte(v), &s) == nil
}

// jsonText returns a JSON string, or a number's exact text.
func jsonText(v string) string {
	if v != "" && isNumber(v) {
		return v
	}
	s, _ := jsonString(v)
	return s
}

// jsonInt returns a JSON number, or a string holding one, that is a whole
// number and fits an int.
func jsonInt(v string) (int, bool) {
	n, err := strconv.Atoi(jsonText(v))
	return n, err == nil
}

// fieldError is err, unless all it says is that a field's JSON has another
// type: that field is left zero, since the API publishes no schema.
func fieldError(err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return nil
	}
	return err
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
	if message, code = messageAndCode(string(e.Error)); message == "" && code == "" {
		message, code = messageAndCode(string(body))
	}
	var errs []json.RawMessage
	if json.Unmarshal(e.Errors, &errs) == nil && len(errs) > 0 && message == "" {
		message, code = messageAndCode(string(errs[0]))
	}
	if message == "" {
		message, _ = jsonString(string(e.Detail))
	}
	return message, code
}

// messageAndCode reads a string as a message, and an object's message
// (msg, description) and code (type) members.
func messageAndCode(v string) (message, code string) {
	if s, ok := jsonString(v); ok {
		return s, ""
	}
	var m struct{ Message, Msg, Description, Code, Type json.RawMessage }
	if !strings.HasPrefix(v, "{") || json.Unmarshal([]byte(v), &m) != nil {
		return "", ""
	}
	message, _ = jsonString(cmp.Or(string(m.Message), string(m.Msg), string(m.Description)))
	return message, jsonText(cmp.Or(string(m.Code), string(m.Type)))
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
