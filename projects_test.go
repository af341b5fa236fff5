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
