package seoapi

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// ContentPlan is a content plan of a workspace, possibly tied to a project.
// Status is the server's text as sent; the API publishes no states.
type ContentPlan struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	ProjectID   string    `json:"projectId"`
	Name        string    `json:"name"`
	Status      string    `json:"status"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`

	rawJSON
}

// UnmarshalJSON reads a content plan tolerantly, as Workspace.UnmarshalJSON does.
func (p *ContentPlan) UnmarshalJSON(data []byte) error { return unmarshalResource(data, p) }

func (p *ContentPlan) identity() string { return p.ID }

func (p *ContentPlan) fields(mem member) {
	mem.set((*jsonID)(&p.ID), "id")
	mem.set((*jsonID)(&p.WorkspaceID), "workspaceid")
	mem.set((*jsonID)(&p.ProjectID), "projectid")
	mem.set(&p.Name, "name")
	mem.set(&p.Name, "title")
	mem.set(&p.Status, "status")
	mem.set(&p.CreatedAt, "createdat")
	mem.set(&p.UpdatedAt, "updatedat")
}

// ContentPlansService handles the content plans of a workspace.
type ContentPlansService struct{ service }

// List returns one page of the content plans of a workspace
// (GET /api/workspaces/:id/content-plans). Use All or Pages for every page.
func (s *ContentPlansService) List(ctx context.Context, workspaceID string, opts *ListOptions) ([]*ContentPlan, *Response, error) {
	return listPage[ContentPlan](ctx, s.client, &listContentPlans, opts, workspaceID)
}

var listContentPlans = endpoint{operation: "ContentPlans.List", method: http.MethodGet, route: "/api/workspaces/{id}/content-plans"}

// All iterates over every content plan of a workspace, as WorkspacesService.All does.
func (s *ContentPlansService) All(ctx context.Context, workspaceID string, opts *ListOptions) iter.Seq2[*ContentPlan, error] {
	return listAll[ContentPlan](ctx, s.client, &listContentPlans, opts, workspaceID)
}

// Pages iterates over the pages of content plans, as WorkspacesService.Pages does.
func (s *ContentPlansService) Pages(ctx context.Context, workspaceID string, opts *ListOptions) iter.Seq2[*Page[ContentPlan], error] {
	return listPages[ContentPlan](ctx, s.client, &listContentPlans, opts, true, workspaceID)
}
