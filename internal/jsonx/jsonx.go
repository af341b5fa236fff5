// Package jsonx reads JSON whose shape is only partly known.
//
// The API publishes no response schemas, so the SDK reads bodies by
// walking them: it finds the list or object it wants inside whatever
// envelope the server chose, and reads each typed field from whichever
// spelling and JSON type the server used, leaving a field zero rather than
// failing when the type is not the expected one.
//
// Reader walks a body once, validating everything it passes over exactly
// as encoding/json's Valid would (Valid is the same check on its own), so
// the SDK decodes and validates in a single pass. EachField, EachElement
// and Fields do not validate; they read bodies that were already checked,
// or that are read best-effort (error bodies).
//
// Nothing here recurses or allocates in proportion to nesting, and every
// index is checked, so no input can make it panic or hang.
package jsonx

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Value is the raw text of one JSON value, without surrounding white space.
type Value []byte

// Kind reports the first byte of the value: '{', '[', '"', 't', 'f', 'n',
// a digit or '-' for numbers, or 0 for an empty value.
func (v Value) Kind() byte {
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

// IsObject reports whether v is a JSON object.
func (v Value) IsObject() bool { return v.Kind() == '{' }

// IsArray reports whether v is a JSON array.
func (v Value) IsArray() bool { return v.Kind() == '[' }

// IsNull reports whether v is the JSON literal null or empty.
func (v Value) IsNull() bool { return len(v) == 0 || string(v) == "null" }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// Trim returns data without leading and trailing JSON white space.
func Trim(data []byte) Value {
	start := skipSpace(data, 0)
	end := len(data)
	for end > start && isSpace(data[end-1]) {
		end--
	}
	return Value(data[start:end])
}

// skipString returns the index just past the closing quote of the string
// whose opening quote is at data[i], or -1 when it is unterminated.
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the index just past the value starting at data[i], or
// -1 when the value is cut short. Containers are skipped by counting
// brackets, so deep nesting costs no stack.
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				end := skipString(data, i)
				if end < 0 {
					return -1
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	default:
		start := i
		for i < len(data) && !isSpace(data[i]) && data[i] != ',' && data[i] != '}' && data[i] != ']' && data[i] != ':' {
			i++
		}
		if i == start {
			return -1
		}
		return i
	}
}

// maxKey is the longest key that is normalised for matching; longer keys
// never name a typed field.
const maxKey = 64

// NormalizeKey writes key into buf lower-cased, without '_' and '-', so that
// "createdAt", "created_at" and "CreatedAt" all read "createdat". It returns
// nil when the key is too long to name any known field.
func NormalizeKey(buf *[maxKey]byte, key []byte) []byte {
	n := 0
	for _, c := range key {
		switch {
		case c == '_' || c == '-':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if n == len(buf) {
			return nil
		}
		buf[n] = c
		n++
	}
	return buf[:n]
}

var keyBuffers = sync.Pool{New: func() any { return new([maxKey]byte) }}

// EachField calls fn for each member of the object v with its key
// normalised by NormalizeKey and its value. It stops early when fn returns
// false. It reports false when v is not a well-formed object.
func EachField(v Value, fn func(key []byte, val Value) bool) bool {
	data := []byte(v)
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	// The key buffer escapes to fn, so it comes from a pool rather than
	// costing an allocation per object.
	buf := keyBuffers.Get().(*[maxKey]byte)
	defer keyBuffers.Put(buf)
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return true
	}
	for i < len(data) {
		if data[i] != '"' {
			return false
		}
		keyEnd := skipString(data, i)
		if keyEnd < 0 {
			return false
		}
		rawKey := data[i+1 : keyEnd-1]
		i = skipSpace(data, keyEnd)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipSpace(data, i+1)
		valEnd := skipValue(data, i)
		if valEnd < 0 {
			return false
		}
		if !fn(NormalizeKey(buf, unescapeKey(rawKey)), Value(data[i:valEnd])) {
			return true
		}
		i = skipSpace(data, valEnd)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return true
		default:
			return false
		}
	}
	return false
}

// unescapeKey decodes a key that holds escapes; plain keys are returned as
// they are, without allocating.
func unescapeKey(raw []byte) []byte {
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw
	}
	key, ok := appendUnquoted(make([]byte, 0, len(raw)), raw)
	if !ok {
		return raw
	}
	return key
}

// EachElement calls fn for each element of the array v. It stops early
// when fn returns false, and reports false when v is not a well-formed
// array.
func EachElement(v Value, fn func(elem Value) bool) bool {
	data := []byte(v)
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return true
	}
	for i < len(data) {
		end := skipValue(data, i)
		if end < 0 {
			return false
		}
		if !fn(Value(data[i:end])) {
			return true
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return true
		default:
			return false
		}
	}
	return false
}

// CountElements returns how many elements the array v holds, counting no
// further than limit+1, so that a caller can tell a list over limit from
// one within it in time proportional to the first limit+1 elements. It
// does not validate: check v first (ValidList). It returns 0 when v is not
// an array.
func CountElements(v Value, limit int) int {
	n := 0
	EachElement(v, func(Value) bool {
		n++
		return n <= limit
	})
	return n
}

// Object is the members of a JSON object by normalised key (see
// NormalizeKey); where two keys normalise alike, the first wins.
type Object map[string]Value

// MaxFields is how many distinct keys Fields indexes: an object with more
// (no envelope or error body the SDK reads has nearly as many) costs no
// more memory than that many.
const MaxFields = 256

// Fields indexes the members of object v in one pass, up to MaxFields
// distinct keys; members after those are not indexed. It returns an empty
// Object when v is not an object.
func Fields(v Value) Object {
	o := Object{}
	EachField(v, func(key []byte, val Value) bool {
		if _, dup := o[string(key)]; !dup {
			o[string(key)] = val
		}
		return len(o) < MaxFields
	})
	return o
}

// Get returns the value of the first of names (normalised) that is present.
func (o Object) Get(names ...string) (Value, bool) {
	for _, name := range names {
		if v, ok := o[name]; ok {
			return v, true
		}
	}
	return nil, false
}

// String returns v as a Go string when it is a JSON string, decoded as
// encoding/json decodes it (invalid UTF-8 and lone surrogates become
// U+FFFD), in one allocation of the string's length.
func (v Value) String() (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	switch plainText(inner) {
	case plainASCII:
		return string(inner), true
	case plainUTF8:
		if utf8.Valid(inner) {
			return string(inner), true
		}
	}
	n, ok := unquotedLen(inner)
	if !ok {
		return "", false
	}
	var b strings.Builder
	b.Grow(n)
	unquote(inner, func(p []byte) { b.Write(p) }, func(r rune) { b.WriteRune(r) })
	return b.String(), true
}

// StringLen returns the length of the string String returns, without
// allocating, and whether v is a JSON string. Escapes make a string
// shorter than its JSON text; only invalid UTF-8 makes it longer, by two
// bytes for each invalid byte.
func (v Value) StringLen() (int, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return 0, false
	}
	inner := v[1 : len(v)-1]
	switch plainText(inner) {
	case plainASCII:
		return len(inner), true
	case plainUTF8:
		if utf8.Valid(inner) {
			return len(inner), true
		}
	}
	return unquotedLen(inner)
}

// What plainText found in a string's content.
const (
	plainASCII    = iota // printable ASCII, no escapes: the text as it is
	plainUTF8            // no escapes or controls, but bytes >= 0x80
	needsDecoding        // escapes or control characters
)

// plainText classifies the content of a JSON string in one pass, eight
// bytes at a time, so that the common case converts to a Go string without
// decoding.
func plainText(b []byte) int {
	var high uint64
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if specialBytes(w) != 0 {
			return needsDecoding
		}
		high |= w & highBits
	}
	for ; i < len(b); i++ {
		c := b[i]
		if c < 0x20 || c == '"' || c == '\\' {
			return needsDecoding
		}
		high |= uint64(c & 0x80)
	}
	if high != 0 {
		return plainUTF8
	}
	return plainASCII
}

// AppendString appends the content of v, a JSON string, decoded, to dst.
// It reports false, leaving dst as it was, when v is not a JSON string.
func (v Value) AppendString(dst []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return dst, false
	}
	inner := v[1 : len(v)-1]
	switch plainText(inner) {
	case plainASCII:
		return append(dst, inner...), true
	case plainUTF8:
		if utf8.Valid(inner) {
			return append(dst, inner...), true
		}
	}
	return appendUnquoted(dst, inner)
}

// AppendText appends what Text returns to dst, reporting false, leaving
// dst as it was, when v is neither a string nor a number.
func (v Value) AppendText(dst []byte) ([]byte, bool) {
	if v.Kind() == '"' {
		return v.AppendString(dst)
	}
	if v.isNumber() {
		return append(dst, v...), true
	}
	return dst, false
}

// Text returns v as a string when it is a JSON string, and the exact text
// of v when it is a JSON number, so that numeric IDs never pass through a
// float (12345678901234567 stays exact).
func (v Value) Text() (string, bool) {
	if v.Kind() == '"' {
		return v.String()
	}
	if v.isNumber() {
		return string(v), true
	}
	return "", false
}

func (v Value) isNumber() bool {
	if len(v) == 0 || !(v[0] == '-' || ('0' <= v[0] && v[0] <= '9')) {
		return false
	}
	for _, c := range v {
		if !('0' <= c && c <= '9') && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
			return false
		}
	}
	return true
}

// Int returns v as an int when it is a JSON number holding a whole number
// that fits, or a JSON string holding one.
func (v Value) Int() (int, bool) {
	text, ok := v.Text()
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(text)
	if err != nil {
		return 0, false
	}
	return n, true
}

// Bool returns v as a bool when it is true or false.
func (v Value) Bool() (bool, bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}
