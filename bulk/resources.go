package bulk

import (
	"context"
	"iter"
	"strings"

	"github.com/seoapi/seoapi-go"
)

// resource is what a Job needs of one list: how to read it and how to
// write its items, through the client it is given. update and remove are
// nil where the API has no such endpoint.
type resource struct {
	list   listRef
	read   func(ctx context.Context, c *seoapi.Client, opts *seoapi.ListOptions) iter.Seq2[listPage, error]
	update func(ctx context.Context, c *seoapi.Client, a *Action) error
	remove func(ctx context.Context, c *seoapi.Client, a *Action) error
	// diff names the fields of want that have differs in.
	diff func(want, have Seen) []string
}

// listPage is one page of a list as a Job reads it.
type listPage struct {
	seen []Seen
	next string
}

// pagesOf turns the pages of a service's Pages into listPages.
func pagesOf[T any](pages iter.Seq2[*seoapi.Page[T], error], see func(*T) Seen) iter.Seq2[listPage, error] {
	return func(yield func(listPage, error) bool) {
		for p, err := range pages {
			if err != nil {
				yield(listPage{}, err)
				return
			}
			lp := listPage{next: p.Next, seen: make([]Seen, 0, len(p.Items))}
			for _, it := range p.Items {
				if it != nil {
					lp.seen = append(lp.seen, see(it))
				}
			}
			if !yield(lp, nil) {
				return
			}
		}
	}
}

// ProjectKey is the natural key of a project: its domain in lower case, or
// "name:" and its name when it has no domain. A domain that itself begins
// with "name:" or "domain:" is keyed as "domain:" and the domain, so that
// no domain has the key of a project without one. A wanted project and an
// existing one with the same key are the same project.
func ProjectKey(name, domain string) string {
	d := strings.ToLower(strings.TrimSpace(domain))
	switch {
	case d == "":
		return "name:" + name
	case strings.HasPrefix(d, "name:"), strings.HasPrefix(d, "domain:"):
		return "domain:" + d
	}
	return d
}

// MemberKey is the natural key of a member: the email in lower case.
func MemberKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// WorkspaceKey is the natural key of a workspace: its name.
func WorkspaceKey(name string) string { return name }

func seeProject(p *seoapi.Project) Seen {
	return Seen{Key: ProjectKey(p.Name, p.Domain), ID: p.ID, Name: p.Name, Domain: p.Domain}
}

func seeMember(m *seoapi.Member) Seen {
	return Seen{Key: MemberKey(m.Email), ID: m.ID, Name: m.Name}
}

func seeWorkspace(w *seoapi.Workspace) Seen {
	return Seen{Key: WorkspaceKey(w.Name), ID: w.ID, Name: w.Name}
}

// projects is the projects list of a workspace.
func projects(ws string) *resource {
	return &resource{
		list: listRef{"project", ws},
		read: func(ctx context.Context, c *seoapi.Client, opts *seoapi.ListOptions) iter.Seq2[listPage, error] {
			return pagesOf(c.Projects.Pages(ctx, ws, opts), seeProject)
		},
		update: func(ctx context.Context, c *seoapi.Client, a *Action) error {
			_, _, err := c.Projects.Update(ctx, ws, a.ID, projectUpdate(a))
			return err
		},
		remove: func(ctx context.Context, c *seoapi.Client, a *Action) error {
			_, err := c.Projects.Delete(ctx, ws, a.ID)
			return err
		},
		diff: diffProject,
	}
}

// diffProject names the fields a wanted project sets to another value
// than the existing one has: the name exactly, the domain without case.
func diffProject(want, have Seen) []string {
	var fields []string
	if want.Name != "" && want.Name != have.Name {
		fields = append(fields, "name")
	}
	if want.Domain != "" && !strings.EqualFold(want.Domain, have.Domain) {
		fields = append(fields, "domain")
	}
	return fields
}

// projectUpdate is the body that sends the fields of a that differ.
func projectUpdate(a *Action) *seoapi.ProjectUpdateRequest {
	var req seoapi.ProjectUpdateRequest
	for _, f := range a.Fields {
		switch f {
		case "name":
			req.Name = seoapi.Ptr(a.want.Name)
		case "domain":
			req.Domain = seoapi.Ptr(a.want.Domain)
		}
	}
	return &req
}

// members is the members list of a workspace. The API can neither update
// nor remove a member.
func members(ws string) *resource {
	return &resource{
		list: listRef{"member", ws},
		read: func(ctx context.Context, c *seoapi.Client, opts *seoapi.ListOptions) iter.Seq2[listPage, error] {
			return pagesOf(c.Members.Pages(ctx, ws, opts), seeMember)
		},
		diff: func(Seen, Seen) []string { return nil },
	}
}

// workspaces is the list of workspaces. The API can neither update nor
// remove a workspace.
func workspaces() *resource {
	return &resource{
		list: listRef{"workspace", ""},
		read: func(ctx context.Context, c *seoapi.Client, opts *seoapi.ListOptions) iter.Seq2[listPage, error] {
			return pagesOf(c.Workspaces.Pages(ctx, opts), seeWorkspace)
		},
		diff: func(Seen, Seen) []string { return nil },
	}
}
