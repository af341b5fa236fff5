package seoapitest

import (
	"fmt"
	"strings"
	"time"
)

type account struct {
	plan Plan
}

type keyRec struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	Prefix    string     `json:"prefix"`
	CreatedAt time.Time  `json:"createdAt"`
	LastUsed  *time.Time `json:"lastUsedAt"`
	ExpiresAt *time.Time `json:"expiresAt"`

	secret    string
	account   *account
	workspace string
	shown
}

type workspace struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`

	account      *account
	projects     []*project
	contentPlans []*contentPlan
	members      []*member
	shown
}

type project struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	Name        string    `json:"name"`
	Domain      string    `json:"domain"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`

	competitors []*competitor
	shown
}

type contentPlan struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	ProjectID   string    `json:"projectId,omitempty"`
	Name        string    `json:"name"`
	Status      string    `json:"status"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

type member struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	Role      string    `json:"role"`
	CreatedAt time.Time `json:"createdAt"`

	shown
}

type competitor struct {
	ID        string    `json:"id"`
	ProjectID string    `json:"projectId"`
	Name      string    `json:"name"`
	Domain    string    `json:"domain"`
	CreatedAt time.Time `json:"createdAt"`
}

// AddWorkspace adds a workspace to Key's account and returns its ID.
func (s *Server) AddWorkspace(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	mustName("AddWorkspace", name)
	return s.addWorkspace(s.main.account, name).ID
}

// AddProject adds a project to a workspace and returns its ID.
func (s *Server) AddProject(workspaceID, name, domain string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.mustWorkspace("AddProject", workspaceID)
	mustName("AddProject", name)
	return s.addProject(ws, name, domain).ID
}

// AddMember adds a member to a workspace and returns its ID; role "" is
// "member". It panics when the email has no "@" or is already a member's,
// which the API would refuse.
func (s *Server) AddMember(workspaceID, email, role string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.mustWorkspace("AddMember", workspaceID)
	if !strings.Contains(email, "@") {
		panic(fmt.Sprintf("seoapitest: AddMember: %q is not an email address", email))
	}
	if ws.findMember(email) != nil {
		panic(fmt.Sprintf("seoapitest: AddMember: %q is already a member of workspace %q", email, workspaceID))
	}
	return s.addMember(ws, email, "", role).ID
}

// AddContentPlan adds a content plan to a workspace, attached to a project
// of it or to none when projectID is "", and returns its ID. The API has
// no endpoint that creates one.
func (s *Server) AddContentPlan(workspaceID, projectID, name, status string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.mustWorkspace("AddContentPlan", workspaceID)
	if projectID != "" {
		s.mustProject("AddContentPlan", ws, projectID)
	}
	mustName("AddContentPlan", name)
	now := s.now().UTC()
	cp := &contentPlan{ID: s.newID("cp"), WorkspaceID: ws.ID, ProjectID: projectID, Name: name, Status: status, CreatedAt: now, UpdatedAt: now}
	ws.contentPlans = append(ws.contentPlans, cp)
	return cp.ID
}

// AddCompetitor adds a competitor to a project and returns its ID. The API
// has no endpoint that creates one.
func (s *Server) AddCompetitor(workspaceID, projectID, name, domain string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.mustWorkspace("AddCompetitor", workspaceID)
	p := s.mustProject("AddCompetitor", ws, projectID)
	mustName("AddCompetitor", name)
	c := &competitor{ID: s.newID("comp"), ProjectID: p.ID, Name: name, Domain: domain, CreatedAt: s.now().UTC()}
	p.competitors = append(p.competitors, c)
	return c.ID
}

func mustName(method, name string) {
	if strings.TrimSpace(name) == "" {
		panic(fmt.Sprintf("seoapitest: %s: the name is blank", method))
	}
}

// mustWorkspace finds a workspace for a setup method; callers hold s.mu.
func (s *Server) mustWorkspace(method, id string) *workspace {
	ws := s.findWorkspace(id)
	if ws == nil {
		panic(fmt.Sprintf("seoapitest: %s: no workspace %q", method, id))
	}
	return ws
}

func (s *Server) mustProject(method string, ws *workspace, id string) *project {
	p := ws.findProject(id)
	if p == nil {
		panic(fmt.Sprintf("seoapitest: %s: no project %q in workspace %q", method, id, ws.ID))
	}
	return p
}

// The add functions below create records; callers hold s.mu and have
// checked the input.

func (s *Server) addWorkspace(acct *account, name string) *workspace {
	now := s.now().UTC()
	ws := &workspace{ID: s.newID("ws"), Name: name, CreatedAt: now, UpdatedAt: now, account: acct}
	s.workspaces = append(s.workspaces, ws)
	return ws
}

func (s *Server) addProject(ws *workspace, name, domain string) *project {
	now := s.now().UTC()
	p := &project{ID: s.newID("proj"), WorkspaceID: ws.ID, Name: name, Domain: domain, CreatedAt: now, UpdatedAt: now}
	ws.projects = append(ws.projects, p)
	return p
}

func (s *Server) addMember(ws *workspace, email, name, role string) *member {
	if role == "" {
		role = "member"
	}
	m := &member{ID: s.newID("mem"), Email: email, Name: name, Role: role, CreatedAt: s.now().UTC()}
	ws.members = append(ws.members, m)
	return m
}

func (s *Server) findWorkspace(id string) *workspace {
	for _, ws := range s.workspaces {
		if ws.ID == id {
			return ws
		}
	}
	return nil
}

// findProject finds a project that exists: one deleted through the API is
// not found, though a list may still show it.
func (ws *workspace) findProject(id string) *project {
	for _, p := range ws.projects {
		if p.ID == id && !p.deleted() {
			return p
		}
	}
	return nil
}

func (ws *workspace) findMember(email string) *member {
	for _, m := range ws.members {
		if strings.EqualFold(m.Email, email) {
			return m
		}
	}
	return nil
}
