// Command quickstart shows the SDK at work.
//
// With SEOAPI_BASE_URL and SEOAPI_API_KEY set it lists your workspaces and
// their projects; with -write it runs the whole tour instead, which creates
// a workspace, a project (deleted at the end), a member and an API key. The
// API cannot delete workspaces, members or keys, so those remain.
// With neither set it starts the in-process fake API and walks through all
// twelve endpoints against it.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/internal/fakeapi"
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
	if write {
		return tour(ctx, out, client, nil)
	}
	return listEverything(ctx, out, client)
}

// runAgainstFake starts the fake API on a loopback port and runs the tour.
func runAgainstFake(ctx context.Context, out io.Writer) error {
	fake := fakeapi.New()
	key, _ := fake.IssueKey(fakeapi.PlanEnterprise)
	baseURL, stop, err := fake.ListenLoopback()
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(out, "No %s/%s set: running the tour against the in-process fake API at %s\n\n", seoapi.EnvBaseURL, seoapi.EnvAPIKey, baseURL)
	client, err := seoapi.NewClient(baseURL, key, seoapi.WithUserAgent("seoapi-quickstart"))
	if err != nil {
		return err
	}
	seed := func(workspaceID, projectID string) error {
		for _, plan := range [][2]string{{"Q3 blog calendar", "active"}, {"Product pages refresh", "draft"}} {
			if _, err := fake.AddContentPlan(workspaceID, projectID, plan[0], plan[1]); err != nil {
				return err
			}
		}
		for _, c := range [][2]string{{"Rival Shoes", "rivalshoes.example"}, {"Budget Kicks", "budgetkicks.example"}} {
			if _, err := fake.AddCompetitor(workspaceID, projectID, c[0], c[1]); err != nil {
				return err
			}
		}
		return nil
	}
	return tour(ctx, out, client, seed)
}

// listEverything is the read-only run against a real API.
func listEverything(ctx context.Context, out io.Writer, client *seoapi.Client) error {
	for ws, err := range client.Workspaces.All(ctx, nil) {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "Workspace %s  %s\n", ws.ID, ws.Name)
		t := newTable(out, "  PROJECT", "NAME", "DOMAIN")
		for p, err := range client.Projects.All(ctx, ws.ID, nil) {
			if err != nil {
				return err
			}
			t.row("  "+p.ID, p.Name, p.Domain)
		}
		t.flush()
	}
	return nil
}

// tour calls all twelve endpoints in a sensible order. seed, when non-nil,
// adds the content plans and competitors the API has no endpoint for.
func tour(ctx context.Context, out io.Writer, client *seoapi.Client, seed func(workspaceID, projectID string) error) error {
	p := printer{out: out}

	workspaces, _, err := client.Workspaces.List(ctx, nil)
	if err != nil {
		return err
	}
	p.show("GET /api/workspaces", workspaceRows(workspaces...))

	ws, _, err := client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme Marketing"})
	if err != nil {
		return err
	}
	p.show("POST /api/workspaces", workspaceRows(ws))

	project, _, err := client.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Name: "Acme Shoes", Domain: "acmeshoes.example"})
	if err != nil {
		return err
	}
	p.show("POST /api/workspaces/:id/projects", projectRows(project))
	if seed != nil {
		if err := seed(ws.ID, project.ID); err != nil {
			return err
		}
	}

	projects, _, err := client.Projects.List(ctx, ws.ID, nil)
	if err != nil {
		return err
	}
	p.show("GET /api/workspaces/:id/projects", projectRows(projects...))

	updated, _, err := client.Projects.Update(ctx, ws.ID, project.ID, &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("Acme Shoes EU")})
	if err != nil {
		return err
	}
	p.show("PATCH /api/workspaces/:id/projects/:projectId (name only)", projectRows(updated))

	plans, _, err := client.ContentPlans.List(ctx, ws.ID, nil)
	if err != nil {
		return err
	}
	p.show("GET /api/workspaces/:id/content-plans", rows([]string{"ID", "NAME", "STATUS", "PROJECT"}, plans,
		func(c *seoapi.ContentPlan) []string { return []string{c.ID, c.Name, c.Status, c.ProjectID} }))

	member, _, err := client.Members.Add(ctx, ws.ID, &seoapi.MemberAddRequest{Email: "ana@acme.example", Role: "editor"})
	if err != nil {
		return err
	}
	p.show("POST /api/workspaces/:id/members", memberRows(member))

	members, _, err := client.Members.List(ctx, ws.ID, nil)
	if err != nil {
		return err
	}
	p.show("GET /api/workspaces/:id/members", memberRows(members...))

	competitors, _, err := client.Competitors.List(ctx, ws.ID, project.ID, nil)
	if err != nil {
		return err
	}
	p.show("GET /api/workspaces/:id/projects/:projectId/competitors", rows([]string{"ID", "NAME", "DOMAIN"}, competitors,
		func(c *seoapi.Competitor) []string { return []string{c.ID, c.Name, c.Domain} }))

	apiKey, _, err := client.APIKeys.Create(ctx, ws.ID, &seoapi.APIKeyCreateRequest{Name: "ci-pipeline"})
	if err != nil {
		return err
	}
	p.show("POST /api/workspaces/:id/api-keys (the secret prints redacted)", keyRows(apiKey))

	keys, _, err := client.APIKeys.List(ctx, ws.ID, nil)
	if err != nil {
		return err
	}
	p.show("GET /api/workspaces/:id/api-keys", keyRows(keys...))

	if _, err := client.Projects.Delete(ctx, ws.ID, project.ID); err != nil {
		return err
	}
	p.show("DELETE /api/workspaces/:id/projects/:projectId", nil)
	_, _, err = client.Projects.Update(ctx, ws.ID, project.ID, &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("gone")})
	var apiErr *seoapi.APIError
	if !errors.Is(err, seoapi.ErrNotFound) || !errors.As(err, &apiErr) {
		return fmt.Errorf("expected the deleted project to be gone, got %v", err)
	}
	fmt.Fprintf(out, "deleted; updating it again gives a typed error: status %d, code %q, request %s\n", apiErr.StatusCode, apiErr.Code, apiErr.RequestID)

	fmt.Fprintf(out, "\nAll twelve endpoints called.\n")
	return nil
}

func workspaceRows(ws ...*seoapi.Workspace) [][]string {
	return rows([]string{"ID", "NAME", "CREATED"}, ws, func(w *seoapi.Workspace) []string { return []string{w.ID, w.Name, stamp(w.CreatedAt)} })
}

func projectRows(ps ...*seoapi.Project) [][]string {
	return rows([]string{"ID", "NAME", "DOMAIN", "UPDATED"}, ps, func(p *seoapi.Project) []string { return []string{p.ID, p.Name, p.Domain, stamp(p.UpdatedAt)} })
}

func memberRows(ms ...*seoapi.Member) [][]string {
	return rows([]string{"ID", "EMAIL", "ROLE"}, ms, func(m *seoapi.Member) []string { return []string{m.ID, m.Email, m.Role} })
}

func keyRows(ks ...*seoapi.APIKey) [][]string {
	// fmt.Sprint(k.Key) shows what any log line would: [REDACTED] for a secret.
	return rows([]string{"ID", "NAME", "KEY", "CREATED"}, ks, func(k *seoapi.APIKey) []string { return []string{k.ID, k.Name, fmt.Sprint(k.Key), stamp(k.CreatedAt)} })
}

// rows turns items into table rows under headers.
func rows[T any](headers []string, items []T, row func(T) []string) [][]string {
	out := [][]string{headers}
	for _, item := range items {
		out = append(out, row(item))
	}
	return out
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Format(time.DateTime)
}

// printer numbers the steps of the tour and prints each as a table.
type printer struct {
	out io.Writer
	n   int
}

func (p *printer) show(endpoint string, rows [][]string) {
	p.n++
	fmt.Fprintf(p.out, "\n%2d. %s\n", p.n, endpoint)
	t := newTable(p.out)
	for _, r := range rows {
		t.row(r...)
	}
	t.flush()
}

type table struct{ w *tabwriter.Writer }

func newTable(out io.Writer, headers ...string) *table {
	t := &table{w: tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)}
	if len(headers) > 0 {
		t.row(headers...)
	}
	return t
}

func (t *table) row(cells ...string) *table {
	for i, c := range cells {
		if i > 0 {
			fmt.Fprint(t.w, "\t")
		}
		fmt.Fprint(t.w, c)
	}
	fmt.Fprintln(t.w)
	return t
}

func (t *table) flush() { t.w.Flush() }
