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
)

// A redactor removes secrets (the API key, and the secrets of an API key
// answer) from what a server sent: header values, error bodies, messages.
// It decodes a text before it matches: a text holds a secret when the text
// itself, or what up to maxRounds decodings make of it, holds the secret in
// any letter case. A decoding is one of: JSON string escapes (\u0041, \/),
// percent-escapes, HTML character references, and base64 (either alphabet,
// padded or not) of a run that decodes to UTF-8 text.
//
// Each secret is held behind a pointer to a string, and the redactor is
// used through a pointer: fmt, printing a struct that holds one through an
// unexported field (which it reads by reflection, calling no method), finds
// addresses and never a secret, whatever the verb (for a bad verb such as
// %s on a pointer, fmt prints what a pointer to a struct, slice or map
// points to, but never what a pointer to a string does).
type redactor struct {
	secrets []*string // none empty; the API key first
	minRun  int       // the length of the shortest secret written in base64
}

// minSecretLen is the fewest characters a secret has: a shorter API key is
// refused by NewClient, and an answer holding a shorter created secret is
// withheld, for redacting it would rewrite ordinary text.
const minSecretLen = 8

// maxRounds bounds how many decodings, one inside another, a text is read
// through; maxForms bounds how many distinct decoded texts one text may
// give: a text that gives more is taken to hold a secret.
const (
	maxRounds = 4
	maxForms  = 64
)

// The units of text the redactor decodes and replaces.
var (
	jsonEscapes    = regexp.MustCompile(`(?:\\(?:[uU][0-9A-Fa-f]{4}|["\\/bfnrt]))+`)
	percentEscapes = regexp.MustCompile(`(?:%[0-9A-Fa-f]{2})+`)
	urlParts       = regexp.MustCompile(`[^\s"'<>?&=;,\\]+`)
	jsonStrings    = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	words          = regexp.MustCompile(`\S+`)
	embeddedObject = regexp.MustCompile(`\{\s*"`)
)

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
	if n := base64.RawStdEncoding.EncodedLen(len(secret)); r.minRun == 0 || n < r.minRun {
		r.minRun = n
	}
}

// withSecretsIn returns a redactor that also removes the values of the
// secret members of body, an API key answer (see secretValues). ok is false
// when the body must be withheld instead: it cannot be read, or a value is
// shorter than minSecretLen characters.
func (r *redactor) withSecretsIn(body []byte) (_ *redactor, ok bool) {
	values, ok := secretValues(body)
	if !ok {
		return r, false
	}
	out := &redactor{secrets: slices.Clone(r.secrets), minRun: r.minRun}
	for _, v := range values {
		if utf8.RuneCountInString(v) < minSecretLen {
			return r, false
		}
		out.add(v)
	}
	return out, true
}

// string returns s without the secrets it holds: each plain occurrence is
// replaced by [REDACTED] in place; then, from the smallest unit to the
// largest, each part of a URL or header (a run without white space, quotes,
// backslashes or <>?&=;,), each JSON string and each word (a run without white space) that
// still holds a secret in some form is replaced whole. s itself is returned
// when it holds none, and [REDACTED] when what is left still holds one.
func (r *redactor) string(s string) string {
	if !r.holds(s) {
		return s
	}
	s = r.replacePlain(s)
	for _, unit := range [...]*regexp.Regexp{urlParts, jsonStrings, words} {
		if !r.holds(s) {
			return s
		}
		s = unit.ReplaceAllStringFunc(s, r.redactUnit)
	}
	if r.holds(s) {
		return redacted
	}
	return s
}

// redactUnit returns [REDACTED] for a unit of text that holds a secret,
// quoted when the unit is a JSON string, and the unit itself otherwise.
func (r *redactor) redactUnit(unit string) string {
	switch {
	case !r.holds(unit):
		return unit
	case len(unit) >= 2 && unit[0] == '"' && unit[len(unit)-1] == '"':
		return `"` + redacted + `"`
	}
	return redacted
}

// bytes is string for a body; b itself when it holds no secret.
func (r *redactor) bytes(b []byte) []byte {
	s := string(b)
	if out := r.string(s); out != s {
		return []byte(out)
	}
	return b
}

// errorBody returns at most maxErrorBody bytes of b without secrets. It
// redacts a little past that length first, so that a secret the cut
// would halve is redacted whole.
func (r *redactor) errorBody(b []byte) []byte {
	return capErrorBody(r.bytes(b[:min(len(b), maxErrorBody+4096)]))
}

// header returns h without the secrets its names and values hold, each
// cleaned as string cleans a text. It returns h itself, unchanged, when h
// holds none.
func (r *redactor) header(h http.Header) http.Header {
	if !r.headerHolds(h) {
		return h
	}
	out := make(http.Header, len(h))
	for name, values := range h {
		clean := make([]string, len(values))
		for i, v := range values {
			clean[i] = r.string(v)
		}
		name = r.string(name)
		out[name] = append(out[name], clean...)
	}
	return out
}

func (r *redactor) headerHolds(h http.Header) bool {
	for name, values := range h {
		if r.holds(name) || slices.ContainsFunc(values, r.holds) {
			return true
		}
	}
	return false
}

// replacePlain replaces each occurrence of a secret in s, in any letter
// case, by [REDACTED]; overlapping occurrences become one.
func (r *redactor) replacePlain(s string) string {
	var spans [][2]int
	for _, secret := range r.secrets {
		secret := *secret
		for i := 0; ; {
			j := indexFold(s[i:], secret)
			if j < 0 {
				break
			}
			spans = append(spans, [2]int{i + j, i + j + len(secret)})
			i += j + len(secret)
		}
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	last := 0 // where the text not yet written starts
	for _, span := range spans {
		if span[0] >= last {
			b.WriteString(s[last:span[0]])
			b.WriteString(redacted)
		}
		last = max(last, span[1])
	}
	b.WriteString(s[last:])
	return b.String()
}

// holds reports whether s holds a secret, as it stands or decoded. It does
// not allocate unless s holds something a decoding changes.
func (r *redactor) holds(s string) bool {
	if r.holdsPlain(s) {
		return true
	}
	if !strings.ContainsAny(s, `\%&`) && !r.hasBase64Text(s) {
		return false
	}
	seen := map[string]bool{s: true}
	texts := []string{s}
	for range maxRounds {
		var next []string
		for _, t := range texts {
			for _, d := range r.decodings(t) {
				if seen[d] {
					continue
				}
				if r.holdsPlain(d) || len(seen) == maxForms {
					return true
				}
				seen[d] = true
				next = append(next, d)
			}
		}
		texts = next
	}
	return false
}

func (r *redactor) holdsPlain(s string) bool {
	return slices.ContainsFunc(r.secrets, func(secret *string) bool { return indexFold(s, *secret) >= 0 })
}

// decodings returns what one decoding makes of s: s with its JSON escapes,
// its percent-escapes or its HTML references decoded, and the text of each
// of its base64 runs.
func (r *redactor) decodings(s string) []string {
	out := []string{unescapeJSON(s), unescapePercent(s), html.UnescapeString(s)}
	for i := 0; i < len(s); {
		start, end := nextBase64Run(s, i)
		if end-start >= r.minRun {
			if text, ok := decodeBase64(nil, s[start:end]); ok {
				out = append(out, string(text))
			}
		}
		i = end
	}
	return out
}

// unescapeJSON decodes the JSON escapes in s, \U read as \u (a text
// upper-cased); the rest of s stays as it is.
func unescapeJSON(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return jsonEscapes.ReplaceAllStringFunc(s, func(run string) string {
		var out string
		_ = json.Unmarshal([]byte(`"`+strings.ReplaceAll(run, `\U`, `\u`)+`"`), &out) // a run is valid JSON
		return out
	})
}

// unescapePercent decodes the percent-escapes in s; a '%' that starts no
// escape stays as it is.
func unescapePercent(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	return percentEscapes.ReplaceAllStringFunc(s, func(run string) string {
		out, _ := url.PathUnescape(run) // a run is valid escapes
		return out
	})
}

// hasBase64Text reports whether s has a base64 run as long as a secret in
// base64 that decodes to text, without allocating for runs of up to 512
// bytes.
func (r *redactor) hasBase64Text(s string) bool {
	var buf [384]byte
	for i := 0; i < len(s); {
		start, end := nextBase64Run(s, i)
		if end-start >= r.minRun {
			if _, ok := decodeBase64(buf[:0], s[start:end]); ok {
				return true
			}
		}
		i = end
	}
	return false
}

// nextBase64Run returns the bounds of the first run of base64 characters
// (of either alphabet, '=' excluded) in s at or after i: len(s), len(s)
// when there is none.
func nextBase64Run(s string, i int) (start, end int) {
	isBase64 := func(c byte) bool {
		return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("+/-_", c) >= 0
	}
	for i < len(s) && !isBase64(s[i]) {
		i++
	}
	for end = i; end < len(s) && isBase64(s[end]); end++ {
	}
	return i, end
}

// decodeBase64 appends to dst what run decodes to in the standard or the
// URL alphabet, unpadded, when that is UTF-8 text.
func decodeBase64(dst []byte, run string) ([]byte, bool) {
	var stack [512]byte
	src := stack[:0]
	if len(run) > len(stack) {
		src = make([]byte, 0, len(run))
	}
	src = append(src, run...)
	for _, enc := range [...]*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if out, err := enc.AppendDecode(dst, src); err == nil && utf8.Valid(out) {
			return out, true
		}
	}
	return dst, false
}

// indexFold returns the index of the first occurrence of secret in s in
// any letter case, or -1.
func indexFold(s, secret string) int {
	first := secret[0] | 0x20
	for i := 0; i+len(secret) <= len(s); i++ {
		if (s[i]|0x20 == first || first >= utf8.RuneSelf) && strings.EqualFold(s[i:i+len(secret)], secret) {
			return i
		}
	}
	return -1
}

// maxSecretValues is how many distinct secret values an answer may name
// and still be shown redacted rather than withheld; maxEmbedded is how deep
// JSON written inside JSON strings is read.
const (
	maxSecretValues = 16
	maxEmbedded     = 3
)

// secretValues returns the distinct string values of the members of body
// whose normalised name (lower-case, without '_' and '-') isSecretMember,
// at any depth and in JSON objects written inside its strings; "" and
// [REDACTED] are left out. ok is false when the body must be withheld
// rather than redacted: it is not JSON (it was cut short, say), an object
// written inside one of its strings cannot be read or lies deeper than
// maxEmbedded, or it names more than maxSecretValues secrets.
func secretValues(body []byte) (values []string, ok bool) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, true
	}
	var s secretSearch
	ok = s.scan(json.NewDecoder(bytes.NewReader(body)), 0)
	return s.values, ok
}

// secretSearch collects the values secretValues returns.
type secretSearch struct{ values []string }

// scan reads the JSON values of dec (only the first, when it is embedded
// at a depth above 0) and collects their secret values.
func (s *secretSearch) scan(dec *json.Decoder, depth int) bool {
	dec.UseNumber()
	var open []json.Delim // the arrays and objects the next token is in
	member, expectName := "", false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) && depth == 0 {
			return true
		} else if err != nil {
			return false
		}
		if name, ok := tok.(string); ok && expectName {
			member, expectName = name, false
			if !s.embedded(name, depth) {
				return false
			}
			continue
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			open = append(open, tok.(json.Delim))
		case json.Delim('}'), json.Delim(']'):
			open = open[:len(open)-1]
		default:
			if v, ok := tok.(string); ok && !s.value(member, v, depth) {
				return false
			}
		}
		member, expectName = "", len(open) > 0 && open[len(open)-1] == '{'
		if depth > 0 && len(open) == 0 {
			return true
		}
	}
}

// value collects v, the string value of member, when member is secret,
// and scans the JSON written inside it.
func (s *secretSearch) value(member, v string, depth int) bool {
	name := strings.Map(func(c rune) rune {
		if c == '_' || c == '-' {
			return -1
		}
		return unicode.ToLower(c)
	}, member)
	if isSecretMember(name) && v != "" && v != redacted && !slices.Contains(s.values, v) {
		if len(s.values) == maxSecretValues {
			return false
		}
		s.values = append(s.values, v)
	}
	return s.embedded(v, depth)
}

// embedded scans each JSON object written inside str, a string at depth.
func (s *secretSearch) embedded(str string, depth int) bool {
	for {
		loc := embeddedObject.FindStringIndex(str)
		if loc == nil {
			return true
		}
		if depth == maxEmbedded {
			return false
		}
		dec := json.NewDecoder(strings.NewReader(str[loc[0]:]))
		if !s.scan(dec, depth+1) {
			return false
		}
		str = str[loc[0]+int(dec.InputOffset()):]
	}
}
