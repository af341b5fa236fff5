// Package fakeapi is an in-memory implementation of the Workspace
// Automation API, behaving as users would expect the real one to: Bearer
// keys it issued, records that are really created, listed, updated and
// deleted, validation errors, the published rate limits enforced with
// strict rolling windows, paged lists, and fault injection for tests.
//
// It is the reference the SDK's tests run against, so it shares no
// decoding code with the SDK: it reads requests with encoding/json only.
package fakeapi

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Plan is the plan of an account. Only Enterprise has API access.
type Plan string

// The plans the fake knows.
const (
	PlanEnterprise Plan = "enterprise"
	PlanAgency     Plan = "agency"
)

// Limits are the rate limits the fake enforces per key, each over a strict
// rolling window. Zero turns a level off.
type Limits struct {
	PerSecond int
	PerHour   int
}

// PublishedLimits are the limits of SPEC.md part 8.
var PublishedLimits = Limits{PerSecond: 50, PerHour: 10000}

// Server is the fake API. Its zero value is not usable; call New. It is
// safe for concurrent use.
type Server struct {
	mu         sync.Mutex
	now        func() time.Time
	seq        int
	accounts   map[string]*account // by ID
	keys       map[string]*keyRec  // by secret
	workspaces []*workspace        // in creation order
	limits     Limits
	windows    map[string]*window // by secret
	paging     Paging
	pageSize   int
	faults     []fault
	delay      time.Duration
	requests   []Request
	throttled  int
}

type account struct {
	id   string
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
}

type project struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	Name        string    `json:"name"`
	Domain      string    `json:"domain"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`

	competitors []*competitor
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
}

type competitor struct {
	ID        string    `json:"id"`
	ProjectID string    `json:"projectId"`
	Name      string    `json:"name"`
	Domain    string    `json:"domain"`
	CreatedAt time.Time `json:"createdAt"`
}

// Request is what the fake recorded of one request it received.
type Request struct {
	Method string
	Path   string
	Query  string
	At     time.Time
}

// New returns an empty fake API enforcing the published limits and paging
// lists with Link headers, 50 items a page.
func New() *Server {
	return &Server{
		now:      time.Now,
		accounts: map[string]*account{},
		keys:     map[string]*keyRec{},
		limits:   PublishedLimits,
		windows:  map[string]*window{},
		paging:   PagingLink,
		pageSize: 50,
	}
}

// IssueKey creates an account on plan with one workspace and returns a key
// for it and the workspace's ID.
func (s *Server) IssueKey(plan Plan) (key, workspaceID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	acct := &account{id: s.newID("acct"), plan: plan}
	s.accounts[acct.id] = acct
	ws := s.addWorkspace(acct, "Default workspace")
	rec := s.addKey(acct, ws.ID, "bootstrap")
	return rec.secret, ws.ID
}

// SetLimits replaces the enforced limits; the zero Limits turns limiting off.
func (s *Server) SetLimits(l Limits) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limits = l
	s.windows = map[string]*window{}
}

// Throttled returns how many requests were answered 429 by the limits.
func (s *Server) Throttled() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.throttled
}

// Requests returns what the fake received, in order of arrival.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// AddContentPlan adds a content plan to a workspace (the API has no
// endpoint to create one) and returns its ID.
func (s *Server) AddContentPlan(workspaceID, projectID, name, status string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.findWorkspace(workspaceID)
	if ws == nil {
		return "", fmt.Errorf("fakeapi: no workspace %q", workspaceID)
	}
	now := s.now().UTC()
	cp := &contentPlan{ID: s.newID("cp"), WorkspaceID: ws.ID, ProjectID: projectID, Name: name, Status: status, CreatedAt: now, UpdatedAt: now}
	ws.contentPlans = append(ws.contentPlans, cp)
	return cp.ID, nil
}

// AddCompetitor adds a competitor to a project (the API has no endpoint to
// create one) and returns its ID.
func (s *Server) AddCompetitor(workspaceID, projectID, name, domain string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.findWorkspace(workspaceID)
	if ws == nil {
		return "", fmt.Errorf("fakeapi: no workspace %q", workspaceID)
	}
	p := ws.findProject(projectID)
	if p == nil {
		return "", fmt.Errorf("fakeapi: no project %q", projectID)
	}
	c := &competitor{ID: s.newID("comp"), ProjectID: p.ID, Name: name, Domain: domain, CreatedAt: s.now().UTC()}
	p.competitors = append(p.competitors, c)
	return c.ID, nil
}

// ListenLoopback serves the fake on a free loopback port, for programs
// such as the quickstart. It returns the base URL and a function that
// stops the server.
func (s *Server) ListenLoopback() (baseURL string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("fakeapi: %w", err)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // Serve always returns an error after Close.
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// newID returns a fresh ID with prefix; callers hold s.mu.
func (s *Server) newID(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s_%06d", prefix, s.seq)
}

func (s *Server) addWorkspace(acct *account, name string) *workspace {
	now := s.now().UTC()
	ws := &workspace{ID: s.newID("ws"), Name: name, CreatedAt: now, UpdatedAt: now, account: acct}
	s.workspaces = append(s.workspaces, ws)
	return ws
}

func (s *Server) addKey(acct *account, workspaceID, name string) *keyRec {
	secret := "sk_" + randomHex(24)
	rec := &keyRec{ID: s.newID("key"), Name: name, Prefix: secret[:7], CreatedAt: s.now().UTC(), secret: secret, account: acct, workspace: workspaceID}
	s.keys[secret] = rec
	return rec
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("fakeapi: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b)
}

func (s *Server) findWorkspace(id string) *workspace {
	for _, ws := range s.workspaces {
		if ws.ID == id {
			return ws
		}
	}
	return nil
}

func (ws *workspace) findProject(id string) *project {
	for _, p := range ws.projects {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// ServeHTTP answers one request: faults first, then authentication, the
// rate limits and the route.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery, At: s.now()})
	reqID := fmt.Sprintf("req_%d", len(s.requests))
	f, hasFault := s.takeFault()
	delay := s.delay
	s.mu.Unlock()

	w.Header().Set("X-Request-Id", reqID)
	if delay > 0 {
		time.Sleep(delay)
	}
	if hasFault && f.apply(w, r, s) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.serveLocked(w, r)
}

func (s *Server) serveLocked(w http.ResponseWriter, r *http.Request) {
	key, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	if !s.admit(w, key.secret) {
		return
	}
	now := s.now().UTC()
	key.LastUsed = &now
	s.route(w, r, key.account)
}

func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (*keyRec, bool) {
	auth := r.Header.Get("Authorization")
	secret, ok := strings.CutPrefix(auth, "Bearer ")
	rec := s.keys[secret]
	if !ok || rec == nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="api"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", "missing or invalid API key")
		return nil, false
	}
	if rec.account.plan != PlanEnterprise {
		writeError(w, http.StatusForbidden, "plan_without_api_access", "API access requires the Enterprise plan")
		return nil, false
	}
	return rec, true
}

// route dispatches to the twelve endpoints.
func (s *Server) route(w http.ResponseWriter, r *http.Request, acct *account) {
	parts := strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/")
	if len(parts) < 2 || parts[0] != "api" || parts[1] != "workspaces" {
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint")
		return
	}
	rest := parts[2:]
	if len(rest) == 0 {
		s.serveWorkspaces(w, r, acct)
		return
	}
	ws := s.findWorkspace(rest[0])
	if ws == nil || ws.account != acct {
		writeError(w, http.StatusNotFound, "not_found", "workspace not found")
		return
	}
	if len(rest) >= 3 && rest[1] == "projects" {
		s.routeProject(w, r, ws, rest[2], rest[3:])
		return
	}
	switch {
	case len(rest) == 2 && rest[1] == "projects":
		s.serveProjects(w, r, ws)
	case len(rest) == 2 && rest[1] == "content-plans":
		s.serveContentPlans(w, r, ws)
	case len(rest) == 2 && rest[1] == "members":
		s.serveMembers(w, r, ws)
	case len(rest) == 2 && rest[1] == "api-keys":
		s.serveAPIKeys(w, r, ws)
	default:
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint")
	}
}

func (s *Server) serveWorkspaces(w http.ResponseWriter, r *http.Request, acct *account) {
	switch r.Method {
	case http.MethodGet:
		var list []any
		for _, ws := range s.workspaces {
			if ws.account == acct {
				list = append(list, ws)
			}
		}
		s.writeList(w, r, list)
	case http.MethodPost:
		f, ok := readForm(w, r, []string{"name"})
		if !ok {
			return
		}
		ws := s.addWorkspace(acct, f["name"])
		writeJSON(w, http.StatusCreated, ws)
	default:
		methodNotAllowed(w, "GET, POST")
	}
}

func (s *Server) serveProjects(w http.ResponseWriter, r *http.Request, ws *workspace) {
	switch r.Method {
	case http.MethodGet:
		s.writeList(w, r, toAny(ws.projects))
	case http.MethodPost:
		f, ok := readForm(w, r, []string{"name"}, "domain")
		if !ok {
			return
		}
		now := s.now().UTC()
		p := &project{ID: s.newID("proj"), WorkspaceID: ws.ID, Name: f["name"], Domain: f["domain"], CreatedAt: now, UpdatedAt: now}
		ws.projects = append(ws.projects, p)
		writeJSON(w, http.StatusCreated, p)
	default:
		methodNotAllowed(w, "GET, POST")
	}
}

// routeProject serves the paths under one project.
func (s *Server) routeProject(w http.ResponseWriter, r *http.Request, ws *workspace, id string, rest []string) {
	p := ws.findProject(id)
	switch {
	case len(rest) > 1 || (len(rest) == 1 && rest[0] != "competitors"):
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint")
	case p == nil:
		writeError(w, http.StatusNotFound, "not_found", "project not found")
	case len(rest) == 1:
		s.serveCompetitors(w, r, p)
	default:
		s.serveProject(w, r, ws, p)
	}
}

func (s *Server) serveProject(w http.ResponseWriter, r *http.Request, ws *workspace, p *project) {
	switch r.Method {
	case http.MethodPatch:
		f, ok := readForm(w, r, nil, "name", "domain")
		if !ok {
			return
		}
		if name, sent := f["name"]; sent {
			if strings.TrimSpace(name) == "" {
				writeError(w, http.StatusUnprocessableEntity, "validation_failed", "name must be a non-empty string")
				return
			}
			p.Name = name
		}
		if domain, sent := f["domain"]; sent {
			p.Domain = domain
		}
		p.UpdatedAt = s.now().UTC()
		writeJSON(w, http.StatusOK, p)
	case http.MethodDelete:
		ws.projects = slices.DeleteFunc(ws.projects, func(q *project) bool { return q == p })
		w.WriteHeader(http.StatusNoContent)
	default:
		methodNotAllowed(w, "PATCH, DELETE")
	}
}

func (s *Server) serveCompetitors(w http.ResponseWriter, r *http.Request, p *project) {
	if r.Method != http.MethodGet {
		methodNotAllowed(w, "GET")
		return
	}
	s.writeList(w, r, toAny(p.competitors))
}

func (s *Server) serveContentPlans(w http.ResponseWriter, r *http.Request, ws *workspace) {
	if r.Method != http.MethodGet {
		methodNotAllowed(w, "GET")
		return
	}
	s.writeList(w, r, toAny(ws.contentPlans))
}

func (s *Server) serveMembers(w http.ResponseWriter, r *http.Request, ws *workspace) {
	switch r.Method {
	case http.MethodGet:
		s.writeList(w, r, toAny(ws.members))
	case http.MethodPost:
		f, ok := readForm(w, r, []string{"email"}, "role", "name")
		if !ok {
			return
		}
		email, role := f["email"], f["role"]
		if !strings.Contains(email, "@") {
			writeError(w, http.StatusUnprocessableEntity, "validation_failed", "email is not an email address")
			return
		}
		if role == "" {
			role = "member"
		}
		for _, m := range ws.members {
			if strings.EqualFold(m.Email, email) {
				writeError(w, http.StatusConflict, "already_member", "this email is already a member")
				return
			}
		}
		m := &member{ID: s.newID("mem"), Email: email, Name: f["name"], Role: role, CreatedAt: s.now().UTC()}
		ws.members = append(ws.members, m)
		writeJSON(w, http.StatusCreated, m)
	default:
		methodNotAllowed(w, "GET, POST")
	}
}

func (s *Server) serveAPIKeys(w http.ResponseWriter, r *http.Request, ws *workspace) {
	switch r.Method {
	case http.MethodGet:
		var list []any
		for _, k := range s.keys {
			if k.workspace == ws.ID {
				list = append(list, k)
			}
		}
		slices.SortFunc(list, func(a, b any) int { return strings.Compare(a.(*keyRec).ID, b.(*keyRec).ID) })
		s.writeList(w, r, list)
	case http.MethodPost:
		f, ok := readForm(w, r, []string{"name"})
		if !ok {
			return
		}
		rec := s.addKey(ws.account, ws.ID, f["name"])
		// The secret is shown once, in the response to its creation.
		writeJSON(w, http.StatusCreated, struct {
			*keyRec
			Key string `json:"key"`
		}{rec, rec.secret})
	default:
		methodNotAllowed(w, "GET, POST")
	}
}

func toAny[T any](items []T) []any {
	out := make([]any, len(items))
	for i, v := range items {
		out[i] = v
	}
	return out
}

// maxBody caps request bodies.
const maxBody = 1 << 20

// readForm reads a JSON object body as the string fields a handler needs:
// each of required must be a non-empty string; each of optional a string,
// null or absent. The result holds the fields that were sent as strings.
// It answers 415, 400 or 422 and returns false when the body falls short.
func readForm(w http.ResponseWriter, r *http.Request, required []string, optional ...string) (map[string]string, bool) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "Content-Type must be application/json")
		return nil, false
	}
	var body map[string]any
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(&body); err != nil || body == nil {
		writeError(w, http.StatusBadRequest, "invalid_json", "request body must be a JSON object")
		return nil, false
	}
	form := map[string]string{}
	for _, field := range required {
		v, ok := body[field].(string)
		if !ok || strings.TrimSpace(v) == "" {
			writeError(w, http.StatusUnprocessableEntity, "validation_failed", field+" is required and must be a non-empty string")
			return nil, false
		}
		form[field] = v
	}
	for _, field := range optional {
		switch v := body[field].(type) {
		case nil:
		case string:
			form[field] = v
		default:
			writeError(w, http.StatusUnprocessableEntity, "validation_failed", field+" must be a string")
			return nil, false
		}
	}
	return form, true
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", "method not allowed")
}

// ErrorBody is the error shape the fake answers with.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the inside of ErrorBody.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, ErrorBody{Error: ErrorDetail{Code: code, Message: message}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	buf, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encoding response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf) //nolint:errcheck // the client went away; nothing to do.
}
