package seoapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"math"
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
// answer) from what a server sent. A text holds a secret when it holds the
// secret in any letter case, or its base64 at any byte alignment, either
// as it stands or after up to maxRounds decodings of its words: JSON
// string escapes, percent escapes, HTML character references, and base64
// of a run that decodes to UTF-8 text. No secret holds white space, and no
// encoding writes white space for a character that is not, so every form
// of a secret lies within one word.
//
// Each secret is held through a pointer, and so is the redactor: fmt,
// printing a struct with one in an unexported field, finds addresses.
type redactor struct {
	secrets  []*string      // none empty or with white space; the API key first
	plain    *regexp.Regexp // any secret, in any letter case, once or more in a row
	minRunes int            // the characters of the shortest secret; MaxInt for none
	base64   []*string      // the secrets' base64 forms (see base64Forms)
	minB64   int            // the length of the shortest of them
}

// maxRounds bounds how many decodings, one inside another, a word is read
// through.
const maxRounds = 4

var (
	// decoders are the decodings but base64. Each decodes the runs of the
	// escapes its pattern matches (a run, so that the bytes of one
	// character decode together), and each escape begins with its marker.
	decoders = [...]struct {
		marker byte
		runs   *regexp.Regexp
		decode func(string) string
	}{
		{'\\', regexp.MustCompile(`(?:\\(?:[uU][0-9A-Fa-f]{4}|["\\/bfnrt]))+`), unescapeJSON},
		{'%', regexp.MustCompile(`(?:%[0-9A-Fa-f]{2})+`), func(s string) string { s, _ = url.PathUnescape(s); return s }},
		{'&', regexp.MustCompile(`&#?[0-9A-Za-z]+;?`), html.UnescapeString}, // HTML makes ';' optional
	}
	// embeddedObject is the start of a JSON object, in a string.
	embeddedObject = regexp.MustCompile(`\{\s*"`)
	// units are what a secret found decoded is replaced with, smallest
	// first: a part of a URL or a header value, a JSON string, a word.
	units = [...]*regexp.Regexp{
		regexp.MustCompile(`[^\s"'<>?&=;,\\]+`), regexp.MustCompile(`"(?:[^"\\]|\\.)*"`), regexp.MustCompile(`\S+`),
	}
)

// unescapeJSON decodes a run of JSON string escapes; \U is read as \u, as
// a server may upper-case a whole message.
func unescapeJSON(run string) string {
	var s string
	_ = json.Unmarshal([]byte(`"`+strings.ReplaceAll(run, `\U`, `\u`)+`"`), &s)
	return s
}

// newRedactor returns a redactor of key; an empty key redacts nothing.
func newRedactor(key string) *redactor {
	r := &redactor{minRunes: math.MaxInt, minB64: math.MaxInt}
	if key != "" {
		r.add(key)
	}
	return r
}

// add adds secret, neither empty nor one of r's.
func (r *redactor) add(secret string) {
	r.secrets = append(r.secrets, &secret)
	quoted := make([]string, len(r.secrets))
	for i, s := range r.secrets {
		quoted[i] = regexp.QuoteMeta(*s)
	}
	r.plain = regexp.MustCompile(`(?i)(?:` + strings.Join(quoted, `|`) + `)+`)
	r.plain.Longest()
	r.minRunes = min(r.minRunes, utf8.RuneCountInString(secret))
	for _, form := range base64Forms(secret) {
		r.base64 = append(r.base64, &form)
		r.minB64 = min(r.minB64, len(form))
	}
}

// base64Forms returns the base64 of secret, as written, upper-cased and
// lower-cased, in both alphabets, for each of the three places its first
// byte may take in a 3-byte group: so it is found after any bytes, such as
// "user:" in Basic credentials. Each form leaves out the characters that
// also encode bits of the bytes before and after the secret.
func base64Forms(secret string) (forms []string) {
	toURL := strings.NewReplacer("+", "-", "/", "_")
	for _, s := range [...]string{secret, strings.ToUpper(secret), strings.ToLower(secret)} {
		for lead := range 3 { // each character encodes 6 bits
			enc := base64.RawStdEncoding.EncodeToString(append(make([]byte, lead), s...))
			form := enc[(8*lead+5)/6 : 8*(lead+len(s))/6]
			forms = append(forms, form, toURL.Replace(form))
		}
	}
	slices.Sort(forms)
	return slices.Compact(forms)
}

// withSecretsIn returns a redactor that also removes the secret values of
// body, an API key answer (see secretValues), also those read before the
// body turned out unreadable, since the headers and request ID may echo
// them. ok is false when the body must be withheld instead: it cannot be
// read whole, or holds a secret shorter than MinAPIKeyLength characters or
// with white space, which other text would be full of.
func (r *redactor) withSecretsIn(body []byte) (_ *redactor, ok bool) {
	values, ok := secretValues(body)
	out := *r
	out.secrets, out.base64 = slices.Clone(r.secrets), slices.Clone(r.base64)
	for _, v := range values {
		switch {
		case utf8.RuneCountInString(v) < MinAPIKeyLength || strings.ContainsFunc(v, unicode.IsSpace):
			ok = false
		case !slices.ContainsFunc(out.secrets, func(s *string) bool { return *s == v }):
			out.add(v)
		}
	}
	return &out, ok
}

// string returns s without secrets: each run of plain occurrences replaced
// by [REDACTED] in place, then each unit that still holds a secret
// replaced whole, and the whole of s if it still holds one. It returns s
// itself when s holds none.
func (r *redactor) string(s string) string {
	if !r.holds(s, maxRounds) {
		return s
	}
	s = r.plain.ReplaceAllLiteralString(s, redacted)
	for _, unit := range units {
		if !r.holds(s, maxRounds) {
			return s
		}
		s = unit.ReplaceAllStringFunc(s, func(u string) string {
			if !r.holds(u, maxRounds) {
				return u
			} else if strings.HasPrefix(u, `"`) && len(u) > 1 {
				return `"` + redacted + `"` // a JSON string stays one
			}
			return redacted
		})
	}
	if r.holds(s, maxRounds) {
		return redacted
	}
	return s
}

// bytes is string for a body; b itself when it holds no secret.
func (r *redactor) bytes(b []byte) []byte {
	if s := string(b); r.holds(s, maxRounds) {
		return []byte(r.string(s))
	}
	return b
}

// errorBody returns at most maxErrorBody bytes of b without secrets. It
// reads a little past that length, so that a secret the cut would halve
// is found.
func (r *redactor) errorBody(b []byte) []byte {
	return capErrorBody(r.bytes(b[:min(len(b), maxErrorBody+4096)]))
}

// answer cleans the status line, header and trailer of resp. A header that
// holds a secret is replaced by a cleaned copy; one that holds none, the
// common case, is read once and kept.
func (r *redactor) answer(resp *http.Response) {
	if r.holds(resp.Status, maxRounds) {
		resp.Status = r.string(resp.Status)
	}
	for _, h := range [...]*http.Header{&resp.Header, &resp.Trailer} {
		dirty := false
		for name, values := range *h {
			dirty = dirty || r.holds(name, maxRounds) || slices.ContainsFunc(values, func(v string) bool { return r.holds(v, maxRounds) })
		}
		if !dirty {
			continue
		}
		out := make(http.Header, len(*h))
		for name, values := range *h {
			name = r.string(name)
			for _, v := range values {
				out[name] = append(out[name], r.string(v))
			}
		}
		*h = out
	}
}

// holds reports whether s holds a secret, as it stands or in what up to
// rounds decodings, one inside another, make of its words. A text with no
// escape and no base64 run long enough to hide a secret, the common case,
// is read once and costs no allocation.
func (r *redactor) holds(s string, rounds int) bool {
	if utf8.RuneCountInString(s) < r.minRunes {
		return false // no decoding yields more characters than it reads
	}
	for _, secret := range r.secrets {
		first := (*secret)[0] | 0x20 // a cheap test of the first byte, before EqualFold
		for i := 0; i+len(*secret) <= len(s); i++ {
			if (s[i]|0x20 == first || first >= utf8.RuneSelf) && strings.EqualFold(s[i:i+len(*secret)], *secret) {
				return true
			}
		}
	}
	found, longest := r.inBase64(s)
	if found || rounds == 0 {
		return found
	}
	// Base64 writes 4 characters for 3 bytes.
	hides := 3*longest >= 4*r.minRunes || strings.ContainsAny(s, `\%&`)
	return hides && slices.ContainsFunc(r.decodings(s), func(d string) bool { return r.holds(d, rounds-1) })
}

// inBase64 reports whether a run of base64 characters in s holds one of
// r.base64, and returns the length of the longest run.
func (r *redactor) inBase64(s string) (found bool, longest int) {
	for i, start := 0, 0; i <= len(s); i++ {
		if i < len(s) && base64Chars[s[i]] == 1 {
			continue
		}
		if run := s[start:i]; len(run) >= r.minB64 && slices.ContainsFunc(r.base64, func(f *string) bool { return strings.Contains(run, *f) }) {
			return true, len(run)
		}
		longest, start = max(longest, i-start), i+1
	}
	return false, longest
}

// decodings returns what each decoding makes of each word of s it
// changes.
func (r *redactor) decodings(s string) (out []string) {
	for word := range strings.FieldsSeq(s) {
		if utf8.RuneCountInString(word) < r.minRunes {
			continue
		}
		if text := r.base64Texts(word); text != "" {
			out = append(out, text)
		}
		for _, d := range decoders {
			if strings.IndexByte(word, d.marker) < 0 || !d.runs.MatchString(word) {
				continue
			}
			if text := d.runs.ReplaceAllStringFunc(word, d.decode); text != word {
				out = append(out, text)
			}
		}
	}
	return out
}

// base64Texts returns, each followed by a space, the UTF-8 texts that the
// runs of base64 characters of word ('=' ends one) long enough to encode a
// secret decode to, in the standard or the URL alphabet.
func (r *redactor) base64Texts(word string) string {
	var buf, src [512]byte // a run that decodes to nothing costs no allocation
	texts := buf[:0]
	for run := range strings.FieldsFuncSeq(word, func(c rune) bool { return c >= utf8.RuneSelf || base64Chars[c] == 0 }) {
		if 3*len(run) < 4*r.minRunes {
			continue
		}
		for _, enc := range [...]*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			if out, err := enc.AppendDecode(texts, append(src[:0], run...)); err == nil && utf8.Valid(out[len(texts):]) {
				texts = append(out, ' ')
				break
			}
		}
	}
	return string(texts)
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

// maxDepth is how deeply nested a body secretValues reads may be, as
// encoding/json reads it; a deeper body is withheld.
const maxDepth = 10000

// errWithhold is secretScan's answer for a body to withhold.
var errWithhold = errors.New("the body must be withheld")

// secretValues returns the distinct string values, in order, of the
// members of body whose normalised name isSecretMember, at any depth,
// leaving out "" and [REDACTED]. ok is false when the body must be
// withheld rather than redacted: it is not JSON (cut short, say), is
// nested deeper than maxDepth, names more than maxSecretValues, or a
// string holds a JSON object (a gateway quoting its upstream's answer).
// values then holds those read up to the failure, or to the end when a
// string held an object.
func secretValues(body []byte) (values []string, ok bool) {
	s := &secretScan{dec: json.NewDecoder(bytes.NewReader(body))}
	s.dec.UseNumber()
	// Any error, io.EOF too, comes from inside a value: the body was cut.
	for s.dec.More() {
		if err := s.value("", 0); err != nil {
			return s.values, false
		}
	}
	return s.values, !s.withhold
}

// secretScan is the state of secretValues. A string holding a JSON object
// sets withhold, and the scan goes on to find the secrets after it.
type secretScan struct {
	dec      *json.Decoder
	values   []string
	withhold bool
}

// value adds the secrets of the next JSON value to s.values: the value of
// member name ("" in an array), inside depth containers.
func (s *secretScan) value(name string, depth int) error {
	tok, err := s.dec.Token()
	if err != nil {
		return err
	}
	if open, ok := tok.(json.Delim); ok {
		if depth == maxDepth {
			return errWithhold
		}
		for s.dec.More() {
			member := ""
			if open == '{' {
				if tok, err = s.dec.Token(); err != nil {
					return err
				}
				member, _ = tok.(string)
			}
			if err := s.value(member, depth+1); err != nil {
				return err
			}
		}
		_, err = s.dec.Token() // the closing delimiter
		return err
	}
	str, _ := tok.(string)
	var buf [64]byte
	s.withhold = s.withhold || embeddedObject.MatchString(name) || embeddedObject.MatchString(str)
	switch {
	case str == "" || str == redacted || slices.Contains(s.values, str) || !isSecretMember(string(jsonx.NormalizeKey(&buf, []byte(name)))):
		return nil
	case len(s.values) == maxSecretValues:
		return errWithhold
	}
	s.values = append(s.values, str)
	return nil
}
