package bulk_test

import (
	"context"
	"fmt"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/bulk"
)

// onboarding is a service's handler that creates one project and adds one
// member: the recipe for one item, with the same care as a bulk job.
type onboarding struct {
	client *seoapi.Client
	// settle is how long the server may take to list a new resource
	// (bulk.WithSettle).
	settle time.Duration
}

// onboard plans and applies each write as a job of one item, with a
// journal in memory: when an answer is lost, the job looks for the item
// in the list once the settle time has passed, and sends the write again
// only when it is not there.
func (o *onboarding) onboard(ctx context.Context, ws string, p seoapi.ProjectCreateRequest, m seoapi.MemberAddRequest) error {
	job := bulk.New(o.client, bulk.NewMemoryJournal(), bulk.WithSettle(o.settle))
	plan, err := job.PlanProjects(ctx, ws, []seoapi.ProjectCreateRequest{p})
	if err != nil {
		return err
	}
	if err := one(job.Apply(ctx, plan)); err != nil {
		return err
	}
	plan, err = job.PlanMembers(ctx, ws, []seoapi.MemberAddRequest{m})
	if err != nil {
		return err
	}
	return one(job.Apply(ctx, plan))
}

// one returns the error of an Apply of one item, nil when it is as
// wanted.
func one(rep *bulk.Report, err error) error {
	if err != nil {
		return err
	}
	if len(rep.Failed) > 0 {
		return rep.Failed[0].Err
	}
	return nil
}

func ExampleNewMemoryJournal() {
	client, _, ws, stop := exampleAPI()
	defer stop()
	// A handler's context bounds the whole of it, the settle time too.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	o := &onboarding{client: client, settle: 2 * time.Second}
	err := o.onboard(ctx, ws, seoapi.ProjectCreateRequest{Name: "Docs", Domain: "docs.example"},
		seoapi.MemberAddRequest{Email: "ann@example.com", Role: "editor"})
	fmt.Println("onboarded:", err == nil)
	// Output:
	// onboarded: true
}
