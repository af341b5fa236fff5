package jsonx

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestEachField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		keys []string
		vals []string
		ok   bool
	}{
		{`{}`, nil, nil, true},
		{` { "a" : 1 , "B_c":"x" } `, []string{"a", "bc"}, []string{"1", `"x"`}, true},
		{`{"created-At":{"n":[1,{"x":"}"}]},"e":"q\"\\"}`, []string{"createdat", "e"}, []string{`{"n":[1,{"x":"}"}]}`, `"q\"\\"`}, true},
		{`{"\u0069d":7}`, []string{"id"}, []string{"7"}, true},
		{`{"a":1,}`, []string{"a"}, []string{"1"}, false},
		{`{"a" 1}`, nil, nil, false},
		{`{"a":`, nil, nil, false},
		{`[1]`, nil, nil, false},
		{`{"a":"unterminated}`, nil, nil, false},
		{``, nil, nil, false},
	}
	for _, tt := range tests {
		var keys, vals []string
		ok := EachField(Value(tt.in), func(k []byte, v Value) bool {
			keys = append(keys, string(k))
			vals = append(vals, string(v))
			return true
		})
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.keys, keys, tt.in)
		assert.Equal(t, tt.vals, vals, tt.in)
	}
}

func TestNormalizeKeyTooLong(t *testing.T) {
	t.Parallel()
	var buf [maxKey]byte
	assert.Nil(t, NormalizeKey(&buf, []byte(strings.Repeat("a", maxKey+1))))
	assert.Equal(t, "workspaceid", string(NormalizeKey(&buf, []byte("Workspace_ID"))))
}

func TestEachElement(t *testing.T) {
	t.Parallel()
	var got []string
	ok := EachElement(Value(`[1, "a,b", {"x":[2,3]}, [ ], null ,true]`), func(v Value) bool {
		got = append(got, string(v))
		return true
	})
	assert.True(t, ok)
	assert.Equal(t, []string{"1", `"a,b"`, `{"x":[2,3]}`, "[ ]", "null", "true"}, got)
	assert.True(t, EachElement(Value(`[]`), func(Value) bool { t.Fatal("no elements"); return true }))
	assert.False(t, EachElement(Value(`[1 2]`), func(Value) bool { return true }))
	n := 0
	assert.True(t, EachElement(Value(`[1,2,3]`), func(Value) bool { n++; return n < 2 }), "stopping early is not a failure")
	assert.Equal(t, 2, n)
}

func TestDeepNestingCostsNoStack(t *testing.T) {
	t.Parallel()
	deep := `{"a":` + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + `,"b":1}`
	var keys []string
	assert.True(t, EachField(Value(deep), func(k []byte, _ Value) bool { keys = append(keys, string(k)); return true }))
	assert.Equal(t, []string{"a", "b"}, keys)
}

func TestText(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		want string
		ok   bool
	}{
		`"abc"`:                     {"abc", true},
		`"a\u00e9\n"`:               {"aé\n", true},
		`12345678901234567`:         {"12345678901234567", true},
		`-1.5e3`:                    {"-1.5e3", true},
		`true`:                      {"", false},
		`null`:                      {"", false},
		`{"a":1}`:                   {"", false},
		`"bad \x"`:                  {"", false},
		"\"tab\tinside\"":           {"", false},
		"\"invalid utf8 \xff end\"": {"invalid utf8 \ufffd end", true},
	}
	for in, tt := range tests {
		got, ok := Value(in).Text()
		assert.Equal(t, tt.ok, ok, in)
		assert.Equal(t, tt.want, got, in)
	}
}

func TestTime(t *testing.T) {
	t.Parallel()
	base := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	tests := map[string]struct {
		want time.Time
		ok   bool
	}{
		`"2025-03-04T05:06:07Z"`:           {base, true},
		`"2025-03-04T05:06:07.5Z"`:         {base.Add(500 * time.Millisecond), true},
		`"2025-03-04T06:06:07+01:00"`:      {base, true},
		`1741064767`:                       {base, true},
		`1741064767.25`:                    {base.Add(250 * time.Millisecond), true},
		`1741064767000`:                    {base, true},
		`"2025-03-04"`:                     {time.Time{}, false},
		`"1741064767"`:                     {time.Time{}, false},
		`1e400`:                            {time.Time{}, false},
		`true`:                             {time.Time{}, false},
		`99999999999999999999999999999999`: {time.Time{}, false},
	}
	for in, tt := range tests {
		got, ok := Value(in).Time()
		assert.Equal(t, tt.ok, ok, in)
		assert.True(t, tt.want.Equal(got), "%s: got %v", in, got)
	}
}

func TestInt(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{`3`: 3, `"4"`: 4, `-2`: -2} {
		got, ok := Value(in).Int()
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{`1.5`, `"x"`, `null`, `99999999999999999999`} {
		_, ok := Value(in).Int()
		assert.False(t, ok, in)
	}
}

func TestListAndObject(t *testing.T) {
	t.Parallel()
	l, ok := List(Value(`{"meta":{},"projects":[1]}`), "projects")
	assert.True(t, ok)
	assert.Equal(t, "[1]", string(l))
	l, ok = List(Value(`{"data":null,"x":[1]}`))
	assert.True(t, ok)
	assert.Equal(t, "[]", string(l))
	_, ok = List(Value(`{"a":[1],"b":[2]}`))
	assert.False(t, ok, "two arrays and no known key: ambiguous")
	_, ok = List(Value(`42`))
	assert.False(t, ok)

	assert.Equal(t, `{"id":1}`, string(Single(Value(`{"workspace":{"id":1}}`), "workspace")))
	assert.Equal(t, `{"id":2,"data":{"id":1}}`, string(Single(Value(`{"id":2,"data":{"id":1}}`))))
	assert.Equal(t, `{"ok":true}`, string(Single(Value(`{"ok":true}`))))
}

func TestTimeExact(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		`1700000000123`:         "2023-11-14T22:13:20.123Z",
		`1700000000`:            "2023-11-14T22:13:20Z",
		`1700000000.123456789`:  "2023-11-14T22:13:20.123456789Z",
		`1700000000.1234567895`: "2023-11-14T22:13:20.12345679Z",
		`1.700000000123e12`:     "2023-11-14T22:13:20.123Z",
		`17000000001234e-1`:     "2023-11-14T22:13:20.123400Z",
		`-1.5`:                  "1969-12-31T23:59:58.5Z",
		`0`:                     "1970-01-01T00:00:00Z",
		`0.000000001`:           "1970-01-01T00:00:00.000000001Z",
		`99999999999`:           "5138-11-16T09:46:39Z",
		`100000000000`:          "1973-03-03T09:46:40Z",
		`1700000000123.5`:       "2023-11-14T22:13:20.1235Z",
	}
	for in, want := range tests {
		got, ok := Value(in).Time()
		assert.True(t, ok, in)
		w, err := time.Parse(time.RFC3339Nano, want)
		assert.NoError(t, err)
		assert.True(t, w.Equal(got), "%s: got %s, want %s", in, got.Format(time.RFC3339Nano), want)
	}
	for _, in := range []string{`1e16`, `10000000000000000`, `1.`, `01`, `1e`, `--1`, `1e99999999999999999999`} {
		_, ok := Value(in).Time()
		assert.False(t, ok, in)
	}
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{}`, `[]`, ` {"a":[1,2,{"b":null}],"c":"\u00e9\n"} `, `"x"`, `-0.5e+3`, `true`, `null`,
		`{"a":1,}`, `[1,]`, `{"a" 1}`, `[1 2]`, `01`, `1.`, `.5`, `-`, `"\x"`, "\"\x01\"", `"\u12"`, `{"a":1}}`,
		`[`, `{`, `{"a"`, `{"a":`, `tru`, `nulll`, ``, ` `, `[}`, `{]`, `{"a":1]`, `[{"a":[}]}]`,
		strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
		strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
		"\"\xff\"",
	} {
		assert.Equal(t, json.Valid([]byte(in)), Valid([]byte(in)), "%.40q", in)
	}
}

func FuzzValid(f *testing.F) {
	for _, seed := range []string{`{"a":[1,{"b":"c\n"}]}`, `[1,2`, `"\u00e9"`, `-1.5e-3`, `{"a":1,}`, `[[[]]]`, "\"\x1f\""} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", data, got, want)
		}
		r := NewReader(data)
		r.Value()
		if r.Done() != json.Valid(data) {
			t.Fatalf("Reader on %q: done %v", data, r.Done())
		}
	})
}

// TestReaderNestingLimitCountsOuterContainers holds the reader to
// encoding/json's nesting limit for values inside the containers it walks.
func TestReaderNestingLimitCountsOuterContainers(t *testing.T) {
	t.Parallel()
	for _, inner := range []int{maxDepth - 2, maxDepth - 1} {
		body := []byte(`[{"a":` + strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}]`)
		r := NewReader(body)
		for more := r.ArrayStart(); more; more = r.ArrayNext() {
			for m := r.ObjectStart(); m; m = r.ObjectNext() {
				r.Key()
				r.Value()
			}
		}
		assert.Equal(t, json.Valid(body), r.Done(), "inner depth %d", inner)
	}
}

func TestCountElements(t *testing.T) {
	t.Parallel()
	tests := []struct {
		list        string
		limit, want int
	}{
		{`[]`, 5, 0},
		{` [ ] `, 5, 0},
		{`[1,"a",{"b":[1,2]},[3,4],null]`, 10, 5},
		{`[1,2,3,4,5,6]`, 3, 4}, // counts no further than limit+1
		{`[1,2,3]`, 3, 3},
		{`{"a":[1]}`, 3, 0},
	}
	for _, tt := range tests {
		if got := CountElements(Value(tt.list), tt.limit); got != tt.want {
			t.Errorf("CountElements(%s, %d) = %d, want %d", tt.list, tt.limit, got, tt.want)
		}
	}
}

func TestFieldsIndexesAtMostMaxFields(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"next":"c"`)
	for i := range 2 * MaxFields {
		fmt.Fprintf(&b, `,"k%d":%d`, i, i)
	}
	b.WriteString(`,"late":1}`)
	o := Fields(Value(b.String()))
	if len(o) != MaxFields {
		t.Fatalf("%d keys indexed, want %d", len(o), MaxFields)
	}
	if v, ok := o.Get("next"); !ok || string(v) != `"c"` {
		t.Fatalf("next = %s, %v", v, ok)
	}
	if _, ok := o.Get("late"); ok {
		t.Fatal("a member past MaxFields was indexed")
	}
	// Duplicates do not count toward the limit.
	dup := Fields(Value(`{"a":1,"a":2,"A":3,"b":4}`))
	if len(dup) != 2 || string(dup["a"]) != "1" {
		t.Fatalf("%v", dup)
	}
}

// FuzzString holds String, AppendString and StringLen to encoding/json's
// decoding of a JSON string, invalid UTF-8 and surrogates included.
func FuzzString(f *testing.F) {
	for _, seed := range []string{
		`"abc"`, `"a\u00e9\n"`, "\"\xff\xfe\"", `"\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`,
		`"\ud83d\u0041"`, `"\/\b\f\r\t\"\\"`, `"\x"`, `"\u12"`, "\"\x01\"", `"a"b"`, "\"\xed\xa0\x80\"", `"é"`, `"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var want string
		wantOK := json.Unmarshal(in, &want) == nil && len(in) > 0 && in[0] == '"' && in[len(in)-1] == '"'
		if !wantOK {
			want = "" // a Value is one value, without white space around it
		}
		got, ok := Value(in).String()
		if ok != wantOK || got != want {
			t.Fatalf("String(%q) = %q, %v; encoding/json %q, %v", in, got, ok, want, wantOK)
		}
		n, ok := Value(in).StringLen()
		if ok != wantOK || n != len(want) {
			t.Fatalf("StringLen(%q) = %d, %v; want %d, %v", in, n, ok, len(want), wantOK)
		}
		app, ok := Value(in).AppendString([]byte("x"))
		if ok != wantOK || (ok && string(app) != "x"+want) || (!ok && string(app) != "x") {
			t.Fatalf("AppendString(%q) = %q, %v", in, app, ok)
		}
	})
}
