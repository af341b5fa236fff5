package bulk

import (
	"context"
	"sync"
	"time"

	"github.com/seoapi/seoapi-go"
)

// maxLooks bounds how many times Apply reads a list again to settle
// writes whose outcome is unknown.
const maxLooks = 8

// Report is what an Apply did. Each action of the plan counts once: in
// one of the counts, or in Failed.
type Report struct {
	// Created, Updated and Deleted count the writes that took effect and
	// said so.
	Created, Updated, Deleted int
	// Adopted counts the items a write whose answer was lost (in this run
	// or an earlier one) had made: found in the list and recorded.
	Adopted int
	// Resumed counts the items that an earlier run of the job, one that
	// was interrupted (its Apply did not run to its end), had already
	// brought to the wanted state: not sent again.
	Resumed int
	// Unchanged counts the other items that were already as wanted.
	Unchanged int
	// Failed lists the items that failed, in no particular order.
	Failed []Failure
}

// Failure is an item that Apply could not bring to its wanted state.
type Failure struct {
	Key string
	// Err matches the kind of the failure with errors.Is (seoapi's Err
	// kinds); its text holds no key and no secret.
	Err error
}

// pending is a write whose outcome is unknown, and when its settle time
// starts.
type pending struct {
	a     *Action
	since time.Time
}

// run is one Apply of one plan.
type run struct {
	job  *Job
	plan *Plan
	// client is what the run sends its writes and reads through.
	client *seoapi.Client
	// total counts the writes the run sends.
	total int

	mu           sync.Mutex
	rep          Report
	done, failed int // writes finished, and of them failed
	requests     int
	pending      []pending
}

// Apply applies p, which j made: it sends each write, recording it in the
// journal as intended (durably) before it is sent and as done, unknown or
// failed after its answer, WithConcurrency writes at a time, each waiting
// for the client's limiter. Writes whose outcome is unknown are looked for
// in a fresh read of the list once the settle time (WithSettle) has
// passed, one read for all of them: found, they are adopted; absent, they
// are sent again. Items of p that an earlier run left intended or unknown
// are looked for the same way before they are created.
//
// One item's failure never stops the others; it is listed in the
// Report. Apply returns an error, with the Report so far, only when the
// journal fails or ctx ends; applying the same plan again (or a new plan
// with the same journal) then carries on where it stopped: Apply reads
// each item's last record in the journal before it acts on it.
//
// When ctx has a deadline that comes before the client's budget can send
// the plan's requests (Plan.ETA, worked out again when Apply starts),
// Apply sends nothing and returns an error of kind
// seoapi.ErrInvalidArgument that says how long the plan needs.
func (j *Job) Apply(ctx context.Context, p *Plan) (*Report, error) {
	if p == nil || p.job != j {
		return nil, invalid("Apply: the plan was not made by this Job")
	}
	if err := j.load(ctx); err != nil {
		return nil, err
	}
	client, err := j.writer(ctx)
	if err != nil {
		return nil, err
	}
	r := &run{job: j, plan: p, client: client}
	writes, err := r.prepare(ctx)
	if err == nil {
		err = r.checkTime(ctx)
	}
	if err == nil {
		stop := r.startProgress(ctx)
		err = r.apply(ctx, writes)
		stop()
	}
	rep := r.report()
	return &rep, err
}

// longestSlotWait bounds the wait for one slot of a job without a
// deadline: longer than any one wait the rate limits ask for (the rolling
// hour, the server's hold), so that only the context ends a job.
const longestSlotWait = 2 * time.Hour

// writer returns the client Apply sends its writes, and the reads that
// settle them, through: a view of the job's client whose requests wait for
// their slots as long as ctx allows, whatever max wait the client was
// given for its other callers. A plan that takes an hour runs for an hour.
func (j *Job) writer(ctx context.Context) (*seoapi.Client, error) {
	wait := longestSlotWait
	if deadline, ok := ctx.Deadline(); ok {
		wait = max(time.Until(deadline), 0)
	}
	return j.client.With(seoapi.WithMaxWait(wait))
}

// prepare decides each action of the plan again from the journal (what
// an earlier Apply of the plan recorded counts too), counts the items
// that need no write and returns the writes to send. Creates that an
// earlier run may have made are left pending, to be looked for first.
func (r *run) prepare(ctx context.Context) ([]*Action, error) {
	var writes []*Action
	list := r.plan.res.list
	for i := range r.plan.Actions {
		a := r.plan.Actions[i]
		rec := r.job.applyJournal(r.plan.res, &a, r.plan.read)
		switch {
		case a.blocked != nil:
			r.note(func(rep *Report) { rep.Failed = append(rep.Failed, Failure{Key: a.Key, Err: a.blocked}) })
		case a.reconciles():
			r.addPending(&a, r.job.since(rec))
			r.total++
		case a.Op != OpNone:
			writes = append(writes, &a)
			r.total++
		case a.Prior == StateIntended || a.Prior == StateUnknown:
			if err := r.record(ctx, &a, a.ID); err != nil {
				return nil, err
			}
			r.note(func(rep *Report) { rep.Adopted++ })
		case a.Prior == StateDone && r.job.interrupted(list, rec):
			r.note(func(rep *Report) { rep.Resumed++ })
		default:
			r.note(func(rep *Report) { rep.Unchanged++ })
		}
	}
	return writes, nil
}

// checkTime fails when ctx ends before the client's budget can send the
// run's requests.
func (r *run) checkTime(ctx context.Context) error {
	deadline, ok := ctx.Deadline()
	if !ok {
		return nil
	}
	n := r.total
	if len(r.pending) > 0 {
		n += max(r.plan.pages, 1)
	}
	if eta := r.job.eta(ctx, n); time.Now().Add(eta).After(deadline) {
		return invalid("Apply: the plan's %d requests take %s on the client's budget, but the context ends in %s; nothing was sent",
			n, eta, time.Until(deadline).Round(100*time.Millisecond))
	}
	return nil
}

// apply sends the writes, settles those whose outcome is unknown, and
// records that the Apply ran to its end.
func (r *run) apply(ctx context.Context, writes []*Action) error {
	if err := r.writeAll(ctx, writes); err != nil {
		return err
	}
	if err := r.settleAll(ctx); err != nil {
		return err
	}
	list := r.plan.res.list
	return r.job.append(ctx, Record{Resource: list.resource, Parent: list.parent, State: StateApplied})
}

// writeAll sends the writes, WithConcurrency at a time. It returns the
// first error of the journal, or ctx's error, after the writes under way
// have ended.
func (r *run) writeAll(ctx context.Context, writes []*Action) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan *Action)
	var wg sync.WaitGroup
	for range min(r.job.concurrency, len(writes)) {
		wg.Go(func() {
			for a := range next {
				if err := r.write(ctx, a); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for _, a := range writes {
		select {
		case next <- a:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

// write sends one write between its two journal records.
func (r *run) write(ctx context.Context, a *Action) error {
	if ctx.Err() != nil {
		return nil
	}
	rec := r.recordOf(a, StateIntended, a.ID)
	if err := r.job.append(ctx, rec); err != nil {
		return err
	}
	id, err := r.send(ctx, a)
	r.count()
	rec.State = outcome(a.Op, err)
	if rec.State == StateDone {
		rec.ID = id
	} else {
		rec.Err = errorKind(err)
	}
	// The answer is recorded even when ctx has ended meanwhile.
	if jerr := r.job.append(context.WithoutCancel(ctx), rec); jerr != nil {
		return jerr
	}
	switch rec.State {
	case StateDone:
		r.finish(func(rep *Report) { countWrite(rep, a.Op) })
	case StateUnknown:
		r.addPending(a, time.Now())
	default:
		r.fail(a.Key, err)
	}
	return nil
}

// send sends a's write and returns the resource's ID.
func (r *run) send(ctx context.Context, a *Action) (string, error) {
	switch a.Op {
	case OpCreate:
		return a.create(ctx, r.client)
	case OpUpdate:
		return a.ID, r.plan.res.update(ctx, r.client, a)
	default:
		return a.ID, r.plan.res.remove(ctx, r.client, a)
	}
}

// recordOf is the journal record of a's write in state st.
func (r *run) recordOf(a *Action, st State, id string) Record {
	list := r.plan.res.list
	return Record{Resource: list.resource, Parent: list.parent, Key: a.Key, Name: a.want.Name, Domain: a.want.Domain,
		Op: a.Op, State: st, ID: id}
}

// settleAll looks for the writes whose outcome is unknown: once their
// settle time has passed, it reads the list once, adopts what it finds,
// and sends again what is still missing (or still differs), until none is
// left or maxLooks reads have not settled them.
func (r *run) settleAll(ctx context.Context) error {
	for look := 0; ; look++ {
		r.mu.Lock()
		todo := r.pending
		r.pending = nil
		r.mu.Unlock()
		if len(todo) == 0 {
			return nil
		}
		if look == maxLooks {
			for _, p := range todo {
				r.fail(p.a.Key, errUnresolved)
			}
			return nil
		}
		again, err := r.look(ctx, todo)
		if err != nil {
			return err
		}
		if err := r.writeAll(ctx, again); err != nil {
			return err
		}
	}
}

// look waits for the settle time of todo, reads the list once and
// resolves each write from it. It returns the writes to send again; a
// read that fails keeps todo pending for the next look.
func (r *run) look(ctx context.Context, todo []pending) ([]*Action, error) {
	var last time.Time
	for _, p := range todo {
		if p.since.After(last) {
			last = p.since
		}
	}
	if err := sleepUntil(ctx, last.Add(r.job.settle)); err != nil {
		return nil, err
	}
	snap, err := readAll(ctx, r.client, r.plan.res, r.count)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r.mu.Lock()
		r.pending = append(r.pending, todo...)
		r.mu.Unlock()
		return nil, nil
	}
	var again []*Action
	for _, p := range todo {
		send, err := r.resolve(ctx, p.a, snap)
		if err != nil {
			return nil, err
		}
		if send {
			again = append(again, p.a)
		}
	}
	return again, nil
}

// resolve decides a write whose outcome was unknown from a fresh read:
// whether it took effect (recorded as done) or must be sent again.
func (r *run) resolve(ctx context.Context, a *Action, snap *snapshot) (bool, error) {
	have, found := snap.byKey[a.Key]
	var count func(*Report)
	switch {
	case a.Op == OpCreate && found:
		count = func(rep *Report) { rep.Adopted++ }
	case a.Op == OpUpdate && found && len(r.plan.res.diff(a.want, have)) == 0:
		count = func(rep *Report) { rep.Updated++ }
	case a.Op == OpDelete && !snap.ids[a.ID]:
		count = func(rep *Report) { rep.Deleted++ }
	case a.Op == OpUpdate && !found:
		r.fail(a.Key, errGone)
		return false, nil
	default:
		return true, nil
	}
	if err := r.record(ctx, a, have.ID); err != nil {
		return false, err
	}
	r.finish(count)
	return false, nil
}

// record journals that a's write took effect, making or keeping the
// resource id.
func (r *run) record(ctx context.Context, a *Action, id string) error {
	if a.Op == OpDelete {
		id = a.ID
	}
	rec := r.recordOf(a, StateDone, id)
	if rec.Op == OpNone {
		// An earlier run's write, found by the plan: the write it
		// recorded, a create unless it says otherwise.
		rec.Op = OpCreate
		if prev, ok := r.job.lastRecord(refOf(r.plan.res.list, OpNone, a.Key, a.ID)); ok {
			rec.Op = prev.Op
		}
	}
	return r.job.append(ctx, rec)
}

func countWrite(rep *Report, op Op) {
	switch op {
	case OpCreate:
		rep.Created++
	case OpUpdate:
		rep.Updated++
	default:
		rep.Deleted++
	}
}

func (r *run) addPending(a *Action, since time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending = append(r.pending, pending{a: a, since: since})
}

// finish counts a write that ended.
func (r *run) finish(count func(*Report)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	count(&r.rep)
	r.done++
}

// fail counts a write that failed.
func (r *run) fail(key string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Failed = append(r.rep.Failed, Failure{Key: key, Err: err})
	r.done++
	r.failed++
}

// note counts an item that needs no write.
func (r *run) note(count func(*Report)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	count(&r.rep)
}

func (r *run) count() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
}

func (r *run) report() Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := r.rep
	rep.Failed = append([]Failure(nil), r.rep.Failed...)
	return rep
}

// sleepUntil waits until t or until ctx ends.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
