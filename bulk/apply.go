package bulk

import (
	"context"
	"sync"
	"time"
)

// maxLooks bounds how many times Apply reads a list again to settle
// writes whose outcome is unknown.
const maxLooks = 8

// Report is what an Apply did.
type Report struct {
	// Created, Updated and Deleted count the writes that took effect and
	// said so.
	Created, Updated, Deleted int
	// Adopted counts the items a write whose answer was lost (in this run
	// or an earlier one) had made: found in the list and recorded.
	Adopted int
	// Unchanged counts the items that were already as wanted.
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

	mu       sync.Mutex
	rep      Report
	done     int
	requests int
	pending  []pending
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
func (j *Job) Apply(ctx context.Context, p *Plan) (*Report, error) {
	if p == nil || p.job != j {
		return nil, invalid("Apply: the plan was not made by this Job")
	}
	if err := j.load(ctx); err != nil {
		return nil, err
	}
	r := &run{job: j, plan: p}
	stop := r.startProgress(ctx)
	err := r.apply(ctx)
	stop()
	rep := r.report()
	return &rep, err
}

func (r *run) apply(ctx context.Context) error {
	var writes []*Action
	for i := range r.plan.Actions {
		a := r.plan.Actions[i]
		// What an earlier Apply of this plan recorded counts too.
		r.job.applyJournal(r.plan.res, &a)
		switch {
		case a.blocked != nil:
			r.fail(a.Key, a.blocked)
		case a.reconciles():
			rec, _ := r.job.lastRecord(itemRef{r.plan.res.list, a.Key})
			r.addPending(&a, r.job.since(rec))
		case a.Op != OpNone:
			writes = append(writes, &a)
		case a.Prior == StateIntended || a.Prior == StateUnknown:
			if err := r.adopt(ctx, &a, a.ID); err != nil {
				return err
			}
		default:
			r.finish(func(rep *Report) { rep.Unchanged++ })
		}
	}
	if err := r.writeAll(ctx, writes); err != nil {
		return err
	}
	return r.settleAll(ctx)
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
	rec := Record{Resource: r.plan.res.list.resource, Parent: r.plan.res.list.parent, Key: a.Key, Op: a.Op, State: StateIntended, ID: a.ID}
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
		return a.create(ctx)
	case OpUpdate:
		return r.plan.res.update(ctx, a)
	default:
		return r.plan.res.remove(ctx, a)
	}
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
	snap, err := readAll(ctx, r.plan.res, r.count)
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
	switch {
	case a.Op == OpCreate && found:
		return false, r.adopt(ctx, a, have.ID)
	case a.Op == OpUpdate && found && len(r.plan.res.diff(a.want, have)) == 0:
		return false, r.record(ctx, a, have.ID, func(rep *Report) { rep.Updated++ })
	case a.Op == OpDelete && !snap.ids[a.ID]:
		return false, r.record(ctx, a, a.ID, func(rep *Report) { rep.Deleted++ })
	case a.Op == OpUpdate && !found:
		r.fail(a.Key, errGone)
		return false, nil
	}
	return true, nil
}

// adopt records that a's write took effect, making the resource id.
func (r *run) adopt(ctx context.Context, a *Action, id string) error {
	return r.record(ctx, a, id, func(rep *Report) { rep.Adopted++ })
}

// record journals a's write as done and counts it.
func (r *run) record(ctx context.Context, a *Action, id string, count func(*Report)) error {
	rec := Record{Resource: r.plan.res.list.resource, Parent: r.plan.res.list.parent, Key: a.Key, Op: a.Op, State: StateDone, ID: id}
	if rec.Op == OpNone {
		// An adoption found by the plan: the earlier write was a create.
		rec.Op = OpCreate
		if prev, ok := r.job.lastRecord(itemRef{r.plan.res.list, a.Key}); ok {
			rec.Op = prev.Op
		}
	}
	if err := r.job.append(ctx, rec); err != nil {
		return err
	}
	r.finish(count)
	return nil
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

func (r *run) finish(count func(*Report)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	count(&r.rep)
	r.done++
}

func (r *run) fail(key string, err error) {
	r.finish(func(rep *Report) { rep.Failed = append(rep.Failed, Failure{Key: key, Err: err}) })
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
