package seoapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// maxBody caps request bodies.
const maxBody = 1 << 20

// ServeHTTP answers one request: it records it, waits SetDelay, applies
// the next queued fault or a random one, then authenticates, applies the
// limits and routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body []byte
	var readErr error
	if r.Body != nil {
		body, readErr = io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	}
	s.mu.Lock()
	idx := len(s.requests)
	s.requests = append(s.requests, Request{
		Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.Query(),
		Header: redactedHeader(r.Header), Body: body[:min(len(body), maxBody)], At: s.now(),
	})
	f, hasFault := s.takeFault()
	if !hasFault {
		f, hasFault = s.randomFailure()
	}
	delay := s.delay
	s.mu.Unlock()

	if !sleep(r.Context(), delay) {
		return
	}
	resp := &response{header: http.Header{}}
	resp.header.Set("X-Request-Id", fmt.Sprintf("req_%d", idx+1))
	switch {
	case hasFault && f.kind == faultDropBeforeRead:
		hangUp(w)
		return
	case hasFault && f.kind == faultStatus:
		f.answer(resp)
	default:
		// A body over the cap, or cut short, is not a JSON object: it is
		// answered 400 where a body is read.
		if readErr != nil || len(body) > maxBody {
			body = nil
		}
		s.mu.Lock()
		s.serveLocked(resp, r, body)
		// A queued faultDropAfterRead, or a random drop: the request took
		// effect and its answer is lost.
		drop := hasFault || s.randomDrop(r.Method, resp.status)
		s.mu.Unlock()
		if drop {
			hangUp(w)
			return
		}
	}
	s.mu.Lock()
	s.requests[idx].Status = resp.status
	if resp.status == http.StatusTooManyRequests {
		s.throttled++
	}
	s.mu.Unlock()
	resp.send(w)
}

// sleep waits d, or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// redactedHeader copies h with the credential of Authorization replaced,
// so that recorded requests never hold a key.
func redactedHeader(h http.Header) http.Header {
	out := h.Clone()
	if auth := out.Values("Authorization"); len(auth) > 0 {
		red := make([]string, len(auth))
		for i, v := range auth {
			scheme, _, hasCred := strings.Cut(v, " ")
			red[i] = "[REDACTED]"
			if hasCred {
				red[i] = scheme + " [REDACTED]"
			}
		}
		out["Authorization"] = red
	}
	return out
}

// response is an answer built under s.mu and sent after it is released,
// so that a slow reader never holds the fake up.
type response struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *response) Header() http.Header { return r.header }

func (r *response) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *response) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

func (r *response) send(w http.ResponseWriter) {
	for k, v := range r.header {
		w.Header()[k] = v
	}
	w.WriteHeader(r.status)
	w.Write(r.body.Bytes()) //nolint:errcheck // the client went away; nothing to do.
}

// serveLocked authenticates, applies the limits and routes; callers hold
// s.mu.
func (s *Server) serveLocked(w http.ResponseWriter, r *http.Request, body []byte) {
	key, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	if !s.admit(w, key.secret) {
		return
	}
	now := s.now().UTC()
	key.LastUsed = &now
	s.route(w, &call{Request: r, body: body}, key.account)
}

// call is a request with its body already read.
type call struct {
	*http.Request
	body []byte
}

func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (*keyRec, bool) {
	secret, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
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
func (s *Server) route(w http.ResponseWriter, r *call, acct *account) {
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
	s.routeWorkspace(w, r, ws, rest[1:])
}

// routeWorkspace serves the paths under one workspace.
func (s *Server) routeWorkspace(w http.ResponseWriter, r *call, ws *workspace, rest []string) {
	switch {
	case len(rest) >= 2 && rest[0] == "projects":
		s.routeProject(w, r, ws, rest[1], rest[2:])
	case len(rest) != 1:
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint")
	case rest[0] == "projects":
		s.serveProjects(w, r, ws)
	case rest[0] == "content-plans":
		s.serveContentPlans(w, r, ws)
	case rest[0] == "members":
		s.serveMembers(w, r, ws)
	case rest[0] == "api-keys":
		s.serveAPIKeys(w, r, ws)
	default:
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint")
	}
}

func (s *Server) serveWorkspaces(w http.ResponseWriter, r *call, acct *account) {
	switch r.Method {
	case http.MethodGet:
		var list []any
		for _, ws := range s.workspaces {
			if ws.account == acct {
				list = append(list, ws)
			}
		}
		s.writeList(w, r.Request, list)
	case http.MethodPost:
		f, ok := readForm(w, r, []string{"name"})
		if !ok {
			return
		}
		ws := s.addWorkspace(acct, f["name"])
		s.created(&ws.shown)
		writeJSON(w, http.StatusCreated, ws)
	default:
		methodNotAllowed(w, "GET, POST")
	}
}

func (s *Server) serveProjects(w http.ResponseWriter, r *call, ws *workspace) {
	switch r.Method {
	case http.MethodGet:
		s.pruneProjects(ws)
		s.writeList(w, r.Request, toAny(ws.projects))
	case http.MethodPost:
		f, ok := readForm(w, r, []string{"name"}, "domain")
		if !ok {
			return
		}
		p := s.addProject(ws, f["name"], f["domain"])
		s.created(&p.shown)
		writeJSON(w, http.StatusCreated, p)
	default:
		methodNotAllowed(w, "GET, POST")
	}
}

// routeProject serves the paths under one project.
func (s *Server) routeProject(w http.ResponseWriter, r *call, ws *workspace, id string, rest []string) {
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

func (s *Server) serveProject(w http.ResponseWriter, r *call, ws *workspace, p *project) {
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
		s.deleteProject(ws, p)
		w.WriteHeader(http.StatusNoContent)
	default:
		methodNotAllowed(w, "PATCH, DELETE")
	}
}

func (s *Server) serveCompetitors(w http.ResponseWriter, r *call, p *project) {
	if r.Method != http.MethodGet {
		methodNotAllowed(w, "GET")
		return
	}
	s.writeList(w, r.Request, toAny(p.competitors))
}

func (s *Server) serveContentPlans(w http.ResponseWriter, r *call, ws *workspace) {
	if r.Method != http.MethodGet {
		methodNotAllowed(w, "GET")
		return
	}
	s.writeList(w, r.Request, toAny(ws.contentPlans))
}

func (s *Server) serveMembers(w http.ResponseWriter, r *call, ws *workspace) {
	switch r.Method {
	case http.MethodGet:
		s.writeList(w, r.Request, toAny(ws.members))
	case http.MethodPost:
		f, ok := readForm(w, r, []string{"email"}, "role", "name")
		if !ok {
			return
		}
		if !strings.Contains(f["email"], "@") {
			writeError(w, http.StatusUnprocessableEntity, "validation_failed", "email is not an email address")
			return
		}
		if ws.findMember(f["email"]) != nil {
			writeError(w, http.StatusConflict, "already_member", "this email is already a member")
			return
		}
		m := s.addMember(ws, f["email"], f["name"], f["role"])
		s.created(&m.shown)
		writeJSON(w, http.StatusCreated, m)
	default:
		methodNotAllowed(w, "GET, POST")
	}
}

func (s *Server) serveAPIKeys(w http.ResponseWriter, r *call, ws *workspace) {
	switch r.Method {
	case http.MethodGet:
		var list []any
		for _, k := range s.keys {
			if k.workspace == ws.ID {
				list = append(list, k)
			}
		}
		slices.SortFunc(list, func(a, b any) int { return strings.Compare(a.(*keyRec).ID, b.(*keyRec).ID) })
		s.writeList(w, r.Request, list)
	case http.MethodPost:
		f, ok := readForm(w, r, []string{"name"})
		if !ok {
			return
		}
		rec := s.addKey(ws.account, ws.ID, f["name"])
		s.created(&rec.shown)
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

// readForm reads a JSON object body as the string fields a handler needs:
// each of required must be a non-empty string; each of optional a string,
// null or absent. The result holds the fields that were sent as strings.
// It answers 415, 400 or 422 and returns false when the body falls short.
func readForm(w http.ResponseWriter, r *call, required []string, optional ...string) (map[string]string, bool) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "Content-Type must be application/json")
		return nil, false
	}
	var body map[string]any
	if err := json.Unmarshal(r.body, &body); err != nil || body == nil {
		writeError(w, http.StatusBadRequest, "invalid_json", "request body must be a JSON object of at most 1 MiB")
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

// errorBody is the error shape the fake answers with.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, errorBody{Error: errorDetail{Code: code, Message: message}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	buf, err := json.Marshal(v)
	if err != nil {
		// Only the fake's own types are encoded; this is a bug in it.
		http.Error(w, "encoding response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf) //nolint:errcheck // the client went away; nothing to do.
}
