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

func ExampleWorkspacesService_List() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.AddWorkspace("Acme")
	fake.AddWorkspace("Globex")
	fake.AddWorkspace("Initech")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	// List returns one page; the Response says where the next one is.
	workspaces, resp, err := client.Workspaces.List(context.Background(), &seoapi.ListOptions{PerPage: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ws := range workspaces {
		fmt.Println(ws.Name)
	}
	fmt.Println("status:", resp.StatusCode, "next page:", resp.NextPage)
	// Output:
	// Acme
	// Globex
	// status: 200 next page: 2
}

func ExampleWorkspacesService_All() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.AddWorkspace("Acme")
	fake.AddWorkspace("Globex")
	fake.AddWorkspace("Initech")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	// All fetches page after page as the loop goes: two pages of two here.
	for ws, err := range client.Workspaces.All(context.Background(), &seoapi.ListOptions{PerPage: 2}) {
		if err != nil {
			// All yields an error once, with a nil item, and then ends.
			fmt.Println(err)
			return
		}
		fmt.Println(ws.Name)
	}
	fmt.Println("requests:", len(fake.Requests()))
	// Output:
	// Acme
	// Globex
	// Initech
	// requests: 2
}

func ExampleWorkspacesService_Create() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	ws, resp, err := client.Workspaces.Create(context.Background(), &seoapi.WorkspaceCreateRequest{Name: "Acme"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, ws.Name, ws.ID != "")
	// Output: 201 Acme true
}
