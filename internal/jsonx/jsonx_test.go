package jsonx

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestReaderObject(t *testing.T) {
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
		ok := read([]byte(tt.in), func(r *Reader) {
			r.Object(func(key []byte) {
				k := string(key)
				if v := r.Value(); v != nil {
					keys, vals = append(keys, k), append(vals, string(v))
				}
			})
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

func TestDeepNestingIsRefused(t *testing.T) {
	t.Parallel()
	deep := []byte(`{"a":` + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + `,"b":1}`)
	assert.False(t, valid(deep))
	_, ok := Member(deep, "b")
	assert.False(t, ok, "a member past the nesting limit is not read")
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
		`"2025-03-04T05:06:07Z` + strings.Repeat("x", 100) + `"`: {time.Time{}, false},
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

func TestMemberAndFirst(t *testing.T) {
	t.Parallel()
	obj := Value(`{"Msg":"m","message":"first","message":"dup","code":7,"x":[1}`)
	v, ok := Member(obj, "message", "msg")
	assert.True(t, ok)
	assert.Equal(t, `"first"`, string(v), "the first name wins, and of duplicates the first")
	v, ok = Member(obj, "code")
	assert.True(t, ok, "members before invalid JSON are read")
	assert.Equal(t, "7", string(v))
	_, ok = Member(obj, "x")
	assert.False(t, ok)
	_, ok = Member(Value(`[1]`), "a")
	assert.False(t, ok)
	v, ok = First(Value(`[{"a":1},2]`))
	assert.True(t, ok)
	assert.Equal(t, `{"a":1}`, string(v))
	_, ok = First(Value(`[]`))
	assert.False(t, ok)
}

func TestTimeExact(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		`1700000000123`:          "2023-11-14T22:13:20.123Z",
		`1700000000`:             "2023-11-14T22:13:20Z",
		`1700000000.123456789`:   "2023-11-14T22:13:20.123456789Z",
		`1700000000.1234567895`:  "2023-11-14T22:13:20.12345679Z",
		`1.700000000123e12`:      "2023-11-14T22:13:20.123Z",
		`17000000001234e-1`:      "2023-11-14T22:13:20.123400Z",
		`-1.5`:                   "1969-12-31T23:59:58.5Z",
		`0`:                      "1970-01-01T00:00:00Z",
		`0.000000001`:            "1970-01-01T00:00:00.000000001Z",
		`99999999999`:            "5138-11-16T09:46:39Z",
		`100000000000`:           "1973-03-03T09:46:40Z",
		`1700000000123.5`:        "2023-11-14T22:13:20.1235Z",
		`0E10000000000000000000`: "1970-01-01T00:00:00Z",
		`1e-9999999999999999999`: "1970-01-01T00:00:00Z",
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

// read runs f with a Reader at the start of data and reports whether f
// read one valid JSON value with nothing after it but white space.
func read(data []byte, f func(r *Reader)) bool {
	var r Reader
	r.Reset(data)
	f(&r)
	return r.Done()
}

// valid reports whether data is one valid JSON value surrounded by
// optional white space, as the Reader reads it.
func valid(data []byte) bool { return read(data, func(r *Reader) { r.Value() }) }

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
		assert.Equal(t, json.Valid([]byte(in)), valid([]byte(in)), "%.40q", in)
	}
}

func FuzzValid(f *testing.F) {
	for _, seed := range []string{`{"a":[1,{"b":"c\n"}]}`, `[1,2`, `"\u00e9"`, `-1.5e-3`, `{"a":1,}`, `[[[]]]`, "\"\x1f\""} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := valid(data), json.Valid(data); got != want {
			t.Fatalf("valid(%q) = %v, encoding/json says %v", data, got, want)
		}
		var n int
		ok := read(data, func(r *Reader) {
			if r.Peek() == '[' {
				r.Array(func() { n++; r.Value() })
			} else {
				r.Value()
			}
		})
		if ok != json.Valid(data) {
			t.Fatalf("Reader on %q: done %v after %d elements", data, ok, n)
		}
	})
}

// TestReaderNestingLimitCountsOuterContainers holds the reader to
// encoding/json's nesting limit for values inside the containers it walks.
func TestReaderNestingLimitCountsOuterContainers(t *testing.T) {
	t.Parallel()
	for _, inner := range []int{maxDepth - 2, maxDepth - 1} {
		body := []byte(`[{"a":` + strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}]`)
		ok := read(body, func(r *Reader) {
			r.Array(func() { r.Object(func([]byte) { r.Value() }) })
		})
		assert.Equal(t, json.Valid(body), ok, "inner depth %d", inner)
	}
}

// FuzzString holds String and StringLen to encoding/json's
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
	})
}

// TestTimeAllocatesNothing holds Time to no allocation on a long number
// and on a long string that is no time: its cost is in the body's bytes.
func TestTimeAllocatesNothing(t *testing.T) {
	for _, in := range []string{
		`0.000000001` + strings.Repeat("1", 1000),
		`-1` + strings.Repeat("0", 1000) + `e-1000`,
		`"2023-01-01T00:00:00Z` + strings.Repeat("x", 1000) + `"`,
	} {
		v := Value(in)
		allocs := testing.AllocsPerRun(10, func() { v.Time() })
		assert.Zero(t, allocs, "%.40s", in)
	}
}

// FuzzTime holds a numeric time to the exact decimal value, computed
// with math/big, rounded to the nanosecond half away from zero.
func FuzzTime(f *testing.F) {
	for _, seed := range []string{`1700000000123`, `1700000000.1234567895`, `-1.5`, `0.0000000005`, `1.700000000123e12`, `99999999999`, `9999999999999999`, `0E100`, `-0.0000000015e-0`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, ok := Value(in).Time()
		if !json.Valid([]byte(in)) || len(in) == 0 || in[0] == '"' || in[0] == ' ' || farExponent(in) {
			return // TestTime and TestTimeExact pin these
		}
		want, wantOK := bigTime(in)
		if ok != wantOK || !got.Equal(want) {
			t.Fatalf("Time(%s) = %v, %v; want %v, %v", in, got, ok, want, wantOK)
		}
	})
}

// farExponent reports an exponent too far for math/big to be quick.
func farExponent(in string) bool {
	i := strings.IndexAny(in, "eE")
	if i < 0 {
		return false
	}
	exp, err := strconv.Atoi(in[i+1:])
	return err != nil || exp > 1000 || exp < -1000
}

// bigTime is Time on a JSON number, read with math/big: exact, and slow.
func bigTime(in string) (time.Time, bool) {
	r, ok := new(big.Rat).SetString(in)
	if !ok {
		return time.Time{}, false
	}
	abs := new(big.Rat).Abs(r)
	switch {
	case abs.Cmp(big.NewRat(1e16, 1)) >= 0:
		return time.Time{}, false
	case abs.Cmp(big.NewRat(1e11, 1)) >= 0:
		r.Quo(r, big.NewRat(1000, 1))
	}
	// Nanoseconds rounded half away from zero: truncate |r|*1e9 + 1/2.
	nanos := new(big.Rat).Mul(new(big.Rat).Abs(r), big.NewRat(1e9, 1))
	nanos.Add(nanos, big.NewRat(1, 2))
	n := new(big.Int).Quo(nanos.Num(), nanos.Denom())
	if r.Sign() < 0 {
		n.Neg(n)
	}
	sec, nsec := new(big.Int).QuoRem(n, big.NewInt(1e9), new(big.Int))
	return time.Unix(sec.Int64(), nsec.Int64()).UTC(), true
}

// TestTimeOfVeryLongNumbers: a number of over half a million digits is
// refused as a time, even where an exponent cancels its digits, rather
// than read wrong past the exponent's saturation.
func TestTimeOfVeryLongNumbers(t *testing.T) {
	t.Parallel()
	const zeros = 1_100_000
	for _, in := range []string{
		"1" + strings.Repeat("0", zeros) + "e-1100000",
		"0." + strings.Repeat("0", zeros) + "1e1100001",
	} {
		_, ok := Value(in).Time()
		assert.False(t, ok, "%.12s…%s", in, in[len(in)-9:])
	}
}
