package seoapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

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
				if err := decodeBody(body, &list, resp); err != nil || len(list) != n {
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
