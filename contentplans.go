package seoapi

import (
	"cmp"
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

// contentPlanJSON is a content plan as a server may send it; its name may
// come as title.
type contentPlanJSON struct {
	wireBase
	WorkspaceID      jsonID `json:"workspaceId"`
	WorkspaceIDSnake jsonID `json:"workspace_id"`
	ProjectID        jsonID `json:"projectId"`
	ProjectIDSnake   jsonID `json:"project_id"`
	Name             string `json:"name"`
	Title            string `json:"title"`
	Status           string `json:"status"`
}

func (w *contentPlanJSON) build() ContentPlan {
	return ContentPlan{string(w.ID), either(w.WorkspaceID, w.WorkspaceIDSnake), either(w.ProjectID, w.ProjectIDSnake),
		cmp.Or(w.Name, w.Title), w.Status, w.created(), w.updated(), w.raw}
}

// UnmarshalJSON reads a content plan tolerantly, as Workspace.UnmarshalJSON does.
func (p *ContentPlan) UnmarshalJSON(data []byte) error {
	return unmarshalResource[ContentPlan, contentPlanJSON](data, p)
}

func (p *ContentPlan) identity() string { return p.ID }

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
