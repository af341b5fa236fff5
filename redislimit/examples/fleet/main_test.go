package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// The test binary is the workers' program too.
	if job := os.Getenv(envWorker); job != "" {
		os.Exit(workerMain(job, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestFleetPrintsShares(t *testing.T) {
	addr := startRedis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	o := options{redis: addr, workers: 3, goroutines: 4, calls: 5, name: "fleet-example-test"}
	if err := run(ctx, &out, o, os.Args[0]); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	t.Log("\n" + text)
	for w := 1; w <= 3; w++ {
		if !regexp.MustCompile(`(?m)^` + strconv.Itoa(w) + ` +20 +\d+\.\d% +0 +0$`).MatchString(text) {
			t.Errorf("no line for worker %d with 20 calls, its share and nothing refused or failed", w)
		}
	}
	if !regexp.MustCompile(`60 calls in \S+ \(\d+\.\d/s across the fleet\); 429s from the API: \d+\n`).MatchString(text) {
		t.Error("no totals line with the 429 count")
	}
}

func TestFleetWithoutRedisSaysHowToStartOne(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	err = run(context.Background(), io.Discard, options{redis: addr, workers: 1, goroutines: 1, calls: 1, name: "x"}, os.Args[0])
	if err == nil || !strings.Contains(err.Error(), "cannot reach Redis at "+addr) || !strings.Contains(err.Error(), "redis-server --port 6379") {
		t.Fatalf("run = %v, want an error saying how to start Redis", err)
	}
}

// startRedis starts a redis-server without persistence on a free loopback
// port for t, or skips t when there is none (a failure when
// SEOAPI_REQUIRE_REDIS=1).
func startRedis(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("SEOAPI_REQUIRE_REDIS") == "1" {
			t.Fatalf("redis-server is not on PATH and SEOAPI_REQUIRE_REDIS=1: %v", err)
		}
		t.Skip("redis-server is not on PATH; install it (apt-get install redis-server) to run this test")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir(), "--logfile", "")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		ok := false
		for sc.Scan() {
			if !ok && strings.Contains(sc.Text(), "Ready to accept connections") {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
		cmd.Wait() //nolint:errcheck // a killed server's status says nothing
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill() //nolint:errcheck // it may have exited
		<-exited
	})
	if !<-ready {
		t.Fatal("redis-server exited before it was ready")
	}
	return net.JoinHostPort("127.0.0.1", port)
}
