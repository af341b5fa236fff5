package seoapi

import (
	"net/http"
	"net/url"
	"strings"
)

// endpoint is one endpoint of the API, declared once beside the service
// method that calls it.
type endpoint struct {
	operation string // the SDK method, such as "Projects.Create"
	method    string
	route     string // the published path, its IDs as {id} and {projectId}
	secret    bool   // the answer holds a created secret (a new API key)
}

// name is the method and route, without IDs: "POST /api/workspaces/{id}/projects".
func (e *endpoint) name() string { return e.method + " " + e.route }

// path returns the route relative to the base URL, its placeholders
// filled in order with ids, each escaped into exactly one path segment
// ("a?b" travels as "a%3Fb"). An empty ID, a dot segment, or one holding a
// slash (a gateway may split at an escaped one), a backslash or a control
// character is an ErrInvalidArgument.
func (e *endpoint) path(ids ...string) (string, error) {
	var b strings.Builder
	b.Grow(len(e.route) + 32)
	rest := strings.TrimPrefix(e.route, "/")
	for _, id := range ids {
		open := strings.IndexByte(rest, '{')
		end := strings.IndexByte(rest, '}')
		if open < 0 || end < open {
			return "", invalidArgument("%s: too many IDs", e.operation)
		}
		var problem string
		switch {
		case id == "":
			problem = "is empty"
		case id == "." || id == ".." || strings.HasPrefix(id, ".;") || strings.HasPrefix(id, "..;"):
			// "..;x" is ".." to some servers and a name to others.
			problem = `is "." or "..", alone or with ";params", which servers read as a dot segment`
		case strings.ContainsAny(id, `/\`):
			problem = "contains a slash or a backslash"
		case strings.ContainsFunc(id, isControl):
			problem = "contains control characters"
		}
		if problem != "" {
			return "", invalidArgument("%s %s", idName(rest[open+1:end]), problem)
		}
		b.WriteString(rest[:open])
		b.WriteString(url.PathEscape(id))
		rest = rest[end+1:]
	}
	b.WriteString(rest)
	return b.String(), nil
}

// idName is how an error names the argument behind a placeholder.
func idName(placeholder string) string {
	if placeholder == "id" {
		return "workspaceID"
	}
	return placeholder[:len(placeholder)-2] + "ID" // projectId: projectID
}

// endpoints lists every endpoint, for naming a request sent with Client.Do.
func endpoints() []*endpoint {
	return []*endpoint{
		&listWorkspaces, &createWorkspace,
		&listProjects, &createProject, &updateProject, &deleteProject,
		&listContentPlans,
		&listMembers, &addMember,
		&listCompetitors,
		&listAPIKeys, &createAPIKey,
	}
}

// endpointOf returns the endpoint a request sent with Client.Do goes to;
// any other request is "Client.Do" with the route "/{path}", so that no
// ID reaches an aggregate.
func (c *Client) endpointOf(req *http.Request) *endpoint {
	rel := strings.TrimPrefix(req.URL.EscapedPath(), c.baseURL.EscapedPath())
	path := strings.Split(strings.Trim(rel, "/"), "/")
	for _, e := range endpoints() {
		if e.method == req.Method && e.matches(path) {
			return e
		}
	}
	return &endpoint{operation: "Client.Do", method: req.Method, route: "/{path}"}
}

// matches reports whether the segments of a path fill the route: the
// same literal segments, and one non-empty segment for each placeholder.
func (e *endpoint) matches(path []string) bool {
	route := strings.Split(strings.TrimPrefix(e.route, "/"), "/")
	if len(route) != len(path) {
		return false
	}
	for i, seg := range route {
		placeholder := strings.HasPrefix(seg, "{")
		if placeholder && path[i] == "" || !placeholder && path[i] != seg {
			return false
		}
	}
	return true
}
