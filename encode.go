package seoapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"
)

// requestBody is implemented by the SDK's request types, which write their
// JSON straight into one buffer.
type requestBody interface {
	appendJSON(dst []byte) ([]byte, error)
}

// encodeBody encodes a request body: an SDK request type by writing it
// directly (json.Marshal would call its MarshalJSON and then validate and
// copy the result), anything else with encoding/json.
func encodeBody(body any) ([]byte, error) {
	if rb, ok := body.(requestBody); ok {
		return rb.appendJSON(nil)
	}
	return json.Marshal(body)
}

// marshalRequest appends a request type's JSON object to dst: each typed
// field that is set, then the Extra members (sorted by name, as
// encoding/json orders a map) that no set typed field names, so a set
// typed field wins over an Extra member of the same name and an unset one
// leaves the Extra member in place. Without Extra it costs one allocation.
func marshalRequest(dst []byte, extra map[string]any, fields ...requestField) ([]byte, error) {
	if dst == nil {
		size := 2
		for _, f := range fields {
			size += len(f.key) + len(f.value) + 6
		}
		dst = make([]byte, 0, size)
	}
	dst = append(dst, '{')
	n := 0
	for _, f := range fields {
		if f.set {
			dst = appendMember(dst, n, f.key)
			dst = appendJSONString(dst, f.value)
			n++
		}
	}
	if len(extra) > 0 {
		var err error
		if dst, err = appendExtra(dst, n, extra, fields); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

// appendExtra appends the Extra members that no set typed field names.
func appendExtra(dst []byte, n int, extra map[string]any, fields []requestField) ([]byte, error) {
	keys := slices.Sorted(maps.Keys(extra))
	for _, k := range keys {
		if typedFieldSet(fields, k) {
			continue
		}
		v, err := json.Marshal(extra[k])
		if err != nil {
			return nil, fmt.Errorf("extra field %q: %w", k, err)
		}
		dst = appendMember(dst, n, k)
		dst = append(dst, v...)
		n++
	}
	return dst, nil
}

func typedFieldSet(fields []requestField, key string) bool {
	for _, f := range fields {
		if f.set && f.key == key {
			return true
		}
	}
	return false
}

// appendMember appends the comma before all but the first member, the key
// and the colon.
func appendMember(dst []byte, n int, key string) []byte {
	if n > 0 {
		dst = append(dst, ',')
	}
	dst = appendJSONString(dst, key)
	return append(dst, ':')
}

// appendJSONString appends s as a JSON string escaped as encoding/json
// escapes it: quotes, backslashes and control characters; <, > and & (so
// the body is safe in HTML); U+2028 and U+2029; invalid UTF-8 as U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// requestField is one typed field of a request type.
type requestField struct {
	key   string
	value string
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
