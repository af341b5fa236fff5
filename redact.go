package seoapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/seoapi/seoapi-go/internal/jsonx"
)

// A redactor removes secrets (the API key, and the secrets of an API key
// answer) from what a server sent. A text holds a secret when the text, or
// what up to maxRounds decodings make of it, holds the secret in any letter
// case. A decoding is one of: JSON string escapes (\u0041, \/), percent
// escapes, HTML character references, and base64 (either alphabet, padded
// or not) of a run that decodes to UTF-8 text.
//
// Each secret is a pointer to a string, in a redactor used through a
// pointer: fmt, printing by reflection a struct that holds one in an
// unexported field, finds addresses, whatever the verb (for a bad verb it
// prints what a pointer to a struct or slice points to, never a string).
type redactor struct {
	secrets  []*string // none empty; the API key first
	minRunes int       // the characters of the shortest secret
	hasSpace bool      // whether a secret holds white space
}

// minSecretLen is the fewest characters a secret has: NewClient refuses a
// shorter key, and an answer with a shorter created secret is withheld.
const minSecretLen = MinAPIKeyLength

// maxRounds bounds how many decodings, one inside another, a text is read
// through.
const maxRounds = 4

// markers are the characters that start a JSON, percent or HTML escape.
const markers = `\%&`

var (
	jsonEscapes    = regexp.MustCompile(`(?:\\(?:[uU][0-9A-Fa-f]{4}|["\\/bfnrt]))+`)
	percentEscapes = regexp.MustCompile(`(?:%[0-9A-Fa-f]{2})+`)
	embeddedObject = regexp.MustCompile(`\{\s*"`)
	// units are what a secret found decoded is replaced with, smallest
	// first: a part of a URL or a header value, a JSON string, a word.
	units = [...]*regexp.Regexp{
		regexp.MustCompile(`[^\s"'<>?&=;,\\]+`), regexp.MustCompile(`"(?:[^"\\]|\\.)*"`), regexp.MustCompile(`\S+`),
	}
)

// unescapeJSON decodes a run of JSON string escapes; \U is \u upper-cased,
// as a server may upper-case a whole message.
func unescapeJSON(run string) string {
	var s string
	_ = json.Unmarshal([]byte(`"`+strings.ReplaceAll(run, `\U`, `\u`)+`"`), &s)
	return s
}

func unescapePercent(run string) string { s, _ := url.PathUnescape(run); return s }

// newRedactor returns a redactor of key; an empty key redacts nothing.
func newRedactor(key string) *redactor {
	r := &redactor{}
	r.add(key)
	return r
}

func (r *redactor) add(secret string) {
	if secret == "" || slices.ContainsFunc(r.secrets, func(s *string) bool { return *s == secret }) {
		return
	}
	r.secrets = append(r.secrets, &secret)
	r.hasSpace = r.hasSpace || strings.ContainsFunc(secret, unicode.IsSpace)
	if n := utf8.RuneCountInString(secret); r.minRunes == 0 || n < r.minRunes {
		r.minRunes = n
	}
}

// withSecretsIn returns a redactor that also removes the secret values of
// body, an API key answer (see secretValues). ok is false when the body
// must be withheld instead: it cannot be read, or holds a secret shorter
// than minSecretLen characters.
func (r *redactor) withSecretsIn(body []byte) (_ *redactor, ok bool) {
	values, ok := secretValues(body)
	if !ok || slices.ContainsFunc(values, func(v string) bool { return utf8.RuneCountInString(v) < minSecretLen }) {
		return r, false
	}
	out := &redactor{secrets: slices.Clone(r.secrets), minRunes: r.minRunes, hasSpace: r.hasSpace}
	for _, v := range values {
		out.add(v)
	}
	return out, true
}

// string returns s without secrets: each plain occurrence replaced by
// [REDACTED] in place, then each unit that still holds a secret replaced
// whole, and the whole of s when it still holds one. It returns s itself
// when s holds none.
func (r *redactor) string(s string) string {
	if !r.holds(s) {
		return s
	}
	s = r.replacePlain(s)
	for _, unit := range units {
		if !r.holds(s) {
			return s
		}
		s = unit.ReplaceAllStringFunc(s, func(u string) string {
			if !r.holds(u) {
				return u
			} else if strings.HasPrefix(u, `"`) && len(u) > 1 {
				return `"` + redacted + `"` // a JSON string stays one
			}
			return redacted
		})
	}
	if r.holds(s) {
		return redacted
	}
	return s
}

// bytes is string for a body; b itself when it holds no secret.
func (r *redactor) bytes(b []byte) []byte {
	if s := string(b); r.holds(s) {
		return []byte(r.string(s))
	}
	return b
}

// errorBody returns at most maxErrorBody bytes of b without secrets, read
// a little past that length so that a secret the cut would halve is found.
func (r *redactor) errorBody(b []byte) []byte {
	return capErrorBody(r.bytes(b[:min(len(b), maxErrorBody+4096)]))
}

// header returns h with its names and values cleaned by string; h itself
// when it holds no secret.
func (r *redactor) header(h http.Header) http.Header {
	dirty := false
	for name, values := range h {
		dirty = dirty || r.holds(name) || slices.ContainsFunc(values, r.holds)
	}
	if !dirty {
		return h
	}
	out := make(http.Header, len(h))
	for name, values := range h {
		name = r.string(name)
		for _, v := range values {
			out[name] = append(out[name], r.string(v))
		}
	}
	return out
}

// replacePlain replaces each run of s that occurrences of secrets cover, in
// any letter case, by [REDACTED].
func (r *redactor) replacePlain(s string) string {
	var b strings.Builder
	for i, end := 0, 0; i < len(s); i++ {
		inRun := i > 0 && i-1 < end
		if end = max(end, i+r.coverAt(s, i)); i >= end {
			b.WriteByte(s[i])
		} else if !inRun {
			b.WriteString(redacted)
		}
	}
	return b.String()
}

// holdsPlain reports whether s holds a secret as it stands.
func (r *redactor) holdsPlain(s string) bool {
	for i := range len(s) {
		if r.coverAt(s, i) > 0 {
			return true
		}
	}
	return false
}

// holds reports whether s holds a secret, as it stands or decoded. A text
// with no escape and no base64 run long enough to hide a secret, the
// common case, is read once and costs no allocation.
func (r *redactor) holds(s string) bool {
	if len(r.secrets) == 0 || utf8.RuneCountInString(s) < r.minRunes {
		return false // no decoding yields more characters than it reads
	}
	for _, secret := range r.secrets {
		first := (*secret)[0] | 0x20
		for i := range len(s) - len(*secret) + 1 {
			if (s[i]|0x20 == first || first >= utf8.RuneSelf) && strings.EqualFold(s[i:i+len(*secret)], *secret) {
				return true
			}
		}
	}
	long := strings.ContainsAny(s, markers)
	for i, run := 0, 0; i < len(s) && !long; i++ {
		run = (run + 1) * int(base64Chars[s[i]])
		long = run >= r.minRunes // base64 is longer than what it encodes
	}
	return long && r.holdsDecoded(s, maxRounds)
}

// holdsDecoded reports whether what up to rounds decodings, one inside
// another, make of s holds a secret.
func (r *redactor) holdsDecoded(s string, rounds int) bool {
	if rounds == 0 || utf8.RuneCountInString(s) < r.minRunes {
		return false // no decoding yields more characters than it reads
	}
	// No decoding reads or writes white space for a character that is not:
	// a form of a secret without white space lies within one word of s.
	if !r.hasSpace && strings.ContainsFunc(s, unicode.IsSpace) {
		for word := range strings.FieldsSeq(s) {
			if r.holdsDecoded(word, rounds) {
				return true
			}
		}
		return false
	}
	var buf [512]byte
	texts := r.appendBase64Texts(buf[:0], s)
	if len(texts) == 0 && !strings.ContainsAny(s, markers) {
		return false
	}
	decoded := []string{string(texts), html.UnescapeString(s),
		jsonEscapes.ReplaceAllStringFunc(s, unescapeJSON), percentEscapes.ReplaceAllStringFunc(s, unescapePercent)}
	return slices.ContainsFunc(decoded, func(d string) bool {
		return d != s && d != "" && (r.holdsPlain(d) || r.holdsDecoded(d, rounds-1))
	})
}

// coverAt returns the length of the longest secret at s[i:], in any
// letter case; 0 when none is.
func (r *redactor) coverAt(s string, i int) (n int) {
	for _, secret := range r.secrets {
		if len(*secret) > n && len(s)-i >= len(*secret) && strings.EqualFold(s[i:i+len(*secret)], *secret) {
			n = len(*secret)
		}
	}
	return n
}

// appendBase64Texts appends to dst, each followed by a space, the UTF-8
// texts that the runs of base64 characters of s ('=' ends a run) at least
// r.minRunes long decode to, in the standard or the URL alphabet.
func (r *redactor) appendBase64Texts(dst []byte, s string) []byte {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && base64Chars[s[i]] == 1 {
			continue
		}
		if i-start >= r.minRunes {
			var buf [512]byte
			src := append(buf[:0], s[start:i]...)
			for _, enc := range [...]*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
				if out, err := enc.AppendDecode(dst, src); err == nil && utf8.Valid(out[len(dst):]) {
					dst = append(out, ' ')
					break
				}
			}
		}
		start = i + 1
	}
	return dst
}

// base64Chars is 1 for the characters of either base64 alphabet.
var base64Chars = func() (t [256]uint8) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_" {
		t[c] = 1
	}
	return t
}()

// maxSecretValues is how many distinct secrets an answer may name and
// still be shown redacted rather than withheld.
const maxSecretValues = 16

// secretValues returns the distinct string values, in order, of the
// members of body whose normalised name (lower-case, without '_' and '-')
// isSecretMember, at any depth; "" and [REDACTED] are left out. ok is
// false when the body must be withheld rather than redacted: it is not
// JSON (it was cut short, say), a string holds a JSON object (a gateway
// quoting its upstream's answer), or it names more than maxSecretValues.
func secretValues(body []byte) (values []string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var s secretScan
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return s.values, true
		} else if err != nil || !s.take(tok) {
			return nil, false
		}
	}
}

// secretScan is where secretValues is in the body's tokens.
type secretScan struct {
	values     []string
	open       []json.Delim // the arrays and objects the next token is in
	member     string       // the name of the member whose value is next
	expectName bool
}

// take reads the next token; false means the body is to be withheld.
func (s *secretScan) take(tok json.Token) bool {
	str, isString := tok.(string)
	switch {
	case isString && embeddedObject.MatchString(str):
		return false
	case isString && s.expectName:
		s.member, s.expectName = str, false
		return true
	case tok == json.Delim('{') || tok == json.Delim('['):
		s.open = append(s.open, tok.(json.Delim))
	case tok == json.Delim('}') || tok == json.Delim(']'):
		s.open = s.open[:len(s.open)-1]
	case isString && str != "" && str != redacted && !slices.Contains(s.values, str):
		var buf [64]byte
		if isSecretMember(string(jsonx.NormalizeKey(&buf, []byte(s.member)))) {
			s.values = append(s.values, str)
		}
	}
	s.member, s.expectName = "", len(s.open) > 0 && s.open[len(s.open)-1] == '{'
	return len(s.values) <= maxSecretValues
}
