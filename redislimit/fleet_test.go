package redislimit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

// envChild carries a child's config: the test binary runs itself as a
// child process of a fleet when it is set.
const envChild = "REDISLIMIT_TEST_CHILD"

func TestMain(m *testing.M) {
	if cfg := os.Getenv(envChild); cfg != "" {
		os.Exit(runChild(cfg))
	}
	os.Exit(m.Run())
}

// childConfig is what one process of a fleet does: Workers goroutines,
// each making Calls calls through one Client and one Limiter.
type childConfig struct {
	Redis     string   // a single Redis
	Cluster   []string // or a Redis Cluster's nodes
	BaseURL   string
	Key       string
	Name      string
	PerHour   int
	PerSecond int
	Reserve   [2]int        // WithReserve's, when set
	MaxWait   time.Duration // WithMaxWait's, when set
	Workers   int
	Calls     int
}

// childResult is what a child reports on stdout.
type childResult struct {
	OK            int
	RateLimited   int           // refused by the limiter (StatusCode 0)
	MinRetryAfter time.Duration // of those refusals
	Refusal       string        // the first refusal's Method, URL, Attempts and message
	Errors        []string      // any other failure
	Budget        seoapi.Budget // the Limiter's, after the calls
}

func runChild(raw string) int {
	var cfg childConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "child config:", err)
		return 2
	}
	res, err := cfg.run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		return 2
	}
	return 0
}

func (cfg childConfig) run() (childResult, error) {
	var rdb redis.UniversalClient
	if len(cfg.Cluster) > 0 {
		rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: cfg.Cluster})
	} else {
		rdb = redis.NewClient(&redis.Options{Addr: cfg.Redis})
	}
	defer rdb.Close()
	opts := []Option{WithLimits(cfg.PerHour, cfg.PerSecond)}
	if cfg.Reserve != [2]int{} {
		opts = append(opts, WithReserve(cfg.Reserve[0], cfg.Reserve[1]))
	}
	if cfg.MaxWait > 0 {
		opts = append(opts, WithMaxWait(cfg.MaxWait))
	}
	lim, err := New(rdb, cfg.Name, opts...)
	if err != nil {
		return childResult{}, err
	}
	// One kept connection per worker: a connection opened per request
	// spreads the requests' arrivals, which is not what is measured here.
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Workers}}
	defer hc.CloseIdleConnections()
	client, err := seoapi.NewClient(cfg.BaseURL, cfg.Key, seoapi.WithLimiter(lim), seoapi.WithHTTPClient(hc))
	if err != nil {
		return childResult{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Start up, then say so and wait for the word to go, so that no
	// process is still starting (a burst of CPU) while the others run.
	if err := rdb.Ping(ctx).Err(); err != nil {
		return childResult{}, err
	}
	if err := warmUp(ctx, hc, cfg.BaseURL, cfg.Workers); err != nil {
		return childResult{}, err
	}
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return childResult{}, fmt.Errorf("waiting for the word to go: %w", err)
	}
	var mu sync.Mutex
	var res childResult
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Go(func() {
			for range cfg.Calls {
				_, _, err := client.Workspaces.List(ctx, nil)
				mu.Lock()
				res.add(err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.Budget, err = lim.Budget(ctx)
	return res, err
}

// warmUpPath is what warmUp asks for; the fleet tests leave it out.
const warmUpPath = "/warm-up"

// warmUp opens one kept connection per worker before the run, with
// requests that carry no key: the fake answers them 401 without counting
// them against any window. A connection opened during the run would delay
// its request's arrival by more than the guard on a loaded machine, which
// says nothing about the limiter.
func warmUp(ctx context.Context, hc *http.Client, baseURL string, n int) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+warmUpPath, nil)
			if err != nil {
				errs[i] = err
				return
			}
			resp, err := hc.Do(req)
			if err != nil {
				errs[i] = err
				return
			}
			io.Copy(io.Discard, resp.Body) //nolint:errcheck // read to keep the connection
			resp.Body.Close()
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (r *childResult) add(err error) {
	var apiErr *seoapi.APIError
	switch {
	case err == nil:
		r.OK++
	case errors.As(err, &apiErr) && apiErr.StatusCode == 0 && errors.Is(err, seoapi.ErrRateLimited):
		if r.RateLimited == 0 || apiErr.RetryAfter < r.MinRetryAfter {
			r.MinRetryAfter = apiErr.RetryAfter
		}
		if r.Refusal == "" {
			r.Refusal = fmt.Sprintf("%s %s attempts=%d: %v", apiErr.Method, apiErr.URL, apiErr.Attempts, err)
		}
		r.RateLimited++
	default:
		r.Errors = append(r.Errors, err.Error())
	}
}

// runFleet runs n children of cfg at once and returns their results. The
// children start up first; they begin their calls together once all of
// them are ready.
func runFleet(tb testing.TB, n int, cfg childConfig) []childResult {
	tb.Helper()
	raw, err := json.Marshal(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	children := make([]*child, n)
	for i := range children {
		c, err := startChild(ctx, raw)
		if err != nil {
			tb.Fatalf("child %d: %v", i, err)
		}
		children[i] = c
	}
	for _, c := range children {
		c.ready()
	}
	for _, c := range children {
		c.stdin.Write([]byte("go\n")) //nolint:errcheck // a failed child is reported by result
		c.stdin.Close()
	}
	results := make([]childResult, n)
	var errs []error
	for i, c := range children {
		if err := c.result(&results[i]); err != nil {
			errs = append(errs, fmt.Errorf("child %d: %w", i, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		tb.Fatal(err)
	}
	for i, r := range results {
		if len(r.Errors) > 0 {
			tb.Errorf("child %d failed %d calls, first: %s", i, len(r.Errors), r.Errors[0])
		}
	}
	return results
}

// child is one process of a fleet.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr bytes.Buffer
}

func startChild(ctx context.Context, cfg []byte) (*child, error) {
	c := &child{cmd: exec.CommandContext(ctx, os.Args[0], "-test.run=^$")}
	c.cmd.Env = append(os.Environ(), envChild+"="+string(cfg))
	c.cmd.Stderr = &c.stderr
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.stdout = bufio.NewReader(out)
	return c, c.cmd.Start()
}

// ready waits until the child says it is ready; a child that fails
// before is reported by result.
func (c *child) ready() {
	c.stdout.ReadString('\n') //nolint:errcheck // a failed child is reported by result
}

// result reads the child's result and waits for it to exit.
func (c *child) result(r *childResult) error {
	out, readErr := io.ReadAll(c.stdout)
	if err := c.cmd.Wait(); err != nil {
		return fmt.Errorf("%v: %s", err, c.stderr.Bytes())
	}
	if readErr != nil {
		return readErr
	}
	return json.Unmarshal(out, r)
}

// fleetAPI is the fake API a fleet calls, in this process.
type fleetAPI struct {
	fake    *seoapitest.Server
	key     string
	baseURL string
}

func startFleetAPI(tb testing.TB, wrap func(http.Handler) http.Handler) *fleetAPI {
	tb.Helper()
	fake := seoapitest.New()
	key := fake.Key()
	var h http.Handler = fake
	if wrap != nil {
		h = wrap(fake)
	}
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return &fleetAPI{fake: fake, key: key, baseURL: srv.URL}
}

// arrivals returns when the fake received each request, in order.
func (a *fleetAPI) arrivals() []time.Time {
	var out []time.Time
	for _, r := range a.requests() {
		out = append(out, r.At)
	}
	return out
}

// requests returns what the fake received, in order, but the warm-ups.
func (a *fleetAPI) requests() []seoapitest.Request {
	var out []seoapitest.Request
	for _, r := range a.fake.Requests() {
		if r.Path != warmUpPath {
			out = append(out, r)
		}
	}
	return out
}

// sustainedRate is the rate of a run measured over whole windows: m
// requests over the time from the first arrival to arrival m, where m is
// the largest multiple of perSecond below the count. It is exact both for
// a limiter that fills each window at once and for one that paces evenly.
func sustainedRate(at []time.Time, perSecond int) float64 {
	m := (len(at) - 1) / perSecond * perSecond
	if m == 0 {
		return 0
	}
	return float64(m) / at[m].Sub(at[0]).Seconds()
}

func sum(results []childResult, f func(childResult) int) int {
	n := 0
	for _, r := range results {
		n += f(r)
	}
	return n
}

// TestFleetSharesOneBudget runs a fleet of 4 processes x 8 goroutines
// against the fake's strict rolling second, on a single Redis and on a
// three-master Redis Cluster: no request may be answered 429. It runs
// alone in its package (not in parallel), but beside other packages'
// tests: each request counts in the fleet's second until a second after
// its answer, which no load on the machine can make early.
func TestFleetSharesOneBudget(t *testing.T) {
	cases := []struct {
		name  string
		redis func(t *testing.T) childConfig // where the fleet keeps its budget
	}{
		{"single", func(t *testing.T) childConfig { return childConfig{Redis: startRedis(t).addr} }},
		{"cluster", func(t *testing.T) childConfig { return childConfig{Cluster: startCluster(t).addrs} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.redis(t)
			api := startFleetAPI(t, nil)
			const children, workers, calls = 4, 8, 6
			cfg.BaseURL, cfg.Key, cfg.Name = api.baseURL, api.key, "fleet"
			cfg.PerHour, cfg.PerSecond = seoapi.DefaultRequestsPerHour, seoapi.DefaultRequestsPerSecond
			cfg.Workers, cfg.Calls = workers, calls
			results := runFleet(t, children, cfg)
			if got, want := sum(results, func(r childResult) int { return r.OK }), children*workers*calls; got != want {
				t.Errorf("%d calls succeeded, want %d", got, want)
			}
			if n := api.fake.Throttled(); n != 0 {
				t.Errorf("the fake answered %d requests with 429", n)
			}
			at := api.arrivals()
			t.Logf("%s: %d processes x %d goroutines: %d requests, %d answered 429, sustained %.1f/s (%.3f of 50/s), shares %v",
				tc.name, children, workers, len(at), api.fake.Throttled(), sustainedRate(at, 50), sustainedRate(at, 50)/50, shares(results))
		})
	}
}

// TestFleetReserve: with 100 requests an hour and 50 a second, a process
// whose limiter keeps a reserve of 30 of the hour gets 70 requests
// through, and is refused the rest at once (nothing sent); a process
// without a reserve then still gets its 30 at once.
func TestFleetReserve(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	api := startFleetAPI(t, nil)
	api.fake.SetLimits(seoapitest.Limits{PerHour: 100, PerSecond: 50})
	base := childConfig{
		Redis: srv.addr, BaseURL: api.baseURL, Key: api.key, Name: "reserve-fleet",
		PerHour: 100, PerSecond: 50, MaxWait: 10 * time.Second, Workers: 4, Calls: 20,
	}
	batch := base
	batch.Reserve = [2]int{30, 0}
	service := base
	service.Calls = 10
	steps := []struct {
		name          string
		cfg           childConfig
		ok, refused   int
		refusalReason string
	}{
		{"the batch, with a reserve of 30", batch, 70, 10, "fleet hourly limit less the reserve of 30 (redislimit.WithReserve): wait of "},
		{"the service, without a reserve", service, 30, 10, "fleet hourly limit: wait of "},
	}
	for _, step := range steps {
		r := runFleet(t, 1, step.cfg)[0]
		if r.OK != step.ok || r.RateLimited != step.refused {
			t.Errorf("%s: %d calls went through and %d were refused, want %d and %d", step.name, r.OK, r.RateLimited, step.ok, step.refused)
		}
		if !strings.Contains(r.Refusal, step.refusalReason) || !strings.Contains(r.Refusal, "attempts=0") {
			t.Errorf("%s: refusal %q, want no attempt and %q", step.name, r.Refusal, step.refusalReason)
		}
		if r.MinRetryAfter < 55*time.Minute {
			t.Errorf("%s: a refusal said RetryAfter %s, want most of an hour", step.name, r.MinRetryAfter)
		}
	}
	if n := len(api.requests()); n != 100 {
		t.Errorf("%d requests reached the API, want 100", n)
	}
	if n := api.fake.Throttled(); n != 0 {
		t.Errorf("the fake answered %d requests with 429", n)
	}
}

func shares(results []childResult) []int {
	out := make([]int, len(results))
	for i, r := range results {
		out[i] = r.OK
	}
	return out
}

func TestFleetHourlyBudget(t *testing.T) {
	t.Parallel()
	// A refused wait looks like this to the caller: the client's method
	// and URL, no attempt sent, the limit named.
	refusal := regexp.MustCompile(`^GET http://127\.0\.0\.1:\d+/api/workspaces attempts=0: .*(fleet hourly limit|server rate limit \(fleet hold\)): wait of [0-9hms.]+ exceeds the max wait of 1m0s`)
	srv := startRedis(t)
	api := startFleetAPI(t, nil)
	// The fake keeps the hour only: this test is about the hourly budget,
	// and TestFleetSharesOneBudget holds the fleet to the second.
	api.fake.SetLimits(seoapitest.Limits{PerHour: 120})
	const children, workers, calls = 3, 8, 10
	results := runFleet(t, children, childConfig{
		Redis: srv.addr, BaseURL: api.baseURL, Key: api.key, Name: "hourly-fleet",
		PerHour: 120, PerSecond: 50, Workers: workers, Calls: calls,
	})
	if n := len(api.requests()); n != 120 {
		t.Errorf("%d requests reached the API, want exactly 120", n)
	}
	ok := sum(results, func(r childResult) int { return r.OK })
	refused := sum(results, func(r childResult) int { return r.RateLimited })
	if ok != 120 || refused != children*workers*calls-120 {
		t.Errorf("%d calls succeeded and %d were refused, want 120 and %d", ok, refused, children*workers*calls-120)
	}
	for i, r := range results {
		if r.RateLimited > 0 && !refusal.MatchString(r.Refusal) {
			t.Errorf("child %d: refusal %q, want the client's method and URL, no attempt sent, and the fleet limit named", i, r.Refusal)
		}
		if strings.Contains(r.Refusal, api.key) {
			t.Errorf("child %d: the refusal carries the API key", i)
		}
		if r.RateLimited > 0 && r.MinRetryAfter < 55*time.Minute {
			t.Errorf("child %d: a refusal said RetryAfter %s, want most of an hour", i, r.MinRetryAfter)
		}
	}
	if n := api.fake.Throttled(); n != 0 {
		t.Errorf("the fake answered %d requests with 429", n)
	}
}

// holdOnce answers the first request after it is armed (warm-ups aside)
// with Remaining 0 and a reset two seconds ahead, as a server whose window
// is spent would.
type holdOnce struct {
	next    http.Handler
	armed   atomic.Bool
	resetAt atomic.Int64 // Unix nanoseconds
}

func (h *holdOnce) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == warmUpPath || !h.armed.CompareAndSwap(true, false) {
		h.next.ServeHTTP(w, r)
		return
	}
	h.resetAt.Store(time.Now().Add(2 * time.Second).UnixNano())
	h.next.ServeHTTP(spentWindow{w}, r)
}

// spentWindow says that no requests remain for two seconds.
type spentWindow struct{ http.ResponseWriter }

func (s spentWindow) WriteHeader(code int) {
	s.Header().Set("X-RateLimit-Remaining", "0")
	s.Header().Set("X-RateLimit-Reset", "2")
	s.ResponseWriter.WriteHeader(code)
}

func (s spentWindow) Write(b []byte) (int, error) { return s.ResponseWriter.Write(b) }

func TestFleetKeepsServerHold(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	hold := &holdOnce{}
	api := startFleetAPI(t, func(next http.Handler) http.Handler { hold.next = next; return hold })
	hold.armed.Store(true)
	cfg := childConfig{
		Redis: srv.addr, BaseURL: api.baseURL, Key: api.key, Name: "held",
		PerHour: seoapi.DefaultRequestsPerHour, PerSecond: seoapi.DefaultRequestsPerSecond,
		Workers: 1, Calls: 1,
	}
	runFleet(t, 1, cfg) // told Remaining 0 until two seconds from now
	resetAt := time.Unix(0, hold.resetAt.Load())
	cfg.Workers, cfg.Calls = 4, 3
	results := runFleet(t, 3, cfg)
	if got := sum(results, func(r childResult) int { return r.OK }); got != 36 {
		t.Errorf("%d calls succeeded, want 36", got)
	}
	at := api.arrivals()
	if len(at) != 37 {
		t.Fatalf("%d requests arrived, want 37", len(at))
	}
	for i, a := range at[1:] {
		if a.Before(resetAt) {
			t.Errorf("request %d arrived %s before the reset", i+2, resetAt.Sub(a))
		}
	}
	if n := api.fake.Throttled(); n != 0 {
		t.Errorf("the fake answered %d requests with 429", n)
	}
}

func TestKeyNeverReachesRedis(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	api := startFleetAPI(t, nil)
	monitor := startMonitor(t, srv.addr)
	rdb := srv.Client()
	lim := newTestLimiter(t, rdb, "secretless", WithLimits(1000, 5))
	client, err := seoapi.NewClient(api.baseURL, api.key, seoapi.WithLimiter(lim), seoapi.WithRetryWait(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	// A 429 with Retry-After makes the client tell the limiter to hold.
	api.fake.FailNext(1, http.StatusTooManyRequests, http.Header{"Retry-After": {"1"}})
	for range 8 {
		if _, _, err := client.Workspaces.List(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	seen := monitor.stop()
	if !strings.Contains(seen, "seoapi:{secretless}:w") {
		t.Fatalf("MONITOR saw no reservation; it saw %q", seen)
	}
	stored := dumpRedis(t, rdb)
	secret := strings.TrimPrefix(api.key, "sk_")
	for what, text := range map[string]string{"MONITOR": seen, "the keys and values": stored} {
		if strings.Contains(text, api.key) || strings.Contains(text, secret[:16]) || strings.Contains(text, secret[len(secret)-16:]) {
			t.Errorf("the API key (or part of it) is in %s", what)
		}
	}
}

// monitor collects what Redis's MONITOR reports.
type monitor struct {
	conn net.Conn
	mu   sync.Mutex
	out  strings.Builder
	done chan struct{}
}

func startMonitor(t *testing.T, addr string) *monitor {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("MONITOR\r\n")); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(conn)
	if line, err := rd.ReadString('\n'); err != nil || line != "+OK\r\n" {
		t.Fatalf("MONITOR answered %q, %v", line, err)
	}
	m := &monitor{conn: conn, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for {
			line, err := rd.ReadString('\n')
			m.mu.Lock()
			m.out.WriteString(line)
			m.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { m.stop() })
	return m
}

// stop ends the monitor once a marker command it sends is seen, so that
// every command before it has been collected, and returns what it saw.
func (m *monitor) stop() string {
	select {
	case <-m.done:
	default:
		rdb := redis.NewClient(&redis.Options{Addr: m.conn.RemoteAddr().String()})
		rdb.Echo(context.Background(), "monitor-end")
		rdb.Close()
		for !m.contains("monitor-end") {
			runtime.Gosched()
		}
		m.conn.Close()
		<-m.done
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.out.String()
}

func (m *monitor) contains(s string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return strings.Contains(m.out.String(), s)
}

// dumpRedis returns every key and value in Redis as text.
func dumpRedis(t *testing.T, rdb *redis.Client) string {
	t.Helper()
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: ", k)
		switch typ := rdb.Type(ctx, k).Val(); typ {
		case "zset":
			fmt.Fprintln(&b, rdb.ZRangeWithScores(ctx, k, 0, -1).Val())
		case "hash":
			fmt.Fprintln(&b, rdb.HGetAll(ctx, k).Val())
		default:
			t.Errorf("unexpected key %s of type %s", k, typ)
		}
	}
	return b.String()
}

// TestNoGoroutineLeft runs alone (not in parallel) so that no other test
// is inside the package while it looks.
func TestNoGoroutineLeft(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.Client()
	lim := newTestLimiter(t, rdb, "tidy", WithLimits(100, 1))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() { acquire(ctx, lim) }) //nolint:errcheck // most are cancelled
	}
	for len(scores(t, rdb, "tidy")) < 5 {
		runtime.Gosched()
	}
	cancel()
	wg.Wait()
	srv.Stop()
	acquire(context.Background(), lim) //nolint:errcheck // fails: Redis is down
	lim.side.Wait()                    // round trips that finish in the background end within sideTimeout
	// A goroutine that has called side.Done may not have returned yet, so
	// look again until none is left or a generous deadline passes.
	deadline := time.Now().Add(10 * time.Second)
	left := goroutinesInPackage()
	for len(left) > 0 && time.Now().Before(deadline) {
		runtime.Gosched()
		left = goroutinesInPackage()
	}
	for _, g := range left {
		t.Errorf("a goroutine is still in the package:\n%s", g)
	}
}

// goroutinesInPackage returns the stacks of the goroutines running code of
// this package, other than tests.
func goroutinesInPackage() []string {
	buf := make([]byte, 1<<20)
	var in []string
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "seoapi-go/redislimit.(*") || strings.Contains(g, "seoapi-go/redislimit.sleep") {
			in = append(in, g)
		}
	}
	return in
}
