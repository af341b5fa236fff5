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
