// Command quickstart shows the SDK at work.
//
// With neither SEOAPI_BASE_URL nor SEOAPI_API_KEY set it starts the fake
// API of package seoapitest in-process and walks through all twelve
// endpoints against it, then shows iterating with All, a 503 the SDK
// retries and the client waiting for the rate limit:
//
//	go run ./examples/quickstart
//
// With both set it lists your workspaces and their projects and changes
// nothing. With -write it runs the twelve-endpoint tour against your API
// instead: it creates a workspace, a project (deleted at the end), a member
// and an API key, and the API cannot delete workspaces, members or keys, so
// those remain. It prints the status each call got and exits 0 when every
// call got a 2xx.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

func main() {
	write := flag.Bool("write", false, "against a real API: run the tour, which creates a workspace, a member and an API key that the API cannot delete")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, *write); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		cancel()
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer, write bool) error {
	baseURL, key := os.Getenv(seoapi.EnvBaseURL), os.Getenv(seoapi.EnvAPIKey)
	switch {
	case baseURL == "" && key == "":
		return runAgainstFake(ctx, out)
	case baseURL == "" || key == "":
		return fmt.Errorf("set both %s and %s, or neither to use the fake API", seoapi.EnvBaseURL, seoapi.EnvAPIKey)
	}
	client, err := seoapi.NewClientFromEnv(seoapi.WithUserAgent("seoapi-quickstart"))
	if err != nil {
		return err
	}
	if !write {
		return listEverything(ctx, out, client)
	}
	if _, err := tour(ctx, out, client, nil); err != nil {
		return err
	}
	fmt.Fprintln(out, "\nAll twelve endpoints called; every call got a 2xx.")
	return nil
}

// runAgainstFake serves the fake API on a loopback port, runs the tour and
// the finale against it.
func runAgainstFake(ctx context.Context, out io.Writer) error {
	fake := seoapitest.New()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: fake, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed after Close.
	defer srv.Close()
	baseURL := "http://" + ln.Addr().String()

	demo := fake.AddWorkspace("Demo workspace")
	fmt.Fprintf(out, "No %s/%s set: running the tour against the in-process fake API (package seoapitest) at %s.\n", seoapi.EnvBaseURL, seoapi.EnvAPIKey, baseURL)
	fmt.Fprintf(out, "The fake gave us an Enterprise key and seeded one workspace, %q (%s).\n", "Demo workspace", demo)
	client, err := seoapi.NewClient(baseURL, fake.Key(), seoapi.WithUserAgent("seoapi-quickstart"))
	if err != nil {
		return err
	}
	seed := func(p *printer, workspaceID, projectID string) {
		// The API has no endpoint that creates content plans or
		// competitors, so the fake seeds some for the lists below.
		fake.AddContentPlan(workspaceID, projectID, "Q3 blog calendar", "active")
		fake.AddContentPlan(workspaceID, projectID, "Product pages refresh", "draft")
		fake.AddCompetitor(workspaceID, projectID, "Rival Shoes", "rivalshoes.example")
		fake.AddCompetitor(workspaceID, projectID, "Budget Kicks", "budgetkicks.example")
		p.note("The fake seeded two content plans and two competitors in this project: the API cannot create them.")
	}
	t, err := tour(ctx, out, client, seed)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "\nAll twelve endpoints called.")
	return finale(ctx, out, fake, baseURL, client, t)
}

// listEverything is the read-only run against a real API. It ends with a
// line saying what it found, so that a key that sees nothing is told so.
func listEverything(ctx context.Context, out io.Writer, client *seoapi.Client) error {
	workspaces, projects := 0, 0
	for ws, err := range client.Workspaces.All(ctx, nil) {
		if err != nil {
			return err
		}
		workspaces++
		fmt.Fprintf(out, "Workspace %s  %s\n", ws.ID, ws.Name)
		t := newTable(out, "  PROJECT", "NAME", "DOMAIN")
		for p, err := range client.Projects.All(ctx, ws.ID, nil) {
			if err != nil {
				return err
			}
			projects++
			t.row("  "+p.ID, p.Name, p.Domain)
		}
		t.flush()
	}
	if workspaces == 0 {
		fmt.Fprintln(out, "The key sees no workspace; nothing was changed. Run with -write to create one.")
		return nil
	}
	fmt.Fprintf(out, "%s, %s; nothing was changed.\n", count(workspaces, "workspace"), count(projects, "project"))
	return nil
}

// count writes n and a noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// describe says what a failed call got, for the finale's expected errors.
func describe(err error) string {
	var apiErr *seoapi.APIError
	if errors.As(err, &apiErr) {
		return fmt.Sprintf("status %d, code %q, request %s", apiErr.StatusCode, apiErr.Code, apiErr.RequestID)
	}
	return err.Error()
}
