package seoapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

// printPage prints the names on a page.
func printPage(n int, names []string) {
	fmt.Printf("page %d: %s\n", n, strings.Join(names, ", "))
}

func ExampleWorkspacesService_Pages() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, _ := fake.IssueKey(seoapitest.PlanEnterprise)
	url := srv.URL
	fake.SetPaging(seoapitest.PagingLink, 2) // two workspaces a page
	client, _ := seoapi.NewClient(url, key)
	ctx := context.Background()
	for _, name := range []string{"Acme", "Globex", "Initech"} {
		client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: name})
	}

	n := 0
	for page, err := range client.Workspaces.Pages(ctx, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		n++
		var names []string
		for _, ws := range page.Items {
			names = append(names, ws.Name)
		}
		printPage(n, names)
	}
	// Output:
	// page 1: Default workspace, Acme
	// page 2: Globex, Initech
}

func ExampleProjectsService_Pages() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, _ := fake.IssueKey(seoapitest.PlanEnterprise)
	url := srv.URL
	fake.SetPaging(seoapitest.PagingPage, 2) // page-number envelopes of two
	client, _ := seoapi.NewClient(url, key)
	ctx := context.Background()
	ws, _, _ := client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"})
	for _, name := range []string{"Shop", "Blog", "Docs"} {
		client.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Name: name})
	}

	n := 0
	for page, err := range client.Projects.Pages(ctx, ws.ID, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		n++
		var names []string
		for _, p := range page.Items {
			names = append(names, p.Name)
		}
		printPage(n, names)
	}
	// Output:
	// page 1: Shop, Blog
	// page 2: Docs
}

func ExampleContentPlansService_Pages() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, _ := fake.IssueKey(seoapitest.PlanEnterprise)
	url := srv.URL
	fake.SetPaging(seoapitest.PagingCursor, 2) // cursor envelopes of two
	client, _ := seoapi.NewClient(url, key)
	ctx := context.Background()
	ws, _, _ := client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"})
	for _, name := range []string{"Q1", "Q2", "Q3", "Q4"} {
		fake.AddContentPlan(ws.ID, "", name, "draft")
	}

	n := 0
	for page, err := range client.ContentPlans.Pages(ctx, ws.ID, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		n++
		var names []string
		for _, plan := range page.Items {
			names = append(names, plan.Name)
		}
		printPage(n, names)
	}
	// Output:
	// page 1: Q1, Q2
	// page 2: Q3, Q4
}

func ExampleMembersService_Pages() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, _ := fake.IssueKey(seoapitest.PlanEnterprise)
	url := srv.URL
	fake.SetPaging(seoapitest.PagingLink, 50)
	client, _ := seoapi.NewClient(url, key)
	ctx := context.Background()
	ws, _, _ := client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"})
	for _, email := range []string{"ana@acme.example", "bo@acme.example", "cy@acme.example"} {
		client.Members.Add(ctx, ws.ID, &seoapi.MemberAddRequest{Email: email})
	}

	// PerPage asks the server for pages of one.
	n := 0
	for page, err := range client.Members.Pages(ctx, ws.ID, &seoapi.ListOptions{PerPage: 1}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		n++
		var emails []string
		for _, m := range page.Items {
			emails = append(emails, m.Email)
		}
		printPage(n, emails)
	}
	// Output:
	// page 1: ana@acme.example
	// page 2: bo@acme.example
	// page 3: cy@acme.example
}

func ExampleCompetitorsService_Pages() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, _ := fake.IssueKey(seoapitest.PlanEnterprise)
	url := srv.URL
	fake.SetPaging(seoapitest.PagingLink, 2)
	client, _ := seoapi.NewClient(url, key)
	ctx := context.Background()
	ws, _, _ := client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"})
	p, _, _ := client.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Name: "Shop"})
	for _, name := range []string{"Rival", "Upstart", "Giant"} {
		fake.AddCompetitor(ws.ID, p.ID, name, strings.ToLower(name)+".example")
	}

	// Stop after the first page: nothing more is fetched.
	for page, err := range client.Competitors.Pages(ctx, ws.ID, p.ID, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, comp := range page.Items {
			fmt.Println(comp.Name, comp.Domain)
		}
		fmt.Println("more to come:", page.Next != "")
		break
	}
	// Output:
	// Rival rival.example
	// Upstart upstart.example
	// more to come: true
}

func ExampleAPIKeysService_Pages() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, _ := fake.IssueKey(seoapitest.PlanEnterprise)
	url := srv.URL
	fake.SetPaging(seoapitest.PagingCursor, 2)
	client, _ := seoapi.NewClient(url, key)
	ctx := context.Background()
	ws, _, _ := client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"})
	for _, name := range []string{"ci", "backup", "reports"} {
		client.APIKeys.Create(ctx, ws.ID, &seoapi.APIKeyCreateRequest{Name: name})
	}

	n := 0
	for page, err := range client.APIKeys.Pages(ctx, ws.ID, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		n++
		var names []string
		for _, k := range page.Items {
			names = append(names, k.Name)
		}
		printPage(n, names)
	}
	// Output:
	// page 1: ci, backup
	// page 2: reports
}

// A long job saves each page's Next token (to a file, a database) and, when
// it is restarted, resumes from the saved token: no page is fetched twice
// and no item is missed, whatever paging the server uses. The last page's
// Next names the end of the list, so a job run again after it finished
// does nothing: "" means only that no page was read yet.
func ExampleListOptions_resume() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, _ := fake.IssueKey(seoapitest.PlanEnterprise)
	url := srv.URL
	fake.SetPaging(seoapitest.PagingCursor, 2)
	ctx := context.Background()
	setup, _ := seoapi.NewClient(url, key)
	ws, _, _ := setup.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"})
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		setup.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Name: name})
	}

	var saved string // where the job keeps its place
	job := func(stopAfter int) {
		client, _ := seoapi.NewClient(url, key) // a new process, a new client
		pages := 0
		for page, err := range client.Projects.Pages(ctx, ws.ID, &seoapi.ListOptions{Resume: saved}) {
			if err != nil {
				fmt.Println(err)
				return
			}
			for _, p := range page.Items {
				fmt.Print(p.Name, " ")
			}
			saved = page.Next
			if pages++; pages == stopAfter {
				fmt.Println("(stopped)")
				return
			}
		}
		fmt.Println("(done)")
	}
	job(1) // the first run stops after one page
	job(0) // the second resumes where it stopped
	job(0) // a third finds the job done: no request, no item
	// Output:
	// a b (stopped)
	// c d e (done)
	// (done)
}

// A saved Next token outlives the API key: a job stopped under one key
// resumes under the key that replaced it.
func ExampleListOptions_resumeAfterKeyRotation() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	oldKey, _ := fake.IssueKey(seoapitest.PlanEnterprise)
	fake.SetPaging(seoapitest.PagingPage, 2)
	ctx := context.Background()
	client, _ := seoapi.NewClient(srv.URL, oldKey)
	ws, _, _ := client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"})
	for _, name := range []string{"a", "b", "c"} {
		client.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Name: name})
	}

	var saved string
	for page, err := range client.Projects.Pages(ctx, ws.ID, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("old key:", page.Items[0].Name, page.Items[1].Name)
		saved = page.Next
		break // the job stops; meanwhile the key is rotated
	}
	newKey, _, _ := client.APIKeys.Create(ctx, ws.ID, &seoapi.APIKeyCreateRequest{Name: "rotated"})

	client, _ = seoapi.NewClient(srv.URL, string(newKey.Key))
	for p, err := range client.Projects.All(ctx, ws.ID, &seoapi.ListOptions{Resume: saved}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("new key:", p.Name)
	}
	// Output:
	// old key: a b
	// new key: c
}

// All yields each item once, also from a list that changes while it is
// read. This server pages by offset, newest first, and a workspace is
// created between the two pages: the second page starts with the last
// workspace of the first, which All does not yield again.
func ExampleWorkspacesService_All_itemAddedBetweenPages() {
	list := []string{"ws_3", "ws_2", "ws_1"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if page == 2 {
			list = append([]string{"ws_4"}, list...) // created after page 1 was read
		}
		start := (max(page, 1) - 1) * 2
		items := []string{}
		for _, id := range list[start : start+2] {
			items = append(items, fmt.Sprintf(`{"id":%q}`, id))
		}
		fmt.Fprintf(w, `{"data":[%s],"page":%d,"totalPages":2}`, strings.Join(items, ","), max(page, 1))
	}))
	defer srv.Close()

	client, _ := seoapi.NewClient(srv.URL, "sk_example_0123456789")
	for ws, err := range client.Workspaces.All(context.Background(), nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(ws.ID)
	}
	// Output:
	// ws_3
	// ws_2
	// ws_1
}
