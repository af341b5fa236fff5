package bulk

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/seoapi/seoapi-go"
)

// The defaults of New's options.
const (
	DefaultConcurrency = 4
	DefaultSettle      = 2 * time.Second
)

// progressEvery is how often a running Apply reports its Progress.
const progressEvery = 500 * time.Millisecond

// Job plans and applies bulk changes through a client, recording each
// read and write in a journal, so that a job stopped at any point and
// started again with the same journal neither repeats nor skips a write.
// Create it with New. A Job is safe for concurrent use, though one Apply
// at a time per list is what it is made for.
type Job struct {
	client      *seoapi.Client
	journal     Journal
	concurrency int
	settle      time.Duration
	progress    func(Progress)

	mu       sync.Mutex
	loaded   bool
	loadedAt time.Time
	last     map[itemRef]Record    // the last write record of each item
	reads    map[listRef][]Record  // the last read of each list, page by page
	applied  map[listRef]time.Time // when an Apply of each list last ran to its end
}

// itemRef names one item of one list: a created or updated item by its
// natural key, a deleted one by its ID (Prune deletes duplicates, which
// share their key with the item it keeps).
type itemRef struct {
	list    listRef
	key, id string
}

// refOf names the item a write of op is about.
func refOf(list listRef, op Op, key, id string) itemRef {
	if op == OpDelete {
		return itemRef{list: list, id: id}
	}
	return itemRef{list: list, key: key}
}

// listRef names one list: a resource in a workspace ("" for workspaces).
type listRef struct {
	resource, parent string
}

// Option configures a Job.
type Option func(*Job)

// WithConcurrency sets how many writes a Job sends at once (default 4). A
// value below 1 is taken as 1. The client's limiter paces them whatever
// the number.
func WithConcurrency(n int) Option {
	return func(j *Job) { j.concurrency = max(n, 1) }
}

// WithSettle sets how long a Job waits, after a create whose outcome is
// unknown, before it decides from a fresh read of the list that the create
// made nothing and sends it again (default 2s). Set it to at least the
// time the server takes to show a new resource in its lists, and the time
// a request may take to reach it. A negative d is taken as 0.
func WithSettle(d time.Duration) Option {
	return func(j *Job) { j.settle = max(d, 0) }
}

// WithProgress makes Apply call f with its Progress when it starts, at
// least once a second while it runs, and once when it returns. The calls
// come one at a time, from one goroutine; f should return quickly.
func WithProgress(f func(Progress)) Option {
	return func(j *Job) { j.progress = f }
}

// Progress is how far an Apply is.
type Progress struct {
	// Total counts the writes Apply sends: the plan's creates, updates
	// and deletes, less those an earlier Apply of the plan made and those
	// an earlier failure keeps from being sent. Done counts the writes
	// finished, failed ones included. Items that need no write count in
	// neither.
	Done, Total int
	// Failed counts the writes that failed.
	Failed int
	// Requests counts the requests Apply has sent: each write and each
	// page of a list read (a call the SDK retried counts once).
	Requests int
	// ETA is what the client's budget makes of the requests the plan
	// still has to send.
	ETA time.Duration
}

// New returns a Job that sends through c and records in j. Plan and Apply
// fail with seoapi.ErrInvalidArgument when c or j is nil.
func New(c *seoapi.Client, j Journal, opts ...Option) *Job {
	job := &Job{client: c, journal: j, concurrency: DefaultConcurrency, settle: DefaultSettle}
	for _, o := range opts {
		if o != nil {
			o(job)
		}
	}
	return job
}

// load reads the journal the first time the Job needs it.
func (j *Job) load(ctx context.Context) error {
	if j.client == nil || j.journal == nil {
		return invalid("a Job needs a client and a journal")
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.loaded {
		return nil
	}
	recs, err := j.journal.Load(ctx)
	if err != nil {
		return fmt.Errorf("bulk: loading the journal: %w", err)
	}
	j.last = map[itemRef]Record{}
	j.reads = map[listRef][]Record{}
	j.applied = map[listRef]time.Time{}
	for _, r := range recs {
		j.remember(r)
	}
	j.loaded, j.loadedAt = true, time.Now()
	return nil
}

// remember keeps what a record says; callers hold j.mu.
func (j *Job) remember(r Record) {
	list := listRef{r.Resource, r.Parent}
	switch r.State {
	case StateRead:
		if r.Page == 1 {
			j.reads[list] = nil
		}
		j.reads[list] = append(j.reads[list], r)
	case StateApplied:
		j.applied[list] = r.Time
	default:
		j.last[refOf(list, r.Op, r.Key, r.ID)] = r
	}
}

// append records r in the journal, then remembers it.
func (j *Job) append(ctx context.Context, r Record) error {
	r.Time = time.Now().UTC()
	if err := j.journal.Append(ctx, r); err != nil {
		return fmt.Errorf("bulk: recording in the journal: %w", err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.remember(r)
	return nil
}

// lastRecord returns the last write record of an item.
func (j *Job) lastRecord(it itemRef) (Record, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	r, ok := j.last[it]
	return r, ok
}

// doneSince returns the last write record of each item of list that is a
// done write made after t.
func (j *Job) doneSince(list listRef, t time.Time) []Record {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []Record
	for it, r := range j.last {
		if it.list == list && r.State == StateDone && r.Time.After(t) {
			out = append(out, r)
		}
	}
	return out
}

// interrupted reports whether r, a write record of list, belongs to a run
// that was interrupted: no Apply of the list ran to its end after it.
func (j *Job) interrupted(list listRef, r Record) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return r.Time.After(j.applied[list])
}

// since is when the settle time of an item whose last record is r starts:
// an earlier run's write was sent before this Job loaded the journal, and
// this run's was sent before its record.
func (j *Job) since(r Record) time.Time {
	j.mu.Lock()
	defer j.mu.Unlock()
	if r.Time.After(j.loadedAt) {
		return r.Time
	}
	return j.loadedAt
}
