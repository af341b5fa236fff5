// Command fleet runs several worker processes that share one rate-limit
// budget through Redis, against the in-process fake API (seoapitest), and prints each
// worker's share of the calls and how many requests the API answered 429.
//
// It needs a Redis server; start one on loopback, without persistence:
//
//	redis-server --port 6379 --bind 127.0.0.1 --save '' --appendonly no
//	go run ./redislimit/examples/fleet -redis 127.0.0.1:6379 -workers 4
//
// Each worker is this program run again (with FLEET_WORKER set), with its
// own seoapi.Client and its own redislimit.Limiter on the same budget
// name, the way replicas of a service or separate cron jobs would be.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/redislimit"
	"github.com/seoapi/seoapi-go/seoapitest"
)

// envWorker carries a worker's job; a process that has it is a worker.
const envWorker = "FLEET_WORKER"

// options are the command line.
type options struct {
	redis      string
	workers    int
	goroutines int
	calls      int
	name       string
}

func main() {
	if job := os.Getenv(envWorker); job != "" {
		os.Exit(workerMain(job, os.Stdin, os.Stdout, os.Stderr))
	}
	var o options
	flag.StringVar(&o.redis, "redis", "127.0.0.1:6379", "address of the Redis server the workers share")
	flag.IntVar(&o.workers, "workers", 4, "worker processes")
	flag.IntVar(&o.goroutines, "goroutines", 8, "goroutines calling the API in each worker")
	flag.IntVar(&o.calls, "calls", 10, "calls each goroutine makes")
	flag.StringVar(&o.name, "name", "fleet-example", "the budget's name in Redis (never the API key)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	self, err := os.Executable()
	if err == nil {
		err = run(ctx, os.Stdout, o, self)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		cancel()
		os.Exit(1)
	}
}

// job is what one worker does.
type job struct {
	Redis, BaseURL, Key, Name string
	Goroutines, Calls         int
}

// outcome is what one worker reports.
type outcome struct {
	OK, Refused, Failed int
	FirstError          string
}

// run checks Redis, starts the fake API, runs the workers (self, again)
// and prints what they did.
func run(ctx context.Context, out io.Writer, o options, self string) error {
	if o.workers < 1 || o.goroutines < 1 || o.calls < 1 {
		return errors.New("-workers, -goroutines and -calls must be at least 1")
	}
	if err := ping(ctx, o.redis); err != nil {
		return fmt.Errorf("cannot reach Redis at %s (%v); start one on loopback with\n\tredis-server --port 6379 --bind 127.0.0.1 --save '' --appendonly no\nand pass its address with -redis", o.redis, err)
	}
	fake := seoapitest.New()
	baseURL, stop, err := serveLoopback(fake)
	if err != nil {
		return err
	}
	defer stop()
	j := job{Redis: o.redis, BaseURL: baseURL, Key: fake.Key(), Name: o.name, Goroutines: o.goroutines, Calls: o.calls}
	start := time.Now()
	outcomes, err := runWorkers(ctx, self, o.workers, j)
	if err != nil {
		return err
	}
	report(out, outcomes, fake.Throttled(), time.Since(start))
	return nil
}

// serveLoopback serves h on a free loopback port and returns its base URL
// and a function that stops it.
func serveLoopback(h http.Handler) (baseURL string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // Serve always returns an error after Close
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

func ping(ctx context.Context, addr string) error {
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 2 * time.Second})
	defer rdb.Close()
	return rdb.Ping(ctx).Err()
}

// runWorkers starts n workers, lets them go together once all have
// started, and collects their outcomes.
func runWorkers(ctx context.Context, self string, n int, j job) ([]outcome, error) {
	raw, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	workers := make([]*worker, n)
	for i := range workers {
		if workers[i], err = startWorker(ctx, self, raw); err != nil {
			return nil, fmt.Errorf("worker %d: %w", i+1, err)
		}
	}
	for _, w := range workers {
		w.stdout.ReadString('\n') //nolint:errcheck // "ready"; a worker that failed says so in its result
	}
	for _, w := range workers {
		io.WriteString(w.stdin, "go\n") //nolint:errcheck // a worker that failed says so in its result
		w.stdin.Close()
	}
	outcomes := make([]outcome, n)
	var errs []error
	for i, w := range workers {
		if err := w.result(&outcomes[i]); err != nil {
			errs = append(errs, fmt.Errorf("worker %d: %w", i+1, err))
		}
	}
	return outcomes, errors.Join(errs...)
}

// worker is one running worker process.
type worker struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *limitedBuffer
}

func startWorker(ctx context.Context, self string, job []byte) (*worker, error) {
	w := &worker{cmd: exec.CommandContext(ctx, self), stderr: &limitedBuffer{max: 4096}}
	w.cmd.Env = append(os.Environ(), envWorker+"="+string(job))
	w.cmd.Stderr = w.stderr
	var err error
	if w.stdin, err = w.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w.stdout = bufio.NewReader(out)
	return w, w.cmd.Start()
}

func (w *worker) result(o *outcome) error {
	line, readErr := w.stdout.ReadBytes('\n')
	if err := w.cmd.Wait(); err != nil {
		return fmt.Errorf("%v: %s", err, w.stderr.buf)
	}
	if readErr != nil {
		return fmt.Errorf("no result: %w", readErr)
	}
	return json.Unmarshal(line, o)
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	max int
	buf []byte
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p[:min(len(p), max(b.max-len(b.buf), 0))]...)
	return len(p), nil
}

// report prints each worker's share and the totals.
func report(out io.Writer, outcomes []outcome, throttled int, took time.Duration) {
	total := 0
	for _, o := range outcomes {
		total += o.OK
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "worker\tcalls\tshare\trefused\tfailed")
	for i, o := range outcomes {
		share := 0.0
		if total > 0 {
			share = 100 * float64(o.OK) / float64(total)
		}
		fmt.Fprintf(tw, "%d\t%d\t%.1f%%\t%d\t%d\n", i+1, o.OK, share, o.Refused, o.Failed)
	}
	tw.Flush()
	fmt.Fprintf(out, "%d calls in %s (%.1f/s across the fleet); 429s from the API: %d\n",
		total, took.Round(time.Millisecond), float64(total)/took.Seconds(), throttled)
	for i, o := range outcomes {
		if o.FirstError != "" {
			fmt.Fprintf(out, "worker %d, first failure: %s\n", i+1, o.FirstError)
		}
	}
}

// workerMain is a worker process: it reads its job, says it is ready,
// waits for the word to go on stdin, makes its calls and prints its
// outcome as one line of JSON.
func workerMain(raw string, stdin io.Reader, stdout, stderr io.Writer) int {
	var j job
	if err := json.Unmarshal([]byte(raw), &j); err != nil {
		fmt.Fprintln(stderr, "worker: bad job:", err)
		return 2
	}
	o, err := j.do(stdin, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "worker:", err)
		return 1
	}
	if err := json.NewEncoder(stdout).Encode(o); err != nil {
		return 1
	}
	return 0
}

func (j job) do(stdin io.Reader, stdout io.Writer) (outcome, error) {
	rdb := redis.NewClient(&redis.Options{
		Addr:                  j.Redis,
		ContextTimeoutEnabled: true, // a round trip ends at its context's deadline
		DialTimeout:           time.Second,
		ReadTimeout:           time.Second,
		WriteTimeout:          time.Second,
		MaxRetries:            1,
	})
	defer rdb.Close()
	lim, err := redislimit.New(rdb, j.Name)
	if err != nil {
		return outcome{}, err
	}
	// Keep one connection per goroutine (the default keeps two): opening
	// one per request spreads the requests' arrivals at the server.
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: j.Goroutines}}
	defer hc.CloseIdleConnections()
	client, err := seoapi.NewClient(j.BaseURL, j.Key, seoapi.WithLimiter(lim), seoapi.WithHTTPClient(hc))
	if err != nil {
		return outcome{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	fmt.Fprintln(stdout, "ready")
	if _, err := bufio.NewReader(stdin).ReadString('\n'); err != nil {
		return outcome{}, fmt.Errorf("waiting for the word to go: %w", err)
	}
	var mu sync.Mutex
	var o outcome
	var wg sync.WaitGroup
	for range j.Goroutines {
		wg.Go(func() {
			for range j.Calls {
				_, _, err := client.Workspaces.List(ctx, nil)
				mu.Lock()
				o.add(err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return o, nil
}

func (o *outcome) add(err error) {
	switch {
	case err == nil:
		o.OK++
	case errors.Is(err, seoapi.ErrRateLimited):
		o.Refused++
	default:
		o.Failed++
		if o.FirstError == "" {
			o.FirstError = err.Error()
		}
	}
}
