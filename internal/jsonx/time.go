package jsonx

import (
	"bytes"
	"time"
)

// A numeric time of millisDigits integer digits or more is Unix
// milliseconds (as seconds, 10^11 is the year 5138); from maxTimeDigits on
// it is no time. A string over maxTimeText bytes (RFC 3339 needs at most
// 35) is refused before parsing, whose errors copy the text.
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
		var t time.Time
		if bytes.IndexByte(v, '\\') < 0 && t.UnmarshalJSON(v) == nil {
			return t, true // without allocating
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

// numericTime reads a number scanNumber accepted digit by digit in place:
// no float, no allocation.
func numericTime(v []byte) (time.Time, bool) {
	if len(v) > 1<<19 {
		// No time has so many digits; exponent saturates exactly only below.
		return time.Time{}, false
	}
	neg := v[0] == '-'
	mantissa, exp := bytes.TrimPrefix(v, []byte("-")), 0
	if i := bytes.IndexAny(mantissa, "eE"); i >= 0 {
		mantissa, exp = mantissa[:i], exponent(mantissa[i+1:])
	}
	whole, frac, _ := bytes.Cut(mantissa, []byte("."))
	d := digits{whole, frac}
	first := 0 // the first significant digit
	for first < len(whole)+len(frac) && d.at(first) == 0 {
		first++
	}
	point := len(whole) + exp - first // integer digits from the first significant one
	switch {
	case first == len(whole)+len(frac) || point < -9:
		return time.Unix(0, 0).UTC(), true // rounds to zero
	case point > maxTimeDigits:
		return time.Time{}, false
	case point >= millisDigits:
		point -= 3
	}
	var sec, nsec int64
	for k := first; k < first+point; k++ {
		sec = sec*10 + d.at(k)
	}
	for k := first + point; k < first+point+9; k++ {
		nsec = nsec*10 + d.at(k)
	}
	if d.at(first+point+9) >= 5 {
		nsec++ // time.Unix carries a full second
	}
	if neg {
		sec, nsec = -sec, -nsec
	}
	return time.Unix(sec, nsec).UTC(), true
}

// digits are the digits of a number's whole part, then of its fraction.
type digits struct{ whole, frac []byte }

// at returns the k-th digit, zero outside those written.
func (d digits) at(k int) int64 {
	switch {
	case k < 0 || k >= len(d.whole)+len(d.frac):
		return 0
	case k < len(d.whole):
		return int64(d.whole[k] - '0')
	}
	return int64(d.frac[k-len(d.whole)] - '0')
}

// exponent reads an exponent's optional sign and digits, saturating far
// past any time so that the point cannot overflow.
func exponent(b []byte) int {
	sign, exp := 1, 0
	if b[0] == '-' {
		sign = -1
	}
	for _, c := range bytes.TrimLeft(b, "+-") {
		exp = min(exp*10+int(c-'0'), 1<<20)
	}
	return sign * exp
}
