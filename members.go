package seoapi

import (
	"context"
	"iter"
	"net/http"
	"time"
)

// Member is a user's membership of a workspace. Role is the server's text
// as sent; the API publishes no roles.
type Member struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"createdAt"`

	rawJSON
}

// memberJSON is a member as a server may send it.
type memberJSON struct {
	wireBase
	Email string `json:"email"`
	Name  string `json:"name"`
	Role  string `json:"role"`
}

func (w *memberJSON) build() Member {
	return Member{string(w.ID), w.Email, w.Name, w.Role, w.created(), w.raw}
}

// UnmarshalJSON reads a member tolerantly, as Workspace.UnmarshalJSON does.
func (m *Member) UnmarshalJSON(data []byte) error {
	return unmarshalResource[Member, memberJSON](data, m)
}

func (m *Member) identity() string { return m.ID }

// MemberAddRequest is the body of MembersService.Add.
type MemberAddRequest struct {
	Email string `json:"email,omitempty"`
	Role  string `json:"role,omitempty"`
	// Extra holds more body fields; a typed field that is set wins.
	Extra map[string]any `json:"-"`
}

// MarshalJSON encodes the fields that are not empty, merged with Extra.
func (r MemberAddRequest) MarshalJSON() ([]byte, error) {
	type fields MemberAddRequest
	return marshalRequest(fields(r), r.Extra)
}

// MembersService handles the members of a workspace.
type MembersService struct{ service }

// List returns one page of the members of a workspace
// (GET /api/workspaces/:id/members). Use All or Pages for every page.
func (s *MembersService) List(ctx context.Context, workspaceID string, opts *ListOptions) ([]*Member, *Response, error) {
	return listPage[Member](ctx, s.client, &listMembers, opts, workspaceID)
}

var listMembers = endpoint{operation: "Members.List", method: http.MethodGet, route: "/api/workspaces/{id}/members"}

// All iterates over every member of a workspace, as WorkspacesService.All does.
func (s *MembersService) All(ctx context.Context, workspaceID string, opts *ListOptions) iter.Seq2[*Member, error] {
	return listAll[Member](ctx, s.client, &listMembers, opts, workspaceID)
}

// Pages iterates over the pages of members, as WorkspacesService.Pages does.
func (s *MembersService) Pages(ctx context.Context, workspaceID string, opts *ListOptions) iter.Seq2[*Page[Member], error] {
	return listPages[Member](ctx, s.client, &listMembers, opts, true, workspaceID)
}

// Add adds a member to a workspace (POST /api/workspaces/:id/members). A
// nil req fails with ErrInvalidArgument before anything is sent.
func (s *MembersService) Add(ctx context.Context, workspaceID string, req *MemberAddRequest) (*Member, *Response, error) {
	return callOne[Member](ctx, s.client, &addMember, req, workspaceID)
}

var addMember = endpoint{operation: "Members.Add", method: http.MethodPost, route: "/api/workspaces/{id}/members"}
