package jsonx

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// maxDepth is the deepest nesting the validating reader accepts, the same
// bound as encoding/json's, so that both agree on what is valid.
const maxDepth = 10000

// Reader walks one JSON text front to back and validates everything it
// passes over, so that a body is checked and decoded in a single pass
// instead of a json.Valid pass followed by a decoding pass.
//
// Each method skips the white space before what it reads. A method that
// meets invalid JSON marks the reader failed; every later call then reports
// nothing, and Failed reports true. A Reader is used by one goroutine.
type Reader struct {
	data   []byte
	pos    int
	depth  int // containers entered and not yet left, for the nesting limit
	failed bool
	key    [maxKey]byte
}

// NewReader returns a reader positioned at the start of data.
func NewReader(data []byte) *Reader { return &Reader{data: data} }

// Reset points r at the start of data.
func (r *Reader) Reset(data []byte) { r.data, r.pos, r.depth, r.failed = data, 0, 0, false }

// Seek moves r to index pos of its data, such as the start of a value
// found by ListSpan or SingleSpan, nested depth containers deep (which
// counts toward the nesting limit).
func (r *Reader) Seek(pos, depth int) {
	r.pos, r.depth = min(max(pos, 0), len(r.data)), depth
}

// Pos returns the index in data of the next byte to read.
func (r *Reader) Pos() int { return r.pos }

// Failed reports whether the reader met invalid JSON.
func (r *Reader) Failed() bool { return r.failed }

// Done reports whether the reader consumed all of data (trailing white
// space aside) without meeting invalid JSON.
func (r *Reader) Done() bool {
	return !r.failed && skipSpace(r.data, r.pos) == len(r.data)
}

func (r *Reader) fail() bool {
	r.failed = true
	return false
}

// Peek returns the next byte after white space, without consuming it, or
// 0 at the end of data or after a failure.
func (r *Reader) Peek() byte {
	if r.failed {
		return 0
	}
	r.pos = skipSpace(r.data, r.pos)
	if r.pos >= len(r.data) {
		return 0
	}
	return r.data[r.pos]
}

// ArrayStart consumes the opening bracket of an array and reports whether
// an element follows; the reader is then at the element's first byte.
func (r *Reader) ArrayStart() bool {
	if r.Peek() != '[' || r.depth >= maxDepth {
		return r.fail()
	}
	r.pos++
	switch r.Peek() {
	case ']':
		r.pos++
		return false
	case 0:
		return r.fail()
	}
	r.depth++
	return true
}

// ArrayNext consumes what follows an element: a comma, reporting true with
// the reader at the next element's first byte, or the closing bracket,
// reporting false.
func (r *Reader) ArrayNext() bool {
	switch r.Peek() {
	case ',':
		r.pos++
		if r.Peek() == 0 {
			return r.fail()
		}
		return true
	case ']':
		r.pos++
		r.depth--
		return false
	}
	return r.fail()
}

// ObjectStart consumes the opening brace of an object and reports whether
// a member follows; read it with Key and Value.
func (r *Reader) ObjectStart() bool {
	if r.Peek() != '{' || r.depth >= maxDepth {
		return r.fail()
	}
	r.pos++
	switch r.Peek() {
	case '}':
		r.pos++
		return false
	case '"':
		r.depth++
		return true
	}
	return r.fail()
}

// ObjectNext consumes what follows a member's value: a comma, reporting
// true when another member follows, or the closing brace, reporting false.
func (r *Reader) ObjectNext() bool {
	switch r.Peek() {
	case ',':
		r.pos++
		if r.Peek() != '"' {
			return r.fail()
		}
		return true
	case '}':
		r.pos++
		r.depth--
		return false
	}
	return r.fail()
}

// Key reads a member's key and the colon after it, and returns the key
// normalised by NormalizeKey (nil for a key too long to name a field). The
// result is valid until the next call to Key.
func (r *Reader) Key() []byte {
	if r.Peek() != '"' {
		r.fail()
		return nil
	}
	end, escaped := scanString(r.data, r.pos)
	if end < 0 {
		r.fail()
		return nil
	}
	raw := r.data[r.pos+1 : end-1]
	if escaped {
		raw = unescapeKey(raw)
	}
	r.pos = end
	if r.Peek() != ':' {
		r.fail()
		return nil
	}
	r.pos++
	return NormalizeKey(&r.key, raw)
}

// Value reads one complete value, validating it, and returns its text. It
// returns nil after a failure.
func (r *Reader) Value() Value {
	if r.Peek() == 0 {
		r.fail()
		return nil
	}
	start := r.pos
	end := scanValueAt(r.data, start, r.depth)
	if end < 0 {
		r.fail()
		return nil
	}
	r.pos = end
	return Value(r.data[start:end])
}

// Null consumes a null literal and reports whether there was one.
func (r *Reader) Null() bool {
	if r.Peek() != 'n' || !bytes.HasPrefix(r.data[r.pos:], []byte("null")) {
		return false
	}
	r.pos += len("null")
	return true
}

// Valid reports whether data is one valid JSON value, surrounded by
// optional white space. It agrees with encoding/json's Valid, nesting
// limit included, and allocates nothing.
func Valid(data []byte) bool {
	i := skipSpace(data, 0)
	if i >= len(data) {
		return false
	}
	end := scanValue(data, i)
	return end >= 0 && skipSpace(data, end) == len(data)
}

// scanValue returns the index just past the valid value starting at
// data[i] (no leading space), or -1 when it is not valid.
func scanValue(data []byte, i int) int { return scanValueAt(data, i, 0) }

// scanValueAt is scanValue for a value nested depth containers deep, which
// counts toward the nesting limit.
func scanValueAt(data []byte, i, depth int) int {
	switch c := data[i]; {
	case c == '"':
		end, _ := scanString(data, i)
		return end
	case c == '-' || ('0' <= c && c <= '9'):
		return scanNumber(data, i)
	case c == 't':
		return scanLiteral(data, i, "true")
	case c == 'f':
		return scanLiteral(data, i, "false")
	case c == 'n':
		return scanLiteral(data, i, "null")
	case c == '{' || c == '[':
		return scanContainer(data, i, depth)
	}
	return -1
}

func scanLiteral(data []byte, i int, lit string) int {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// scanString returns the index just past the string whose opening quote is
// at data[i], or -1 when it is unterminated, holds a control character or
// a malformed escape. escaped reports whether it holds any escape. Like
// encoding/json, it accepts invalid UTF-8 (decoding replaces it).
func scanString(data []byte, i int) (end int, escaped bool) {
	for i++; ; i++ {
		i = nextSpecial(data, i)
		if i >= len(data) {
			return -1, escaped
		}
		switch data[i] {
		case '"':
			return i + 1, escaped
		case '\\':
			escaped = true
			i++
			if i >= len(data) {
				return -1, escaped
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(data)-i <= 4 || !isHex(data[i+1]) || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) {
					return -1, escaped
				}
				i += 4
			default:
				return -1, escaped
			}
		default:
			return -1, escaped // a control character
		}
	}
}

// Word-at-a-time byte tests (SWAR): a string's content is scanned eight
// bytes per step, since strings are most of a body's bytes.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// specialBytes marks, in the high bit of each byte, the bytes of w that are
// '"', '\\' or below 0x20. Only the lowest mark is exact (a borrow can mark
// bytes above it), which is all the callers use.
func specialBytes(w uint64) uint64 {
	quote := w ^ (lowBits * '"')
	backslash := w ^ (lowBits * '\\')
	return ((w-lowBits*0x20) & ^w | (quote-lowBits) & ^quote | (backslash-lowBits) & ^backslash) & highBits
}

// nextSpecial returns the index of the first byte at or after i that is
// '"', '\\' or a control character, or len(data).
func nextSpecial(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		if m := specialBytes(binary.LittleEndian.Uint64(data[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(data); i++ {
		if c := data[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanNumber returns the index just past the JSON number at data[i], or -1
// when it does not follow the JSON grammar (no leading zeros, no bare dot).
func scanNumber(data []byte, i int) int {
	if data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return -1
	case data[i] == '0':
		i++
	case '1' <= data[i] && data[i] <= '9':
		i = scanDigits(data, i+1)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		j := scanDigits(data, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := scanDigits(data, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func scanDigits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}

// nesting is a stack of container kinds, one bit each (1 for an object),
// kept in a fixed array so that validating deep input costs no heap and no
// recursion.
type nesting struct {
	bits  [maxDepth/64 + 1]uint64
	depth int
	outer int // containers around the value being scanned
}

func (n *nesting) push(object bool) bool {
	if n.outer+n.depth >= maxDepth {
		return false
	}
	word, bit := n.depth/64, uint(n.depth%64)
	if object {
		n.bits[word] |= 1 << bit
	} else {
		n.bits[word] &^= 1 << bit
	}
	n.depth++
	return true
}

func (n *nesting) inObject() bool {
	d := n.depth - 1
	return n.bits[d/64]&(1<<uint(d%64)) != 0
}

// scanContainer validates the object or array at data[i], nested outer
// containers deep, without recursion, and returns the index just past it,
// or -1.
func scanContainer(data []byte, i, outer int) int {
	stack := nesting{outer: outer}
	for {
		// i is at the start of a value.
		switch data[i] {
		case '{', '[':
			object := data[i] == '{'
			if !stack.push(object) {
				return -1
			}
			i = skipSpace(data, i+1)
			if i >= len(data) {
				return -1
			}
			if (object && data[i] == '}') || (!object && data[i] == ']') {
				stack.depth--
				i++
				break
			}
			if object {
				if i = scanMemberKey(data, i); i < 0 {
					return -1
				}
			}
			continue
		default:
			if i = scanValueScalar(data, i); i < 0 {
				return -1
			}
		}
		// A value ended at i: close containers or move to the next value.
		for {
			if stack.depth == 0 {
				return i
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return -1
			}
			c := data[i]
			if c == ',' {
				i = skipSpace(data, i+1)
				if i >= len(data) {
					return -1
				}
				if stack.inObject() {
					if i = scanMemberKey(data, i); i < 0 {
						return -1
					}
				}
				break
			}
			if (c == '}' && stack.inObject()) || (c == ']' && !stack.inObject()) {
				stack.depth--
				i++
				continue
			}
			return -1
		}
	}
}

// scanMemberKey reads `"key" :` at data[i] and returns the index of the
// value after it, or -1.
func scanMemberKey(data []byte, i int) int {
	if data[i] != '"' {
		return -1
	}
	end, _ := scanString(data, i)
	if end < 0 {
		return -1
	}
	i = skipSpace(data, end)
	if i >= len(data) || data[i] != ':' {
		return -1
	}
	i = skipSpace(data, i+1)
	if i >= len(data) {
		return -1
	}
	return i
}

// scanValueScalar validates a value that is not a container.
func scanValueScalar(data []byte, i int) int {
	if c := data[i]; c == '{' || c == '[' {
		return -1
	}
	return scanValue(data, i)
}
