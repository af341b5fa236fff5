package bulk

import (
	"context"
	"errors"

	"github.com/seoapi/seoapi-go"
)

// snapshot is what one read of a list found.
type snapshot struct {
	// byKey holds the first resource of each key.
	byKey map[string]Seen
	// all holds every resource, in the list's order.
	all   []Seen
	ids   map[string]bool
	pages int
}

func newSnapshot() *snapshot { return &snapshot{byKey: map[string]Seen{}, ids: map[string]bool{}} }

func (s *snapshot) add(seen []Seen) {
	for _, it := range seen {
		if _, dup := s.byKey[it.Key]; !dup {
			s.byKey[it.Key] = it
		}
		s.ids[it.ID] = true
	}
	s.all = append(s.all, seen...)
	s.pages++
}

// readForPlan reads the whole list, recording each page in the journal.
// When the journal's last read of the list stopped before its end, it
// carries on from there, with the pages already recorded; when the
// server refuses that read's token, it starts again from the first page.
func (j *Job) readForPlan(ctx context.Context, r *resource) (*snapshot, error) {
	snap, page, opts := j.unfinishedRead(r.list)
	s, err := j.readPages(ctx, r, snap, page, opts)
	if err != nil && opts != nil && errors.Is(err, seoapi.ErrInvalidArgument) {
		return j.readPages(ctx, r, newSnapshot(), 1, nil)
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
	snap := newSnapshot()
	if len(recs) == 0 || recs[len(recs)-1].Next == "" {
		return snap, 1, nil
	}
	for _, r := range recs {
		snap.add(r.Seen)
	}
	last := recs[len(recs)-1]
	return snap, last.Page + 1, &seoapi.ListOptions{Resume: last.Next}
}

// readPages reads the pages of the list from opts on into snap, recording
// each as page number page and the ones after it.
func (j *Job) readPages(ctx context.Context, r *resource, snap *snapshot, page int, opts *seoapi.ListOptions) (*snapshot, error) {
	for p, err := range r.read(ctx, opts) {
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

// readAll reads the whole list without recording it, counting each page
// with count.
func readAll(ctx context.Context, r *resource, count func()) (*snapshot, error) {
	snap := newSnapshot()
	for p, err := range r.read(ctx, nil) {
		count()
		if err != nil {
			return nil, err
		}
		snap.add(p.seen)
	}
	return snap, nil
}
