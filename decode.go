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
	"time"

	"github.com/seoapi/seoapi-go/internal/jsonx"
)

// resource is implemented by the six resource types.
type resource interface {
	json.Unmarshaler
	Raw() json.RawMessage
	// jsonNames returns the singular and plural names, normalised (lower
	// case, no separators), that may wrap the resource in a response.
	jsonNames() (singular, plural string)
	// setField reads one member of the resource's JSON object, its key
	// normalised by jsonx.NormalizeKey, setting string fields through d. A value whose JSON type the field
	// does not expect is ignored, leaving the field zero: a guess about the
	// schema never fails a call.
	setField(d *decoder, key []byte, v jsonx.Value)
	// rawJSON returns where the resource records its JSON object.
	rawJSON() *rawJSON
	// reset sets the resource to its zero value.
	reset()
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

var errMalformed = errors.New("malformed JSON")

// errNoObject is the error of a single-resource answer that holds no
// object: the SDK cannot read a resource from it.
var errNoObject = errors.New("no object found in the response")

var errNoList = errors.New("no list found in the response")

// errTooManyItems is the error of a list longer than the client's item
// limit (WithMaxItems).
var errTooManyItems = errors.New("too many items in the list")

// errNotObject is the error of a list element that is neither an object
// nor null: a number is not a workspace.
var errNotObject = errors.New("not an object")

// bytesPerItem is how many bytes of the response cap allow one item by
// default: no resource takes more than 160 bytes with its pointer, so the
// items of a list allowed by a cap take at most 1.25 times the cap, and a
// call's heap stays within 4 times the cap (docs/decoding.md). A list of
// items averaging 128 bytes or more meets the byte cap before this limit.
const bytesPerItem = 128

// defaultMaxItems is the item limit of a client whose WithMaxItems is n
// (0 when not given) and whose response cap is maxBytes.
func defaultMaxItems(n int, maxBytes int64) int {
	if n > 0 {
		return n
	}
	return int(max(1, min(maxBytes/bytesPerItem, math.MaxInt)))
}

// WithMaxItems caps how many elements the SDK decodes from one list
// response (one page); a 2xx list with more fails the call with
// ErrUnexpectedResponse. It fails NewClient with ErrInvalidArgument when n
// is not positive. The default is one item per 128 bytes of the response
// cap (WithMaxResponseBytes): 262 144 at the default 32 MiB, 8 192 at
// 1 MiB. With it, whatever a 2xx body holds, a call that decodes into the
// SDK's types allocates at most 4 times the response cap in all (see
// docs/decoding.md); a larger n lets a list of small items take more. The
// limit counts the resources of a list (null elements, skipped, do not
// count), and the elements of a list that Client.Do decodes into a
// caller's own slice type, before encoding/json decodes them.
func WithMaxItems(n int) Option {
	return func(cfg *clientConfig) {
		if n <= 0 {
			cfg.reject("WithMaxItems: %d is not positive", n)
			return
		}
		cfg.maxItems = n
	}
}

// tooManyItems is the error of a list over the item limit.
func tooManyItems(limit int) error {
	return fmt.Errorf("%w: more than %d (WithMaxItems)", errTooManyItems, limit)
}

// notObject is the error of list element index, whose first byte is c.
func notObject(index int, c byte) error {
	return fmt.Errorf("element %d of the list is %s, %w", index, jsonType(c), errNotObject)
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

// ctxCheckEvery is how many list elements or object members the decoder
// reads between two looks at the call's context: a long decode ends soon
// after the context does, at no measurable cost.
const ctxCheckEvery = 1024

// errNilResource is what encoding/json would say of a nil pointer.
var errNilResource = errors.New("cannot decode into a nil resource pointer")

// decodeBody decodes a 2xx body into v. An empty or null body leaves v as
// it is. A resource (or a pointer to one, as in `var p *Project; Do(req,
// &p)`) is unwrapped from a data or singular-name envelope; a slice from a
// bare array or a list envelope, whose paging fields are recorded in resp;
// anything else is decoded by encoding/json.
//
// A list of more than maxItems elements fails with errTooManyItems, a list
// element that is neither an object nor null with errNotObject, a body
// whose strings decode to more bytes than it holds with errStringsTooLong
// (invalid JSON anywhere in the body fails with errMalformed instead).
// When ctx ends during a long decode, decodeBody returns ctx's error,
// wrapped.
//
// Decoded resources keep subslices of body for Raw, so body must belong to
// the call: the caller must not reuse or change it afterwards.
func decodeBody(ctx context.Context, body []byte, v any, resp *Response, maxItems int) error {
	data := jsonx.Trim(body)
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	maxItems = max(maxItems, 1)
	switch dst := v.(type) {
	case *[]*Project:
		return decodeListOf(ctx, body, dst, resp, maxItems)
	case *[]*Workspace:
		return decodeListOf(ctx, body, dst, resp, maxItems)
	case *[]*Member:
		return decodeListOf(ctx, body, dst, resp, maxItems)
	case *[]*ContentPlan:
		return decodeListOf(ctx, body, dst, resp, maxItems)
	case *[]*Competitor:
		return decodeListOf(ctx, body, dst, resp, maxItems)
	case *[]*APIKey:
		return decodeListOf(ctx, body, dst, resp, maxItems)
	case resource:
		if reflect.ValueOf(dst).IsNil() {
			return errNilResource
		}
		return decodeResource(ctx, body, dst)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
		switch target := rv.Elem(); {
		case target.Kind() == reflect.Pointer && target.Type().Implements(resourceType):
			res := reflect.New(target.Type().Elem()).Interface().(resource)
			if err := decodeResource(ctx, body, res); err != nil {
				return err
			}
			target.Set(reflect.ValueOf(res))
			return nil
		case target.Kind() == reflect.Slice:
			return decodeOtherList(ctx, body, target, resp, maxItems)
		}
	}
	if !jsonx.Valid(data) {
		return errMalformed
	}
	if err := ctx.Err(); err != nil {
		return stopped(err)
	}
	return json.Unmarshal(data, v)
}

// stopped wraps the error of a context that ended during decoding.
func stopped(err error) error {
	return fmt.Errorf("decoding the response: %w", err)
}

// decoder decodes resources from one body. It is allocated once per body:
// the reader's key buffer, the pending strings and the slice header that
// raw JSON points at all live in it.
type decoder struct {
	r    jsonx.Reader
	data []byte
	stringBatch
	ctx context.Context
	// stopped is the error of ctx, once it ended during decoding.
	stopped error
	// reads counts elements and members read, for the context checks.
	reads int
}

func newDecoder(ctx context.Context, body []byte) *decoder {
	d := &decoder{data: body, ctx: ctx}
	d.budget = len(body)
	d.r.Reset(body)
	return d
}

// done reports, every ctxCheckEvery calls, whether the call's context
// ended, recording its error.
func (d *decoder) done() bool {
	d.reads++
	if d.reads%ctxCheckEvery != 0 || d.stopped != nil {
		return d.stopped != nil
	}
	if err := d.ctx.Err(); err != nil {
		d.stopped = stopped(err)
	}
	return d.stopped != nil
}

// finish returns the error of a decode that read the body up to d's end:
// the context's, else errMalformed for invalid JSON, else listErr.
func (d *decoder) finish(listErr error) error {
	switch {
	case d.stopped != nil:
		return d.stopped
	case !d.r.Done():
		return errMalformed
	}
	return listErr
}

// abandon returns err, to be reported once the rest of the array at d's
// reader is validated (d.finish): from the element the reader is at when
// at is true, else from the one after.
func (d *decoder) abandon(err error, at bool) error {
	more := at || d.r.ArrayNext()
	for ; more; more = d.r.ArrayNext() {
		if d.done() {
			return nil
		}
		d.r.Value()
	}
	return err
}

// stringBatch gathers the string fields of one object, so that they share one
// allocation instead of costing one each.
type stringBatch struct {
	buf     []byte
	pending [8]pendingString
	n       int
	// budget is how many more bytes of strings may be decoded from the
	// body: as many as the body holds. Only invalid UTF-8, each byte of
	// which decodes to the three of U+FFFD, can spend more.
	budget int
	// overBudget is set once the budget is spent.
	overBudget error
}

// errStringsTooLong is the error of a body whose strings decode to more
// bytes than the body holds.
var errStringsTooLong = errors.New("the strings of the response decode to more bytes than the response holds (invalid UTF-8)")

// spend takes n bytes from the budget, reporting false, and recording
// the error, when they are not there.
func (s *stringBatch) spend(n int) bool {
	if n > s.budget {
		s.overBudget = errStringsTooLong
		return false
	}
	s.budget -= n
	return true
}

// pendingString is a string field to be set to buf[start:end] by flush.
type pendingString struct {
	dst        *string
	start, end int
}

// largeString is the length from which a JSON string is converted on its
// own, in one allocation, rather than copied into the batch first.
const largeString = 4096

// setString sets *dst, at the next flush, to v when v is a JSON string.
func (s *stringBatch) setString(dst *string, v jsonx.Value) {
	if len(v) >= largeString {
		if n, ok := v.StringLen(); ok && s.spend(n) {
			s.setLarge(dst, v.String)
		}
		return
	}
	start := len(s.buf)
	if buf, ok := v.AppendString(s.buf); ok && s.spend(len(buf)-start) {
		s.add(dst, start, buf)
	}
}

// setID sets *dst, at the next flush, to v when v is a JSON string, or to
// its exact text when v is a number (12345678901234567 stays exact).
func (s *stringBatch) setID(dst *string, v jsonx.Value) {
	if v.Kind() == '"' {
		s.setString(dst, v)
		return
	}
	if len(v) >= largeString {
		s.setLarge(dst, v.Text)
		return
	}
	start := len(s.buf)
	if buf, ok := v.AppendText(s.buf); ok {
		s.add(dst, start, buf)
	}
}

// setLarge sets *dst to what conv returns, when it succeeds, after the
// pending fields, so that of duplicate keys the last still wins.
func (s *stringBatch) setLarge(dst *string, conv func() (string, bool)) {
	if str, ok := conv(); ok {
		s.flush()
		*dst = str
	}
}

func (s *stringBatch) add(dst *string, start int, buf []byte) {
	s.buf = buf
	s.pending[s.n] = pendingString{dst: dst, start: start, end: len(buf)}
	s.n++
	if s.n == len(s.pending) {
		s.flush()
	}
}

// flush sets the pending fields, in the order they were read, so that of
// duplicate keys the last wins, as with encoding/json.
func (s *stringBatch) flush() {
	if s.n == 0 {
		return
	}
	all := string(s.buf)
	for _, p := range s.pending[:s.n] {
		*p.dst = all[p.start:p.end]
	}
	s.buf = s.buf[:0]
	s.n = 0
}

// decodeResource decodes a single resource, unwrapped from its envelope.
// Single bodies are small, so they are validated in a pass of their own.
func decodeResource(ctx context.Context, body []byte, res resource) error {
	if !jsonx.Valid(body) {
		return errMalformed
	}
	singular, _ := res.jsonNames()
	span := jsonx.SingleSpan(body, singular)
	if span.Start >= span.End || body[span.Start] != '{' {
		return errNoObject
	}
	res.reset()
	d := newDecoder(ctx, body[:span.End])
	d.r.Seek(span.Start, 0) // the body was validated whole
	d.decodeObject(res)
	if err := cmp.Or(d.stopped, d.overBudget); err != nil {
		res.reset()
		return err
	}
	return nil
}

// decodeListOf decodes a list of resources. A bare array, the fake API's
// and the common shape, is validated and decoded in one pass; an envelope
// is validated while the list is found, and the list then decoded.
func decodeListOf[T any, PT resourcePtr[T]](ctx context.Context, body []byte, dst *[]*T, resp *Response, maxItems int) error {
	d := newDecoder(ctx, body)
	if d.r.Peek() == '[' {
		list, listErr := decodeArray[T, PT](d, maxItems)
		if err := d.finish(listErr); err != nil {
			return err
		}
		*dst = list
		return nil
	}
	_, plural := PT(nil).jsonNames()
	span, err := findList(body, plural)
	if err != nil {
		return err
	}
	resp.readEnvelope(jsonx.Trim(body))
	list := []*T{}
	if !span.Empty() {
		// The list is validated as it is decoded, inside the envelope.
		d.r.Reset(body[:span.End])
		d.r.Seek(span.Start, 1)
		var listErr error
		list, listErr = decodeArray[T, PT](d, maxItems)
		if err := d.finish(listErr); err != nil {
			return err
		}
	}
	*dst = list
	return nil
}

// findList finds the list in a body that is not a bare array.
func findList(body []byte, plural string) (jsonx.Span, error) {
	span, shape := jsonx.ListSpan(body, plural)
	switch shape {
	case jsonx.Malformed:
		return span, errMalformed
	case jsonx.NoList:
		return span, errNoList
	}
	return span, nil
}

// decodeOtherList fills dst, a slice of anything but the SDK's resources,
// by encoding/json from the list found in body, once the list is known to
// hold at most maxItems elements. What encoding/json makes of each
// element is up to the caller's type.
func decodeOtherList(ctx context.Context, body []byte, dst reflect.Value, resp *Response, maxItems int) error {
	span, err := findList(body, "")
	if err != nil {
		return err
	}
	data := jsonx.Trim(body)
	if data.IsObject() {
		resp.readEnvelope(data)
	}
	if !jsonx.ValidList(body, span) {
		return errMalformed
	}
	list := body[span.Start:span.End]
	if span.Empty() {
		list = []byte("[]")
	}
	if jsonx.CountElements(list, maxItems) > maxItems {
		return tooManyItems(maxItems)
	}
	if err := ctx.Err(); err != nil {
		return stopped(err)
	}
	return json.Unmarshal(list, dst.Addr().Interface())
}

// maxChunk bounds how many resources are allocated together, so that a
// wrong estimate (a small first item, then large ones) wastes little.
const maxChunk = 1024

// decodeArray decodes the array at d's reader into at most maxItems
// resources, skipping null elements. Resources are allocated in chunks
// whose size is estimated from the bytes left and the size of the items
// so far, never past maxItems, so a page of similar items costs four
// allocations (two chunks, two slices of pointers) instead of one per
// item, and no list allocates more than maxItems resources. Each item's
// Raw is a subslice of the body.
//
// An element that is neither an object nor null, or one past maxItems,
// ends the decoding: the rest of the array is then only validated, and
// the error returned (check d.finish, which puts invalid JSON first). It
// returns nil on invalid JSON or when the context ends.
func decodeArray[T any, PT resourcePtr[T]](d *decoder, maxItems int) ([]*T, error) {
	list := []*T{}
	var chunk []T
	d.r.Peek() // to the bracket, so that the average item size is right
	first := d.r.Pos()
	index := 0
	for more := d.r.ArrayStart(); more; more, index = d.r.ArrayNext(), index+1 {
		if d.done() {
			return nil, nil
		}
		if d.r.Null() {
			continue
		}
		if c := d.r.Peek(); c != '{' {
			return nil, d.abandon(notObject(index, c), true)
		}
		if len(list) == maxItems {
			return nil, d.abandon(tooManyItems(maxItems), true)
		}
		if len(chunk) == 0 {
			n := min(estimateItems(len(d.data)-d.r.Pos(), d.r.Pos()-first, len(list)), maxItems-len(list))
			chunk = make([]T, n)
			if cap(list)-len(list) < n {
				// Doubling keeps a long list's copies linear in its length.
				list = append(make([]*T, 0, max(len(list)+n, min(2*cap(list), maxItems))), list...)
			}
		}
		item := &chunk[0]
		chunk = chunk[1:]
		d.decodeObject(PT(item))
		if d.r.Failed() || d.stopped != nil {
			return nil, nil
		}
		if d.overBudget != nil {
			return nil, d.abandon(d.overBudget, false)
		}
		list = append(list, item)
	}
	return list, nil
}

// estimateItems guesses how many items the remaining bytes hold from the
// average size of the items decoded so far; with none yet it guesses one,
// so that the first item's size informs the next chunk.
func estimateItems(remaining, consumed, items int) int {
	if items == 0 || consumed <= 0 {
		return 1
	}
	avg := consumed/items + 1
	return max(1, min(remaining/avg+1, maxChunk))
}

// decodeObject decodes the object at d's reader into res and records its
// span in the body as res's raw JSON.
func (d *decoder) decodeObject(res resource) {
	start := d.r.Pos()
	if d.buf == nil {
		// An object's strings are never longer than the object; most
		// objects are short, and the buffer is reused for the next.
		d.buf = make([]byte, 0, min(len(d.data)-start, 512))
	}
	for more := d.r.ObjectStart(); more; more = d.r.ObjectNext() {
		key := d.r.Key()
		val := d.r.Value()
		if d.r.Failed() || d.done() {
			return
		}
		if d.overBudget == nil {
			res.setField(d, key, val)
		}
	}
	d.flush()
	*res.rawJSON() = rawJSON{body: &d.data, start: start, end: d.r.Pos()}
}

// unmarshalResource implements UnmarshalJSON: encoding/json may reuse data
// after the call, so the resource keeps a copy of its own. A JSON value
// other than an object fails, as encoding/json fails for a struct; null
// leaves the resource zero.
func unmarshalResource(data []byte, res resource) error {
	res.reset()
	v := jsonx.Trim(data)
	switch {
	case string(v) == "null":
		return nil
	case !v.IsObject():
		return fmt.Errorf("seoapi: cannot decode %s into a %s", jsonType(v.Kind()), singularName(res))
	}
	d := newDecoder(context.Background(), bytes.Clone(v))
	d.decodeObject(res)
	if !d.r.Done() {
		res.reset()
		return errMalformed
	}
	if d.overBudget != nil {
		res.reset()
		return d.overBudget
	}
	return nil
}

// singularName returns the singular JSON name of a resource type.
func singularName(res resource) string {
	singular, _ := res.jsonNames()
	return singular
}

// resourcePtr constrains a type parameter to a pointer to a resource type.
type resourcePtr[T any] interface {
	*T
	resource
}

func setTime(dst *time.Time, v jsonx.Value) {
	if t, ok := v.Time(); ok {
		*dst = t
	}
}

func setOptionalTime(dst **time.Time, v jsonx.Value) {
	if t, ok := v.Time(); ok {
		*dst = &t
	}
}
