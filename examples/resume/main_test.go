package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pageLine is a line listing the competitors of one page.
var pageLine = regexp.MustCompile(`(?m)^  page \d+: (.*)$`)

// TestResumeAfterACrash runs the example in each paging style, stopping
// the first run after several pages: the second run resumes from the
// saved token, and every competitor is handled once, in order. Stopped
// after the last page, the first run leaves that page's token, which names
// the end of the list: the second run fetches nothing and ends the job.
func TestResumeAfterACrash(t *testing.T) {
	t.Parallel()
	const items, perPage = 10, 4 // pages of 4, 4 and 2
	const (
		lastPage = "Run 2: that was the last page; the job is done and its saved token removed."
		atEnd    = "Run 2: the saved token names the end of the list: no page was left to fetch, and nothing was sent. The job is done and its saved token removed."
	)
	for _, paging := range []string{"link", "page", "cursor"} {
		for _, tt := range []struct {
			crashAfter int
			run2       string // how the second run ends
		}{
			{1, lastPage},
			{2, lastPage},
			{3, atEnd},
		} {
			crashAfter := tt.crashAfter
			t.Run(fmt.Sprintf("%s/stopped after page %d", paging, crashAfter), func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				state := filepath.Join(t.TempDir(), "next")
				var buf bytes.Buffer
				require.NoError(t, run(ctx, &buf, options{items: items, perPage: perPage, crashAfter: crashAfter, paging: paging, state: state}))
				out := buf.String()

				assert.Contains(t, out, "Run 1: no saved token, starting at the first page.")
				assert.Contains(t, out, fmt.Sprintf("Run 1: stopped after page %d, as if the process had died.", crashAfter))
				assert.Contains(t, out, "Run 2: resuming from the saved token")
				assert.Contains(t, out, tt.run2)
				assert.Contains(t, out, "Every competitor handled once, in order: 10 of 10. 3 requests for 3 pages: none fetched twice.")
				var names []string
				for _, m := range pageLine.FindAllStringSubmatch(out, -1) {
					names = append(names, strings.Fields(m[1])...)
				}
				require.Len(t, names, items, out)
				for i, n := range names {
					assert.Equal(t, fmt.Sprintf("rival-%02d", i+1), n)
				}
				assert.NoFileExists(t, state, "removed when the job is done")
			})
		}
	}
}

// TestNoCrashNoResume: a first run that reads the list to its end leaves
// nothing to resume.
func TestNoCrashNoResume(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	require.NoError(t, run(context.Background(), &buf, options{items: 3, perPage: 4, crashAfter: 2, paging: "cursor"}))
	assert.Contains(t, buf.String(), "Run 1: that was the last page; the job is done and its saved token removed.")
	assert.Contains(t, buf.String(), "nothing to resume")
	assert.Contains(t, buf.String(), "Every competitor handled once, in order: 3 of 3. 1 requests for 1 pages")
	assert.NotContains(t, buf.String(), "Run 2")
}

// TestTokenOfAnotherListIsRefused: a saved token edited to name another
// project's list is refused before anything is sent, with an error that
// says what to do.
func TestTokenOfAnotherListIsRefused(t *testing.T) {
	t.Parallel()
	fake := seoapitest.New()
	fake.SetPaging(seoapitest.PagingLink, 2)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	p := fake.AddProject(ws, "Shop", "shop.example")
	other := fake.AddProject(ws, "Blog", "blog.example")
	for i := range 5 {
		fake.AddCompetitor(ws, p, fmt.Sprintf("rival-%02d", i+1), "r.example")
		fake.AddCompetitor(ws, other, fmt.Sprintf("other-%02d", i+1), "o.example")
	}
	state := filepath.Join(t.TempDir(), "next")
	j := job{baseURL: srv.URL, key: fake.Key(), workspaceID: ws, projectID: p, state: state, perPage: 2, run: 1, stopAfter: 1}
	var out bytes.Buffer
	require.ErrorIs(t, j.do(context.Background(), &out, func(*seoapi.Competitor) {}), errStopped)
	token, err := load(state)
	require.NoError(t, err)
	data, err := base64.RawURLEncoding.DecodeString(token)
	require.NoError(t, err)
	require.Contains(t, string(data), p)

	edited := strings.ReplaceAll(string(data), p, other) // the path and the next link
	require.NoError(t, save(state, base64.RawURLEncoding.EncodeToString([]byte(edited))))
	before := len(fake.Requests())
	err = j.do(context.Background(), &out, func(*seoapi.Competitor) {})
	require.ErrorIs(t, err, seoapi.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "delete the file to start over")
	assert.Len(t, fake.Requests(), before, "nothing sent")

	require.NoError(t, os.Remove(state))
	var handled int
	j.stopAfter = 0
	require.NoError(t, j.do(context.Background(), &out, func(*seoapi.Competitor) { handled++ }))
	assert.Equal(t, 5, handled, "without the file the job starts over")
}

func TestBadFlags(t *testing.T) {
	t.Parallel()
	for _, o := range []options{
		{items: 1, perPage: 1, crashAfter: 1, paging: "smoke signals"},
		{items: 0, perPage: 1, crashAfter: 1, paging: "link"},
		{items: 1, perPage: 101, crashAfter: 1, paging: "link"},
		{items: 1, perPage: 1, crashAfter: 0, paging: "link"},
	} {
		assert.Error(t, run(context.Background(), &bytes.Buffer{}, o), "%+v", o)
	}
}
