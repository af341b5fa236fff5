package seoapi

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// Project is a project of a workspace. Raw keeps the fields the SDK does
// not know.
type Project struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	Name        string    `json:"name"`
	Domain      string    `json:"domain"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`

	rawJSON
}

// projectJSON is a project as a server may send it.
type projectJSON struct {
	wireBase
	WorkspaceID      jsonID `json:"workspaceId"`
	WorkspaceIDSnake jsonID `json:"workspace_id"`
	Name             string `json:"name"`
	Domain           string `json:"domain"`
}

func (w *projectJSON) build() Project {
	return Project{string(w.ID), either(w.WorkspaceID, w.WorkspaceIDSnake), w.Name, w.Domain, w.created(), w.updated(), w.raw}
}

// UnmarshalJSON reads a project tolerantly, as Workspace.UnmarshalJSON does.
func (p *Project) UnmarshalJSON(data []byte) error {
	return unmarshalResource[Project, projectJSON](data, p)
}

func (p *Project) identity() string { return p.ID }

// ProjectCreateRequest is the body of ProjectsService.Create.
type ProjectCreateRequest struct {
	Name   string `json:"name,omitempty"`
	Domain string `json:"domain,omitempty"`
	// Extra holds more body fields; a typed field that is set wins.
	Extra map[string]any `json:"-"`
}

// MarshalJSON encodes the fields that are not empty, merged with Extra.
func (r ProjectCreateRequest) MarshalJSON() ([]byte, error) {
	type fields ProjectCreateRequest
	return marshalRequest(fields(r), r.Extra)
}

// ProjectUpdateRequest is the body of ProjectsService.Update. Only the
// fields that are set (non-nil) are sent; use Ptr to set them.
type ProjectUpdateRequest struct {
	Name   *string `json:"name,omitempty"`
	Domain *string `json:"domain,omitempty"`
	// Extra holds more body fields; a typed field that is set wins.
	Extra map[string]any `json:"-"`
}

// MarshalJSON encodes the fields that are set, merged with Extra.
func (r ProjectUpdateRequest) MarshalJSON() ([]byte, error) {
	type fields ProjectUpdateRequest
	return marshalRequest(fields(r), r.Extra)
}

// ProjectsService handles the projects of a workspace.
type ProjectsService struct{ service }

// List returns one page of the projects of a workspace
// (GET /api/workspaces/:id/projects). Use All or Pages for every page.
func (s *ProjectsService) List(ctx context.Context, workspaceID string, opts *ListOptions) ([]*Project, *Response, error) {
	return listPage[Project](ctx, s.client, &listProjects, opts, workspaceID)
}

var listProjects = endpoint{operation: "Projects.List", method: http.MethodGet, route: "/api/workspaces/{id}/projects"}

// All iterates over every project of a workspace, as WorkspacesService.All does.
func (s *ProjectsService) All(ctx context.Context, workspaceID string, opts *ListOptions) iter.Seq2[*Project, error] {
	return listAll[Project](ctx, s.client, &listProjects, opts, workspaceID)
}

// Pages iterates over the pages of projects, as WorkspacesService.Pages does.
func (s *ProjectsService) Pages(ctx context.Context, workspaceID string, opts *ListOptions) iter.Seq2[*Page[Project], error] {
	return listPages[Project](ctx, s.client, &listProjects, opts, true, workspaceID)
}

// Create creates a project in a workspace (POST /api/workspaces/:id/projects).
// A nil req fails with ErrInvalidArgument before anything is sent.
func (s *ProjectsService) Create(ctx context.Context, workspaceID string, req *ProjectCreateRequest) (*Project, *Response, error) {
	return callOne[Project](ctx, s.client, &createProject, req, workspaceID)
}

var createProject = endpoint{operation: "Projects.Create", method: http.MethodPost, route: "/api/workspaces/{id}/projects"}

// Update changes the fields of req that are set
// (PATCH /api/workspaces/:id/projects/:projectId). A nil req fails with
// ErrInvalidArgument before anything is sent.
func (s *ProjectsService) Update(ctx context.Context, workspaceID, projectID string, req *ProjectUpdateRequest) (*Project, *Response, error) {
	return callOne[Project](ctx, s.client, &updateProject, req, workspaceID, projectID)
}

var updateProject = endpoint{operation: "Projects.Update", method: http.MethodPatch, route: "/api/workspaces/{id}/projects/{projectId}"}

// Delete deletes a project (DELETE /api/workspaces/:id/projects/:projectId).
// A rejected argument returns a nil *Response: check err before reading
// resp.StatusCode.
func (s *ProjectsService) Delete(ctx context.Context, workspaceID, projectID string) (*Response, error) {
	return callNoContent(ctx, s.client, &deleteProject, workspaceID, projectID)
}

var deleteProject = endpoint{operation: "Projects.Delete", method: http.MethodDelete, route: "/api/workspaces/{id}/projects/{projectId}"}
