// Command resume shows a long job that survives a restart. It lists every
// competitor of a project page by page with Pages, handles each page, and
// then saves the page's Next token to a file. When it starts, it reads the
// file and, when there is a token, sets it as ListOptions.Resume: the job
// carries on at the page after the last one it finished, instead of
// starting over and spending the hour's request budget again.
//
// It runs against the in-process fake API of package seoapitest. It runs
// the job once, stops it after -crash-after pages as if the process had
// died, then runs it again, as a restarted process would, and checks that
// every competitor was handled once, in order, with no page fetched twice:
//
//	go run ./examples/resume
//	go run ./examples/resume -paging cursor -items 23 -per-page 5 -crash-after 3
//
// The token works whatever paging the server uses (-paging link, page or
// cursor). It holds no key or secret, so it can be kept in a file, a
// database or a log, and it outlives a rotation of the API key. It is not
// signed, but it is bound to one list and one base URL: given to another
// list or another client's base URL, or edited to name another list, it
// is refused with seoapi.ErrInvalidArgument before anything is sent. A
// program that takes tokens from people it does not trust signs them
// itself.
//
// The job saves the token after it has handled a page, so a process that
// dies in the middle of a page handles that page again when it resumes:
// make the handling of an item idempotent (an upsert keyed by the item's
// ID), and the job handles every item exactly once in effect.
//
// It saves the last page's token too: that token names the end of the
// list, so a run that resumes from it fetches nothing. When the loop over
// the pages ends without an error, the list was read to its end: the job
// is done and removes the file, and the next run starts at the first page.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

// options are the command line.
type options struct {
	items      int    // competitors in the list
	perPage    int    // page size
	crashAfter int    // pages the first run handles before it stops
	paging     string // link, page or cursor
	state      string // the file the token is saved in; a temporary one when ""
}

func main() {
	var o options
	flag.IntVar(&o.items, "items", 10, "competitors in the list")
	flag.IntVar(&o.perPage, "per-page", 4, "page size")
	flag.IntVar(&o.crashAfter, "crash-after", 2, "pages the first run handles before it stops, as if the process died")
	flag.StringVar(&o.paging, "paging", "link", "how the fake pages lists: link, page or cursor")
	flag.StringVar(&o.state, "state", "", "the file the job saves its Next token in (default: a temporary file)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "resume:", err)
		cancel()
		os.Exit(1)
	}
}

// pagingStyles are the fake's paging styles by their flag names.
var pagingStyles = map[string]seoapitest.Paging{
	"link":   seoapitest.PagingLink,
	"page":   seoapitest.PagingPage,
	"cursor": seoapitest.PagingCursor,
}

// run starts the fake with a project of o.items competitors, runs the job
// until it stops after o.crashAfter pages, runs it again to the end, and
// checks what the two runs handled.
func run(ctx context.Context, out io.Writer, o options) error {
	style, ok := pagingStyles[o.paging]
	switch {
	case !ok:
		return fmt.Errorf("-paging %q: use link, page or cursor", o.paging)
	case o.items < 1 || o.perPage < 1 || o.perPage > seoapitest.MaxPageSize || o.crashAfter < 1:
		return errors.New("-items, -per-page and -crash-after must be positive, and -per-page at most 100")
	}
	if o.state == "" {
		dir, err := os.MkdirTemp("", "seoapi-resume-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o.state = filepath.Join(dir, "competitors.next")
	}

	fake := seoapitest.New()
	fake.SetPaging(style, o.perPage)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	project := fake.AddProject(ws, "Shop", "shop.example")
	for i := range o.items {
		fake.AddCompetitor(ws, project, fmt.Sprintf("rival-%02d", i+1), fmt.Sprintf("rival-%02d.example", i+1))
	}
	fmt.Fprintf(out, "The fake lists %d competitors in pages of %d (%s paging). The job saves each page's Next token to %s.\n\n",
		o.items, o.perPage, o.paging, filepath.Base(o.state))

	j := job{baseURL: srv.URL, key: fake.Key(), workspaceID: ws, projectID: project, state: o.state, perPage: o.perPage}
	var handled []string
	handle := func(c *seoapi.Competitor) { handled = append(handled, c.Name) }

	j.run, j.stopAfter = 1, o.crashAfter
	switch err := j.do(ctx, out, handle); {
	case errors.Is(err, errStopped):
		// The process was restarted: run the job again.
		j.run, j.stopAfter = 2, 0
		if err := j.do(ctx, out, handle); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		fmt.Fprintln(out, "(The list ended before the simulated crash: nothing to resume.)")
	}

	pages := 0
	for _, r := range fake.Requests() {
		if r.Method == "GET" && strings.HasSuffix(r.Path, "/competitors") {
			pages++
		}
	}
	return check(out, handled, o.items, pages, (o.items+o.perPage-1)/o.perPage)
}

// check reports whether the runs handled every competitor once, in order,
// fetching each page once.
func check(out io.Writer, handled []string, items, requests, pages int) error {
	seen := map[string]bool{}
	for i, name := range handled {
		if seen[name] {
			return fmt.Errorf("%s was handled twice", name)
		}
		seen[name] = true
		if want := fmt.Sprintf("rival-%02d", i+1); name != want {
			return fmt.Errorf("item %d is %s, want %s", i+1, name, want)
		}
	}
	if len(handled) != items {
		return fmt.Errorf("handled %d competitors of %d", len(handled), items)
	}
	if requests != pages {
		return fmt.Errorf("%d requests for %d pages", requests, pages)
	}
	fmt.Fprintf(out, "\nEvery competitor handled once, in order: %d of %d. %d requests for %d pages: none fetched twice.\n",
		len(handled), items, requests, pages)
	return nil
}

// errStopped is what a run returns when it stops as if its process died.
var errStopped = errors.New("stopped (simulated crash)")

// job lists the competitors of a project, carrying on from the token saved
// in state.
type job struct {
	baseURL, key           string
	workspaceID, projectID string
	state                  string // where the Next token is kept
	perPage                int
	run                    int // which run this is, for the output
	stopAfter              int // pages to handle before stopping as if the process died; 0: none
}

// do is one run of the job, as one process would run it: a client of its
// own, the saved token read from the file, each page handled and then its
// Next token saved. When the pages end without an error, the job is done
// and the file is removed.
func (j job) do(ctx context.Context, out io.Writer, handle func(*seoapi.Competitor)) error {
	client, err := seoapi.NewClient(j.baseURL, j.key, seoapi.WithUserAgent("seoapi-resume-example"))
	if err != nil {
		return err
	}
	saved, err := load(j.state)
	if err != nil {
		return err
	}
	if saved == "" {
		fmt.Fprintf(out, "Run %d: no saved token, starting at the first page.\n", j.run)
	} else {
		fmt.Fprintf(out, "Run %d: resuming from the saved token %s.\n", j.run, abbreviate(saved))
	}
	// With Resume set, the token's own options (page size, filters) apply.
	opts := &seoapi.ListOptions{PerPage: j.perPage, Resume: saved}
	n := 0
	for page, err := range client.Competitors.Pages(ctx, j.workspaceID, j.projectID, opts) {
		if err != nil {
			if saved != "" && errors.Is(err, seoapi.ErrInvalidArgument) {
				return fmt.Errorf("the token saved in %s cannot be used (%w); delete the file to start over", j.state, err)
			}
			return err
		}
		n++
		names := make([]string, 0, len(page.Items))
		for _, c := range page.Items {
			handle(c)
			names = append(names, c.Name)
		}
		fmt.Fprintf(out, "  page %d: %s\n", n, strings.Join(names, " "))
		// Every page's token is saved, the last one's too: it names the
		// end of the list, so a run that resumes from it does nothing.
		if err := save(j.state, page.Next); err != nil {
			return err
		}
		if n == j.stopAfter {
			fmt.Fprintf(out, "Run %d: stopped after page %d, as if the process had died. The file holds %s.\n", j.run, n, abbreviate(page.Next))
			return errStopped
		}
	}
	return j.done(out, n)
}

// done removes the saved token of a job whose list was read to its end,
// pages being the pages this run read.
func (j job) done(out io.Writer, pages int) error {
	if err := os.Remove(j.state); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if pages == 0 {
		fmt.Fprintf(out, "Run %d: the saved token names the end of the list: no page was left to fetch, and nothing was sent. The job is done and its saved token removed.\n", j.run)
		return nil
	}
	fmt.Fprintf(out, "Run %d: that was the last page; the job is done and its saved token removed.\n", j.run)
	return nil
}

// load returns the token saved in path, or "" when there is none.
func load(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return strings.TrimSpace(string(b)), err
}

// save writes token to path in one step (a temporary file renamed over
// it), so that a crash while saving leaves the previous token.
func save(path, token string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(token+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// abbreviate shows the start of a token and its length.
func abbreviate(token string) string {
	if len(token) <= 16 {
		return fmt.Sprintf("%q", token)
	}
	return fmt.Sprintf("%q… (%d characters)", token[:16], len(token))
}
