package main

import (
	"context"
	"fmt"
	"io"

	"github.com/seoapi/seoapi-go"
)

// touring is what the tour created, for the finale.
type touring struct {
	workspaceID string
	projectID   string // deleted at the end of the tour
	memberEmail string
}

// tour calls all twelve endpoints in a sensible order, printing for each
// the HTTP request, the Go call that made it, the status and the result.
// seed, when non-nil, adds the content plans and competitors the API has
// no endpoint for. Nothing is asserted about what the server does after
// the delete: against a live API the tour only reports.
func tour(ctx context.Context, out io.Writer, client *seoapi.Client, seed func(p *printer, workspaceID, projectID string)) (touring, error) {
	p := &printer{out: out}
	var t touring

	workspaces, resp, err := client.Workspaces.List(ctx, nil)
	if err != nil {
		return t, err
	}
	p.step("GET /api/workspaces", "client.Workspaces.List(ctx, nil)", resp, workspaceRows(workspaces...))

	ws, resp, err := client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme Marketing"})
	if err != nil {
		return t, err
	}
	t.workspaceID = ws.ID
	p.step("POST /api/workspaces", `client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme Marketing"})`, resp, workspaceRows(ws))

	project, resp, err := client.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Name: "Acme Shoes", Domain: "acmeshoes.example"})
	if err != nil {
		return t, err
	}
	t.projectID = project.ID
	p.step("POST /api/workspaces/:id/projects", `client.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Name: "Acme Shoes", Domain: "acmeshoes.example"})`, resp, projectRows(project))
	if seed != nil {
		seed(p, ws.ID, project.ID)
	}

	projects, resp, err := client.Projects.List(ctx, ws.ID, nil)
	if err != nil {
		return t, err
	}
	p.step("GET /api/workspaces/:id/projects", "client.Projects.List(ctx, ws.ID, nil)", resp, projectRows(projects...))

	updated, resp, err := client.Projects.Update(ctx, ws.ID, project.ID, &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("Acme Shoes EU")})
	if err != nil {
		return t, err
	}
	p.step("PATCH /api/workspaces/:id/projects/:projectId", `client.Projects.Update(ctx, ws.ID, project.ID, &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("Acme Shoes EU")})`, resp, projectRows(updated))
	p.note("Only the name was sent, so the domain is unchanged.")

	plans, resp, err := client.ContentPlans.List(ctx, ws.ID, nil)
	if err != nil {
		return t, err
	}
	p.step("GET /api/workspaces/:id/content-plans", "client.ContentPlans.List(ctx, ws.ID, nil)", resp, rows([]string{"ID", "NAME", "STATUS", "PROJECT"}, plans,
		func(c *seoapi.ContentPlan) []string { return []string{c.ID, c.Name, c.Status, c.ProjectID} }))

	t.memberEmail = "ana@acme.example"
	member, resp, err := client.Members.Add(ctx, ws.ID, &seoapi.MemberAddRequest{Email: t.memberEmail, Role: "editor"})
	if err != nil {
		return t, err
	}
	p.step("POST /api/workspaces/:id/members", `client.Members.Add(ctx, ws.ID, &seoapi.MemberAddRequest{Email: "ana@acme.example", Role: "editor"})`, resp, memberRows(member))

	members, resp, err := client.Members.List(ctx, ws.ID, nil)
	if err != nil {
		return t, err
	}
	p.step("GET /api/workspaces/:id/members", "client.Members.List(ctx, ws.ID, nil)", resp, memberRows(members...))

	competitors, resp, err := client.Competitors.List(ctx, ws.ID, project.ID, nil)
	if err != nil {
		return t, err
	}
	p.step("GET /api/workspaces/:id/projects/:projectId/competitors", "client.Competitors.List(ctx, ws.ID, project.ID, nil)", resp, rows([]string{"ID", "NAME", "DOMAIN"}, competitors,
		func(c *seoapi.Competitor) []string { return []string{c.ID, c.Name, c.Domain} }))

	if err := tourAPIKeys(ctx, p, client, ws.ID); err != nil {
		return t, err
	}

	resp, err = client.Projects.Delete(ctx, ws.ID, project.ID)
	if err != nil {
		return t, err
	}
	p.step("DELETE /api/workspaces/:id/projects/:projectId", "client.Projects.Delete(ctx, ws.ID, project.ID)", resp, nil)
	return t, nil
}

// tourAPIKeys creates an API key and lists the keys, showing that a
// secret comes once, in the answer to Create.
func tourAPIKeys(ctx context.Context, p *printer, client *seoapi.Client, wsID string) error {
	apiKey, resp, err := client.APIKeys.Create(ctx, wsID, &seoapi.APIKeyCreateRequest{Name: "ci-pipeline"})
	if err != nil {
		return err
	}
	p.step("POST /api/workspaces/:id/api-keys", `client.APIKeys.Create(ctx, ws.ID, &seoapi.APIKeyCreateRequest{Name: "ci-pipeline"})`, resp, keyRows(apiKey))
	if apiKey.Key != "" {
		p.note("SECRET: the new key's secret came once, in this answer. The SDK holds it as a seoapi.Secret, which fmt, slog and JSON print as [REDACTED]; string(apiKey.Key) is the value to store.")
	} else {
		p.note("SECRET is blank: the server sent no secret in its answer.")
	}

	keys, resp, err := client.APIKeys.List(ctx, wsID, nil)
	if err != nil {
		return err
	}
	p.step("GET /api/workspaces/:id/api-keys", "client.APIKeys.List(ctx, ws.ID, nil)", resp, keyRows(keys...))
	if secretsIn(keys) == 0 {
		p.note("SECRET is blank: a list carries no secrets, only the answer to Create does, so a key's secret cannot be read again.")
	}
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
	// fmt.Sprint(k.Key) shows what any log line would: [REDACTED] for a
	// secret, and nothing when the server sent none.
	return rows([]string{"ID", "NAME", "SECRET", "CREATED"}, ks, func(k *seoapi.APIKey) []string { return []string{k.ID, k.Name, fmt.Sprint(k.Key), stamp(k.CreatedAt)} })
}

// secretsIn counts the keys that came with a secret.
func secretsIn(keys []*seoapi.APIKey) int {
	n := 0
	for _, k := range keys {
		if k.Key != "" {
			n++
		}
	}
	return n
}
