package seoapi_test

// One Example per service method. Each starts the in-process fake API
// (seoapitest) in place of the real one: a program passes its own base URL
// and key to NewClient instead. The fake's setup methods (AddWorkspace,
// AddProject, ...) stand for records the account already holds.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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

func ExampleProjectsService_List() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	fake.AddProject(ws, "Shop", "shop.example")
	fake.AddProject(ws, "Blog", "blog.example")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	projects, _, err := client.Projects.List(context.Background(), ws, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range projects {
		fmt.Println(p.Name, p.Domain)
	}
	// Output:
	// Shop shop.example
	// Blog blog.example
}

func ExampleProjectsService_All() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	fake.AddProject(ws, "Shop", "shop.example")
	fake.AddProject(ws, "Blog", "blog.example")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for p, err := range client.Projects.All(ctx, ws, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(p.Name)
	}

	// An error ends the iteration: it is yielded once, with a nil project.
	for p, err := range client.Projects.All(ctx, "ws_unknown", nil) {
		fmt.Println(p, seoapi.ErrorType(err))
	}
	// Output:
	// Shop
	// Blog
	// <nil> not_found
}

func ExampleProjectsService_Create() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	p, resp, err := client.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{
		Name:   "Shop",
		Domain: "shop.example",
		// Fields the SDK does not know go in Extra.
		Extra: map[string]any{"locale": "en-GB"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, p.Name, p.Domain, p.WorkspaceID == ws)
	fmt.Println(string(fake.Requests()[0].Body))

	// A blank name is the server's to judge: the fake answers 422.
	_, _, err = client.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: " "})
	fmt.Println(errors.Is(err, seoapi.ErrValidation))
	// Output:
	// 201 Shop shop.example true
	// {"name":"Shop","domain":"shop.example","locale":"en-GB"}
	// true
}

func ExampleProjectsService_Update() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	id := fake.AddProject(ws, "Shop", "shop.example")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	// Only the fields that are set are sent (Ptr sets one): the domain stays.
	p, _, err := client.Projects.Update(context.Background(), ws, id, &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("Shop EU")})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name, p.Domain)
	fmt.Println(string(fake.Requests()[0].Body))
	// Output:
	// Shop EU shop.example
	// {"name":"Shop EU"}
}

func ExampleProjectsService_Delete() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	id := fake.AddProject(ws, "Old draft", "")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	resp, err := client.Projects.Delete(ctx, ws, id)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode)

	// The server answered: the Response is there, with the error.
	resp, err = client.Projects.Delete(ctx, ws, id)
	fmt.Println(resp.StatusCode, errors.Is(err, seoapi.ErrNotFound))

	// An argument rejected before sending: no Response, only the error.
	resp, err = client.Projects.Delete(ctx, ws, "")
	fmt.Println(resp == nil, errors.Is(err, seoapi.ErrInvalidArgument))
	// Output:
	// 204
	// 404 true
	// true true
}

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

func ExampleMembersService_List() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	fake.AddMember(ws, "ana@acme.example", "owner")
	fake.AddMember(ws, "bo@acme.example", "")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	members, _, err := client.Members.List(context.Background(), ws, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range members {
		fmt.Println(m.Email, m.Role)
	}
	// Output:
	// ana@acme.example owner
	// bo@acme.example member
}

func ExampleMembersService_All() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	fake.AddMember(ws, "ana@acme.example", "owner")
	fake.AddMember(ws, "bo@acme.example", "")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	for m, err := range client.Members.All(context.Background(), ws, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(m.Email, m.Role)
	}
	// Output:
	// ana@acme.example owner
	// bo@acme.example member
}

func ExampleMembersService_Add() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	m, resp, err := client.Members.Add(ctx, ws, &seoapi.MemberAddRequest{Email: "ana@acme.example", Role: "editor"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, m.Email, m.Role)

	// The same email again: the fake answers 409.
	_, _, err = client.Members.Add(ctx, ws, &seoapi.MemberAddRequest{Email: "ANA@acme.example"})
	var apiErr *seoapi.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, errors.Is(err, seoapi.ErrConflict))
	}
	// Output:
	// 201 ana@acme.example editor
	// 409 already_member true
}

func ExampleCompetitorsService_List() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	shop := fake.AddProject(ws, "Shop", "shop.example")
	fake.AddCompetitor(ws, shop, "Rival", "rival.example")
	fake.AddCompetitor(ws, shop, "Upstart", "upstart.example")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	competitors, _, err := client.Competitors.List(context.Background(), ws, shop, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range competitors {
		fmt.Println(c.Name, c.Domain)
	}
	// Output:
	// Rival rival.example
	// Upstart upstart.example
}

func ExampleCompetitorsService_All() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	shop := fake.AddProject(ws, "Shop", "shop.example")
	fake.AddCompetitor(ws, shop, "Rival", "rival.example")
	fake.AddCompetitor(ws, shop, "Upstart", "upstart.example")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	for c, err := range client.Competitors.All(context.Background(), ws, shop, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(c.Domain)
	}
	// Output:
	// rival.example
	// upstart.example
}

func ExampleAPIKeysService_List() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, name := range []string{"ci", "reporting"} {
		if _, _, err := client.APIKeys.Create(ctx, ws, &seoapi.APIKeyCreateRequest{Name: name}); err != nil {
			fmt.Println(err)
			return
		}
	}

	keys, _, err := client.APIKeys.List(ctx, ws, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, k := range keys {
		// A list shows no secret: the server sends it only on creation.
		fmt.Printf("%s secret:%q\n", k.Name, string(k.Key))
	}
	// Output:
	// ci secret:""
	// reporting secret:""
}

func ExampleAPIKeysService_All() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, name := range []string{"ci", "reporting"} {
		if _, _, err := client.APIKeys.Create(ctx, ws, &seoapi.APIKeyCreateRequest{Name: name}); err != nil {
			fmt.Println(err)
			return
		}
	}

	for k, err := range client.APIKeys.All(ctx, ws, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(k.Name)
	}
	// Output:
	// ci
	// reporting
}

func ExampleAPIKeysService_Create() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	key, _, err := client.APIKeys.Create(ctx, ws, &seoapi.APIKeyCreateRequest{Name: "ci"})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The secret never prints, logs or encodes as JSON...
	fmt.Println(key.Name, key.Key)
	fmt.Printf("%+v\n", key.Key)

	// ...but string(key.Key) gives it, to store it or to use it.
	ci, err := seoapi.NewClient(srv.URL, string(key.Key))
	if err != nil {
		fmt.Println(err)
		return
	}
	workspaces, _, err := ci.Workspaces.List(ctx, nil)
	fmt.Println(len(workspaces), err)
	// Output:
	// ci [REDACTED]
	// [REDACTED]
	// 1 <nil>
}

func ExampleProject_Raw() {
	// A server that sends a field the SDK does not know.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `[{"id":"p1","name":"Shop","locale":"de"}]`)
	}))
	defer srv.Close()

	client, err := seoapi.NewClient(srv.URL, "sk_example_0123456789abcdef0123456789")
	if err != nil {
		fmt.Println(err)
		return
	}
	projects, _, err := client.Projects.List(context.Background(), "w1", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Raw is the JSON object the project was read from: nothing is lost.
	p := projects[0]
	var extra struct{ Locale string }
	if err := json.Unmarshal(p.Raw(), &extra); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.ID, p.Name, extra.Locale)
	fmt.Println(string(p.Raw()))
	// Output:
	// p1 Shop de
	// {"id":"p1","name":"Shop","locale":"de"}
}
