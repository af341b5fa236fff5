package seoapi

import (
	"bytes"
	"net/http"
	"strings"
	"unicode/utf8"
)

// redactor finds a secret (the API key) in what a server sent back, in any
// of the encodings a server may echo it in: as is, JSON-escaped (\u0053,
// \/), percent-encoded (%2F) or as an HTML character reference (&#47;).
// Each character of the secret may be encoded differently.
type redactor struct {
	secret string
}

// bytes returns b with every form of the secret replaced by [REDACTED];
// b itself is returned when it holds none.
func (r redactor) bytes(b []byte) []byte {
	out, _ := r.bytesSteps(b)
	return out
}

// bytesSteps is bytes, also returning how many encodings it tried: the
// work, which tests hold in proportion to the size of b.
func (r redactor) bytesSteps(b []byte) ([]byte, int) {
	steps := 0
	first := r.firstMatch(b, &steps)
	if first < 0 {
		return b, steps
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		if i >= first {
			if n := r.matchAt(b, i, &steps); n > 0 {
				out = append(out, redacted...)
				i += n
				continue
			}
		}
		out = append(out, b[i])
		i++
	}
	return out, steps
}

// string is bytes for a string.
func (r redactor) string(s string) string {
	if r.firstMatchString(s) < 0 {
		return s
	}
	return string(r.bytes([]byte(s)))
}

// header returns h with every form of the secret removed from its names
// and values; h itself when it holds none.
func (r redactor) header(h http.Header) http.Header {
	dirty := false
	for k, vs := range h {
		if r.firstMatchString(k) >= 0 {
			dirty = true
		}
		for _, v := range vs {
			if r.firstMatchString(v) >= 0 {
				dirty = true
			}
		}
	}
	if !dirty {
		return h
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		clean := make([]string, len(vs))
		for i, v := range vs {
			clean[i] = r.string(v)
		}
		out[r.string(k)] = clean
	}
	return out
}

func (r redactor) firstMatchString(s string) int {
	if r.secret == "" || len(s) == 0 {
		return -1
	}
	// Only the plain form can be found without a scan, and it is by far
	// the likeliest: check it first.
	if strings.Contains(s, r.secret) {
		return 0
	}
	if !strings.ContainsAny(s, `\%&`) {
		return -1
	}
	var steps int
	return r.firstMatch([]byte(s), &steps)
}

// firstMatch returns the offset of the first form of the secret in b, or -1.
func (r redactor) firstMatch(b []byte, steps *int) int {
	if r.secret == "" {
		return -1
	}
	plain := bytes.Index(b, []byte(r.secret))
	limit := len(b)
	if plain >= 0 {
		limit = plain
	}
	first, _ := utf8.DecodeRuneInString(r.secret)
	for i := 0; i < limit; i++ {
		c := b[i]
		if c != '\\' && c != '%' && c != '&' && rune(c) != first && c < utf8.RuneSelf {
			continue
		}
		if r.matchAt(b, i, steps) > 0 {
			return i
		}
	}
	return plain
}

// matchAt returns the length of the form of the secret that starts at b[i],
// or 0.
func (r redactor) matchAt(b []byte, i int, steps *int) int {
	if n, ok := matchFrom(b[i:], r.secret, steps); ok {
		return n
	}
	return 0
}

// matchFrom matches secret at the start of b, each rune in any of its
// encodings, trying every encoding in turn (a secret holding '&', '%' or
// '\' must not stop at the literal byte that starts an escape). It
// returns how many bytes of b the match took.
func matchFrom(b []byte, secret string, steps *int) (int, bool) {
	if secret == "" {
		return 0, true
	}
	want, size := utf8.DecodeRuneInString(secret)
	lengths, count := encodedLengths(b, want)
	*steps++
	for _, n := range lengths[:count] {
		if rest, ok := matchFrom(b[n:], secret[size:], steps); ok {
			return n + rest, true
		}
	}
	return 0, false
}

// encodedLengths returns the lengths of the encodings of want that b
// starts with: the rune itself, a JSON escape, a percent-encoding, an HTML
// character reference. There are at most two (the literal byte and an
// escape that starts with it).
func encodedLengths(b []byte, want rune) (lengths [2]int, count int) {
	if got, n := utf8.DecodeRune(b); got == want && got != utf8.RuneError {
		lengths[count] = n
		count++
	}
	if len(b) == 0 {
		return lengths, count
	}
	var n int
	switch b[0] {
	case '\\':
		n = matchBackslash(b, want)
	case '%':
		n = matchPercent(b, want)
	case '&':
		n = matchCharRef(b, want)
	}
	if n > 0 {
		lengths[count] = n
		count++
	}
	return lengths, count
}

// matchPercent matches a percent-encoding of want's UTF-8 bytes:
// %2F, or %C3%BC for ü.
func matchPercent(b []byte, want rune) int {
	var buf [utf8.UTFMax]byte
	n, i := 0, 0
	for n < len(buf) && i+3 <= len(b) && b[i] == '%' {
		v, ok := hexValue(b[i+1 : i+3])
		if !ok {
			return 0
		}
		buf[n] = byte(v)
		n, i = n+1, i+3
		if r, size := utf8.DecodeRune(buf[:n]); size == n && (r != utf8.RuneError || n > 1) {
			if r == want {
				return i
			}
			return 0
		}
	}
	return 0
}

// matchBackslash matches a JSON escape: \uXXXX, or \/ \\ \" and the like.
func matchBackslash(b []byte, want rune) int {
	if len(b) < 2 {
		return 0
	}
	if b[1] == 'u' || b[1] == 'U' {
		if len(b) >= 6 {
			if v, ok := hexValue(b[2:6]); ok && v == want {
				return 6
			}
		}
		return 0
	}
	if rune(b[1]) == want && (want == '/' || want == '\\' || want == '"' || want == '\'') {
		return 2
	}
	return 0
}

// matchCharRef matches an HTML character reference: numeric (&#47;,
// &#x2F;) or one of the named ones an HTML escaper writes.
func matchCharRef(b []byte, want rune) int {
	end := bytes.IndexByte(b[:min(len(b), 12)], ';')
	if end < 2 {
		return 0
	}
	name := b[1:end]
	if name[0] != '#' {
		if v, ok := namedCharRef(string(name)); ok && v == want {
			return end + 1
		}
		return 0
	}
	digits := name[1:]
	if len(digits) == 0 {
		return 0
	}
	var v rune
	if digits[0] == 'x' || digits[0] == 'X' {
		var ok bool
		if v, ok = hexValue(digits[1:]); !ok {
			return 0
		}
	} else {
		for _, d := range digits {
			if d < '0' || d > '9' {
				return 0
			}
			v = v*10 + rune(d-'0')
		}
	}
	if v != want {
		return 0
	}
	return end + 1
}

// namedCharRef gives the character of the HTML named references an
// escaper may write for the printable ASCII a key can hold.
func namedCharRef(name string) (rune, bool) {
	switch name {
	case "amp", "AMP":
		return '&', true
	case "lt", "LT":
		return '<', true
	case "gt", "GT":
		return '>', true
	case "quot", "QUOT":
		return '"', true
	case "apos":
		return '\'', true
	case "sol":
		return '/', true
	case "bsol":
		return '\\', true
	case "plus":
		return '+', true
	case "equals":
		return '=', true
	case "percnt":
		return '%', true
	case "num":
		return '#', true
	case "colon":
		return ':', true
	case "period":
		return '.', true
	case "lowbar", "UnderBar":
		return '_', true
	case "hyphen", "dash":
		return '-', true
	}
	return 0, false
}

func hexValue(b []byte) (rune, bool) {
	if len(b) == 0 || len(b) > 6 {
		return 0, false
	}
	var v rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
