package seoapi

import (
	"bytes"
	"encoding/json"
	"errors"
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

// errNilResource is what encoding/json would say of a nil pointer.
var errNilResource = errors.New("cannot decode into a nil resource pointer")

// decodeBody decodes a 2xx body into v. An empty or null body leaves v as
// it is. A resource (or a pointer to one, as in `var p *Project; Do(req,
// &p)`) is unwrapped from a data or singular-name envelope; a slice from a
// bare array or a list envelope, whose paging fields are recorded in resp;
// anything else is decoded by encoding/json.
//
// Decoded resources keep subslices of body for Raw, so body must belong to
// the call: the caller must not reuse or change it afterwards.
func decodeBody(body []byte, v any, resp *Response) error {
	data := jsonx.Trim(body)
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	switch dst := v.(type) {
	case *[]*Project:
		return decodeListOf(body, dst, resp)
	case *[]*Workspace:
		return decodeListOf(body, dst, resp)
	case *[]*Member:
		return decodeListOf(body, dst, resp)
	case *[]*ContentPlan:
		return decodeListOf(body, dst, resp)
	case *[]*Competitor:
		return decodeListOf(body, dst, resp)
	case *[]*APIKey:
		return decodeListOf(body, dst, resp)
	case resource:
		if reflect.ValueOf(dst).IsNil() {
			return errNilResource
		}
		return decodeResource(body, dst)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
		switch target := rv.Elem(); {
		case target.Kind() == reflect.Pointer && target.Type().Implements(resourceType):
			res := reflect.New(target.Type().Elem()).Interface().(resource)
			if err := decodeResource(body, res); err != nil {
				return err
			}
			target.Set(reflect.ValueOf(res))
			return nil
		case target.Kind() == reflect.Slice:
			return decodeOtherList(body, target, resp)
		}
	}
	if !jsonx.Valid(data) {
		return errMalformed
	}
	return json.Unmarshal(data, v)
}

// decoder decodes resources from one body. It is allocated once per body:
// the reader's key buffer, the pending strings and the slice header that
// raw JSON points at all live in it.
type decoder struct {
	r    jsonx.Reader
	data []byte
	stringBatch
}

func newDecoder(body []byte) *decoder {
	d := &decoder{data: body}
	d.r.Reset(body)
	return d
}

// stringBatch gathers the string fields of one object, so that they share one
// allocation instead of costing one each.
type stringBatch struct {
	buf     []byte
	pending [8]pendingString
	n       int
}

// pendingString is a string field to be set to buf[start:end] by flush.
type pendingString struct {
	dst        *string
	start, end int
}

// setString sets *dst, at the next flush, to v when v is a JSON string.
func (s *stringBatch) setString(dst *string, v jsonx.Value) {
	start := len(s.buf)
	if buf, ok := v.AppendString(s.buf); ok {
		s.add(dst, start, buf)
	}
}

// setID sets *dst, at the next flush, to v when v is a JSON string, or to
// its exact text when v is a number (12345678901234567 stays exact).
func (s *stringBatch) setID(dst *string, v jsonx.Value) {
	start := len(s.buf)
	if buf, ok := v.AppendText(s.buf); ok {
		s.add(dst, start, buf)
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
func decodeResource(body []byte, res resource) error {
	if !jsonx.Valid(body) {
		return errMalformed
	}
	singular, _ := res.jsonNames()
	span := jsonx.SingleSpan(body, singular)
	if span.Start >= span.End || body[span.Start] != '{' {
		return errNoObject
	}
	res.reset()
	d := newDecoder(body[:span.End])
	d.r.Seek(span.Start, 0) // the body was validated whole
	d.decodeObject(res)
	return nil
}

// decodeListOf decodes a list of resources. A bare array, the fake API's
// and the common shape, is validated and decoded in one pass; an envelope
// is validated while the list is found, and the list then decoded.
func decodeListOf[T any, PT resourcePtr[T]](body []byte, dst *[]*T, resp *Response) error {
	d := newDecoder(body)
	if d.r.Peek() == '[' {
		list := decodeArray[T, PT](d)
		if !d.r.Done() {
			return errMalformed
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
		list = decodeArray[T, PT](d)
		if !d.r.Done() {
			return errMalformed
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
// by encoding/json from the list found in body.
func decodeOtherList(body []byte, dst reflect.Value, resp *Response) error {
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
	return json.Unmarshal(list, dst.Addr().Interface())
}

// maxChunk bounds how many resources are allocated together, so that a
// wrong estimate (a small first item, then large ones) wastes little.
const maxChunk = 1024

// decodeArray decodes the array at d's reader into resources, skipping
// null elements. Resources are allocated in chunks whose size is estimated
// from the bytes left and the size of the items so far, so a page of
// similar items costs four allocations (two chunks, two slices of
// pointers) instead of one per item. Each item's Raw is a subslice of the
// body. It returns nil on invalid JSON.
func decodeArray[T any, PT resourcePtr[T]](d *decoder) []*T {
	list := []*T{}
	var chunk []T
	d.r.Peek() // to the bracket, so that the average item size is right
	first := d.r.Pos()
	for more := d.r.ArrayStart(); more; more = d.r.ArrayNext() {
		if d.r.Null() {
			continue
		}
		if len(chunk) == 0 {
			n := estimateItems(len(d.data)-d.r.Pos(), d.r.Pos()-first, len(list))
			chunk = make([]T, n)
			if cap(list)-len(list) < n {
				list = append(make([]*T, 0, len(list)+n), list...)
			}
		}
		item := &chunk[0]
		chunk = chunk[1:]
		d.decodeObject(PT(item))
		if d.r.Failed() {
			return nil
		}
		list = append(list, item)
	}
	return list
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

// decodeObject decodes the value at d's reader into res and records its
// span in the body as res's raw JSON. A value that is not an object leaves
// every field zero and is still kept as raw JSON.
func (d *decoder) decodeObject(res resource) {
	isObject := d.r.Peek() == '{'
	start := d.r.Pos()
	if isObject {
		if d.buf == nil {
			// An object's strings are never longer than the object; most
			// objects are short, and the buffer is reused for the next.
			d.buf = make([]byte, 0, min(len(d.data)-start, 512))
		}
		for more := d.r.ObjectStart(); more; more = d.r.ObjectNext() {
			key := d.r.Key()
			val := d.r.Value()
			if d.r.Failed() {
				return
			}
			res.setField(d, key, val)
		}
		d.flush()
	} else {
		d.r.Value()
	}
	*res.rawJSON() = rawJSON{body: &d.data, start: start, end: d.r.Pos()}
}

// unmarshalResource implements UnmarshalJSON: encoding/json may reuse data
// after the call, so the resource keeps a copy of its own.
func unmarshalResource(data []byte, res resource) error {
	res.reset()
	d := newDecoder(bytes.Clone(jsonx.Trim(data)))
	d.decodeObject(res)
	if !d.r.Done() {
		res.reset()
		return errMalformed
	}
	return nil
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
