package seoapi

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/seoapi/seoapi-go/internal/jsonx"
)

// redactor finds secrets in what a server sent back (the API key, and the
// secrets added with with) in any of the encodings a server may echo them
// in: as is, JSON-escaped (\u0053, \/), percent-encoded (%2F, %C3%BC) or as
// an HTML character reference (&#47;, &sol;). Each character of a secret
// may be encoded differently.
//
// Where a form of a secret has more than one reading (a '\' of the secret
// is a literal '\', or the first half of "\\"), every reading is followed
// at once, a set of positions in the secret per offset of the text, never
// one after another, so that finding a secret costs in proportion to
// len(text) × len(secret) at worst, whatever the secret holds (issue 17
// item 7: the backtracking matcher this replaced was exponential in a run
// of backslashes), and a text with no trace of a secret costs a scan. Of
// overlapping forms, the leftmost is redacted, and of those starting
// there, the longest, so that no half of an escape is left behind.
type redactor struct {
	secret string   // the API key; any length but empty is redacted
	extra  []string // secrets added by with, each at least minSecretLen bytes
}

// minSecretLen is the shortest secret with adds. A shorter value under a
// secret's name (a "token" of "abc") would redact ordinary text all through
// a body, and a one-character one every occurrence of that character;
// withSecretsIn reports such a body as one to withhold instead.
const minSecretLen = 8

// with returns r also redacting each of secrets, in every encoding. Empty
// secrets, secrets shorter than minSecretLen and repeats are ignored.
func (r redactor) with(secrets ...string) redactor {
	extra := slices.Clip(r.extra) // appending copies: r keeps its own list
	for _, s := range secrets {
		if len(s) >= minSecretLen && s != r.secret && !slices.Contains(extra, s) {
			extra = append(extra, s)
		}
	}
	return redactor{secret: r.secret, extra: extra}
}

// withSecretsIn returns r also redacting the secret values that body holds
// (see secretValues). ok is false when some of them cannot be redacted
// (shorter than minSecretLen, or more than maxSecretValues): the caller
// must then withhold the body rather than redact it.
func (r redactor) withSecretsIn(body []byte) (_ redactor, ok bool) {
	values, all := secretValues(body)
	ok = all
	for _, v := range values {
		if len(v) < minSecretLen {
			ok = false
		}
	}
	return r.with(values...), ok
}

// secretAt returns the ith secret r redacts: the API key, then the extra
// ones.
func (r redactor) secretAt(i int) string {
	if i == 0 {
		return r.secret
	}
	return r.extra[i-1]
}

// count returns how many secrets r redacts, the API key counted even when
// empty.
func (r redactor) count() int { return 1 + len(r.extra) }

// bytes returns b with every form of every secret replaced by [REDACTED];
// b itself is returned when it holds none.
func (r redactor) bytes(b []byte) []byte {
	out, _ := r.bytesSteps(b)
	return out
}

// bytesSteps is bytes, also returning how many encodings it tried: the
// work, which tests hold in proportion to the size of b.
func (r redactor) bytesSteps(b []byte) ([]byte, int) {
	var sc scanner
	spans := r.find(b, &sc)
	if spans == nil {
		return b, sc.steps
	}
	out := make([]byte, 0, len(b))
	last := 0
	for _, s := range spans {
		out = append(append(out, b[last:s.start]...), redacted...)
		last = s.end
	}
	return append(out, b[last:]...), sc.steps
}

// string is bytes for a string.
func (r redactor) string(s string) string {
	if !r.mayHold(s) {
		return s
	}
	b := []byte(s)
	if out := r.bytes(b); len(out) != len(b) || &out[0] != &b[0] {
		return string(out)
	}
	return s
}

// holds reports whether s holds a form of a secret.
func (r redactor) holds(s string) bool {
	if !r.mayHold(s) {
		return false
	}
	var sc scanner
	return r.find([]byte(s), &sc) != nil
}

// mayHold is the cheap test a string passes before it is scanned: it holds
// a secret as is, or the '\', '%' or '&' any other form starts with.
func (r redactor) mayHold(s string) bool {
	if s == "" {
		return false
	}
	if strings.ContainsAny(s, `\%&`) {
		return true
	}
	for i := range r.count() {
		if secret := r.secretAt(i); secret != "" && strings.Contains(s, secret) {
			return true
		}
	}
	return false
}

// header returns h with every form of every secret removed from its names
// and values; h itself when it holds none.
func (r redactor) header(h http.Header) http.Header {
	dirty := false
	for k, vs := range h {
		dirty = dirty || r.holds(k)
		for _, v := range vs {
			dirty = dirty || r.holds(v)
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

// span is where a form of a secret lies in a text: text[start:end].
type span struct{ start, end int }

// find returns where b holds a form of any of r's secrets, in order, spans
// of different secrets that overlap merged into one; nil when there is
// none.
func (r redactor) find(b []byte, sc *scanner) []span {
	var spans []span
	found := 0 // how many secrets were found
	for i := range r.count() {
		secret := r.secretAt(i)
		if secret == "" {
			continue
		}
		n := len(spans)
		for from := 0; ; {
			start, end := sc.next(b, from, secret)
			if start < 0 {
				break
			}
			if spans == nil {
				spans = make([]span, 0, 4)
			}
			spans = append(spans, span{start, end})
			from = end
		}
		if len(spans) > n {
			found++
		}
	}
	if found < 2 {
		return spans // one secret's spans are in order and apart
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	merged := spans[:1]
	for _, s := range spans[1:] {
		if last := &merged[len(merged)-1]; s.start < last.end {
			last.end = max(last.end, s.end)
		} else {
			merged = append(merged, s)
		}
	}
	return merged
}

// maxFormLen is the longest encoding of one character the matchers below
// accept: an HTML reference (&#000128512; and the like, 12 bytes with its
// ';') or the percent-encoding of four UTF-8 bytes (%F0%9F%98%80).
const maxFormLen = 12

// ringSize is how many offsets of a text the scanner keeps threads for at
// once: a power of two above maxFormLen, since a thread moves at most that
// far ahead in one step.
const ringSize = 16

// scanner finds the forms of a secret in a text. It counts its steps (one
// per encoding tried at an offset for a position in the secret), and keeps
// the threads of a simulation, made only when a text first needs one.
type scanner struct {
	steps   int
	threads *threads
}

// threads are the partial matches under way in a simulation: for each
// offset p of the text, in slot p%ringSize, the positions in the secret (a
// byte index) that a thread reached at p, with the leftmost start that
// reached each.
type threads struct {
	at    [ringSize][]int // positions, in the order they were reached
	start [ringSize][]int // start[s][k] is 1 + the leftmost start that reached k, or 0
	live  int             // threads in all slots
	size  int             // positions each slot has room for
}

// add records that the text from start matched the secret up to position
// k, ending at offset p: a new thread, or an earlier start for one already
// there (the two have the same future).
func (t *threads) add(p, k, start int) {
	s := p % ringSize
	switch old := t.start[s][k]; {
	case old == 0:
		t.start[s][k] = start + 1
		t.at[s] = append(t.at[s], k)
		t.live++
	case start+1 < old:
		t.start[s][k] = start + 1
	}
}

// threadsFor returns sc's threads, empty and with room for a secret of n
// bytes: one array, each slot a fixed part of it, so that no append ever
// grows one.
func (sc *scanner) threadsFor(n int) *threads {
	if t := sc.threads; t != nil && t.size > n {
		return t // empty: run leaves every slot empty
	}
	size := n + 1
	t := &threads{size: size}
	at := make([]int, 2*ringSize*size)
	start := at[ringSize*size:]
	for s := range ringSize {
		lo, hi := s*size, (s+1)*size
		t.at[s], t.start[s] = at[lo:lo:hi], start[lo:hi:hi]
	}
	sc.threads = t
	return t
}

// next returns the leftmost form of secret in b at or after from, the
// longest of those that start there, or -1, -1.
//
// At each byte that may start a form, it first follows the one reading of
// the secret from there while there is only one, as cheap as a plain
// comparison; only where a second reading opens does it simulate all of
// them, which is rare outside text that holds most of the secret.
func (sc *scanner) next(b []byte, from int, secret string) (start, end int) {
	first := secret[0]
	for p := from; p < len(b); p++ {
		if c := b[p]; c != first && c != '\\' && c != '%' && c != '&' {
			continue
		}
		end, branched := sc.follow(b, p, secret)
		switch {
		case end > 0:
			return p, end
		case branched:
			start, end, resume := sc.run(b, p, secret)
			if start >= 0 {
				return start, end
			}
			p = resume - 1
		}
	}
	return -1, -1
}

// follow follows the one reading of secret at b[p]: it returns where the
// form ends, or 0 when there is none, or branched when a character of the
// secret has two readings there.
func (sc *scanner) follow(b []byte, p int, secret string) (end int, branched bool) {
	for k := 0; k < len(secret); {
		lengths, count, size := encodedLengths(b[p:], secret[k:])
		sc.steps++
		switch count {
		case 0:
			return 0, false
		case 2:
			return 0, true
		}
		p, k = p+lengths[0], k+size
	}
	return p, false
}

// run simulates every reading of secret from b[p] on, starting one more at
// each byte that may start a form until a form is found: one pass over the
// text, each offset holding at most one thread per position in the secret.
// It returns the leftmost longest form, or -1, -1 and an offset before
// which no form starts. It leaves the threads empty.
func (sc *scanner) run(b []byte, p int, secret string) (start, end, resume int) {
	t := sc.threadsFor(len(secret))
	first := secret[0]
	start, end = -1, -1
	for ; ; p++ {
		if start < 0 && p < len(b) {
			if c := b[p]; c == first || c == '\\' || c == '%' || c == '&' {
				t.add(p, 0, p)
			}
		}
		s := p % ringSize
		for _, k := range t.at[s] {
			from := t.start[s][k] - 1
			t.start[s][k] = 0
			t.live--
			if start >= 0 && from > start {
				continue // a form further left is already found
			}
			lengths, count, size := encodedLengths(b[p:], secret[k:])
			sc.steps++
			for _, n := range lengths[:count] {
				switch q := p + n; {
				case k+size < len(secret):
					t.add(q, k+size, from)
				case start < 0 || from < start || from == start && q > end:
					start, end = from, q
				}
			}
		}
		t.at[s] = t.at[s][:0]
		if t.live == 0 {
			return start, end, p + 1
		}
	}
}

// encodedLengths returns the lengths of the forms of secret's first
// character that b starts with: its own bytes, a JSON escape, a
// percent-encoding, an HTML character reference; and the character's size
// in secret. There are at most two forms (the literal byte and an escape
// that starts with it). A byte of secret that is not UTF-8 is a character
// of its own, written as itself, %XX, or the \ufffd or &#65533; of an
// encoder that replaced it.
func encodedLengths(b []byte, secret string) (lengths [2]int, count, size int) {
	want, size := utf8.DecodeRuneInString(secret)
	if len(b) >= size && string(b[:size]) == secret[:size] {
		lengths[count] = size
		count++
	}
	if len(b) == 0 {
		return lengths, count, size
	}
	var n int
	switch b[0] {
	case '\\':
		n = matchBackslash(b, want)
	case '%':
		n = matchPercent(b, secret[:size])
	case '&':
		n = matchCharRef(b, want)
	}
	if n > 0 {
		lengths[count] = n
		count++
	}
	return lengths, count, size
}

// matchPercent matches a percent-encoding of the bytes of char: %2F, or
// %C3%BC for ü.
func matchPercent(b []byte, char string) int {
	i := 0
	for j := range len(char) {
		if i+3 > len(b) || b[i] != '%' {
			return 0
		}
		if v, ok := hexValue(b[i+1 : i+3]); !ok || byte(v) != char[j] {
			return 0
		}
		i += 3
	}
	return i
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

// maxSecretValues is how many distinct values secretValues returns. Each
// secret costs the redactor a pass over the text, so a body naming more
// than this many (which no honest answer does) is to be withheld, not
// redacted.
const maxSecretValues = 16

// maxEmbedded is how deep secretValues looks into JSON written inside a
// string value ("upstream said: {\"key\":\"sk_…\"}"), each level escaped
// once more than the one around it.
const maxEmbedded = 3

// secretValues returns the distinct string values, unescaped, of the
// members of body whose normalised name (jsonx.NormalizeKey) is one that
// APIKey reads its secret from (key, apikey, token, secret), at any depth
// and in JSON written inside string values, in order, so that an error body
// can be cleaned of a secret the server made. The values "" and
// "[REDACTED]" are left out. all is false when body holds more than
// maxSecretValues of them.
//
// body may be malformed or cut short (a capped error body): rather than
// parsing it, which would stop at the first fault, it is read as a
// sequence of JSON strings, a string followed by ':' naming a member, in
// one pass whatever the nesting; a value cut off by the end of the body is
// returned as far as it goes. The work is at most maxEmbedded+1 passes over
// body, and it never panics.
func secretValues(body []byte) (values []string, all bool) {
	var s secretScan
	all = s.scan(body, 0)
	return s.values, all
}

// secretScan is the state of secretValues.
type secretScan struct {
	values []string
	buf    [64]byte // jsonx.NormalizeKey's buffer
}

// scan adds the secret values text holds to s.values, text being JSON
// embedded depth times in string values; it reports false when there are
// more than maxSecretValues.
func (s *secretScan) scan(text []byte, depth int) bool {
	for i := 0; i < len(text); {
		q := bytes.IndexByte(text[i:], '"')
		if q < 0 {
			break
		}
		str := i + q
		end := jsonStringEnd(text, str)
		if end < 0 {
			// A string cut off by the end: no name, but maybe a value
			// holding JSON.
			return s.scanEmbedded(text[str+1:], depth)
		}
		i = end
		colon := skipJSONSpace(text, end)
		if colon == len(text) || text[colon] != ':' {
			if !s.scanEmbedded(text[str+1:end-1], depth) {
				return false
			}
			continue // a value, not a member's name
		}
		i = colon + 1
		if !isSecretMember(string(memberName(&s.buf, text[str:end]))) {
			continue
		}
		v := skipJSONSpace(text, i)
		if v == len(text) || text[v] != '"' {
			continue // not a string: a number, an object, nothing
		}
		end = jsonStringEnd(text, v)
		if end < 0 {
			end = len(text) + 1 // cut short: the value runs to the end
		}
		value := string(appendUnescaped(nil, text[v+1:end-1]))
		i = min(end, len(text))
		if value == "" || value == redacted || slices.Contains(s.values, value) {
			continue
		}
		if len(s.values) == maxSecretValues {
			return false
		}
		s.values = append(s.values, value)
	}
	return true
}

// scanEmbedded scans the content of a string value that holds an escaped
// quote, as JSON written inside it, unless that is deeper than maxEmbedded.
func (s *secretScan) scanEmbedded(content []byte, depth int) bool {
	if depth == maxEmbedded || !bytes.Contains(content, []byte(`\"`)) {
		return true
	}
	return s.scan(appendUnescaped(nil, content), depth+1)
}

// memberName returns the quoted member name normalised by
// jsonx.NormalizeKey, unescaped first when it holds an escape.
func memberName(buf *[64]byte, quoted []byte) []byte {
	raw := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		if s, ok := jsonx.Value(quoted).String(); ok {
			raw = []byte(s)
		}
	}
	return jsonx.NormalizeKey(buf, raw)
}

// jsonStringEnd returns the index just past the closing quote of the JSON
// string whose opening quote is at b[i], or -1 when b ends first.
func jsonStringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipJSONSpace returns the index of the first byte at or after i that is
// not JSON white space, or len(b).
func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// appendUnescaped appends the content of a JSON string to out with its
// escapes decoded and every other byte as it stands, bytes that are not
// UTF-8 included: a JSON decoder would replace them with U+FFFD and give a
// value the body does not hold. An escape cut off by the end of content (a
// body cut short) ends the value; a malformed one is kept as it stands.
func appendUnescaped(out, content []byte) []byte {
	if bytes.IndexByte(content, '\\') < 0 {
		return append(out, content...)
	}
	for i := 0; i < len(content); i++ {
		c := content[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 == len(content) {
			break
		}
		switch e := content[i+1]; e {
		case '"', '\\', '/':
			out, i = append(out, e), i+1
		case 'b', 'f', 'n', 'r', 't':
			out, i = append(out, "\b\f\n\r\t"[strings.IndexByte("bfnrt", e)]), i+1
		case 'u':
			if i+6 > len(content) {
				return out
			}
			v, ok := hexValue(content[i+2 : i+6])
			if !ok {
				out = append(out, c)
				continue
			}
			i += 5
			if utf16.IsSurrogate(v) {
				low, ok := rune(0), false
				if i+7 <= len(content) && content[i+1] == '\\' && content[i+2] == 'u' {
					low, ok = hexValue(content[i+3 : i+7])
				}
				if v = utf16.DecodeRune(v, low); ok && v != utf8.RuneError {
					i += 6
				}
			}
			out = utf8.AppendRune(out, v)
		default:
			out = append(out, c)
		}
	}
	return out
}
