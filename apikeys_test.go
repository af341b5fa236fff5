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
