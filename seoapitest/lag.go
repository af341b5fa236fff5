package seoapitest

import "time"

// SetListLag makes a resource created through the API (a POST) appear in
// lists only d after its creation, as on a server whose lists are only
// eventually consistent; 0 turns it off for resources created from then
// on. The resource exists at once for everything else: its 201 answer, an
// update or delete by its ID, and the 409 of a member added twice. Setup
// methods (AddProject and the others) are listed at once.
func (s *Server) SetListLag(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listLag = max(d, 0)
}

// shown is embedded in the records that lists show: when the record first
// appears in them (the zero time: at once).
type shown struct{ listedAt time.Time }

func (v *shown) listedFrom() time.Time { return v.listedAt }

// created starts the list lag of a record just created through the API;
// callers hold s.mu.
func (s *Server) created(v *shown) {
	if s.listLag > 0 {
		v.listedAt = s.now().Add(s.listLag)
	}
}

// listed drops the items that lists do not show yet; callers hold s.mu.
func (s *Server) listed(items []any) []any {
	now := s.now()
	out := make([]any, 0, len(items))
	for _, it := range items {
		if l, ok := it.(interface{ listedFrom() time.Time }); ok && now.Before(l.listedFrom()) {
			continue
		}
		out = append(out, it)
	}
	return out
}
