package seoapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A redactor withholds secrets (the API key, created keys) from what a
// server sent, in the forms docs/security.md lists: a secret in any ASCII
// case or its base64, as they stand or behind up to maxRounds layers of
// JSON string and percent escapes. Forms are behind pointers: fmt prints
// addresses.
type redactor struct {
	secrets  []*string // as given, the API key first
	lower    []*[]byte // each secret ASCII lower-cased, found in lower-cased text
	base64   []*string // the characters of a secret's base64 that encode only its bytes
	shortest int       // the length of the shortest form; MaxInt for none
}

const (
	maxRounds       = 2      // the layers of escapes a text is read through
	maxSecretValues = 16     // the secrets an answer may name and still be shown
	maxSecretLength = 4096   // the longest secret searched for
	maxLooseUnits   = 16384  // the units looseSecretValues reads
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
		lower := appendLower(nil, s)
		r.secrets, r.lower, r.shortest = append(r.secrets, &s), append(r.lower, &lower), min(r.shortest, len(s))
		for lead := range 3 { // after 0, 1 or 2 other bytes ("Bearer ", "user:")
			enc := base64.RawStdEncoding.EncodeToString(append(make([]byte, lead), s...))
			std := enc[(8*lead+5)/6 : 8*(lead+len(s))/6] // a character holds 6 bits
			url := strings.NewReplacer("+", "-", "/", "_").Replace(std)
			r.base64, r.shortest = append(r.base64, &std, &url), min(r.shortest, max(len(std), 1))
		}
	}
	return r
}

// withSecretsIn returns a redactor also withholding the secrets
// secretValues finds in body, an API key answer; ok is false when body must
// be withheld: unreadable, or a secret with white space or of a length out
// of bounds.
func (r *redactor) withSecretsIn(body []byte) (_ *redactor, ok bool) {
	values, ok := secretValues(body)
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
// (with the quotes in it), then all of s.
func (r *redactor) string(s string) string {
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

func (r *redactor) header(h http.Header) http.Header {
	dirty := func(s string) bool { return r.holds(s, maxRounds) }
	for name, values := range h {
		if dirty(name) || slices.ContainsFunc(values, dirty) {
			out := make(http.Header, len(h))
			for name, values := range h {
				for _, v := range values {
					out[r.string(name)] = append(out[r.string(name)], r.string(v))
				}
			}
			return out
		}
	}
	return h
}

// holds reports whether s holds a secret in any ASCII case or its base64,
// as it stands or after up to rounds decodings of its escapes.
func (r *redactor) holds(s string, rounds int) bool {
	for ; len(s) >= r.shortest; rounds-- { // no decoding lengthens a text
		if slices.ContainsFunc(r.base64, func(form *string) bool { return strings.Contains(s, *form) }) {
			return true
		}
		var buf [512]byte // a short text is lower-cased on the stack
		lower := appendLower(buf[:0], s)
		if slices.ContainsFunc(r.lower, func(secret *[]byte) bool { return bytes.Contains(lower, *secret) }) {
			return true
		}
		if rounds == 0 || !strings.ContainsAny(s, `\%`) {
			return false
		}
		s = unescape(s)
	}
	return false
}

// nextUnit returns where the first unit of s begins and ends, or -1, -1:
// a word (bytes but ASCII white space), or if quoted a JSON string,
// quotes included (to the end of s when not closed), and a word ends
// where one begins.
func nextUnit[T string | []byte](s T, quoted bool) (int, int) {
	const space = " \t\n\v\f\r"
	i := 0
	for i < len(s) && strings.IndexByte(space, s[i]) >= 0 {
		i++
	}
	j := i + 1
	switch {
	case i == len(s):
		return -1, -1
	case quoted && s[i] == '"':
		for ; j < len(s) && s[j] != '"'; j++ {
			if s[j] == '\\' {
				j++
			}
		}
		return i, min(j+1, len(s))
	}
	for j < len(s) && !(quoted && s[j] == '"') && strings.IndexByte(space, s[j]) < 0 {
		j++
	}
	return i, j
}

// unescape decodes one layer of s's JSON string escapes (\/, \", \u00e9)
// and percent escapes (%2F); any other byte, a malformed escape included,
// is kept.
func unescape(s string) string {
	const escapes, chars = `"\/bfnrt`, "\"\\/\b\f\n\r\t"
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c != '%' && c != '\\':
			out = append(out, c)
		case c == '%' && hexAt(s, i+1, 2) >= 0:
			out, i = append(out, byte(hexAt(s, i+1, 2))), i+2
		case strings.HasPrefix(s[i:], `\u`) && hexAt(s, i+2, 4) >= 0:
			out, i = utf8.AppendRune(out, hexAt(s, i+2, 4)), i+5
		case c == '\\' && i+1 < len(s) && strings.IndexByte(escapes, s[i+1]) >= 0:
			out, i = append(out, chars[strings.IndexByte(escapes, s[i+1])]), i+1
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

// hexAt returns the value of the n hex digits at s[i:], or -1.
func hexAt(s string, i, n int) rune {
	if i+n > len(s) {
		return -1
	}
	v := rune(0)
	for _, c := range []byte(s[i : i+n]) {
		switch lower := c | 0x20; {
		case '0' <= c && c <= '9':
			v = v<<4 | rune(c-'0')
		case 'a' <= lower && lower <= 'f':
			v = v<<4 | rune(lower-'a'+10)
		default:
			return -1
		}
	}
	return v
}

// appendLower appends s to dst with ASCII capitals lower-cased.
func appendLower(dst []byte, s string) []byte {
	dst = slices.Grow(dst, len(s))
	for i := range len(s) {
		dst = append(dst, asciiLower(s[i]))
	}
	return dst
}

// asciiLower returns c, lower-cased if an ASCII capital.
func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// secretValues returns, in order, the distinct values but "" and [REDACTED]
// of body's string members whose name is a secret's (secretName), read with
// encoding/json. ok is false when body must be withheld: not a stream of
// JSON values, nested deeper than maxNesting, naming over maxSecretValues
// values, or with a string holding a JSON object (a gateway quoting its
// upstream, whose secrets are no members). A body not JSON to its end is
// also read as text, so that its secrets are still cleaned from headers.
func secretValues(body []byte) (values []string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	ok = true
	var walk func(secret bool, depth int) (string, error) // the string it read
	walk = func(secret bool, depth int) (string, error) {
		tok, err := nextToken(dec)
		delim, _ := tok.(json.Delim)
		if s, isString := tok.(string); isString {
			ok = ok && !strings.Contains(strings.Join(strings.Fields(s), ""), `{"`)
			values = appendSecret(values, s, secret)
			return s, nil
		} else if err != nil || delim != '{' && delim != '[' {
			return "", err
		} else if depth == maxNesting {
			return "", errors.New("JSON nested too deep")
		}
		for dec.More() {
			name := ""
			if delim == '{' {
				if name, err = walk(false, depth); err != nil {
					return "", err
				}
			}
			if _, err := walk(secretName(name), depth+1); err != nil {
				return "", err
			}
		}
		_, err = nextToken(dec) // the closing delimiter
		return "", err
	}
	var err error
	for err == nil && dec.More() {
		_, err = walk(false, 0)
	}
	if err == nil {
		_, err = dec.Token() // io.EOF after the last value
	}
	if err != io.EOF || !ok || len(values) > maxSecretValues {
		return looseSecretValues(body, values), false
	}
	return values, true
}

// nextToken returns dec's next token; the end of the body within a value is
// io.ErrUnexpectedEOF.
func nextToken(dec *json.Decoder) (json.Token, error) {
	tok, err := dec.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return tok, err
}

// looseSecretValues adds to values those of body's members named as
// secrets, read as text: a JSON string, a colon and a JSON string.
func looseSecretValues(body []byte, values []string) []string {
	var last [3][]byte // the last three units
	for range maxLooseUnits {
		i, j := nextUnit(body, true)
		if i < 0 {
			break
		}
		last, body = [3][]byte{last[1], last[2], body[i:j]}, body[j:]
		if string(last[1]) == ":" && bytes.HasPrefix(last[0], []byte(`"`)) && bytes.HasPrefix(last[2], []byte(`"`)) && secretName(unquote(last[0])) {
			values = appendSecret(values, unquote(last[2]), true)
		}
	}
	return values
}

// appendSecret appends s, a secret member's value if secret, to values
// unless it is empty, [REDACTED], a repeat or past 4*maxSecretValues.
func appendSecret(values []string, s string, secret bool) []string {
	if !secret || s == "" || s == redacted || slices.Contains(values, s) || len(values) == 4*maxSecretValues {
		return values
	}
	return append(values, s)
}

// unquote returns the text of a JSON string, quotes included (the last may
// be missing), or what is between its quotes when it is malformed.
func unquote(quoted []byte) (s string) {
	if json.Unmarshal(quoted, &s) != nil && json.Unmarshal(slices.Concat(quoted, []byte(`"`)), &s) != nil {
		s = string(bytes.Trim(quoted, `"`))
	}
	return s
}

// secretName reports whether a member name, ASCII lower-cased without '_'
// and '-', isSecretMember.
func secretName(name string) bool {
	return isSecretMember(string(appendLower(nil, strings.NewReplacer("_", "", "-", "").Replace(name))))
}
