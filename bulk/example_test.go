package bulk_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/bulk"
	"github.com/seoapi/seoapi-go/seoapitest"
)

// exampleAPI serves the fake API with a workspace holding two projects,
// and returns a client for it, the workspace's ID and a function that
// stops it.
func exampleAPI() (*seoapi.Client, *seoapitest.Server, string, func()) {
	fake := seoapitest.New()
	ws := fake.AddWorkspace("Acme")
	fake.AddProject(ws, "Shop", "shop.example")
	fake.AddProject(ws, "Old blog name", "blog.example")
	srv := httptest.NewServer(fake)
	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		log.Fatal(err)
	}
	return client, fake, ws, srv.Close
}

// exampleJournal opens a journal in a temporary directory.
func exampleJournal() (*bulk.FileJournal, func()) {
	dir, err := os.MkdirTemp("", "bulk-example")
	if err != nil {
		log.Fatal(err)
	}
	j, err := bulk.OpenFile(filepath.Join(dir, "import.journal"))
	if err != nil {
		log.Fatal(err)
	}
	return j, func() { j.Close(); os.RemoveAll(dir) }
}

// want is the wanted state of the examples: the blog renamed, a docs site
// added, the shop as it is.
var want = []seoapi.ProjectCreateRequest{
	{Name: "Shop", Domain: "shop.example"},
	{Name: "Blog", Domain: "blog.example"},
	{Name: "Docs", Domain: "docs.example"},
}

func ExampleNew() {
	client, _, ws, stop := exampleAPI()
	defer stop()
	journal, closeJournal := exampleJournal()
	defer closeJournal()

	job := bulk.New(client, journal)
	ctx := context.Background()
	plan, err := job.PlanProjects(ctx, ws, want)
	if err != nil {
		log.Fatal(err)
	}
	report, err := job.Apply(ctx, plan)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("created %d, updated %d, unchanged %d, failed %d\n", report.Created, report.Updated, report.Unchanged, len(report.Failed))
	// Output:
	// created 1, updated 1, unchanged 1, failed 0
}

func ExampleJob_PlanProjects() {
	client, _, ws, stop := exampleAPI()
	defer stop()
	journal, closeJournal := exampleJournal()
	defer closeJournal()

	job := bulk.New(client, journal)
	plan, err := job.PlanProjects(context.Background(), ws, want)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range plan.Actions {
		fmt.Println(a.Op, a.Key, a.Fields)
	}
	fmt.Println(plan.Requests, "requests")
	// Output:
	// none shop.example []
	// update blog.example [name]
	// create docs.example []
	// 2 requests
}

func ExamplePlan_String() {
	client, _, ws, stop := exampleAPI()
	defer stop()
	journal, closeJournal := exampleJournal()
	defer closeJournal()

	job := bulk.New(client, journal)
	plan, err := job.PlanProjects(context.Background(), ws, want[1:], bulk.Prune())
	if err != nil {
		log.Fatal(err)
	}
	// The ETA is what the client's budget (50 requests a second) makes of
	// the plan's requests.
	fmt.Println(plan)
	// Output:
	// project in ws_000002: 1 create, 1 update, 1 delete, 0 none; 3 requests, ETA 60ms
}

func ExampleJob_Apply() {
	client, fake, ws, stop := exampleAPI()
	defer stop()
	journal, closeJournal := exampleJournal()
	defer closeJournal()

	job := bulk.New(client, journal, bulk.WithSettle(10*time.Millisecond))
	ctx := context.Background()
	plan, err := job.PlanProjects(ctx, ws, want)
	if err != nil {
		log.Fatal(err)
	}
	// The server makes both writes, the blog's update and the docs'
	// create, but both answers are lost: the SDK reports
	// ErrOutcomeUnknown, and Apply looks for them in a fresh read of the
	// list, where it finds the blog renamed and the docs project created.
	fake.DropNext(2, true)
	report, err := job.Apply(ctx, plan)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", *report)
	// Output:
	// {Created:0 Updated:1 Deleted:0 Adopted:1 Resumed:0 Unchanged:1 Failed:[]}
}

func ExampleOpenFile() {
	client, _, ws, stop := exampleAPI()
	defer stop()
	journal, closeJournal := exampleJournal()
	defer closeJournal()

	job := bulk.New(client, journal, bulk.WithConcurrency(1))
	ctx := context.Background()
	plan, err := job.PlanProjects(ctx, ws, want)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := job.Apply(ctx, plan); err != nil {
		log.Fatal(err)
	}
	records, err := journal.Load(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range records {
		switch {
		case r.State == bulk.StateRead && r.Next == "":
			fmt.Printf("read of the %ss over\n", r.Resource)
			continue
		case r.State == bulk.StateRead:
			fmt.Printf("read page %d of the %ss: %d found\n", r.Page, r.Resource, len(r.Seen))
			continue
		case r.State == bulk.StateApplied:
			fmt.Printf("apply of the %ss ran to its end\n", r.Resource)
			continue
		}
		fmt.Printf("%s %s %s (id %q)\n", r.State, r.Op, r.Key, r.ID)
	}
	// Output:
	// read page 1 of the projects: 2 found
	// read of the projects over
	// intended update blog.example (id "proj_000004")
	// done update blog.example (id "proj_000004")
	// intended create docs.example (id "")
	// done create docs.example (id "proj_000005")
	// apply of the projects ran to its end
}

func ExampleWithConcurrency() {
	client, _, ws, stop := exampleAPI()
	defer stop()
	journal, closeJournal := exampleJournal()
	defer closeJournal()

	// Eight writes at a time; the client's limiter still paces them.
	job := bulk.New(client, journal, bulk.WithConcurrency(8))
	plan, err := job.PlanProjects(context.Background(), ws, want)
	if err != nil {
		log.Fatal(err)
	}
	report, err := job.Apply(context.Background(), plan)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(report.Created+report.Updated, "writes")
	// Output:
	// 2 writes
}

func ExampleWithSettle() {
	client, fake, ws, stop := exampleAPI()
	defer stop()
	journal, closeJournal := exampleJournal()
	defer closeJournal()

	// This server lists a new project only 50ms after creating it: wait
	// longer than that before deciding that a lost create made nothing.
	fake.SetListLag(50 * time.Millisecond)
	job := bulk.New(client, journal, bulk.WithSettle(100*time.Millisecond))
	ctx := context.Background()
	plan, err := job.PlanProjects(ctx, ws, want)
	if err != nil {
		log.Fatal(err)
	}
	fake.DropNext(1, true) // the blog's update: its answer is lost
	fake.DropNext(1, true) // the docs' create: the same
	report, err := job.Apply(ctx, plan)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("updated %d, adopted %d\n", report.Updated, report.Adopted)
	// Output:
	// updated 1, adopted 1
}

func ExampleWithProgress() {
	client, _, ws, stop := exampleAPI()
	defer stop()
	journal, closeJournal := exampleJournal()
	defer closeJournal()

	var last bulk.Progress
	job := bulk.New(client, journal, bulk.WithProgress(func(p bulk.Progress) {
		last = p // a program would print it: see examples/bulkimport
	}))
	plan, err := job.PlanProjects(context.Background(), ws, want)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := job.Apply(context.Background(), plan); err != nil {
		log.Fatal(err)
	}
	// Of the three projects, the shop is as wanted: two writes.
	fmt.Printf("%d/%d writes done, %d failed, %d requests\n", last.Done, last.Total, last.Failed, last.Requests)
	// Output:
	// 2/2 writes done, 0 failed, 2 requests
}
