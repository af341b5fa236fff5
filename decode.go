package seoapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
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
}

var resourceType = reflect.TypeFor[resource]()

var errMalformed = errors.New("malformed JSON")

// decodeBody decodes a 2xx body into v. An empty or null body leaves v as
// it is. A resource (or a pointer to one, as in `var p *Project; Do(req,
// &p)`) is unwrapped from a data or singular-name envelope; a slice from a
// bare array or a list envelope, whose paging fields are recorded in resp;
// anything else is decoded by encoding/json.
func decodeBody(body []byte, v any, resp *Response) error {
	data := jsonx.Trim(body)
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	if !json.Valid(data) {
		return errMalformed
	}
	if r, ok := v.(resource); ok {
		return decodeResource(data, r)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
		switch target := rv.Elem(); {
		case target.Kind() == reflect.Pointer && target.Type().Implements(resourceType):
			target.Set(reflect.New(target.Type().Elem()))
			return decodeResource(data, target.Interface().(resource))
		case target.Kind() == reflect.Slice:
			return decodeList(data, target, resp)
		}
	}
	return json.Unmarshal(data, v)
}

func decodeResource(data jsonx.Value, r resource) error {
	singular, _ := r.jsonNames()
	return r.UnmarshalJSON(jsonx.Single(data, singular))
}

// decodeList finds the list in data and fills dst, a slice: of resources by
// the SDK's own decoder, of anything else by encoding/json.
func decodeList(data jsonx.Value, dst reflect.Value, resp *Response) error {
	var plural string
	elem := dst.Type().Elem()
	isResource := elem.Kind() == reflect.Pointer && elem.Implements(resourceType)
	if isResource {
		_, plural = reflect.New(elem.Elem()).Interface().(resource).jsonNames()
	}
	list, ok := jsonx.List(data, plural)
	if !ok {
		return errors.New("no list found in the response")
	}
	if data.IsObject() {
		resp.readEnvelope(data)
	}
	if !isResource {
		return json.Unmarshal(list, dst.Addr().Interface())
	}
	return decodeResources(list, dst)
}

// decodeResources fills the slice dst (of pointers to a resource type) from
// the array list, skipping null elements.
func decodeResources(list jsonx.Value, dst reflect.Value) error {
	n := 0
	jsonx.EachElement(list, func(e jsonx.Value) bool {
		if !e.IsNull() {
			n++
		}
		return true
	})
	out := reflect.MakeSlice(dst.Type(), n, n)
	elem := dst.Type().Elem().Elem()
	i := 0
	var err error
	jsonx.EachElement(list, func(e jsonx.Value) bool {
		if e.IsNull() {
			return true
		}
		item := reflect.New(elem)
		err = item.Interface().(resource).UnmarshalJSON(e)
		out.Index(i).Set(item)
		i++
		return err == nil
	})
	dst.Set(out)
	return err
}

// decodeFields keeps a copy of the object data as the resource's raw JSON
// and hands each member to set. A member whose JSON type set does not
// expect is skipped, leaving its field zero: a guess about the schema never
// fails a call.
func decodeFields(data []byte, raw *json.RawMessage, set func(key []byte, v jsonx.Value)) error {
	v := jsonx.Trim(data)
	*raw = bytes.Clone(v)
	jsonx.EachField(v, func(key []byte, val jsonx.Value) bool {
		set(key, val)
		return true
	})
	return nil
}

// setID reads an ID from a JSON string or number, keeping a number's exact
// text.
func setID(dst *string, v jsonx.Value) {
	if s, ok := v.Text(); ok {
		*dst = s
	}
}

func setString(dst *string, v jsonx.Value) {
	if s, ok := v.String(); ok {
		*dst = s
	}
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

// resourcePtr constrains a type parameter to a pointer to a resource type.
type resourcePtr[T any] interface {
	*T
	resource
}

// getOne sends one request whose response is a single resource. An empty
// 2xx body gives a nil resource.
func getOne[T any, PT resourcePtr[T]](ctx context.Context, c *Client, method, path string, body any) (*T, *Response, error) {
	req, err := c.NewRequest(ctx, method, path, body)
	if err != nil {
		return nil, nil, err
	}
	out := PT(new(T))
	resp, err := c.Do(req, out)
	if err != nil || out.Raw() == nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// getList sends one GET for a page of a list.
func getList[T any](ctx context.Context, c *Client, path string, opts *ListOptions) ([]*T, *Response, error) {
	req, err := newListRequest(ctx, c, path, opts)
	if err != nil {
		return nil, nil, err
	}
	return fetchList[T](c, req)
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
func fetchList[T any](c *Client, req *http.Request) ([]*T, *Response, error) {
	var list []*T
	resp, err := c.Do(req, &list)
	if err != nil {
		return nil, resp, err
	}
	return list, resp, nil
}

// marshalRequest encodes a request type: the Extra members first, then each
// typed field that is set, so a set typed field wins over an Extra member
// of the same name and an unset one leaves the Extra member in place.
func marshalRequest(extra map[string]any, fields ...requestField) ([]byte, error) {
	m := make(map[string]any, len(extra)+len(fields))
	for k, v := range extra {
		m[k] = v
	}
	for _, f := range fields {
		if f.set {
			m[f.key] = f.value
		}
	}
	return json.Marshal(m)
}

type requestField struct {
	key   string
	value any
	set   bool
}

func stringField(key, value string) requestField {
	return requestField{key: key, value: value, set: value != ""}
}

func optionalField(key string, value *string) requestField {
	if value == nil {
		return requestField{key: key}
	}
	return requestField{key: key, value: *value, set: true}
}
