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
	addr   string
	key    string
	seed   string
	limits seoapitest.Limits
}

// run serves until ctx ends and returns the exit code: 0 after a clean
// shutdown, 1 when serving fails, 2 for bad flags or a bad seed file.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "seoapi-fake:", err)
		}
		return 2
	}
	fake := seoapitest.New()
	fake.SetLimits(cfg.limits)
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

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("seoapi-fake", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := config{}
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "`host:port` to listen on; port 0 picks a free one")
	fs.StringVar(&cfg.key, "key", "", "the `key` to accept (default: a random sk_... key)")
	fs.StringVar(&cfg.seed, "seed", "", "JSON `file` of workspaces, projects, members, content plans and competitors to load")
	limits := fs.String("limits", "10000,50", "`H,S`: requests per hour and per second for each key; 0 turns a level off")
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
