package seoapitest

import (
	"slices"
	"time"
)

// SetListLag makes lists show a resource created or deleted through the
// API (a POST or a DELETE) only d after the change, as on a server whose
// lists are only eventually consistent: a created resource is listed from
// d after its creation, a deleted one until d after its deletion. The lag
// is applied when a list is read, so a new d applies to every such
// resource at once, and 0 lists every resource that exists and no other;
// a deleted resource that a list has stopped showing does not come back.
// For everything else a change takes effect at once: a created resource
// has its 201 answer, an update or delete by its ID, and the 409 of a
// member added twice; a deleted one is answered 404 by its ID. Setup
// methods (AddProject and the others) are listed at once.
func (s *Server) SetListLag(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listLag = max(d, 0)
}

// shown is embedded in the records that lists show: when the record was
// created through the API (zero for one a setup method added), and when it
// was deleted through the API (zero while it exists).
type shown struct{ postedAt, deletedAt time.Time }

func (v *shown) visibility() *shown { return v }

// deleted reports whether the record was deleted through the API.
func (v *shown) deleted() bool { return !v.deletedAt.IsZero() }

// listedAt reports whether a list read at now shows the record.
func (v *shown) listedAt(now time.Time, lag time.Duration) bool {
	if !v.postedAt.IsZero() && now.Before(v.postedAt.Add(lag)) {
		return false
	}
	return !v.deleted() || now.Before(v.deletedAt.Add(lag))
}

// created marks a record just created through the API; callers hold s.mu.
func (s *Server) created(v *shown) { v.postedAt = s.now() }

// deleteProject removes p from its workspace. Under a list lag p stays in
// ws.projects, marked deleted, until lists stop showing it; callers hold
// s.mu.
func (s *Server) deleteProject(ws *workspace, p *project) {
	p.deletedAt = s.now()
	s.pruneProjects(ws)
}

// pruneProjects drops the deleted projects that lists no longer show;
// callers hold s.mu.
func (s *Server) pruneProjects(ws *workspace) {
	now := s.now()
	ws.projects = slices.DeleteFunc(ws.projects, func(p *project) bool {
		return p.deleted() && !p.listedAt(now, s.listLag)
	})
}

// listed drops the items that lists do not show; callers hold s.mu.
func (s *Server) listed(items []any) []any {
	now := s.now()
	out := make([]any, 0, len(items))
	for _, it := range items {
		if v, ok := it.(interface{ visibility() *shown }); ok && !v.visibility().listedAt(now, s.listLag) {
			continue
		}
		out = append(out, it)
	}
	return out
}
