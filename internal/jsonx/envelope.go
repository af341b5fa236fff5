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
	return body[span.Start:span.End], true
}

// ListSpan finds the list as List does, validating the whole body in the
// same pass. A bare array's span is the trimmed body.
func ListSpan(body []byte, plurals ...string) (Span, Shape) {
	r := Reader{data: body}
	switch r.Peek() {
	case '[':
		start := r.Pos()
		r.Value()
		if !r.Done() {
			return Span{}, Malformed
		}
		return Span{start, r.Pos()}, Found
	case '{':
	default:
		if !Valid(body) {
			return Span{}, Malformed
		}
		return Span{}, NoList
	}
	var named [len(listKeys) + maxPlurals]Span
	var found [len(named)]bool
	var onlyArray Span
	arrays := 0
	for more := r.ObjectStart(); more; more = r.ObjectNext() {
		key := r.Key()
		start := r.Pos()
		val := r.Value()
		if r.Failed() {
			break
		}
		span := Span{start, r.Pos()}
		if val.IsArray() {
			arrays++
			onlyArray = span
		} else if string(val) == "null" {
			span = Span{start, start}
		} else {
			continue
		}
		if i := listKeyIndex(key, plurals); i >= 0 && !found[i] {
			named[i], found[i] = span, true
		}
	}
	if !r.Done() {
		return Span{}, Malformed
	}
	for i, ok := range found {
		if ok {
			return named[i], Found
		}
	}
	if arrays == 1 {
		return onlyArray, Found
	}
	return Span{}, NoList
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
