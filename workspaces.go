package seoapi

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// Workspace holds projects, members, content plans and API keys. Raw keeps
// the fields the SDK does not know.
type Workspace struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`

	rawJSON
}

// workspaceJSON is a workspace as a server may send it.
type workspaceJSON struct {
	wireBase
	Name string `json:"name"`
}

func (w *workspaceJSON) build() Workspace {
	return Workspace{string(w.ID), w.Name, w.created(), w.updated(), w.raw}
}

// UnmarshalJSON reads a workspace tolerantly: camelCase or snake_case keys,
// string or numeric IDs, RFC 3339 or Unix times; a field of an unexpected
// type is left zero.
func (w *Workspace) UnmarshalJSON(data []byte) error {
	return unmarshalResource[Workspace, workspaceJSON](data, w)
}

func (w *Workspace) identity() string { return w.ID }

// WorkspaceCreateRequest is the body of WorkspacesService.Create.
type WorkspaceCreateRequest struct {
	Name string `json:"name,omitempty"`
	// Extra holds more body fields; a typed field that is set wins.
	Extra map[string]any `json:"-"`
}

// MarshalJSON encodes the fields that are not empty, merged with Extra.
func (r WorkspaceCreateRequest) MarshalJSON() ([]byte, error) {
	type fields WorkspaceCreateRequest
	return marshalRequest(fields(r), r.Extra)
}

// WorkspacesService handles GET and POST /api/workspaces.
type WorkspacesService struct{ service }

// List returns one page of the workspaces the key can see
// (GET /api/workspaces). Use All or Pages for every page.
func (s *WorkspacesService) List(ctx context.Context, opts *ListOptions) ([]*Workspace, *Response, error) {
	return listPage[Workspace](ctx, s.client, &listWorkspaces, opts)
}

var listWorkspaces = endpoint{operation: "Workspaces.List", method: http.MethodGet, route: "/api/workspaces"}

// All iterates over every workspace, fetching pages as it goes, from
// opts.Resume when set. An error (an invalid argument, a failed request, a
// page that repeats one already fetched, a next link outside the base URL)
// is yielded once, with a nil item, and ends the iteration; breaking out
// of the loop stops fetching.
func (s *WorkspacesService) All(ctx context.Context, opts *ListOptions) iter.Seq2[*Workspace, error] {
	return listAll[Workspace](ctx, s.client, &listWorkspaces, opts)
}

// Pages iterates over the pages of workspaces as All does, yielding each
// with its Response and its Next token: set a saved page.Next as
// ListOptions.Resume to carry on from there later. An error is yielded
// once, with a nil page, and ends the iteration.
func (s *WorkspacesService) Pages(ctx context.Context, opts *ListOptions) iter.Seq2[*Page[Workspace], error] {
	return listPages[Workspace](ctx, s.client, &listWorkspaces, opts, true)
}

// Create creates a workspace (POST /api/workspaces). A nil req fails with
// ErrInvalidArgument before anything is sent.
func (s *WorkspacesService) Create(ctx context.Context, req *WorkspaceCreateRequest) (*Workspace, *Response, error) {
	return callOne[Workspace](ctx, s.client, &createWorkspace, req)
}

var createWorkspace = endpoint{operation: "Workspaces.Create", method: http.MethodPost, route: "/api/workspaces"}
