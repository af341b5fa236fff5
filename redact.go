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
	first := r.firstMatch(b)
	if first < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		if i >= first {
			if n := r.matchAt(b, i); n > 0 {
				out = append(out, redacted...)
				i += n
				continue
			}
		}
		out = append(out, b[i])
		i++
	}
	return out
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
	return r.firstMatch([]byte(s))
}

// firstMatch returns the offset of the first form of the secret in b, or -1.
func (r redactor) firstMatch(b []byte) int {
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
		if r.matchAt(b, i) > 0 {
			return i
		}
	}
	return plain
}

// matchAt returns the length of the form of the secret that starts at b[i],
// or 0.
func (r redactor) matchAt(b []byte, i int) int {
	start := i
	for _, want := range r.secret {
		n := matchRune(b[i:], want)
		if n == 0 {
			return 0
		}
		i += n
	}
	return i - start
}

// matchRune returns the length of an encoding of want at the start of b, or 0.
func matchRune(b []byte, want rune) int {
	if len(b) == 0 {
		return 0
	}
	if got, n := utf8.DecodeRune(b); got == want && got != utf8.RuneError {
		return n
	}
	switch b[0] {
	case '\\':
		return matchBackslash(b, want)
	case '%':
		if len(b) >= 3 && want < utf8.RuneSelf {
			if v, ok := hexValue(b[1:3]); ok && v == want {
				return 3
			}
		}
	case '&':
		return matchCharRef(b, want)
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

// matchCharRef matches an HTML numeric character reference: &#47; or &#x2F;.
func matchCharRef(b []byte, want rune) int {
	if len(b) < 4 || b[1] != '#' {
		return 0
	}
	end := bytes.IndexByte(b[:min(len(b), 12)], ';')
	if end < 3 {
		return 0
	}
	digits := b[2:end]
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
