package bulk_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/bulk"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The crash test's child process reads its setup from these variables.
const (
	crashChildEnv = "BULK_CRASH_CHILD"
	crashURLEnv   = "BULK_CRASH_URL"
	crashKeyEnv   = "BULK_CRASH_KEY"
	crashWSEnv    = "BULK_CRASH_WORKSPACE"
	crashFileEnv  = "BULK_CRASH_JOURNAL"
	crashSeedEnv  = "BULK_CRASH_SEED" // set it to replay a run
)

const (
	crashProjects    = 300
	crashMembers     = 50
	crashKills       = 20
	crashConcurrency = 4
)

// killer sits in front of the fake and kills the child process when the
// child's killAt-th request of the run arrives: before the fake handles it
// (the request was sent, and never took effect) or after (it took effect,
// and its answer is lost).
type killer struct {
	fake http.Handler

	mu         sync.Mutex
	n, total   int // requests this run, and in all
	killAt     int // 0: never
	afterServe bool
	child      *os.Process // nil until it has started
	killed     bool
}

func (k *killer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	k.n++
	k.total++
	hit := !k.killed && k.n == k.killAt
	k.killed = k.killed || hit
	after := k.afterServe
	k.mu.Unlock()
	if hit && !after {
		k.kill()
		return
	}
	k.fake.ServeHTTP(w, r)
	if hit {
		k.kill()
	}
}

func (k *killer) kill() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.child != nil {
		k.child.Kill() //nolint:errcheck // it may have exited
	}
}

// arm prepares the next run.
func (k *killer) arm(killAt int, afterServe bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.n, k.killAt, k.afterServe, k.child, k.killed = 0, killAt, afterServe, nil, false
}

// started tells k the child's process; it kills it at once when its
// request came first.
func (k *killer) started(p *os.Process) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.child = p
	if k.killed {
		p.Kill() //nolint:errcheck // it may have exited
	}
}

func (k *killer) wasKilled() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.killed
}

// TestCrashSafeImport imports 300 projects and 50 members in a child
// process, kills it (SIGKILL) at a random request 20 times in a row and
// starts it again each time with the same journal: every wanted project
// and member ends up existing exactly once, nothing else is created, and
// the requests stay within the plan's count plus, per run, two reads of
// each list and, per kill, the writes that were in flight.
func TestCrashSafeImport(t *testing.T) {
	if os.Getenv(crashChildEnv) != "" {
		os.Exit(crashChild())
	}
	fake := seoapitest.New()
	fake.SetLimits(seoapitest.Limits{})
	ws := fake.AddWorkspace("Import")
	direct := httptest.NewServer(fake) // the test's own reads, not counted
	defer direct.Close()
	c, err := seoapi.NewClient(direct.URL, fake.Key(), seoapi.WithoutRateLimit())
	require.NoError(t, err)
	planned := plannedRequests(t, c, ws)
	require.Equal(t, crashProjects+crashMembers, planned)

	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv(crashSeedEnv); s != "" {
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("%s=%d", crashSeedEnv, seed)
	rng := rand.New(rand.NewPCG(seed, seed))

	addr := crashAddr(t, rng)
	k := &killer{fake: fake}
	journal := filepath.Join(t.TempDir(), "import.journal")
	env := append(os.Environ(), crashChildEnv+"=1", crashURLEnv+"=http://"+addr, crashKeyEnv+"="+fake.Key(),
		crashWSEnv+"="+ws, crashFileEnv+"="+journal)

	kills, runs, finished := 0, 0, false
	for kills < crashKills {
		require.Less(t, runs, 4*crashKills, "the child finishes before it can be killed")
		maxAt := 24
		if finished {
			maxAt = 7 // a finished job still reads both lists: at least 7 requests
		}
		if runChild(t, k, addr, env, 1+rng.IntN(maxAt), rng.IntN(2) == 0) {
			kills++
		} else {
			finished = true
		}
		runs++
	}
	require.False(t, runChild(t, k, addr, env, 0, false))
	runs++

	have := projectsOf(t, c, ws)
	assert.Len(t, have, crashProjects, "no project missing, none extra")
	for _, w := range wantProjects(crashProjects) {
		assert.Contains(t, have, bulk.ProjectKey(w.Name, w.Domain))
	}
	mem := membersOf(t, c, ws)
	assert.Len(t, mem, crashMembers)
	for _, w := range wantMembers(crashMembers) {
		assert.Contains(t, mem, bulk.MemberKey(w.Email))
	}
	var all []string
	for w, err := range c.Workspaces.All(context.Background(), nil) {
		require.NoError(t, err)
		all = append(all, w.Name)
	}
	assert.Equal(t, []string{"Import"}, all, "nothing else created")

	pages := 2 * ((crashProjects+49)/50 + (crashMembers+49)/50) // two reads of each list
	budget := planned + runs*pages + kills*crashConcurrency
	t.Logf("%d runs, %d kills: %d requests; the bound is %d", runs, kills, k.total, budget)
	assert.LessOrEqual(t, k.total, budget)

	data, err := os.ReadFile(journal)
	require.NoError(t, err)
	assert.NotContains(t, string(data), fake.Key(), "no key in the journal")
}

// crashAddr picks a loopback address for the fake that every run listens
// on again (the child's journal holds page tokens bound to the base URL).
// Its port lies below the ephemeral ranges of Linux (32768 up) and other
// systems (49152 up), so that no outgoing connection takes it while no run
// listens on it.
func crashAddr(t *testing.T, rng *rand.Rand) string {
	t.Helper()
	for range 100 {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(20000+rng.IntN(12000)))
		if ln, err := net.Listen("tcp", addr); err == nil {
			require.NoError(t, ln.Close())
			return addr
		}
	}
	t.Fatal("no free loopback port between 20000 and 32000")
	return ""
}

// plannedRequests is what the plans of the import count on an empty
// workspace.
func plannedRequests(t *testing.T, c *seoapi.Client, ws string) int {
	t.Helper()
	job := bulk.New(c, &memJournal{})
	pp, err := job.PlanProjects(context.Background(), ws, wantProjects(crashProjects))
	require.NoError(t, err)
	mp, err := job.PlanMembers(context.Background(), ws, wantMembers(crashMembers))
	require.NoError(t, err)
	return pp.Requests + mp.Requests
}

// runChild serves the fake at addr through k, runs the child once, killed
// at its killAt-th request (never when 0), and waits until every request
// that reached the server has been handled.
func runChild(t *testing.T, k *killer, addr string, env []string, killAt int, afterServe bool) (killed bool) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err, "listening again on the fake's address")
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: k, ReadHeaderTimeout: time.Minute}}
	ts.Start()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	k.arm(killAt, afterServe)
	require.NoError(t, cmd.Start())
	k.started(cmd.Process)
	err = cmd.Wait()
	ts.Close() // waits for the requests under way
	if !k.wasKilled() {
		require.NoError(t, err, "the child ran to the end:\n%s", stderr.String())
		return false
	}
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "killed: %v\n%s", err, stderr.String())
	return true
}

// crashChild is the child process: the import, as a program would run it.
func crashChild() int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := importAll(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 3
	}
	return 0
}

func importAll(ctx context.Context) error {
	c, err := seoapi.NewClient(os.Getenv(crashURLEnv), os.Getenv(crashKeyEnv),
		seoapi.WithRateLimit(1_000_000, 10_000), seoapi.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		return err
	}
	j, err := bulk.OpenFile(os.Getenv(crashFileEnv))
	if err != nil {
		return err
	}
	defer j.Close()
	job := bulk.New(c, j, bulk.WithConcurrency(crashConcurrency), bulk.WithSettle(20*time.Millisecond))
	ws := os.Getenv(crashWSEnv)
	pp, err := job.PlanProjects(ctx, ws, wantProjects(crashProjects))
	if err != nil {
		return err
	}
	if err := applied(job.Apply(ctx, pp)); err != nil {
		return err
	}
	mp, err := job.PlanMembers(ctx, ws, wantMembers(crashMembers))
	if err != nil {
		return err
	}
	return applied(job.Apply(ctx, mp))
}

func applied(rep *bulk.Report, err error) error {
	if err != nil {
		return err
	}
	if len(rep.Failed) > 0 {
		return fmt.Errorf("%d failed, the first %s: %v", len(rep.Failed), rep.Failed[0].Key, rep.Failed[0].Err)
	}
	return nil
}
