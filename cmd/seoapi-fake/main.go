// Command seoapi-fake serves the fake Workspace Automation API of package
// seoapitest as a program, for tests written in other languages and for
// compose files.
//
//	go run github.com/seoapi/seoapi-go/cmd/seoapi-fake -addr 127.0.0.1:8080
//
// It prints the base URL and an Enterprise key on standard output, as
// SEOAPI_BASE_URL=... and SEOAPI_API_KEY=... lines a shell can eval, logs
// one line per request to standard error (never the key), and serves until
// SIGINT or SIGTERM, then shuts down gracefully and exits 0.
//
// Flags:
//
//	-addr HOST:PORT   where to listen (default 127.0.0.1:8080; port 0 picks a free one)
//	-key KEY          the key to accept (default: a random sk_... key)
//	-seed FILE        records to load at start (shape below)
//	-limits H,S       requests allowed per hour and per second for each key
//	                  (default 10000,50, the published limits; 0 turns a level off)
//	-fail RATE        the fraction of requests, from 0 to 1, answered 503 with
//	                  Retry-After: 1 before they are handled (default 0)
//	-drop RATE        the fraction of writes carried out (POST, PATCH and DELETE
//	                  answered 2xx), from 0 to 1, whose answer is lost: the
//	                  connection closes without one (default 0)
//	-lag DURATION     how long lists take to show a resource created or deleted
//	                  through the API, such as 2s (default 0)
//	-rand-seed N      the seed of the -fail and -drop draws, to replay a run
//	                  (default: a random one)
//
// The fault flags let a job be rehearsed against a separate process that
// fails as the network and the API can, and be killed for real:
//
//	seoapi-fake -addr 127.0.0.1:0 -seed acme.json -fail 0.05 -drop 0.05 -lag 2s
//
// With -fail, -drop or -lag it logs the faults and the seed in force on
// standard error at start, so that a run can be replayed: the same flags
// and -rand-seed, with requests sent one at a time in the same order, meet
// the same faults. Rates outside 0..1, a negative or unitless -lag and any
// other bad flag fail at start with exit code 2; -help prints the flags
// and exits 0.
//
// The seed file is one JSON object. Every name is required; domain, role
// and status are optional; a role defaults to "member". Content plans sit
// in a workspace, attached to a project when listed under it. Unknown
// fields are errors, reported with their line.
//
//	{
//	  "workspaces": [
//	    {
//	      "name": "Acme",
//	      "members": [{"email": "ana@acme.example", "role": "admin"}],
//	      "contentPlans": [{"name": "Backlog", "status": "draft"}],
//	      "projects": [
//	        {
//	          "name": "Shop",
//	          "domain": "shop.example",
//	          "contentPlans": [{"name": "Q3 calendar", "status": "active"}],
//	          "competitors": [{"name": "Rival", "domain": "rival.example"}]
//	        }
//	      ]
//	    }
//	  ]
//	}
//
// The fake behaves as the seoapitest package documentation promises.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/seoapi/seoapi-go/seoapitest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// config is what the flags say.
type config struct {
	addr     string
	key      string
	seed     string
	limits   seoapitest.Limits
	rates    seoapitest.FaultRates
	lag      time.Duration
	randSeed uint64
}

// faulty reports whether any fault is on.
func (c config) faulty() bool {
	return c.rates != (seoapitest.FaultRates{}) || c.lag > 0
}

// run serves until ctx ends and returns the exit code: 0 after a clean
// shutdown or -help, 1 when serving fails, 2 for bad flags or a bad seed
// file.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "seoapi-fake:", err)
		return 2
	}
	fake := seoapitest.New()
	fake.SetLimits(cfg.limits)
	fake.SetRandSeed(cfg.randSeed)
	fake.SetFaultRates(cfg.rates)
	fake.SetListLag(cfg.lag)
	if cfg.faulty() {
		fmt.Fprintf(stderr, "seoapi-fake: faults: -fail %v -drop %v -lag %s -rand-seed %d\n", cfg.rates.Fail, cfg.rates.Drop, cfg.lag, cfg.randSeed)
	}
	if cfg.key != "" {
		fake.SetKey(cfg.key)
	}
	if cfg.seed != "" {
		if err := seedFromFile(fake, cfg.seed, stdout); err != nil {
			fmt.Fprintln(stderr, "seoapi-fake:", err)
			return 2
		}
	}
	if err := serve(ctx, cfg.addr, fake, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "seoapi-fake:", err)
		return 1
	}
	return 0
}

// usage is what -help prints before the flags.
const usage = `usage: seoapi-fake [flags]

seoapi-fake serves the fake Workspace Automation API of package seoapitest.
It prints SEOAPI_BASE_URL and SEOAPI_API_KEY on standard output, logs one
line per request on standard error, and serves until SIGINT or SIGTERM.

Flags:
`

// parseFlags reads the flags; a flag given -help returns flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("seoapi-fake", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	cfg := config{randSeed: rand.Uint64()}
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "`host:port` to listen on; port 0 picks a free one")
	fs.StringVar(&cfg.key, "key", "", "the `key` to accept (default: a random sk_... key)")
	fs.StringVar(&cfg.seed, "seed", "", "JSON `file` of workspaces, projects, members, content plans and competitors to load")
	limits := fs.String("limits", "10000,50", "`H,S`: requests per hour and per second for each key; 0 turns a level off")
	fs.Var(rate{&cfg.rates.Fail}, "fail", "`RATE`, from 0 to 1: the fraction of requests answered 503 with Retry-After: 1\nbefore they are handled (default 0)")
	fs.Var(rate{&cfg.rates.Drop}, "drop", "`RATE`, from 0 to 1: the fraction of writes carried out (POST, PATCH and DELETE\nanswered 2xx) whose answer is lost: the connection closes without one (default 0)")
	fs.Func("lag", "how long lists take to show a resource created or deleted through the API,\na `DURATION` such as 2s (default 0)", func(s string) error {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return errors.New("want a duration of 0 or more, such as 2s")
		}
		cfg.lag = d
		return nil
	})
	fs.Func("rand-seed", "`N`: the seed of the -fail and -drop draws, to replay a run\n(default: a random one, logged at start)", func(s string) error {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return errors.New("want a whole number from 0 to 18446744073709551615")
		}
		cfg.randSeed = n
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if cfg.key != "" && strings.TrimSpace(cfg.key) == "" {
		return cfg, errors.New("-key is blank")
	}
	var err error
	cfg.limits, err = parseLimits(*limits)
	return cfg, err
}

// rate is the flag.Value of -fail and -drop: a fraction from 0 to 1.
type rate struct{ p *float64 }

func (r rate) String() string {
	if r.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*r.p, 'g', -1, 64)
}

func (r rate) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 0 && v <= 1) {
		return errors.New("want a fraction from 0 to 1, such as 0.05")
	}
	*r.p = v
	return nil
}

// parseLimits reads "H,S".
func parseLimits(s string) (seoapitest.Limits, error) {
	h, sec, ok := strings.Cut(s, ",")
	perHour, errH := strconv.Atoi(strings.TrimSpace(h))
	perSecond, errS := strconv.Atoi(strings.TrimSpace(sec))
	if !ok || errH != nil || errS != nil || perHour < 0 || perSecond < 0 {
		return seoapitest.Limits{}, fmt.Errorf("-limits %q: want H,S, two whole numbers such as 10000,50 (0 turns a level off)", s)
	}
	return seoapitest.Limits{PerHour: perHour, PerSecond: perSecond}, nil
}

// serve listens on addr, prints where and with which key, and serves until
// ctx ends; then it lets requests in flight finish.
func serve(ctx context.Context, addr string, fake *seoapitest.Server, stdout, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           logRequests(fake, fake.Key(), stderr),
		ReadHeaderTimeout: 10 * time.Second,
	}
	fmt.Fprintf(stdout, "SEOAPI_BASE_URL=http://%s\nSEOAPI_API_KEY=%s\n", ln.Addr(), fake.Key())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(stderr, "seoapi-fake: shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
