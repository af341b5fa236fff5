package bulk_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dropFirst sits in front of the fake and loses the first request whose
// method and path suffix match: the fake carries it out and loses the
// answer (DropNext(1, true)), or loses it before (DropNext(1, false)).
type dropFirst struct {
	fake           *seoapitest.Server
	method, suffix string
	afterRead      bool
	mu             sync.Mutex
	dropped        bool
}

func (d *dropFirst) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.dropped && r.Method == d.method && strings.HasSuffix(r.URL.Path, d.suffix) {
		d.dropped = true
		d.fake.DropNext(1, d.afterRead)
	}
	d.fake.ServeHTTP(w, r)
}

// TestHandlerRecipeUnderALostAnswer: the handler recipe (one project and
// one member, each a job of one item with a memory journal) on a server
// whose lists lag 200ms behind its writes, when one answer is lost: each
// item ends up existing once, and a write is sent again only when it
// made nothing.
func TestHandlerRecipeUnderALostAnswer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		method, suffix string
		afterRead      bool
		projects, adds int // the creates and adds the fake receives
	}{
		{"the create made, its answer lost", "POST", "/projects", true, 1, 1},
		{"the create lost before it was made", "POST", "/projects", false, 2, 1},
		{"the member added, the answer lost", "POST", "/members", true, 1, 1},
		{"nothing lost", "GET", "/none", false, 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := seoapitest.New()
			fake.SetLimits(seoapitest.Limits{})
			fake.SetListLag(200 * time.Millisecond)
			ws := fake.AddWorkspace("Acme")
			ts := httptest.NewServer(&dropFirst{fake: fake, method: tc.method, suffix: tc.suffix, afterRead: tc.afterRead})
			defer ts.Close()
			c, err := seoapi.NewClient(ts.URL, fake.Key(), seoapi.WithRetryWait(time.Millisecond, 5*time.Millisecond))
			require.NoError(t, err)

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			o := &onboarding{client: c, settle: 400 * time.Millisecond}
			require.NoError(t, o.onboard(ctx, ws, seoapi.ProjectCreateRequest{Name: "Docs", Domain: "docs.example"},
				seoapi.MemberAddRequest{Email: "ann@example.com", Role: "editor"}))

			fake.SetListLag(0)
			assert.Len(t, projectsOf(t, c, ws), 1)
			assert.Len(t, membersOf(t, c, ws), 1)
			posts := map[string]int{}
			for _, r := range fake.Requests() {
				if r.Method == "POST" {
					posts[r.Path[strings.LastIndexByte(r.Path, '/'):]]++
				}
			}
			assert.Equal(t, map[string]int{"/projects": tc.projects, "/members": tc.adds}, posts)
		})
	}
}
