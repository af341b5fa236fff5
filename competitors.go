package seoapi

import (
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
	wireBase
	ProjectID      jsonID `json:"projectId"`
	ProjectIDSnake jsonID `json:"project_id"`
	Name           string `json:"name"`
	Domain         string `json:"domain"`
}

func (w *competitorJSON) build() Competitor {
	return Competitor{string(w.ID), either(w.ProjectID, w.ProjectIDSnake), w.Name, w.Domain, w.created(), w.raw}
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
