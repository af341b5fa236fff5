package seoapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
)

// projectsBody is a 100-project list in the fake API's shape.
func projectsBody() []byte {
	var b strings.Builder
	b.WriteString("[")
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"proj_%06d","workspaceId":"ws_000001","name":"Project number %d","domain":"site%d.example.com","createdAt":"2025-03-04T05:06:07.123456789Z","updatedAt":"2025-06-07T08:09:10Z"}`, i, i, i)
	}
	b.WriteString("]")
	return []byte(b.String())
}

func projectsServer(b *testing.B) *httptest.Server {
	body := projectsBody()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// plainProject is what a hand-written client would decode into.
type plainProject struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	Name        string    `json:"name"`
	Domain      string    `json:"domain"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// listPlain is the hand-written net/http + encoding/json client.
func listPlain(ctx context.Context, hc *http.Client, baseURL, key string) ([]*plainProject, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/api/workspaces/ws_000001/projects", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "plain/1.0")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var out []*plainProject
	return out, json.Unmarshal(body, &out)
}

// BenchmarkListProjects compares one List call of 100 projects through the
// SDK (limiter off) with a hand-written net/http + encoding/json client.
//
//	go test -run '^$' -bench ListProjects -benchmem -count 10 . | tee bench.txt
//	benchstat -col /impl bench.txt
func BenchmarkListProjects(b *testing.B) {
	ctx := context.Background()
	b.Run("impl=sdk", func(b *testing.B) {
		srv := projectsServer(b)
		c, err := seoapi.NewClient(srv.URL, testKey, seoapi.WithoutRateLimit())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			list, _, err := c.Projects.List(ctx, "ws_000001", nil)
			if err != nil || len(list) != 100 {
				b.Fatal(err, len(list))
			}
		}
	})
	b.Run("impl=nethttp", func(b *testing.B) {
		srv := projectsServer(b)
		hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: time.Minute}
		b.ReportAllocs()
		for b.Loop() {
			list, err := listPlain(ctx, hc, srv.URL, testKey)
			if err != nil || len(list) != 100 {
				b.Fatal(err, len(list))
			}
		}
	})
}
