package jsonx

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// A numeric time with this many integer digits or more (10^11 and above)
// is taken as Unix milliseconds: as seconds 10^11 is the year 5138, as
// milliseconds March 1973, so no plausible timestamp in either unit falls
// on the wrong side. From maxTimeDigits on (10^16) it is no time at all.
const (
	millisDigits  = 12
	maxTimeDigits = 16
)

// Time reads v as a time: an RFC 3339 string with or without fractional
// seconds, or a number of Unix seconds or milliseconds, read exactly in
// decimal (1700000000123 is 2023-11-14T22:13:20.123Z, not a float's
// .122999907), rounded to the nanosecond, half away from zero.
func (v Value) Time() (time.Time, bool) {
	if len(v) > 0 && v[0] == '"' {
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
	return numericTime(string(v))
}

// numericTime reads a JSON number as Unix seconds or milliseconds: its
// digits are shifted by the exponent as text, so nothing passes through a
// float.
func numericTime(s string) (time.Time, bool) {
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		var err error
		if exp, err = strconv.Atoi(s[i+1:]); err != nil {
			return time.Time{}, false
		}
		s = s[:i]
	}
	exp = max(min(exp, 1<<20), -1<<20) // far past any time, and no overflow
	neg := strings.HasPrefix(s, "-")
	whole, fraction, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	digits := strings.TrimLeft(whole+fraction, "0")
	// point is where the decimal point falls among digits.
	point := len(whole) + exp - (len(whole) + len(fraction) - len(digits))
	switch {
	case digits == "" || point < -9:
		return time.Unix(0, 0).UTC(), true // rounds to zero
	case point > maxTimeDigits:
		return time.Time{}, false
	case point >= millisDigits:
		point -= 3
	}
	if point < 0 {
		digits, point = strings.Repeat("0", -point)+digits, 0
	}
	// The nine digits of the nanoseconds and the one that rounds them.
	digits += strings.Repeat("0", max(0, point+10-len(digits)))
	sec, _ := strconv.ParseInt("0"+digits[:point], 10, 64)
	nsec, _ := strconv.ParseInt(digits[point:point+9], 10, 64)
	if digits[point+9] >= '5' {
		nsec++ // time.Unix carries a full second
	}
	if neg {
		sec, nsec = -sec, -nsec
	}
	return time.Unix(sec, nsec).UTC(), true
}
