package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/bulk"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func unsetEnv(t *testing.T) {
	t.Setenv(seoapi.EnvBaseURL, "")
	t.Setenv(seoapi.EnvAPIKey, "")
}

func TestDryRunAgainstTheFake(t *testing.T) {
	unsetEnv(t)
	var out, errOut bytes.Buffer
	require.NoError(t, run(context.Background(), &out, &errOut, options{dryRun: true, concurrency: 4, settle: time.Second}))
	s := out.String()
	assert.Contains(t, s, "Plan: project in ws_")
	assert.Contains(t, s, ": 38 create, 1 update, 0 delete, 1 none; 39 requests, ETA 780ms")
	assert.Contains(t, s, "  update blog.acme.example [name]\n")
	assert.Contains(t, s, "  create name:Internal wiki\n")
	assert.Contains(t, s, "Dry run: nothing was written.")
	assert.Empty(t, errOut.String(), "no progress: nothing is applied")
}

func TestFullRunAgainstTheFake(t *testing.T) {
	unsetEnv(t)
	var out, errOut bytes.Buffer
	require.NoError(t, run(context.Background(), &out, &errOut, options{concurrency: 4, settle: 20 * time.Millisecond, lose: 3}))
	m := regexp.MustCompile(`Done: (\d+) created, 1 updated, (\d+) adopted, 0 resumed, 1 unchanged, 0 failed.`).FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	created, _ := strconv.Atoi(m[1])
	adopted, _ := strconv.Atoi(m[2])
	assert.Equal(t, 38, created+adopted)
	// The three lost answers are those of the first three writes; one of
	// them may be the update, which counts as updated once it is found.
	assert.GreaterOrEqual(t, adopted, 2)
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	assert.NotContains(t, errOut.String(), "\r", "not a terminal: lines")
	assert.Contains(t, lines[len(lines)-1], "39/39 writes done, 40 requests", "39 writes and one more read of the list")
}

func TestAgainstAConfiguredAPI(t *testing.T) {
	srv := seoapitest.NewServer(t)
	ws := srv.AddWorkspace("Mine")
	t.Setenv(seoapi.EnvBaseURL, srv.URL())
	t.Setenv(seoapi.EnvAPIKey, srv.Key())
	journal := filepath.Join(t.TempDir(), "import.journal")
	o := options{workspace: ws, journal: journal, concurrency: 4, settle: time.Millisecond}

	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out, &bytes.Buffer{}, o))
	assert.Contains(t, out.String(), "Done: 40 created, 0 updated, 0 adopted, 0 resumed, 0 unchanged, 0 failed.")
	assert.NotContains(t, out.String(), "fake")

	out.Reset()
	require.NoError(t, run(context.Background(), &out, &bytes.Buffer{}, o))
	assert.Contains(t, out.String(), ": 0 create, 0 update, 0 delete, 40 none; 0 requests", "a second run finds everything done")

	// The next night, with the same journal: one project renamed in the
	// CSV, one deleted by hand.
	c := srv.Client()
	var gone string
	for p, err := range c.Projects.All(context.Background(), ws, nil) {
		require.NoError(t, err)
		if p.Domain == "shoes.acme.example" {
			gone = p.ID
		}
	}
	_, err := c.Projects.Delete(context.Background(), ws, gone)
	require.NoError(t, err)
	renamed := strings.Replace(string(sampleCSV), "Acme Blog,", "Acme Journal,", 1)
	require.NotEqual(t, string(sampleCSV), renamed)
	o.csv = filepath.Join(t.TempDir(), "projects.csv")
	require.NoError(t, os.WriteFile(o.csv, []byte(renamed), 0o600))
	out.Reset()
	require.NoError(t, run(context.Background(), &out, &bytes.Buffer{}, o))
	assert.Contains(t, out.String(), ": 1 create, 1 update, 0 delete, 38 none; 2 requests", "the next night converges")
	assert.Contains(t, out.String(), "Done: 1 created, 1 updated, 0 adopted, 0 resumed, 38 unchanged, 0 failed.")

	for _, tc := range []struct {
		name string
		o    options
		want string
	}{
		{"no workspace", options{journal: journal}, "-workspace"},
		{"no journal", options{workspace: ws}, "-journal"},
	} {
		err := run(context.Background(), &bytes.Buffer{}, &bytes.Buffer{}, tc.o)
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
	t.Setenv(seoapi.EnvAPIKey, "")
	err = run(context.Background(), &bytes.Buffer{}, &bytes.Buffer{}, o)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "set both")
}

func TestProgressLine(t *testing.T) {
	t.Parallel()
	p := bulk.Progress{Done: 12, Total: 40, Failed: 1, Requests: 20, ETA: 1234 * time.Millisecond}
	assert.Equal(t, "12/40 writes done (1 failed), 20 requests, ETA 1.2s", formatProgress(p, nil))
	b := seoapi.Budget{PerHour: 10000, PerSecond: 50, UsedHour: 21, UsedSecond: 20}
	assert.Equal(t, "12/40 writes done (1 failed), 20 requests, used 20/50 of the second and 21/10000 of the hour, ETA 1.2s", formatProgress(p, &b))

	var term bytes.Buffer
	l := &progressLine{w: &term, tty: true}
	l.show(p)
	l.show(bulk.Progress{Done: 40, Total: 40})
	l.finish()
	assert.Regexp(t, "^\r12/40 writes done.*\x1b\\[K\r40/40 writes done.*\x1b\\[K\n$", term.String(), "a terminal redraws one line")

	var log bytes.Buffer
	l = &progressLine{w: &log}
	l.show(p)
	l.show(bulk.Progress{Done: 40, Total: 40})
	l.finish()
	assert.Regexp(t, "^12/40 writes done[^\r]*\n40/40 writes done[^\r]*\n$", log.String(), "a log keeps every line")
}

func TestParseCSV(t *testing.T) {
	t.Parallel()
	got, err := parseCSV([]byte("Domain,Owner,NAME\nshop.example,ann,Shop\n,bob,Wiki\n"))
	require.NoError(t, err)
	assert.Equal(t, []seoapi.ProjectCreateRequest{{Name: "Shop", Domain: "shop.example"}, {Name: "Wiki"}}, got)
	for _, bad := range []string{"", "name\nShop\n", "name,domain\n,shop.example\n", "name,domain\n\"unclosed,x\n"} {
		_, err := parseCSV([]byte(bad))
		assert.Error(t, err, "%q", bad)
	}
	sample, err := parseCSV(sampleCSV)
	require.NoError(t, err)
	assert.Len(t, sample, 40)
}
