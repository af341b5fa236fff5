package bulk

import (
	"context"
	"errors"
	"time"

	"github.com/seoapi/seoapi-go"
)

// snapshot is what one read of a list found.
type snapshot struct {
	// all holds every resource, in the list's order.
	all []Seen
	// byKey holds the first resource of each key.
	byKey map[string]Seen
	ids   map[string]bool
	pages int
	// start is when the read began.
	start time.Time
}

func newSnapshot(start time.Time) *snapshot {
	return &snapshot{byKey: map[string]Seen{}, ids: map[string]bool{}, start: start}
}

func (s *snapshot) add(seen []Seen) {
	s.all = append(s.all, seen...)
	s.index(seen)
	s.pages++
}

func (s *snapshot) index(seen []Seen) {
	for _, it := range seen {
		if _, dup := s.byKey[it.Key]; !dup {
			s.byKey[it.Key] = it
		}
		s.ids[it.ID] = true
	}
}

// standIn lets done writes stand in for a list that may not show them
// yet: a resource a delete removed is taken out, and a resource a create
// or update made is, as the write left it, the resource of its key.
func (s *snapshot) standIn(done []Record) {
	gone := map[string]bool{}
	for _, r := range done {
		if r.Op == OpDelete {
			gone[r.ID] = true
		}
	}
	kept := s.all[:0]
	for _, it := range s.all {
		if !gone[it.ID] {
			kept = append(kept, it)
		}
	}
	s.all, s.byKey, s.ids = kept, map[string]Seen{}, map[string]bool{}
	s.index(s.all)
	for _, r := range done {
		if r.Op != OpDelete && !gone[r.ID] {
			s.byKey[r.Key] = Seen{Key: r.Key, ID: r.ID, Name: r.Name, Domain: r.Domain}
			s.ids[r.ID] = true
		}
	}
}

// readForPlan reads the whole list, recording each page in the journal.
// When the journal's last read of the list stopped before its end, it
// carries on from there, with the pages already recorded; when the
// server refuses that read's token, it starts again from the first page.
func (j *Job) readForPlan(ctx context.Context, r *resource) (*snapshot, error) {
	snap, page, opts := j.unfinishedRead(r.list)
	s, err := j.readPages(ctx, r, snap, page, opts)
	if err != nil && opts != nil && errors.Is(err, seoapi.ErrInvalidArgument) {
		return j.readPages(ctx, r, newSnapshot(time.Now()), 1, nil)
	}
	return s, err
}

// unfinishedRead returns what the journal's last read of list holds, the
// number of its next page and the options that resume it; or an empty
// snapshot, page 1 and nil options when that read ended (or there is
// none).
func (j *Job) unfinishedRead(list listRef) (*snapshot, int, *seoapi.ListOptions) {
	j.mu.Lock()
	defer j.mu.Unlock()
	recs := j.reads[list]
	if len(recs) == 0 || recs[len(recs)-1].Next == "" {
		return newSnapshot(time.Now()), 1, nil
	}
	snap := newSnapshot(recs[0].Time)
	for _, r := range recs {
		snap.add(r.Seen)
	}
	last := recs[len(recs)-1]
	return snap, last.Page + 1, &seoapi.ListOptions{Resume: last.Next}
}

// readPages reads the pages of the list from opts on into snap, recording
// each as page number page and the ones after it.
func (j *Job) readPages(ctx context.Context, r *resource, snap *snapshot, page int, opts *seoapi.ListOptions) (*snapshot, error) {
	for p, err := range r.read(ctx, j.client, opts) {
		if err != nil {
			return nil, err
		}
		rec := Record{Resource: r.list.resource, Parent: r.list.parent, State: StateRead, Page: page, Next: p.next, Seen: p.seen}
		if err := j.append(ctx, rec); err != nil {
			return nil, err
		}
		snap.add(p.seen)
		page++
	}
	// The last page's Next resumes to the end of the list: a record with
	// no Next says the read is over, so a new plan reads afresh.
	end := Record{Resource: r.list.resource, Parent: r.list.parent, State: StateRead, Page: page}
	if err := j.append(ctx, end); err != nil {
		return nil, err
	}
	return snap, nil
}

// readAll reads the whole list through c without recording it, counting
// each page with count.
func readAll(ctx context.Context, c *seoapi.Client, r *resource, count func()) (*snapshot, error) {
	snap := newSnapshot(time.Now())
	for p, err := range r.read(ctx, c, nil) {
		count()
		if err != nil {
			return nil, err
		}
		snap.add(p.seen)
	}
	return snap, nil
}
