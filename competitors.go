package seoapi

import (
	"cmp"
	"context"
	"iter"
	"net/http"
	"time"
)

// Competitor is a competitor tracked for a project.
type Competitor struct {
	ID        string    `json:"id"`
	ProjectID string    `json:"projectId"`
	Name      string    `json:"name"`
	Domain    string    `json:"domain"`
	CreatedAt time.Time `json:"createdAt"`

	rawJSON
}

// competitorJSON is a competitor as a server may send it.
type competitorJSON struct {
	ID         jsonID   `json:"id"`
	ProjectID  jsonID   `json:"projectId"`
	ProjectID2 jsonID   `json:"project_id"`
	Name       string   `json:"name"`
	Domain     string   `json:"domain"`
	CreatedAt  jsonTime `json:"createdAt"`
	CreatedAt2 jsonTime `json:"created_at"`
}

func (w *competitorJSON) build(raw rawJSON) Competitor {
	return Competitor{string(w.ID), string(cmp.Or(w.ProjectID, w.ProjectID2)), w.Name, w.Domain, cmp.Or(w.CreatedAt, w.CreatedAt2).Time, raw}
}

// UnmarshalJSON reads a competitor tolerantly, as Workspace.UnmarshalJSON does.
func (c *Competitor) UnmarshalJSON(data []byte) error {
	return unmarshalResource[Competitor, competitorJSON](data, c)
}

func (c *Competitor) identity() string { return c.ID }

// CompetitorsService handles the competitors of a project.
type CompetitorsService struct{ service }

// List returns one page of the competitors of a project
// (GET /api/workspaces/:id/projects/:projectId/competitors). Use All or
// Pages for every page.
func (s *CompetitorsService) List(ctx context.Context, workspaceID, projectID string, opts *ListOptions) ([]*Competitor, *Response, error) {
	return listPage[Competitor](ctx, s.client, &listCompetitors, opts, workspaceID, projectID)
}

var listCompetitors = endpoint{operation: "Competitors.List", method: http.MethodGet, route: "/api/workspaces/{id}/projects/{projectId}/competitors"}

// All iterates over every competitor of a project, as WorkspacesService.All does.
func (s *CompetitorsService) All(ctx context.Context, workspaceID, projectID string, opts *ListOptions) iter.Seq2[*Competitor, error] {
	return listAll[Competitor](ctx, s.client, &listCompetitors, opts, workspaceID, projectID)
}

// Pages iterates over the pages of competitors, as WorkspacesService.Pages does.
func (s *CompetitorsService) Pages(ctx context.Context, workspaceID, projectID string, opts *ListOptions) iter.Seq2[*Page[Competitor], error] {
	return listPages[Competitor](ctx, s.client, &listCompetitors, opts, true, workspaceID, projectID)
}
