package seoapi_test

// One Example per service method. Each starts the in-process fake API
// (seoapitest) in place of the real one: a program passes its own base URL
// and key to NewClient instead. The fake's setup methods (AddWorkspace,
// AddProject, ...) stand for records the account already holds.

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

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
