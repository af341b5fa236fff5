package jsonx

import (
	"bytes"
	"time"
)

// millisDigits separates Unix seconds from Unix milliseconds: a number
// with this many integer digits or more (10^11 and above) is taken as
// milliseconds. As seconds 10^11 is the year 5138, as milliseconds March
// 1973, so no plausible timestamp in either unit falls on the wrong side.
const millisDigits = 12

// maxTimeDigits bounds the integer digits of a numeric time: 10^16 and
// above is no timestamp in either unit.
const maxTimeDigits = 16

// Time reads v as a time: an RFC 3339 string with or without fractional
// seconds, or a number of Unix seconds or milliseconds, read exactly in
// decimal (1700000000123 is 2023-11-14T22:13:20.123Z, not a float's
// .122999907), rounded to the nanosecond.
func (v Value) Time() (time.Time, bool) {
	if len(v) > 0 && v[0] == '"' {
		// The common case, an RFC 3339 string without escapes, parses
		// straight from the bytes without allocating.
		var t time.Time
		if bytes.IndexByte(v, '\\') < 0 && t.UnmarshalJSON(v) == nil {
			return t, true
		}
		s, ok := v.String()
		if !ok {
			return time.Time{}, false
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return time.Time{}, false
		}
		return t, true
	}
	if len(v) == 0 || scanNumber(v, 0) != len(v) {
		return time.Time{}, false
	}
	d, ok := parseDecimal(v)
	if !ok || d.point > maxTimeDigits {
		return time.Time{}, false
	}
	if d.point >= millisDigits {
		d.point -= 3
	}
	sec, nsec := d.secondsAndNanos()
	return time.Unix(sec, nsec).UTC(), true
}

// decimal is a JSON number as significant digits and the position of the
// decimal point among them: digits "17", point 3 is 170; point -1 is 0.017.
type decimal struct {
	digits [40]byte // enough for 16 integer digits, 12 fraction digits and rounding
	n      int
	point  int
	neg    bool
}

// parseDecimal reads a number that scanNumber accepted. Digits beyond the
// buffer only ever lie past the nanosecond and are dropped.
func parseDecimal(v []byte) (decimal, bool) {
	var d decimal
	d.neg = v[0] == '-'
	mantissa, exponent, hasExp := bytes.Cut(bytes.TrimPrefix(v, []byte("-")), []byte("e"))
	if !hasExp {
		mantissa, exponent, hasExp = bytes.Cut(mantissa, []byte("E"))
	}
	whole, fraction, _ := bytes.Cut(mantissa, []byte("."))
	for _, c := range whole {
		if c != '0' || d.n > 0 { // the whole part's leading zero is dropped
			d.add(c)
			d.point++
		}
	}
	for _, c := range fraction {
		if c == '0' && d.n == 0 {
			d.point--
		} else {
			d.add(c)
		}
	}
	if hasExp {
		exp, ok := parseExponent(exponent)
		if !ok {
			return d, false
		}
		d.point += exp
	}
	if d.n == 0 {
		d.point = 0
	}
	return d, true
}

func (d *decimal) add(c byte) {
	if d.n < len(d.digits) {
		d.digits[d.n] = c - '0'
		d.n++
	}
}

// digit returns the k-th digit, counting from the first significant one;
// zero outside the digits held.
func (d *decimal) digit(k int) int64 {
	if k < 0 || k >= d.n {
		return 0
	}
	return int64(d.digits[k])
}

// secondsAndNanos splits d, read as seconds, into whole seconds and
// nanoseconds rounded half up, both carrying d's sign.
func (d *decimal) secondsAndNanos() (sec, nsec int64) {
	for k := 0; k < d.point; k++ {
		sec = sec*10 + d.digit(k)
	}
	for k := d.point; k < d.point+9; k++ {
		nsec = nsec*10 + d.digit(k)
	}
	if d.digit(d.point+9) >= 5 {
		nsec++ // time.Unix carries a full second
	}
	if d.neg {
		return -sec, -nsec
	}
	return sec, nsec
}

// parseExponent reads an exponent's optional sign and digits, saturating
// far beyond any exponent a time can have.
func parseExponent(b []byte) (int, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	exp := 0
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		if exp < 1_000_000 {
			exp = exp*10 + int(c-'0')
		}
	}
	if neg {
		return -exp, true
	}
	return exp, true
}
