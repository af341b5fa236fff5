package seoapi

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"time"

	"github.com/seoapi/seoapi-go/internal/jsonx"
)

// Competitor is a competitor tracked for a project.
type Competitor struct {
	ID        string    `json:"id"`
	ProjectID string    `json:"projectId"`
	Name      string    `json:"name"`
	Domain    string    `json:"domain"`
	CreatedAt time.Time `json:"createdAt"`

	raw rawJSON
}

// Raw returns the exact JSON object the competitor was decoded from.
func (c *Competitor) Raw() json.RawMessage { return c.raw.bytes() }

func (*Competitor) jsonNames() (string, string) { return "competitor", "competitors" }

// UnmarshalJSON reads a competitor tolerantly, as Workspace.UnmarshalJSON
// does.
func (c *Competitor) UnmarshalJSON(data []byte) error { return unmarshalResource(data, c) }

func (c *Competitor) setField(d *decoder, key []byte, v jsonx.Value) {
	switch string(key) {
	case "id":
		d.setID(&c.ID, v)
	case "projectid":
		d.setID(&c.ProjectID, v)
	case "name":
		d.setString(&c.Name, v)
	case "domain":
		d.setString(&c.Domain, v)
	case "createdat":
		setTime(&c.CreatedAt, v)
	}
}

func (c *Competitor) rawJSON() *rawJSON { return &c.raw }

func (c *Competitor) reset() { *c = Competitor{} }

// CompetitorsService handles the competitors of a project.
type CompetitorsService struct{ service }

// List returns one page of the competitors of a project
// (GET /api/workspaces/:id/projects/:projectId/competitors). Use All for
// every page.
func (s *CompetitorsService) List(ctx context.Context, workspaceID, projectID string, opts *ListOptions) ([]*Competitor, *Response, error) {
	return listPage[Competitor](ctx, s.client, &listCompetitors, opts, workspaceID, projectID)
}

var listCompetitors = endpoint{operation: "Competitors.List", method: http.MethodGet, route: "/api/workspaces/{id}/projects/{projectId}/competitors"}

// All iterates over every competitor of a project.
func (s *CompetitorsService) All(ctx context.Context, workspaceID, projectID string, opts *ListOptions) iter.Seq2[*Competitor, error] {
	return listAll[Competitor](ctx, s.client, &listCompetitors, opts, workspaceID, projectID)
}
