package seoapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// testMaxItems is the item limit of a client with the default response
// cap.
var testMaxItems = defaultMaxItems(0, DefaultMaxResponseBytes)

// benchProjects is a bare array of n projects in the fake API's shape.
func benchProjects(n int) []byte {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"proj_%06d","workspaceId":"ws_000001","name":"Project number %d","domain":"site%d.example.com","createdAt":"2025-03-04T05:06:07.123456789Z","updatedAt":"2025-06-07T08:09:10Z"}`, i, i, i)
	}
	b.WriteString("]")
	return []byte(b.String())
}

// BenchmarkDecodeProjects measures decoding alone, without HTTP: the SDK's
// decoder against encoding/json into an equivalent plain struct.
func BenchmarkDecodeProjects(b *testing.B) {
	type plain struct {
		ID          string    `json:"id"`
		WorkspaceID string    `json:"workspaceId"`
		Name        string    `json:"name"`
		Domain      string    `json:"domain"`
		CreatedAt   time.Time `json:"createdAt"`
		UpdatedAt   time.Time `json:"updatedAt"`
	}
	for _, n := range []int{100, 1000} {
		body := benchProjects(n)
		b.Run(fmt.Sprintf("n=%d/impl=sdk", n), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			resp := &Response{Response: &http.Response{}}
			for b.Loop() {
				var list []*Project
				if err := decodeBody(context.Background(), body, &list, resp, testMaxItems); err != nil || len(list) != n {
					b.Fatal(err, len(list))
				}
			}
		})
		b.Run(fmt.Sprintf("n=%d/impl=encodingjson", n), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				var list []*plain
				if err := json.Unmarshal(body, &list); err != nil || len(list) != n {
					b.Fatal(err, len(list))
				}
			}
		})
	}
}

// requestAsMap is the meaning of a request body: the Extra members, and
// over them each typed field that is set.
func requestAsMap(t testing.TB, extra map[string]any, typed map[string]string) map[string]any {
	m := map[string]any{}
	for k, v := range extra {
		m[k] = v
	}
	for k, v := range typed {
		if v != "" {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMarshalRequest(t *testing.T) {
	t.Parallel()
	name := "Shop"
	tests := []struct {
		name string
		req  any
		want string
	}{
		{"typed fields", ProjectCreateRequest{Name: "Shop", Domain: "shop.example"}, `{"name":"Shop","domain":"shop.example"}`},
		{"empty fields left out", ProjectCreateRequest{Name: "Shop"}, `{"name":"Shop"}`},
		{"nothing set", ProjectUpdateRequest{}, `{}`},
		{"set typed field wins over Extra", ProjectUpdateRequest{Name: &name, Extra: map[string]any{"name": "other", "locale": "de"}}, `{"name":"Shop","locale":"de"}`},
		{"unset typed field leaves Extra", ProjectCreateRequest{Extra: map[string]any{"name": "", "b": 1, "a": []int{2}}}, `{"a":[2],"b":1,"name":""}`},
		// Invalid UTF-8 is left out: how encoding/json writes it changed in Go 1.27.
		{"escaping as encoding/json", WorkspaceCreateRequest{Name: "q\"\\\n\t\x01<a&b>\u2028 é"}, `{"name":"q\"\\\n\t\u0001\u003ca\u0026b\u003e\u2028 é"}`},
		{"escaped Extra key", MemberAddRequest{Email: "a@b", Extra: map[string]any{"x\"y": true}}, `{"email":"a@b","x\"y":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			viaJSON, err := json.Marshal(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			direct, err := encodeBody(ptrTo(tt.req))
			if err != nil {
				t.Fatal(err)
			}
			if string(direct) != tt.want || string(viaJSON) != tt.want {
				t.Fatalf("direct %s, via encoding/json %s, want %s", direct, viaJSON, tt.want)
			}
		})
	}
}

// ptrTo returns a pointer to the request value, as services pass them.
func ptrTo(req any) any {
	switch r := req.(type) {
	case ProjectCreateRequest:
		return &r
	case ProjectUpdateRequest:
		return &r
	case WorkspaceCreateRequest:
		return &r
	case MemberAddRequest:
		return &r
	case APIKeyCreateRequest:
		return &r
	}
	return req
}

func TestMarshalRequestErrorsAndNil(t *testing.T) {
	t.Parallel()
	_, err := encodeBody(&APIKeyCreateRequest{Name: "k", Extra: map[string]any{"bad": make(chan int)}})
	if err == nil || !strings.Contains(err.Error(), `extra field "bad"`) {
		t.Fatalf("err = %v", err)
	}
	var nilReq *ProjectCreateRequest
	b, err := encodeBody(nilReq)
	if err != nil || string(b) != "null" {
		t.Fatalf("%s %v", b, err)
	}
}

func TestDecodeIntoNilResource(t *testing.T) {
	t.Parallel()
	var p *Project
	resp := &Response{Response: &http.Response{}}
	if err := decodeBody(context.Background(), []byte(`{"id":"a"}`), p, resp, testMaxItems); err == nil {
		t.Fatal("decoding into a nil *Project succeeded")
	}
}

// The default item limit gives each item 128 bytes of the response cap on
// the ground that no resource takes more than 160 bytes with its pointer,
// so that a list's items take at most 1.25 times the cap.
func TestResourcesFitTheItemBudget(t *testing.T) {
	t.Parallel()
	for _, size := range []uintptr{
		unsafe.Sizeof(Project{}), unsafe.Sizeof(Workspace{}), unsafe.Sizeof(Member{}),
		unsafe.Sizeof(ContentPlan{}), unsafe.Sizeof(Competitor{}), unsafe.Sizeof(APIKey{}),
	} {
		if size+unsafe.Sizeof(uintptr(0)) > 160 {
			t.Errorf("a resource of %d bytes: the default item limit (bytesPerItem) no longer keeps a list within 1.25 times the cap", size)
		}
	}
}

// countingContext ends at its limit-th look at Err, and counts the looks.
type countingContext struct {
	context.Context
	looks, limit int
}

func (c *countingContext) Err() error {
	c.looks++
	if c.looks >= c.limit {
		return context.Canceled
	}
	return nil
}

// A long list ends soon after the call's context does: the context is
// looked at before decoding and every ctxCheckEvery elements or envelope
// members, and the decode stops at the first look that finds it ended. A
// refused element or an item past the limit ends the decode at once (the
// body was validated before), and one resource, like a caller's own type,
// is decoded by one encoding/json call once the context is found live.
func TestDecodeStopsWhenContextEnds(t *testing.T) {
	t.Parallel()
	items := 50 * ctxCheckEvery
	list := []byte("[" + strings.Repeat(`{"id":"a"},`, items-1) + `{"id":"a"}]`)
	members := []byte(`{"data":[]` + strings.Repeat(`,"x":{}`, items) + `}`)
	tests := []struct {
		name string
		body []byte
		v    func() any
	}{
		{"list", list, func() any { return new([]*Project) }},
		{"envelope", []byte(`{"data":` + string(list) + `}`), func() any { return new([]*Workspace) }},
		{"envelope members", members, func() any { return new([]*Member) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := &Response{Response: &http.Response{}}
			ctx := &countingContext{Context: context.Background(), limit: 3}
			err := decodeBody(ctx, tt.body, tt.v(), resp, testMaxItems)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if ctx.looks > 3 {
				t.Fatalf("the context was looked at %d times after it ended", ctx.looks-3)
			}
			// With a live context, the same body decodes.
			if err = decodeBody(context.Background(), tt.body, tt.v(), resp, testMaxItems); err != nil {
				t.Fatal(err)
			}
		})
	}

	for name, v := range map[string]any{"a caller's own type": new([]map[string]any), "one resource": new(Project)} {
		ctx := &countingContext{Context: context.Background(), limit: 1}
		if err := decodeBody(ctx, list, v, &Response{}, testMaxItems); !errors.Is(err, context.Canceled) || !reflect.ValueOf(v).Elem().IsZero() {
			t.Fatalf("%s: err = %v, %v", name, err, v)
		}
	}
}

// BenchmarkDecodeOneProject measures decoding one resource, the answer of
// a create or an update, without HTTP.
func BenchmarkDecodeOneProject(b *testing.B) {
	body := []byte(`{"id":"proj_000001","workspaceId":"ws_000001","name":"Shop","domain":"shop.example.com","createdAt":"2025-03-04T05:06:07.123456789Z","updatedAt":"2025-06-07T08:09:10Z"}`)
	b.ReportAllocs()
	resp := &Response{Response: &http.Response{}}
	for b.Loop() {
		var p Project
		if err := decodeBody(context.Background(), body, &p, resp, testMaxItems); err != nil || p.ID == "" {
			b.Fatal(err)
		}
	}
}

// TestRawDoesNotHoldThePage: an item's Raw is a copy, so that a kept item
// does not keep its page's body alive, and changing the body later does
// not change it.
func TestRawDoesNotHoldThePage(t *testing.T) {
	t.Parallel()
	body := []byte(`{"data":[{"id":"a"},{"id":"b"}]}`)
	var list []*Project
	if err := decodeBody(context.Background(), body, &list, &Response{}, testMaxItems); err != nil {
		t.Fatal(err)
	}
	clear(body)
	if got := string(list[1].Raw()); got != `{"id":"b"}` {
		t.Fatalf("Raw %q after the body changed", got)
	}
}

// TestSingularNameIsASCII: a member whose name only Unicode case folding
// turns into the resource's name (KELVIN SIGN for k, LONG S for s) is not
// the singular-name envelope; "Workspace" in any ASCII case is.
func TestSingularNameIsASCII(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, id string
		v              interface{ identity() string }
	}{
		{"kelvin and long s", `{"wor` + "\u212a\u017f" + `pace":{"id":"inner"}}`, "", &Workspace{}},
		{"kelvin", `{"api` + "\u212a" + `ey":{"id":"inner","key":"s3cret_value"}}`, "", &APIKey{}},
		{"ASCII case", `{"WorkSpace":{"id":"inner"}}`, "inner", &Workspace{}},
		{"normalised", `{"api_key":{"id":"inner","key":"s3cret_value"}}`, "inner", &APIKey{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := decodeBody(context.Background(), []byte(tt.body), tt.v, nil, 10); err != nil {
				t.Fatal(err)
			}
			if got := tt.v.identity(); got != tt.id {
				t.Errorf("ID %q, want %q", got, tt.id)
			}
		})
	}
}
