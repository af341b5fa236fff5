// Command bulkimport imports the projects of a CSV file into a workspace
// with package bulk: it plans (what exists already is matched by domain,
// or by name when a project has no domain), prints the plan, and applies
// it with a one-line progress display on stderr, redrawn in place on a
// terminal and written as lines to a log. Killed half-way and run again
// with the same journal, it carries on where it stopped, without creating
// a project twice.
//
// With neither SEOAPI_BASE_URL nor SEOAPI_API_KEY set it runs against the
// in-process fake API of package seoapitest, in a workspace that already
// holds three projects, two of them in the CSV (one under another name):
//
//	go run ./examples/bulkimport -dry-run   # print the plan only
//	go run ./examples/bulkimport            # apply it
//	go run ./examples/bulkimport -lose 5    # the fake loses 5 answers
//
// With both set it imports into your workspace; a journal file is needed
// then, so that a second run after a crash carries on. Keep it from one
// run to the next, as a nightly sync does: each run makes the workspace
// match the CSV of that run.
//
//	go run ./examples/bulkimport -workspace ws_123 -journal import.journal -csv projects.csv
//
// The progress line shows the requests of the rolling second and hour
// against the client's limits; the limiter never lets them past.
//
// The CSV has a header row with a "name" and a "domain" column (other
// columns are ignored). Without -csv the sample file beside this program,
// projects.csv, is used.
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/bulk"
)

//go:embed projects.csv
var sampleCSV []byte

// options are the command line.
type options struct {
	csv         string // "" for the sample
	workspace   string
	journal     string
	dryRun      bool
	concurrency int
	settle      time.Duration
	lose        int // against the fake: writes whose answers it loses

	// beforeApply, when set, is called between planning and applying.
	beforeApply func()
}

func main() {
	var o options
	flag.StringVar(&o.csv, "csv", "", "the CSV file of projects (default: the sample projects.csv)")
	flag.StringVar(&o.workspace, "workspace", "", "against a real API: the workspace to import into")
	flag.StringVar(&o.journal, "journal", "", "against a real API: the journal file, kept between runs (a temporary one with -dry-run)")
	flag.BoolVar(&o.dryRun, "dry-run", false, "print the plan and send no write")
	flag.IntVar(&o.concurrency, "concurrency", bulk.DefaultConcurrency, "writes sent at once")
	flag.DurationVar(&o.settle, "settle", bulk.DefaultSettle, "how long to wait before deciding that a lost create made nothing")
	flag.IntVar(&o.lose, "lose", 0, "against the fake: it makes the first n writes but loses their answers, to show how the job finds them")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, os.Stderr, o); err != nil {
		fmt.Fprintln(os.Stderr, "bulkimport:", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, out, errOut io.Writer, o options) error {
	want, err := readWanted(o.csv)
	if err != nil {
		return err
	}
	baseURL, key := os.Getenv(seoapi.EnvBaseURL), os.Getenv(seoapi.EnvAPIKey)
	switch {
	case baseURL == "" && key == "":
		return runAgainstFake(ctx, out, errOut, o, want)
	case baseURL == "" || key == "":
		return fmt.Errorf("set both %s and %s, or neither to use the fake API", seoapi.EnvBaseURL, seoapi.EnvAPIKey)
	case o.workspace == "":
		return errors.New("-workspace is needed against a real API")
	case o.journal == "" && !o.dryRun:
		return errors.New("-journal is needed against a real API, so that a run after a crash carries on")
	}
	client, err := seoapi.NewClientFromEnv(seoapi.WithUserAgent("seoapi-bulkimport"))
	if err != nil {
		return err
	}
	return importInto(ctx, out, errOut, client, o, want)
}

// readWanted reads the CSV file at path, or the sample when path is "".
func readWanted(path string) ([]seoapi.ProjectCreateRequest, error) {
	if path == "" {
		return parseCSV(sampleCSV)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseCSV(data)
}

// importInto plans the import into o.workspace, prints the plan and,
// unless o.dryRun, applies it.
func importInto(ctx context.Context, out, errOut io.Writer, client *seoapi.Client, o options, want []seoapi.ProjectCreateRequest) error {
	journal, closeJournal, err := openJournal(o)
	if err != nil {
		return err
	}
	defer closeJournal()
	show := newProgressLine(errOut, client)
	job := bulk.New(client, journal, bulk.WithConcurrency(o.concurrency), bulk.WithSettle(o.settle), bulk.WithProgress(show.show))
	plan, err := job.PlanProjects(ctx, o.workspace, want)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Plan: %s\n", plan)
	if o.dryRun {
		printActions(out, plan)
		fmt.Fprintln(out, "Dry run: nothing was written.")
		return nil
	}
	if o.beforeApply != nil {
		o.beforeApply()
	}
	report, err := job.Apply(ctx, plan)
	show.finish()
	if report != nil {
		printReport(out, report)
	}
	if err != nil {
		return err
	}
	if len(report.Failed) > 0 {
		return fmt.Errorf("%d projects failed", len(report.Failed))
	}
	return nil
}

// openJournal opens o.journal, or a temporary journal removed at the end
// when o.journal is "".
func openJournal(o options) (*bulk.FileJournal, func(), error) {
	path, cleanup := o.journal, func() {}
	if path == "" {
		dir, err := os.MkdirTemp("", "bulkimport")
		if err != nil {
			return nil, nil, err
		}
		path = dir + string(os.PathSeparator) + "import.journal"
		cleanup = func() { os.RemoveAll(dir) }
	}
	j, err := bulk.OpenFile(path)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return j, func() { j.Close(); cleanup() }, nil
}

func printActions(out io.Writer, plan *bulk.Plan) {
	for _, a := range plan.Actions {
		if a.Op == bulk.OpNone {
			continue
		}
		line := fmt.Sprintf("  %-6s %s", a.Op, a.Key)
		if len(a.Fields) > 0 {
			line += fmt.Sprintf(" %v", a.Fields)
		}
		fmt.Fprintln(out, line)
	}
}

func printReport(out io.Writer, r *bulk.Report) {
	fmt.Fprintf(out, "Done: %d created, %d updated, %d adopted, %d resumed, %d unchanged, %d failed.\n",
		r.Created, r.Updated, r.Adopted, r.Resumed, r.Unchanged, len(r.Failed))
	for _, f := range r.Failed {
		fmt.Fprintf(out, "  failed %s: %v\n", f.Key, f.Err)
	}
}
