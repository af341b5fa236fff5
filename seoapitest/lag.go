package seoapitest

import "time"

// SetListLag makes a resource created through the API (a POST) appear in
// lists only d after its creation, as on a server whose lists are only
// eventually consistent. The lag is applied when a list is read, so a new
// d applies to every such resource at once, and 0 lists them all. The
// resource exists at once for everything else: its 201 answer, an update
// or delete by its ID, and the 409 of a member added twice. Setup methods
// (AddProject and the others) are listed at once.
func (s *Server) SetListLag(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listLag = max(d, 0)
}

// shown is embedded in the records that lists show: when the record was
// created through the API (zero for one a setup method added).
type shown struct{ postedAt time.Time }

func (v *shown) posted() time.Time { return v.postedAt }

// created marks a record just created through the API; callers hold s.mu.
func (s *Server) created(v *shown) { v.postedAt = s.now() }

// listed drops the items that lists do not show yet; callers hold s.mu.
func (s *Server) listed(items []any) []any {
	now := s.now()
	out := make([]any, 0, len(items))
	for _, it := range items {
		if p, ok := it.(interface{ posted() time.Time }); ok && !p.posted().IsZero() && now.Before(p.posted().Add(s.listLag)) {
			continue
		}
		out = append(out, it)
	}
	return out
}
