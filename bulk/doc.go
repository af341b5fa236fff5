// Package bulk applies bulk changes to the Workspace Automation API (create
// hundreds of projects, make a workspace's members match a list) so that
// no write is repeated or skipped, even when answers are lost or the job
// is killed and started again.
//
// The API has no idempotency key and no read by ID: when the answer to a
// create is lost, only the list can tell whether it took effect. A Job
// therefore matches items by a natural key (projects by domain, or by
// name when they have none; members by email; workspaces by name), plans
// from one read of the list, and records every write in a Journal before
// it is sent and after its answer:
//
//	j, err := bulk.OpenFile("import.journal")
//	// handle err; defer j.Close()
//	job := bulk.New(client, j, bulk.WithConcurrency(4))
//	plan, err := job.PlanProjects(ctx, workspaceID, want)
//	// handle err; print plan (what it will do, how many requests, ETA)
//	report, err := job.Apply(ctx, plan)
//
// Run the same code again with the same journal after a crash: writes the
// journal records as done are not sent again; writes it records as
// intended or unknown are looked for in a fresh read of the list (one read
// for all of them, after the settle time of WithSettle) and adopted when
// found, created when not. Keep the journal from night to night, and each
// night's plan makes the list match what that night wants: the list
// decides, and a done record stands in for it only while the list may not
// show the write yet. API keys are never created by a job: their secret
// is shown once, and a lost answer could not be recovered.
//
// For one item, such as a handler that creates one project, plan and
// apply a job of one item with NewMemoryJournal: a lost answer is looked
// for in the list before the write is sent again.
//
// docs/bulk.md states the guarantees, the restart rules and what a job
// cannot promise.
package bulk
