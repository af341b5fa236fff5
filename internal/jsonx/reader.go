// Package jsonx reads JSON whose shape is only partly known.
//
// The API publishes no response schemas, so the SDK walks a body with a
// Reader: it finds the list or object it wants inside whatever envelope
// the server chose, and reads each typed field from whichever spelling and
// JSON type the server used. The Reader validates everything it passes
// over exactly as encoding/json's Valid does, so a body is checked and
// decoded in a single pass.
package jsonx

import (
	"encoding/binary"
	"math/bits"
)

// maxDepth is the deepest nesting the Reader accepts, encoding/json's
// bound, so that both agree on what is valid.
const maxDepth = 10000

// Reader walks one JSON text front to back, validating what it passes.
// Each method skips the white space before what it reads. A method that
// meets invalid JSON marks the reader failed; every later call then
// reports nothing, and Failed reports true.
type Reader struct {
	data   []byte
	pos    int
	depth  int // containers entered and not yet left
	failed bool
	key    [maxKey]byte
}

// Reset points r at the start of data.
func (r *Reader) Reset(data []byte) { r.data, r.pos, r.depth, r.failed = data, 0, 0, false }

// Seek moves r to index pos of its data, such as the start of a value
// that an earlier pass validated.
func (r *Reader) Seek(pos int) { r.pos, r.failed = min(max(pos, 0), len(r.data)), false }

// Pos returns the index in data of the next byte to read.
func (r *Reader) Pos() int { return r.pos }

// Failed reports whether the reader met invalid JSON.
func (r *Reader) Failed() bool { return r.failed }

// Done reports whether the reader consumed all of data (trailing white
// space aside) without meeting invalid JSON.
func (r *Reader) Done() bool { return !r.failed && skipSpace(r.data, r.pos) == len(r.data) }

func (r *Reader) fail() bool {
	r.failed = true
	return false
}

// Peek returns the next byte after white space without consuming it, or
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
// an element follows.
func (r *Reader) ArrayStart() bool { return r.open('[', ']') }

// ObjectStart consumes the opening brace of an object and reports whether
// a member follows; read it with Key and then a value.
func (r *Reader) ObjectStart() bool { return r.open('{', '}') && (r.Peek() == '"' || r.fail()) }

func (r *Reader) open(c, end byte) bool {
	if r.Peek() != c || r.depth >= maxDepth {
		return r.fail()
	}
	r.pos++
	switch r.Peek() {
	case end:
		r.pos++
		return false
	case 0:
		return r.fail()
	}
	r.depth++
	return true
}

// ArrayNext consumes what follows an element: a comma, reporting true, or
// the closing bracket, reporting false.
func (r *Reader) ArrayNext() bool { return r.next(']') && (r.Peek() != 0 || r.fail()) }

// ObjectNext consumes what follows a member's value: a comma, reporting
// true when another member follows, or the closing brace, reporting false.
func (r *Reader) ObjectNext() bool { return r.next('}') && (r.Peek() == '"' || r.fail()) }

func (r *Reader) next(end byte) bool {
	switch r.Peek() {
	case ',':
		r.pos++
		return true
	case end:
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
	start := r.pos
	end, escaped := scanString(r.data, start)
	if end < 0 || skipSpace(r.data, end) >= len(r.data) || r.data[skipSpace(r.data, end)] != ':' {
		r.fail()
		return nil
	}
	r.pos = skipSpace(r.data, end) + 1
	raw := r.data[start+1 : end-1]
	if escaped {
		raw, _ = appendUnquoted(nil, raw) // scanString validated it
	}
	return NormalizeKey(&r.key, raw)
}

// skipKey reads a member's key and the colon after it, keeping the
// buffer of Key's result.
func (r *Reader) skipKey() {
	end, _ := scanString(r.data, r.pos)
	if end < 0 || skipSpace(r.data, end) >= len(r.data) || r.data[skipSpace(r.data, end)] != ':' {
		r.fail()
		return
	}
	r.pos = skipSpace(r.data, end) + 1
}

// Value reads one complete value, validating it, and returns its text, or
// nil after a failure.
func (r *Reader) Value() Value {
	start := r.Peek()
	if start == 0 {
		r.fail()
		return nil
	}
	from := r.pos
	switch start {
	case '{':
		for more := r.ObjectStart(); more; more = r.ObjectNext() {
			r.skipKey()
			r.Value()
		}
	case '[':
		for more := r.ArrayStart(); more; more = r.ArrayNext() {
			r.Value()
		}
	case '"':
		r.pos, _ = scanString(r.data, r.pos)
	case 't':
		r.pos = scanLiteral(r.data, r.pos, "true")
	case 'f':
		r.pos = scanLiteral(r.data, r.pos, "false")
	case 'n':
		r.pos = scanLiteral(r.data, r.pos, "null")
	default:
		r.pos = scanNumber(r.data, r.pos)
	}
	if r.pos < 0 {
		r.pos = from
		r.fail()
	}
	if r.failed {
		return nil
	}
	return Value(r.data[from:r.pos])
}

// Null consumes a null literal and reports whether there was one.
func (r *Reader) Null() bool {
	if r.Peek() != 'n' || scanLiteral(r.data, r.pos, "null") < 0 {
		return false
	}
	r.pos += len("null")
	return true
}

// Valid reports whether data is one valid JSON value surrounded by
// optional white space, as encoding/json's Valid does.
func Valid(data []byte) bool {
	var r Reader
	r.Reset(data)
	r.Value()
	return r.Done()
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// Trim returns data without leading and trailing JSON white space.
func Trim(data []byte) Value {
	start := skipSpace(data, 0)
	end := len(data)
	for end > start && skipSpace(data[:end], end-1) == end {
		end--
	}
	return Value(data[start:end])
}

func scanLiteral(data []byte, i int, lit string) int {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// scanString returns the index just past the string whose opening quote is
// at data[i], or -1 when it is unterminated, holds a control character or
// a malformed escape; escaped reports whether it holds an escape. Like
// encoding/json, it accepts invalid UTF-8, which decoding replaces.
func scanString(data []byte, i int) (end int, escaped bool) {
	for i++; ; i++ {
		i = nextSpecial(data, i)
		if i >= len(data) || data[i] < 0x20 {
			return -1, escaped
		}
		if data[i] == '"' {
			return i + 1, escaped
		}
		escaped = true
		if i++; i >= len(data) {
			return -1, escaped
		}
		switch data[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if hex4(data, i+1) < 0 {
				return -1, escaped
			}
			i += 4
		default:
			return -1, escaped
		}
	}
}

// Word-at-a-time byte tests: a string's content, most of a body's bytes,
// is scanned eight bytes per step.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// nextSpecial returns the index of the first byte at or after i that is
// '"', '\\' or a control character, or len(data). The first loop marks
// those bytes of a word in their high bits; only the lowest mark is exact
// (a borrow can mark bytes above it), which is all it uses.
func nextSpecial(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		quote, backslash := w^(lowBits*'"'), w^(lowBits*'\\')
		if m := ((w-lowBits*0x20) & ^w | (quote-lowBits) & ^quote | (backslash-lowBits) & ^backslash) & highBits; m != 0 {
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

// scanNumber returns the index just past the JSON number at data[i], or -1
// when it does not follow the JSON grammar.
func scanNumber(data []byte, i int) int {
	if data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return -1
	case data[i] == '0':
		i++
	default:
		if i = scanDigits(data, i); i < 0 {
			return -1
		}
	}
	if i < len(data) && data[i] == '.' {
		if i = scanDigits(data, i+1); i < 0 {
			return -1
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		return scanDigits(data, i)
	}
	return i
}

// scanDigits returns the index past one or more digits at data[i], or -1.
func scanDigits(data []byte, i int) int {
	start := i
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
