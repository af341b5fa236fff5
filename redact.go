package seoapi

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// A redactor withholds secrets (the API key, created keys) from what a
// server sent, in the forms docs/security.md lists: a secret or the base64
// characters that encode only its bytes, in any ASCII case, as they stand
// or behind up to maxRounds layers of JSON string or percent escapes.
// Secrets and forms are behind pointers, so that fmt prints addresses.
type redactor struct {
	secrets  []*string // as given, the API key first
	forms    []*[]byte // ASCII lower-cased, as they are found in lower-cased text
	shortest int       // the length of the shortest form; MaxInt for none
	all      bool      // withhold every text: that of an answer whose secrets are not known
}

const (
	maxRounds       = 2      // the layers of escapes a text is read through
	maxSecretValues = 16     // the secrets an answer may name and still be read
	maxSecretLength = 4096   // the longest secret searched for
	maxNesting      = 10_000 // the deepest JSON secretValues reads, as encoding/json
)

// newRedactor returns a redactor of secrets, the API key first; an empty
// one is left out, so an empty key redacts nothing.
func newRedactor(secrets ...string) *redactor {
	r := &redactor{shortest: math.MaxInt}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		r.secrets = append(r.secrets, &s)
		forms := []string{s}
		for lead := range 3 { // after 0, 1 or 2 other bytes ("Bearer ", "user:")
			enc := base64.RawStdEncoding.EncodeToString(append(make([]byte, lead), s...))
			std := enc[(8*lead+5)/6 : 8*(lead+len(s))/6] // a character holds 6 bits
			forms = append(forms, std, strings.NewReplacer("+", "-", "/", "_").Replace(std))
		}
		for _, form := range slices.DeleteFunc(forms, func(f string) bool { return f == "" }) {
			lower := appendLower(nil, form)
			r.forms, r.shortest = append(r.forms, &lower), min(r.shortest, len(form))
		}
	}
	return r
}

// withSecretsIn returns a redactor also withholding the secrets
// secretValues finds in body, an API key answer; ok is false when body must
// be withheld (secretValues, or a secret with white space or of a length
// out of bounds). When body cannot be read, every text is withheld.
func (r *redactor) withSecretsIn(body []byte) (_ *redactor, ok bool) {
	values, ok, err := secretValues(body)
	if err != nil {
		return &redactor{all: true}, false
	}
	var secrets []string
	for _, s := range r.secrets {
		secrets = append(secrets, *s)
	}
	for _, v := range values {
		if utf8.RuneCountInString(v) < MinAPIKeyLength || len(v) > maxSecretLength || strings.ContainsFunc(v, unicode.IsSpace) {
			ok = false
		} else {
			secrets = append(secrets, v)
		}
	}
	return newRedactor(secrets...), ok
}

// string returns s with each unit holding a secret replaced by
// [REDACTED]: each JSON string (it stays one) or word, then each word
// with the quotes in it, then all of s.
func (r *redactor) string(s string) string {
	if r.all && s != "" {
		return redacted
	}
	for _, quoted := range [...]bool{true, false} {
		if !r.holds(s, maxRounds) {
			return s
		}
		s = r.withhold(s, quoted)
	}
	if r.holds(s, maxRounds) {
		return redacted
	}
	return s
}

// withhold returns s with each unit (nextUnit) holding a secret replaced
// by [REDACTED], a JSON string by "[REDACTED]".
func (r *redactor) withhold(s string, quoted bool) string {
	var out strings.Builder
	for i, j := nextUnit(s, quoted); i >= 0; i, j = nextUnit(s, quoted) {
		switch unit := s[i:j]; {
		case !r.holds(unit, maxRounds):
			out.WriteString(s[:j])
		case quoted && unit[0] == '"':
			out.WriteString(s[:i] + `"` + redacted + `"`)
		default:
			out.WriteString(s[:i] + redacted)
		}
		s = s[j:]
	}
	out.WriteString(s)
	return out.String()
}

// nextUnit returns where the first word of s (bytes but ASCII white space)
// begins and ends, or -1, -1. If quoted, a JSON string is a unit, quotes
// included (to the end of s when not closed), and a word ends at a quote.
func nextUnit(s string, quoted bool) (int, int) {
	const space = " \t\n\v\f\r"
	i, end := len(s)-len(strings.TrimLeft(s, space)), space
	switch {
	case i == len(s):
		return -1, -1
	case quoted && s[i] == '"':
		for j := i + 1; j < len(s); j++ {
			if s[j] == '"' {
				return i, j + 1
			} else if s[j] == '\\' {
				j++
			}
		}
		return i, len(s)
	case quoted:
		end += `"`
	}
	if n := strings.IndexAny(s[i:], end); n >= 0 {
		return i, i + n
	}
	return i, len(s)
}

// bytes is string for a body; b itself when it holds no secret.
func (r *redactor) bytes(b []byte) []byte {
	if s := r.string(string(b)); s != string(b) {
		return []byte(s)
	}
	return b
}

// errorBody cleans b, then cuts it to maxErrorBody bytes (so a secret the
// cut halves is found first: two layers of escapes write a byte in at most
// 36), copied when cut so the error keeps no large body alive.
func (r *redactor) errorBody(b []byte) []byte {
	b = r.bytes(b[:min(len(b), maxErrorBody+36*maxSecretLength)])
	if len(b) > maxErrorBody {
		return bytes.Clone(b[:maxErrorBody])
	}
	return b
}

// answer cleans the status line, header and trailer of resp: a header
// holding a secret becomes a cleaned copy, a clean one is kept.
func (r *redactor) answer(resp *http.Response) {
	resp.Status = r.string(resp.Status)
	resp.Header, resp.Trailer = r.header(resp.Header), r.header(resp.Trailer)
}

// header returns h, or a cleaned copy if a name or value holds a secret.
func (r *redactor) header(h http.Header) http.Header {
	dirty := func(s string) bool { return r.holds(s, maxRounds) }
	for name, values := range h {
		if dirty(name) || slices.ContainsFunc(values, dirty) {
			out := make(http.Header, len(h))
			for name, values := range h {
				name = r.string(name)
				for _, v := range values {
					out[name] = append(out[name], r.string(v))
				}
			}
			return out
		}
	}
	return h
}

// holds reports whether s holds a form of a secret, as it stands or after
// up to rounds decodings of its escapes, one kind a decoding.
func (r *redactor) holds(s string, rounds int) bool {
	if r.all {
		return s != ""
	} else if len(s) < r.shortest { // no decoding lengthens a text
		return false
	}
	var buf [512]byte // a short text is lower-cased on the stack
	lower := appendLower(buf[:0], s)
	if slices.ContainsFunc(r.forms, func(form *[]byte) bool { return bytes.Contains(lower, *form) }) {
		return true
	}
	for _, marker := range [...]byte{'\\', '%'} {
		if rounds > 0 && strings.IndexByte(s, marker) >= 0 && r.holds(unescape(s, marker), rounds-1) {
			return true
		}
	}
	return false
}

// unescape decodes s's escapes of one kind: JSON string escapes (marker
// '\\': \/, \", \u00e9, \ud83d\ude00) or percent escapes ('%': %2F). Any
// other byte, a malformed escape included, is kept. Text between escapes
// is copied a run at a time.
func unescape(s string, marker byte) string {
	const escapes, chars = `"\/bfnrt`, "\"\\/\b\f\n\r\t"
	out := make([]byte, 0, len(s))
	for i := strings.IndexByte(s, marker); i >= 0; i = strings.IndexByte(s, marker) {
		out, s = append(out, s[:i]...), s[i:]
		n := 1 // the length of the escape
		switch {
		case marker == '%' && hexAt(s, 1, 2) >= 0:
			out, n = append(out, byte(hexAt(s, 1, 2))), 3
		case strings.HasPrefix(s, `\u`) && hexAt(s, 2, 4) >= 0:
			r := hexAt(s, 2, 4)
			n = 6
			if pair := utf16.DecodeRune(r, hexAt(s, 8, 4)); pair != utf8.RuneError && strings.HasPrefix(s[6:], `\u`) {
				r, n = pair, 12 // a character past U+FFFF, in two escapes
			}
			out = utf8.AppendRune(out, r)
		case marker == '\\' && len(s) > 1 && strings.IndexByte(escapes, s[1]) >= 0:
			out, n = append(out, chars[strings.IndexByte(escapes, s[1])]), 2
		default:
			out = append(out, marker)
		}
		s = s[n:]
	}
	return string(append(out, s...))
}

// hexAt returns the value of the n hex digits (2 or 4) at s[i:], or -1.
func hexAt(s string, i, n int) rune {
	var b [2]byte
	if i+n > len(s) {
		return -1
	} else if _, err := hex.Decode(b[:n/2], []byte(s[i:i+n])); err != nil {
		return -1
	} else if n == 2 {
		return rune(b[0])
	}
	return rune(b[0])<<8 | rune(b[1])
}

// appendLower appends s to dst with ASCII capitals lower-cased.
func appendLower(dst []byte, s string) []byte {
	dst = append(dst, s...)
	for i, c := range dst[len(dst)-len(s):] {
		if 'A' <= c && c <= 'Z' {
			dst[len(dst)-len(s)+i] = c + 'a' - 'A'
		}
	}
	return dst
}

// secretValues returns, in order, the distinct values but "" and
// [REDACTED] of body's string members whose name is a secret's
// (secretName), read with encoding/json. ok is false when a string holds a
// JSON object (a gateway quoting its upstream: the secrets in it are no
// members); err is set when body is not a stream of JSON values, is nested
// deeper than maxNesting or names over maxSecretValues values.
func secretValues(body []byte) (values []string, ok bool, err error) {
	w := secretWalk{dec: json.NewDecoder(bytes.NewReader(body)), ok: true}
	w.dec.UseNumber()
	for err == nil && w.dec.More() {
		_, err = w.value(false, 0)
	}
	if _, end := w.dec.Token(); err == nil && end != io.EOF {
		err = errors.New("not JSON to its end")
	}
	return w.values, w.ok, err
}

// secretWalk reads one body's JSON values token by token, so that a
// duplicated member name keeps each of its values.
type secretWalk struct {
	dec    *json.Decoder
	values []string
	ok     bool
}

// value reads one JSON value, a secret's when secret is set, and returns
// it when it is a string.
func (w *secretWalk) value(secret bool, depth int) (string, error) {
	tok, err := w.dec.Token()
	delim, _ := tok.(json.Delim)
	if s, isString := tok.(string); isString {
		return s, w.str(s, secret)
	} else if err != nil || delim != '{' && delim != '[' {
		return "", err
	} else if depth == maxNesting {
		return "", errors.New("JSON nested too deep")
	}
	for w.dec.More() {
		name := ""
		if delim == '{' {
			if name, err = w.value(false, depth); err != nil {
				return "", err
			}
		}
		if _, err := w.value(secretName(name), depth+1); err != nil {
			return "", err
		}
	}
	_, err = w.dec.Token() // the closing delimiter
	return "", err
}

// str notes a string of the body: a secret's value, or a quoted object.
func (w *secretWalk) str(s string, secret bool) error {
	w.ok = w.ok && !strings.Contains(strings.Join(strings.Fields(s), ""), `{"`)
	if secret && s != "" && s != redacted && !slices.Contains(w.values, s) {
		w.values = append(w.values, s)
	}
	if len(w.values) > maxSecretValues {
		return errors.New("too many secrets")
	}
	return nil
}

// secretName reports whether a member name, ASCII lower-cased without '_'
// and '-', isSecretMember.
func secretName(name string) bool {
	return isSecretMember(string(appendLower(nil, strings.NewReplacer("_", "", "-", "").Replace(name))))
}
