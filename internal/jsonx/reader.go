// Package jsonx reads JSON whose shape is only partly known: the list or
// object in whatever envelope a server chose, each member whatever its
// key's spelling. A Reader validates what it passes as encoding/json's
// Valid does, so a body is checked and decoded in one pass.
package jsonx

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// maxDepth is encoding/json's nesting limit, so both agree on validity.
const maxDepth = 10000

// Reader walks one JSON text front to back, validating what it passes and
// skipping white space before what it reads. After invalid JSON it is
// failed and reads nothing more. It is a value: holding one never allocates.
type Reader struct {
	data   []byte
	pos    int
	depth  int // containers entered and not yet left
	failed bool
	key    [maxKey]byte
}

// Reset puts r at the start of data.
func (r *Reader) Reset(data []byte) { *r = Reader{data: data} }

// Done reports whether r read one valid JSON value and only white space after.
func (r *Reader) Done() bool { return !r.failed && skipSpace(r.data, r.pos) == len(r.data) }

// Seek moves r to index pos of its data and clears a failure.
func (r *Reader) Seek(pos int) { r.pos, r.failed = min(max(pos, 0), len(r.data)), false }

// Pos returns the index in data of the next byte to read.
func (r *Reader) Pos() int { return r.pos }

// Stop marks r failed, so that every loop over its data ends.
func (r *Reader) Stop() { r.failed = true }

// Peek returns the next byte after white space without consuming it, or
// 0 at the end of data or after a failure.
func (r *Reader) Peek() byte {
	r.pos = skipSpace(r.data, r.pos)
	if r.failed || r.pos >= len(r.data) {
		return 0
	}
	return r.data[r.pos]
}

// Object reads the object at r, calling member with each key normalised
// by NormalizeKey (nil when too long) and r at the value, which member
// must read; the key is valid until the next one. Object returns where
// the object starts and ends in data.
func (r *Reader) Object(member func(key []byte)) (start, end int) {
	start = skipSpace(r.data, r.pos)
	for first := true; r.next('{', '}', first); first = false {
		// A plain key is normalised as it is scanned; one with an escape,
		// a control character or more than maxKey bytes is read again.
		n, i := 0, r.pos+1
		for ; i < len(r.data) && r.data[i] != '"' && r.data[i] != '\\' && r.data[i] >= 0x20 && n < maxKey; i++ {
			if c := keyBytes[r.data[i]]; c != 0 {
				r.key[n] = c
				n++
			}
		}
		if j := skipSpace(r.data, i+1); i < len(r.data) && r.data[i] == '"' && j < len(r.data) && r.data[j] == ':' {
			r.pos = j + 1
			member(r.key[:n])
		} else {
			member(r.readOtherKey())
		}
	}
	return start, r.pos
}

// Array reads the array at r, calling element with r at each element,
// which element must read. It returns where the array starts and ends.
func (r *Reader) Array(element func()) (start, end int) {
	start = skipSpace(r.data, r.pos)
	for first := true; r.next('[', ']', first); first = false {
		element()
	}
	return start, r.pos
}

// next moves r past open when first, else past the comma after an
// element, and reports whether an element (or an object's key) follows;
// if none does, it consumes end.
func (r *Reader) next(open, end byte, first bool) bool {
	i := skipSpace(r.data, r.pos)
	if r.failed {
		return false
	}
	if first {
		if i >= len(r.data) || r.data[i] != open || r.depth >= maxDepth {
			return r.fail()
		}
		r.depth++
		i = skipSpace(r.data, i+1)
	}
	if i < len(r.data) && r.data[i] == end {
		r.pos, r.depth = i+1, r.depth-1
		return false
	}
	if !first {
		if i >= len(r.data) || r.data[i] != ',' {
			return r.fail()
		}
		i = skipSpace(r.data, i+1)
	}
	if i >= len(r.data) || end == '}' && r.data[i] != '"' {
		return r.fail()
	}
	r.pos = i
	return true
}

func (r *Reader) fail() bool {
	r.failed = true
	return false
}

// readOtherKey reads a key that is not plain and the colon after it, and
// returns the key normalised.
func (r *Reader) readOtherKey() []byte {
	start := r.pos
	end, escaped := scanString(r.data, start)
	if !r.colon(end) {
		return nil
	}
	raw := r.data[start+1 : end-1]
	if escaped {
		s, _ := Value(r.data[start:end]).String() // scanString validated it
		raw = []byte(s)
	}
	return NormalizeKey(&r.key, raw)
}

// colon consumes the colon after a key ending before data[i] (i < 0: no
// key), and fails r when there is none.
func (r *Reader) colon(i int) bool {
	if i < 0 {
		return r.fail()
	}
	if i = skipSpace(r.data, i); i >= len(r.data) || r.data[i] != ':' {
		return r.fail()
	}
	r.pos = i + 1
	return true
}

// Value reads and validates one value and returns its text, or nil on failure.
func (r *Reader) Value() Value {
	from := skipSpace(r.data, r.pos)
	if r.failed || from >= len(r.data) {
		r.failed = true
		return nil
	}
	r.pos = from
	switch r.data[from] {
	case '{':
		for first := true; r.next('{', '}', first); first = false {
			if end, _ := scanString(r.data, r.pos); r.colon(end) {
				r.Value()
			}
		}
	case '[':
		for first := true; r.next('[', ']', first); first = false {
			r.Value()
		}
	case '"':
		r.pos, _ = scanString(r.data, from)
	case 't', 'f', 'n':
		r.pos = scanLiteral(r.data, from)
	default:
		r.pos = scanNumber(r.data, from)
	}
	if r.pos < 0 || r.failed {
		r.pos, r.failed = from, true
		return nil
	}
	return Value(r.data[from:r.pos])
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// scanLiteral returns the index past the true, false or null at data[i], or -1.
func scanLiteral(data []byte, i int) int {
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(data[i:], []byte(lit)) {
			return i + len(lit)
		}
	}
	return -1
}

// Masks for testing eight bytes at a time.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// scanString returns the index just past the string opening at data[i],
// or -1 when it is unterminated or holds a control character or a bad
// escape; escaped reports an escape. Like encoding/json it accepts invalid
// UTF-8. The word test marks '"', '\\' and control bytes in their high
// bits, the lowest mark exactly (a borrow may mark bytes above it).
func scanString(data []byte, i int) (end int, escaped bool) {
	for i++; ; {
		for ; i+8 <= len(data); i += 8 {
			w := binary.LittleEndian.Uint64(data[i:])
			quote, backslash := w^(lowBits*'"'), w^(lowBits*'\\')
			if m := ((w-lowBits*0x20) & ^w | (quote-lowBits) & ^quote | (backslash-lowBits) & ^backslash) & highBits; m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
		}
		for i < len(data) && data[i] >= 0x20 && data[i] != '"' && data[i] != '\\' {
			i++
		}
		switch {
		case i >= len(data) || data[i] < 0x20:
			return -1, escaped
		case data[i] == '"':
			return i + 1, escaped
		}
		n, _ := unescape(data, i)
		if n == 0 {
			return -1, true
		}
		i, escaped = i+n, true
	}
}

// scanNumber returns the index past the valid JSON number at data[i], or -1.
func scanNumber(data []byte, i int) int {
	if data[i] == '-' {
		i++
	}
	if i < len(data) && data[i] == '0' {
		i++
	} else {
		i = scanDigits(data, i)
	}
	if i > 0 && i < len(data) && data[i] == '.' {
		i = scanDigits(data, i+1)
	}
	if i > 0 && i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		i = scanDigits(data, i)
	}
	return i
}

// scanDigits returns the index past one or more digits at data[i], or -1.
func scanDigits(data []byte, i int) int {
	start := i
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}
