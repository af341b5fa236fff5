package jsonx

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
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

// maxKey is the longest normalised key; longer keys name no field.
const maxKey = 64

// NormalizeKey writes key into buf lower-cased (ASCII), without '_' and
// '-': "createdAt", "created_at" and "CreatedAt" read "createdat". It
// returns nil for a key longer than buf.
func NormalizeKey(buf *[maxKey]byte, key []byte) []byte {
	n := 0
	for _, c := range key {
		if keyBytes[c] == 0 {
			continue
		}
		if n == len(buf) {
			return nil
		}
		buf[n] = keyBytes[c]
		n++
	}
	return buf[:n]
}

// keyBytes is each byte as a normalised key holds it, 0 for left out ('_',
// '-' and NUL).
var keyBytes = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] += 'a' - 'A'
	}
	t['_'], t['-'] = 0, 0
	return t
}()

// Member returns the value of the first of names (normalised) that the
// object v holds, of duplicates the first, reading v as far as it is valid.
func Member(v Value, names ...string) (Value, bool) {
	var found Value
	rank := len(names)
	r := Reader{data: v}
	r.Object(func(key []byte) {
		val := r.Value()
		if i := slices.Index(names[:rank], string(key)); i >= 0 && val != nil {
			found, rank = val, i
		}
	})
	return found, found != nil
}

// First returns the first element of the array v.
func First(v Value) (Value, bool) {
	var first Value
	r := Reader{data: v}
	r.Array(func() {
		first = r.Value()
		r.Stop()
	})
	return first, first != nil
}

// String returns v as a Go string when it is a JSON string, decoded as by
// encoding/json (invalid UTF-8 and lone surrogates become U+FFFD).
func (v Value) String() (string, bool) {
	n, ok := v.StringLen()
	if !ok {
		return "", false
	}
	var b strings.Builder
	b.Grow(n)
	unquote(v[1:len(v)-1], func(p []byte) { b.Write(p) }, func(r rune) { b.WriteRune(r) })
	return b.String(), true
}

// StringLen returns the length of what String returns, without
// allocating, and whether v is a JSON string. Only invalid UTF-8 (each
// byte becomes U+FFFD, three bytes) makes it longer than v.
func (v Value) StringLen() (int, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return 0, false
	}
	n := 0
	if !unquote(v[1:len(v)-1], func(b []byte) { n += len(b) }, func(r rune) { n += utf8.RuneLen(r) }) {
		return 0, false
	}
	return n, true
}

// Text returns v as a string when it is a JSON string, and its exact text when
// it is a number: a numeric ID never passes through a float (12345678901234567).
func (v Value) Text() (string, bool) {
	if len(v) > 0 && v[0] != '"' && scanNumber(v, 0) == len(v) {
		return string(v), true
	}
	return v.String()
}

// Int returns v as an int when it is a JSON number holding a whole number
// that fits, or a JSON string holding one.
func (v Value) Int() (int, bool) {
	text, ok := v.Text()
	n, err := strconv.Atoi(text)
	return n, ok && err == nil
}

// unquote decodes a JSON string's content s, handing each rune to
// emitBytes (as written) or emitRune, and reports whether s is valid.
func unquote(s []byte, emitBytes func([]byte), emitRune func(rune)) bool {
	for i := 0; i < len(s); {
		switch r, size := utf8.DecodeRune(s[i:]); {
		case r == '\\':
			n, r := unescape(s, i)
			if n == 0 {
				return false
			}
			emitRune(r)
			i += n
		case r == '"' || r < 0x20:
			return false
		case r == utf8.RuneError && size == 1:
			emitRune(unicode.ReplacementChar)
			i++
		default:
			emitBytes(s[i : i+size])
			i += size
		}
	}
	return true
}

// unescape decodes the escape at s[i], returning its length (0 when it is
// malformed) and its rune; a lone surrogate is U+FFFD.
func unescape(s []byte, i int) (int, rune) {
	if i+1 >= len(s) {
		return 0, 0
	}
	if j := strings.IndexByte(`"\/bfnrt`, s[i+1]); j >= 0 {
		return 2, rune("\"\\/\b\f\n\r\t"[j])
	}
	r := hex4(s, i+2)
	switch {
	case s[i+1] != 'u' || r < 0:
		return 0, 0
	case !utf16.IsSurrogate(r):
		return 6, r
	}
	if i+7 < len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
		if dec := utf16.DecodeRune(r, hex4(s, i+8)); dec != unicode.ReplacementChar {
			return 12, dec
		}
	}
	return 6, unicode.ReplacementChar
}

// hex4 returns the value of the four hex digits at s[i:], or -1.
func hex4(s []byte, i int) rune {
	if i < 0 || len(s)-i < 4 {
		return -1
	}
	r, err := strconv.ParseUint(string(s[i:i+4]), 16, 32)
	if err != nil {
		return -1
	}
	return rune(r)
}
