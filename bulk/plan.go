package bulk

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/seoapi/seoapi-go"
)

// Plan is what applying a wanted state will do, worked out from one read
// of the list and the journal. Apply it with the Job that made it.
type Plan struct {
	// Actions holds one action for each wanted item, in the order given,
	// then one delete for each item Prune removes.
	Actions []Action
	// Requests counts the requests applying the plan will send, when
	// every write is answered: its writes, and a read of the list when
	// writes of an earlier run must be looked for again.
	Requests int
	// ETA is how long the client's budget (seoapi.Client.Budget, or the
	// published limits when the client cannot tell it) makes those
	// requests take now. Apply works it out again when it starts, and
	// sends nothing when its context ends before then.
	ETA time.Duration

	job *Job
	res *resource
	// pages is how many pages the plan's read of the list took; read is
	// when that read began.
	pages int
	read  time.Time
}

// Action is what a plan does to one item.
type Action struct {
	// Op is what is done to the item.
	Op Op
	// Key is the item's natural key: ProjectKey, MemberKey or
	// WorkspaceKey.
	Key string
	// ID is the existing resource's ID; "" for a create.
	ID string
	// Fields names the fields an update sends ("name", "domain"); nil
	// for any other Op.
	Fields []string
	// Prior is the state an earlier run left the item's last write in,
	// as the journal says; "" when it has none. An item whose create was
	// intended or unknown is looked for again before it is created; one
	// whose write of the same values failed, in a run not yet finished,
	// for a reason a retry cannot help is reported as failed, not sent.
	Prior State

	// want is the item as the action leaves it.
	want Seen
	// create sends the item's create through c and returns the new
	// resource's ID.
	create func(ctx context.Context, c *seoapi.Client) (string, error)
	// blocked is the earlier failure that keeps the action from being
	// sent.
	blocked error
}

// reconciles reports whether a is a create an earlier write of which may
// have taken effect.
func (a *Action) reconciles() bool {
	return a.Op == OpCreate && a.blocked == nil && (a.Prior == StateIntended || a.Prior == StateUnknown)
}

// sends reports whether applying a sends a write.
func (a *Action) sends() bool { return a.Op != OpNone && a.blocked == nil }

// PlanOption configures a plan.
type PlanOption func(*planConfig)

type planConfig struct {
	prune bool
}

// Prune makes a plan delete the existing items that are not wanted, and
// the second and later of existing items with the same natural key. Only
// projects can be deleted: a members or workspaces plan with Prune fails
// with seoapi.ErrInvalidArgument.
func Prune() PlanOption {
	return func(c *planConfig) { c.prune = true }
}

// wanted is one wanted item: its key and fields, and how to create it.
type wanted struct {
	seen   Seen
	create func(ctx context.Context, c *seoapi.Client) (string, error)
}

// PlanProjects plans making the projects of a workspace match want,
// matched by ProjectKey: missing projects are created, projects whose name
// or domain differ from a wanted value are updated (only the fields that
// differ; an empty wanted field is not compared), and, with Prune, the
// others are deleted. Two wanted projects with the same key fail with
// seoapi.ErrInvalidArgument.
func (j *Job) PlanProjects(ctx context.Context, workspaceID string, want []seoapi.ProjectCreateRequest, opts ...PlanOption) (*Plan, error) {
	items := make([]wanted, len(want))
	for i, w := range want {
		req := w
		items[i] = wanted{
			seen: Seen{Key: ProjectKey(w.Name, w.Domain), Name: w.Name, Domain: w.Domain},
			create: func(ctx context.Context, c *seoapi.Client) (string, error) {
				p, _, err := c.Projects.Create(ctx, workspaceID, &req)
				if err != nil {
					return "", err
				}
				return p.ID, nil
			},
		}
	}
	if workspaceID == "" {
		return nil, invalid("PlanProjects: empty workspace ID")
	}
	return j.plan(ctx, projects(workspaceID), items, opts)
}

// PlanMembers plans adding the members of want that a workspace does not
// have, matched by MemberKey. The API cannot change or remove a member, so
// an existing member is left as it is, whatever its role, and Prune fails
// with seoapi.ErrInvalidArgument.
func (j *Job) PlanMembers(ctx context.Context, workspaceID string, want []seoapi.MemberAddRequest, opts ...PlanOption) (*Plan, error) {
	items := make([]wanted, len(want))
	for i, w := range want {
		req := w
		items[i] = wanted{
			seen: Seen{Key: MemberKey(w.Email)},
			create: func(ctx context.Context, c *seoapi.Client) (string, error) {
				m, _, err := c.Members.Add(ctx, workspaceID, &req)
				if err != nil {
					return "", err
				}
				return m.ID, nil
			},
		}
	}
	if workspaceID == "" {
		return nil, invalid("PlanMembers: empty workspace ID")
	}
	return j.plan(ctx, members(workspaceID), items, opts)
}

// PlanWorkspaces plans creating the workspaces of want that do not exist,
// matched by WorkspaceKey (the name). The API cannot change or remove a
// workspace, so Prune fails with seoapi.ErrInvalidArgument.
func (j *Job) PlanWorkspaces(ctx context.Context, want []seoapi.WorkspaceCreateRequest, opts ...PlanOption) (*Plan, error) {
	items := make([]wanted, len(want))
	for i, w := range want {
		req := w
		items[i] = wanted{
			seen: Seen{Key: WorkspaceKey(w.Name), Name: w.Name},
			create: func(ctx context.Context, c *seoapi.Client) (string, error) {
				ws, _, err := c.Workspaces.Create(ctx, &req)
				if err != nil {
					return "", err
				}
				return ws.ID, nil
			},
		}
	}
	return j.plan(ctx, workspaces(), items, opts)
}

// plan reads the list and decides an action for each wanted item, and,
// with Prune, for each unwanted one.
func (j *Job) plan(ctx context.Context, r *resource, want []wanted, opts []PlanOption) (*Plan, error) {
	var cfg planConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.prune && r.remove == nil {
		return nil, invalid("Prune: the API cannot delete a %s", r.list.resource)
	}
	if err := checkKeys(want); err != nil {
		return nil, err
	}
	if err := j.load(ctx); err != nil {
		return nil, err
	}
	snap, err := j.readForPlan(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("bulk: reading the %ss to plan: %w", r.list.resource, err)
	}
	// A write made less than the settle time before the read began may
	// not show in it yet: its done record stands in for the list.
	snap.standIn(j.doneSince(r.list, snap.start.Add(-j.settle)))
	p := &Plan{job: j, res: r, pages: snap.pages, read: snap.start}
	for _, w := range want {
		p.Actions = append(p.Actions, j.decide(r, w, snap))
	}
	if cfg.prune {
		p.Actions = append(p.Actions, j.prune(r, want, snap)...)
	}
	for i := range p.Actions {
		j.applyJournal(r, &p.Actions[i], p.read)
	}
	p.Requests = p.requests()
	p.ETA = j.eta(ctx, p.Requests)
	return p, nil
}

// checkKeys fails when an item has no key or two have the same one.
func checkKeys(want []wanted) error {
	seen := make(map[string]bool, len(want))
	for i, w := range want {
		switch {
		case w.seen.Key == "" || w.seen.Key == "name:":
			return invalid("item %d has no natural key (no domain, name or email)", i)
		case seen[w.seen.Key]:
			return invalid("two wanted items have the key %q", w.seen.Key)
		}
		seen[w.seen.Key] = true
	}
	return nil
}

// decide works out the action for one wanted item from what the list
// holds.
func (j *Job) decide(r *resource, w wanted, snap *snapshot) Action {
	a := Action{Op: OpCreate, Key: w.seen.Key, want: w.seen, create: w.create}
	if have, ok := snap.byKey[w.seen.Key]; ok {
		a.Op, a.ID = OpNone, have.ID
		if fields := r.diff(w.seen, have); len(fields) > 0 && r.update != nil {
			a.Op, a.Fields = OpUpdate, fields
		}
	}
	return a
}

// prune returns a delete for each listed item that is not wanted, and
// for each listed after another with the same key.
func (j *Job) prune(r *resource, want []wanted, snap *snapshot) []Action {
	keep := make(map[string]bool, len(want))
	for _, w := range want {
		keep[w.seen.Key] = true
	}
	var out []Action
	for _, have := range snap.all {
		if !keep[have.Key] || snap.byKey[have.Key].ID != have.ID {
			out = append(out, Action{Op: OpDelete, Key: have.Key, ID: have.ID, want: have})
		}
	}
	return out
}

// applyJournal applies the restart rules to a from its item's last write
// record: a write of the same values recorded as done after since (an
// earlier Apply of the plan read at since made it) is not sent again; a
// failed one is sent again unless its error's kind says a retry cannot
// help and no Apply of the list has run to its end since. Intended and
// unknown writes are left to Apply, which looks for them again. It
// returns the record, the zero Record when there is none.
func (j *Job) applyJournal(r *resource, a *Action, since time.Time) Record {
	rec, ok := j.lastRecord(refOf(r.list, a.Op, a.Key, a.ID))
	if !ok {
		return rec
	}
	a.Prior = rec.State
	switch {
	case rec.State == StateDone && a.wrote(rec) && rec.Time.After(since):
		a.Op, a.Fields = OpNone, nil
		if a.ID == "" {
			a.ID = rec.ID
		}
	case rec.State == StateFailed && a.wrote(rec) && !retryable(rec.Err) && j.interrupted(r.list, rec):
		a.blocked = earlierFailure(rec)
	}
	return rec
}

// wrote reports whether rec records the write a sends.
func (a *Action) wrote(rec Record) bool {
	return rec.Op == a.Op && rec.Name == a.want.Name && rec.Domain == a.want.Domain
}

// requests counts the requests applying p sends: one per write, and one
// read of the list when an earlier run's create must be looked for again.
func (p *Plan) requests() int {
	n, again := 0, false
	for i := range p.Actions {
		a := &p.Actions[i]
		if a.sends() {
			n++
		}
		again = again || a.reconciles()
	}
	if again {
		n += max(p.pages, 1)
	}
	return n
}

// String summarises the plan in one line, such as
// "project in ws_1: 3 create, 1 update, 0 delete, 46 none; 4 requests, ETA 80ms".
func (p *Plan) String() string {
	if p == nil {
		return "<nil plan>"
	}
	var n [len(opNames)]int
	adopt, blocked := 0, 0
	for i := range p.Actions {
		a := &p.Actions[i]
		n[a.Op]++
		if a.Op == OpNone && (a.Prior == StateIntended || a.Prior == StateUnknown) {
			adopt++
		}
		if a.blocked != nil {
			blocked++
		}
	}
	var b strings.Builder
	if p.res != nil {
		fmt.Fprintf(&b, "%s", p.res.list.resource)
		if p.res.list.parent != "" {
			fmt.Fprintf(&b, " in %s", p.res.list.parent)
		}
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%d create, %d update, %d delete, %d none", n[OpCreate], n[OpUpdate], n[OpDelete], n[OpNone])
	if adopt > 0 {
		fmt.Fprintf(&b, " (%d adopted)", adopt)
	}
	if blocked > 0 {
		fmt.Fprintf(&b, ", %d failed earlier and not retried", blocked)
	}
	fmt.Fprintf(&b, "; %d requests, ETA %s", p.Requests, p.ETA)
	return b.String()
}

// invalid is an error of kind seoapi.ErrInvalidArgument.
func invalid(format string, args ...any) error {
	return fmt.Errorf("bulk: %w: %s", seoapi.ErrInvalidArgument, fmt.Sprintf(format, args...))
}
