package jsonx

// listKeys are the envelope keys that hold a list, before the resource's
// own plural name.
var listKeys = [...]string{"data", "items", "results"}

// maxPlurals is how many resource names List and ListSpan look for.
const maxPlurals = 4

// Span is where a value lies in a body: body[Start:End].
type Span struct{ Start, End int }

// Empty reports whether the span holds nothing, as for a null list.
func (s Span) Empty() bool { return s.Start == s.End }

// Shape is what ListSpan found in a body.
type Shape int

// The shapes ListSpan tells apart.
const (
	// Malformed: the body is not valid JSON.
	Malformed Shape = iota
	// NoList: the body is valid JSON holding no list.
	NoList
	// Found: the span holds the list, or is empty for a null list.
	Found
)

// List finds the array in a list response body: the body itself when it is
// an array, else the member named data, items, results or one of plurals
// (normalised names, in that order), else the object's only array member.
// A null list member gives an empty list. ok is false when the body holds
// no list at all or is not valid JSON.
func List(body Value, plurals ...string) (list Value, ok bool) {
	span, shape := ListSpan(body, plurals...)
	if shape != Found {
		return nil, false
	}
	if span.Empty() {
		return Value("[]"), true
	}
	if !ValidList(body, span) {
		return nil, false
	}
	return body[span.Start:span.End], true
}

// ListSpan finds the list as List does and validates the rest of the
// body in the same pass. The list itself is left for the caller to
// validate, as decoding it with a Reader (or encoding/json) does, so that
// it is walked once rather than twice. A bare array's span is the trimmed
// body.
func ListSpan(body []byte, plurals ...string) (Span, Shape) {
	r := Reader{data: body}
	switch r.Peek() {
	case '[':
		start := r.Pos()
		end := skipValue(body, start)
		if end < 0 || skipSpace(body, end) != len(body) {
			return Span{}, Malformed
		}
		return Span{start, end}, Found
	case '{':
	default:
		if !Valid(body) {
			return Span{}, Malformed
		}
		return Span{}, NoList
	}
	var e envelope
	for more := r.ObjectStart(); more; more = r.ObjectNext() {
		key := r.Key()
		if !e.member(&r, key, plurals) {
			break
		}
	}
	if !r.Done() {
		return Span{}, Malformed
	}
	list, shape := e.list()
	if !e.validateOthers(body, list) {
		return Span{}, Malformed
	}
	return list, shape
}

// ValidList validates the list ListSpan found in body, which ListSpan
// leaves to its caller, counting the envelope toward the nesting limit.
func ValidList(body []byte, list Span) bool {
	if list.Empty() {
		return true
	}
	depth := 1 // inside the envelope
	if list.Start == skipSpace(body, 0) {
		depth = 0 // the body itself
	}
	return scanValueAt(body, list.Start, depth) == list.End
}

// envelope is what ListSpan gathers from the members of a list envelope.
type envelope struct {
	named     [len(listKeys) + maxPlurals]Span
	found     [len(listKeys) + maxPlurals]bool
	onlyArray Span
	arrays    int
	// unchecked are arrays skipped without validation, since one of them
	// may be the list; arrays beyond these few are validated as they come.
	unchecked  [4]Span
	nUnchecked int
}

// member reads one member's value, reporting false on invalid JSON.
func (e *envelope) member(r *Reader, key []byte, plurals []string) bool {
	start := r.Peek()
	pos := r.Pos()
	var span Span
	switch {
	case start == '[' && e.nUnchecked < len(e.unchecked):
		end := skipValue(r.data, pos)
		if end < 0 {
			return r.fail()
		}
		r.pos = end
		span = Span{pos, end}
		e.unchecked[e.nUnchecked] = span
		e.nUnchecked++
	default:
		val := r.Value()
		if r.Failed() {
			return false
		}
		span = Span{pos, r.Pos()}
		if string(val) == "null" {
			span = Span{pos, pos}
		} else if start != '[' {
			return true
		}
	}
	if start == '[' {
		e.arrays++
		e.onlyArray = span
	}
	if i := listKeyIndex(key, plurals); i >= 0 && !e.found[i] {
		e.named[i], e.found[i] = span, true
	}
	return true
}

// list picks the list: the first named candidate, else the only array.
func (e *envelope) list() (Span, Shape) {
	for i, ok := range e.found {
		if ok {
			return e.named[i], Found
		}
	}
	if e.arrays == 1 {
		return e.onlyArray, Found
	}
	return Span{}, NoList
}

// validateOthers validates the arrays skipped unchecked, except the list.
func (e *envelope) validateOthers(body []byte, list Span) bool {
	for _, s := range e.unchecked[:e.nUnchecked] {
		if s != list && scanValueAt(body, s.Start, 1) != s.End {
			return false
		}
	}
	return true
}

// listKeyIndex returns the rank of key among the list keys and then the
// plurals, or -1.
func listKeyIndex(key []byte, plurals []string) int {
	for i, name := range listKeys {
		if string(key) == name {
			return i
		}
	}
	for i, name := range plurals {
		if i < maxPlurals && string(key) == name {
			return len(listKeys) + i
		}
	}
	return -1
}

// Single finds the object in a single-resource response body: the body
// itself when it has an "id" member, else its data member or a member
// named one of singulars (normalised) when that is an object, else the
// body itself.
func Single(body Value, singulars ...string) Value {
	span := SingleSpan(body, singulars...)
	return body[span.Start:span.End]
}

// SingleSpan finds the object as Single does and returns where it lies in
// body, white space trimmed. It stops at the first invalid byte: check the
// body with Valid first.
func SingleSpan(body []byte, singulars ...string) Span {
	start := skipSpace(body, 0)
	whole := Span{start, start + len(Trim(body))}
	r := Reader{data: body}
	if r.Peek() != '{' {
		return whole
	}
	var inner Span
	for more := r.ObjectStart(); more; more = r.ObjectNext() {
		key := r.Key()
		if string(key) == "id" {
			return whole
		}
		valStart := r.Pos()
		val := r.Value()
		if r.Failed() {
			return whole
		}
		if inner.Empty() && val.IsObject() && (string(key) == "data" || contains(singulars, string(key))) {
			inner = Span{valStart, r.Pos()}
		}
	}
	if inner.Empty() {
		return whole
	}
	return inner
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
