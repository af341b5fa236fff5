package jsonx

import (
	"bytes"
	"time"
)

// A numeric time with this many integer digits or more (10^11 and above)
// is taken as Unix milliseconds: as seconds 10^11 is the year 5138, as
// milliseconds March 1973, so no plausible timestamp in either unit falls
// on the wrong side. From maxTimeDigits on (10^16) it is no time at all.
// A time string longer than maxTimeText is no RFC 3339 time (the longest
// with nanoseconds is 35 bytes) and is refused before any parsing, whose
// errors copy the text.
const (
	millisDigits  = 12
	maxTimeDigits = 16
	maxTimeText   = 64
)

// Time reads v as a time: an RFC 3339 string with or without fractional
// seconds, or a number of Unix seconds or milliseconds, read exactly in
// decimal (1700000000123 is 2023-11-14T22:13:20.123Z, not a float's
// .122999907), rounded to the nanosecond, half away from zero.
func (v Value) Time() (time.Time, bool) {
	if len(v) > 0 && v[0] == '"' {
		if len(v) > maxTimeText {
			return time.Time{}, false
		}
		// The common case, an RFC 3339 string without escapes, parses
		// straight from the bytes without allocating.
		var t time.Time
		if bytes.IndexByte(v, '\\') < 0 && t.UnmarshalJSON(v) == nil {
			return t, true
		}
		s, ok := v.String()
		t, err := time.Parse(time.RFC3339Nano, s)
		return t, ok && err == nil
	}
	if len(v) == 0 || scanNumber(v, 0) != len(v) {
		return time.Time{}, false
	}
	return numericTime(v)
}

// decimal is a number as its first significant digits and the place of
// the decimal point among them: digits "17", point 3 is 170; point -1 is
// 0.017. Only the digits up to the tenth fractional one can change a
// time, and from at most 16 integer digits that is within the array.
type decimal struct {
	digits [32]byte
	n      int // significant digits seen, held or not
	point  int
}

// numericTime reads a JSON number that scanNumber accepted as Unix
// seconds or milliseconds. It reads v in place, allocating nothing, and
// shifts its decimal digits by the exponent, so nothing passes through a
// float.
func numericTime(v []byte) (time.Time, bool) {
	neg := v[0] == '-'
	d := readDecimal(bytes.TrimPrefix(v, []byte("-")))
	switch {
	case d.n == 0 || d.point < -9:
		return time.Unix(0, 0).UTC(), true // rounds to zero
	case d.point > maxTimeDigits:
		return time.Time{}, false
	case d.point >= millisDigits:
		d.point -= 3
	}
	var sec, nsec int64
	for k := 0; k < d.point; k++ {
		sec = sec*10 + d.digit(k)
	}
	// The nine digits of the nanoseconds and the one that rounds them.
	for k := d.point; k < d.point+9; k++ {
		nsec = nsec*10 + d.digit(k)
	}
	if d.digit(d.point+9) >= 5 {
		nsec++ // time.Unix carries a full second
	}
	if neg {
		sec, nsec = -sec, -nsec
	}
	return time.Unix(sec, nsec).UTC(), true
}

// readDecimal reads an unsigned number that scanNumber accepted.
func readDecimal(v []byte) decimal {
	var d decimal
	fraction := false
	for i, c := range v {
		switch {
		case c == 'e' || c == 'E':
			d.point += exponent(v[i+1:])
			return d
		case c == '.':
			fraction = true
		case c == '0' && d.n == 0:
			if fraction {
				d.point-- // a leading zero of the fraction
			}
		default:
			if d.n < len(d.digits) {
				d.digits[d.n] = c - '0'
			}
			d.n++
			if !fraction {
				d.point++
			}
		}
	}
	return d
}

// exponent reads an exponent's optional sign and digits, saturating far
// past any time so that the point cannot overflow.
func exponent(b []byte) int {
	neg := b[0] == '-'
	if b[0] == '-' || b[0] == '+' {
		b = b[1:]
	}
	exp := 0
	for _, c := range b {
		exp = min(exp*10+int(c-'0'), 1<<20)
	}
	if neg {
		return -exp
	}
	return exp
}

// digit returns the k-th significant digit, zero outside those held.
func (d *decimal) digit(k int) int64 {
	if k < 0 || k >= min(d.n, len(d.digits)) {
		return 0
	}
	return int64(d.digits[k])
}
