package seoapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
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

// A redactor removes secrets (the API key, created keys) from what a server
// sent: in any letter case, in base64 after any bytes, and within maxRounds
// decodings of a word (JSON, percent and HTML escapes, base64), as no secret
// or encoding holds white space. Secrets are *string: fmt prints addresses.
type redactor struct {
	secrets  []*string      // none empty or with white space; the API key first
	plain    *regexp.Regexp // any secret, in any letter case, once or more in a row
	minRunes int            // the characters of the shortest secret; MaxInt for none
	base64   []*string      // the secrets' base64 forms (base64Forms), none shorter than minRunes
}

const (
	maxRounds       = 4    // the decodings, one inside another, a word is read through
	maxSecretValues = 16   // the secrets an answer may name and still be shown
	maxSecretLength = 4096 // the longest secret searched for: the pattern grows with each
	maxLoosePairs   = 4096 // the members looseSecretValues reads
)

var (
	// decoders decode runs of escapes, so that the bytes of a character
	// decode together; each escape begins with the marker.
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
	// memberPair is a JSON member whose value is a string, possibly cut:
	// found in a body that cannot be read as JSON.
	memberPair = regexp.MustCompile(`"((?:[^"\\]|\\.){1,64})"\s*:\s*"((?:[^"\\]|\\.)*)`)
	// units are what a secret found decoded is replaced with, smallest
	// first: a part of a URL or a header value, a JSON string, a word.
	units = [...]*regexp.Regexp{
		regexp.MustCompile(`[^\s"'<>?&=;,\\]+`), regexp.MustCompile(`"(?:[^"\\]|\\.)*"`), regexp.MustCompile(`\S+`),
	}
)

// unescapeJSON decodes a run of JSON escapes, \U as \u (for upper-cased text).
func unescapeJSON(run string) string {
	var s string
	_ = json.Unmarshal([]byte(`"`+strings.ReplaceAll(run, `\U`, `\u`)+`"`), &s)
	return s
}

// newRedactor returns a redactor of secrets, the API key first; an empty
// one is left out, so an empty key redacts nothing.
func newRedactor(secrets ...string) *redactor {
	r := &redactor{minRunes: math.MaxInt}
	var quoted []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		r.secrets, quoted = append(r.secrets, &s), append(quoted, regexp.QuoteMeta(s))
		r.minRunes = min(r.minRunes, utf8.RuneCountInString(s))
		for _, form := range base64Forms(s) {
			r.base64 = append(r.base64, &form)
		}
	}
	r.plain = regexp.MustCompile(`(?i)(?:` + strings.Join(quoted, `|`) + `)+`)
	r.plain.Longest()
	return r
}

// base64Forms returns secret's base64 (as written, upper- and lower-cased,
// in both alphabets) after 0, 1 and 2 bytes, without the characters that
// also encode the bytes around it: found after any bytes ("user:", say).
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

// withSecretsIn returns a redactor also removing the secrets secretValues
// finds in body, an API key answer; ok is false when body must be withheld:
// unreadable, or a secret with white space or of a length out of bounds.
func (r *redactor) withSecretsIn(body []byte) (_ *redactor, ok bool) {
	values, ok := secretValues(body)
	var secrets []string
	for _, s := range r.secrets {
		secrets = append(secrets, *s)
	}
	for _, v := range values {
		if n := utf8.RuneCountInString(v); n < MinAPIKeyLength || n > maxSecretLength || strings.ContainsFunc(v, unicode.IsSpace) {
			ok = false
		} else {
			secrets = append(secrets, v)
		}
	}
	return newRedactor(secrets...), ok
}

// string returns s without secrets: while s holds one, it replaces plain
// occurrences in place, then each unit of units holding one, then all of s.
func (r *redactor) string(s string) string {
	for step := 0; r.holds(s, maxRounds); step++ {
		switch {
		case step == 0:
			s = r.plain.ReplaceAllLiteralString(s, redacted)
		case step <= len(units):
			s = units[step-1].ReplaceAllStringFunc(s, r.unit)
		default:
			return redacted
		}
	}
	return s
}

// unit returns u, or [REDACTED] if u holds a secret (a JSON string stays one).
func (r *redactor) unit(u string) string {
	if !r.holds(u, maxRounds) {
		return u
	} else if strings.HasPrefix(u, `"`) && len(u) > 1 {
		return `"` + redacted + `"`
	}
	return redacted
}

// bytes is string for a body; b itself when it holds no secret.
func (r *redactor) bytes(b []byte) []byte {
	if s := string(b); r.holds(s, maxRounds) {
		return []byte(r.string(s))
	}
	return b
}

// errorBody cleans b, then cuts it to maxErrorBody bytes (so a halved
// secret is found), copied when cut so the error keeps no large body alive.
func (r *redactor) errorBody(b []byte) []byte {
	b = r.bytes(b[:min(len(b), maxErrorBody+4096)])
	if len(b) > maxErrorBody {
		return bytes.Clone(b[:maxErrorBody])
	}
	return b
}

// answer cleans the status line, header and trailer of resp: a header
// holding a secret becomes a cleaned copy, a clean one is read once.
func (r *redactor) answer(resp *http.Response) {
	if r.holds(resp.Status, maxRounds) {
		resp.Status = r.string(resp.Status)
	}
	for _, h := range [...]*http.Header{&resp.Header, &resp.Trailer} {
		dirty := false
		for name, values := range *h {
			dirty = dirty || r.holds(name, maxRounds) || slices.ContainsFunc(values, func(v string) bool { return r.holds(v, maxRounds) })
		}
		if dirty {
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
}

// holds reports whether s holds a secret, as it stands or within rounds
// decodings. Text without escapes or long base64 runs allocates nothing.
func (r *redactor) holds(s string, rounds int) bool {
	n := utf8.RuneCountInString(s)
	if n < r.minRunes {
		return false // no decoding yields more characters than it reads
	}
	if n < len(s) && r.plain.MatchString(s) {
		return true // a letter whose case fold takes other bytes (ſ for s)
	}
	for _, secret := range r.secrets {
		first := (*secret)[0] | 0x20 // a cheap test of the first byte, before EqualFold
		for i := 0; i+len(*secret) <= len(s); i++ {
			if (s[i]|0x20 == first || first >= utf8.RuneSelf) && strings.EqualFold(s[i:i+len(*secret)], *secret) {
				return true
			}
		}
	}
	return r.inBase64(s, rounds) || rounds > 0 && strings.ContainsAny(s, `\%&`) && r.inEscapes(s, rounds-1)
}

// inBase64 reports whether a base64 run in s holds a secret's base64 form,
// or decodes to text holding a secret within rounds. Other text may be
// glued in front of the base64 ("token_", a path), so a run is decoded
// from each of its first four characters, in either alphabet or both.
func (r *redactor) inBase64(s string, rounds int) bool {
	var buf, src [512]byte // a run that decodes to noise costs no allocation
	for run := range strings.FieldsFuncSeq(s, notBase64) {
		if len(run) >= r.minRunes && slices.ContainsFunc(r.base64, func(f *string) bool { return strings.Contains(run, *f) }) {
			return true
		}
		for k := 0; rounds > 0 && k < 4 && 3*(len(run)-k) >= 4*r.minRunes; k++ { // 4 characters for 3 bytes
			out := decodeBase64(buf[:0], append(src[:0], run[k:]...))
			// The bytes glued in front decode to noise: a space each.
			if longestWord(out) >= r.minRunes && r.holds(strings.ToValidUTF8(string(out), " "), rounds-1) {
				return true
			}
		}
	}
	return false
}

// decodeBase64 appends to dst what src, base64 in either alphabet or both
// and unpadded, decodes to; src is overwritten.
func decodeBase64(dst, src []byte) []byte {
	if len(src)%4 == 1 {
		src = src[:len(src)-1] // no base64 ends in one character
	}
	for i, c := range src {
		switch c {
		case '-':
			src[i] = '+'
		case '_':
			src[i] = '/'
		}
	}
	out, _ := base64.RawStdEncoding.AppendDecode(dst, src) // only valid characters are left
	return out
}

// longestWord returns the most characters in a row in b that are valid
// UTF-8 and not white space: no secret, in any form, has fewer.
func longestWord(b []byte) (longest int) {
	for n := 0; len(b) > 0; {
		c, size := utf8.DecodeRune(b)
		b = b[size:]
		if c == utf8.RuneError && size == 1 || unicode.IsSpace(c) {
			n = 0
			continue
		}
		n++
		longest = max(longest, n)
	}
	return longest
}

// inEscapes reports whether a word of s that an escape decoding changes
// holds a secret once decoded, within rounds.
func (r *redactor) inEscapes(s string, rounds int) bool {
	for word := range strings.FieldsSeq(s) {
		for _, d := range decoders {
			if utf8.RuneCountInString(word) < r.minRunes || strings.IndexByte(word, d.marker) < 0 || !d.runs.MatchString(word) {
				continue
			}
			if text := d.runs.ReplaceAllStringFunc(word, d.decode); text != word && r.holds(text, rounds) {
				return true
			}
		}
	}
	return false
}

// notBase64 reports a character of neither base64 alphabet.
func notBase64(c rune) bool {
	return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_')
}

// secretValues returns, in order, the distinct values but "" and [REDACTED]
// of body's string members whose normalised name isSecretMember. ok is false
// when body must be withheld: not one JSON value (cut short, or nested past
// 10,000 levels), over maxSecretValues values, a name too long to read, or a
// string or name holding a JSON object (a gateway quoting its upstream).
func secretValues(body []byte) (values []string, ok bool) {
	ok = true
	var walk func(r *jsonx.Reader, secret bool)
	walk = func(r *jsonx.Reader, secret bool) {
		switch r.Peek() {
		case '{':
			r.Object(func(name []byte) {
				ok = ok && name != nil && !embeddedObject.Match(name)
				walk(r, isSecretMember(string(name)))
			})
		case '[':
			r.Array(func() { walk(r, false) })
		default:
			str, _ := r.Value().String()
			ok = ok && !embeddedObject.MatchString(str)
			switch {
			case !secret || str == "" || str == redacted || slices.Contains(values, str):
			case len(values) == maxSecretValues:
				r.Stop() // the read fails: the body is withheld
			default:
				values = append(values, str)
			}
		}
	}
	var r jsonx.Reader
	r.Reset(body)
	for r.Peek() != 0 { // every value of a stream of JSON values
		walk(&r, false)
	}
	if !r.Done() || !ok {
		// Withheld; the headers are still cleaned of the secrets it names later.
		return looseSecretValues(body, values), false
	}
	return values, true
}

// looseSecretValues adds to values those of body's string members named
// isSecretMember, read as text, as body need not be JSON. A hostile body costs
// little: it reads maxLoosePairs members and keeps 4*maxSecretValues values.
func looseSecretValues(body []byte, values []string) []string {
	var buf [64]byte
	for _, m := range memberPair.FindAllSubmatch(body, maxLoosePairs) {
		name := jsonx.NormalizeKey(&buf, []byte(unescapeJSON(string(m[1]))))
		if len(values) == 4*maxSecretValues || !isSecretMember(string(name)) {
			continue
		}
		if value := unescapeJSON(string(m[2])); value != "" && value != redacted && !slices.Contains(values, value) {
			values = append(values, value)
		}
	}
	return values
}
