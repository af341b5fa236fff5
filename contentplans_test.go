package seoapi_test

// One Example per service method. Each starts the in-process fake API
// (seoapitest) in place of the real one: a program passes its own base URL
// and key to NewClient instead. The fake's setup methods (AddWorkspace,
// AddProject, ...) stand for records the account already holds.

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

func ExampleContentPlansService_List() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	shop := fake.AddProject(ws, "Shop", "shop.example")
	fake.AddContentPlan(ws, shop, "Spring sale", "draft")
	fake.AddContentPlan(ws, "", "Brand glossary", "published")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	plans, _, err := client.ContentPlans.List(context.Background(), ws, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, cp := range plans {
		// Status is the server's text as sent; ProjectID is empty for a
		// plan tied to no project.
		fmt.Println(cp.Name, cp.Status, cp.ProjectID == shop)
	}
	// Output:
	// Spring sale draft true
	// Brand glossary published false
}

func ExampleContentPlansService_All() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	for _, name := range []string{"January", "February", "March"} {
		fake.AddContentPlan(ws, "", name, "draft")
	}

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	// PerPage 1: one request per plan; the last page announces no next one.
	for cp, err := range client.ContentPlans.All(context.Background(), ws, &seoapi.ListOptions{PerPage: 1}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(cp.Name)
	}
	fmt.Println("requests:", len(fake.Requests()))
	// Output:
	// January
	// February
	// March
	// requests: 3
}
