package redislimit

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// envRequireRedis makes a missing redis-server a failure instead of a skip;
// .ci/run sets it.
const envRequireRedis = "SEOAPI_REQUIRE_REDIS"

// redisServer is a redis-server started for one test, without persistence,
// on a free loopback port.
type redisServer struct {
	t    testing.TB
	bin  string
	dir  string
	addr string
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has been waited for
}

// startRedis starts a redis-server for t and stops it at cleanup. It skips
// t when redis-server is not on PATH, unless SEOAPI_REQUIRE_REDIS=1.
func startRedis(t testing.TB) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(envRequireRedis) == "1" {
			t.Fatalf("redis-server is not on PATH and %s=1: %v", envRequireRedis, err)
		}
		t.Skip("redis-server is not on PATH; install it (apt-get install redis-server) to run the redislimit tests, or set " + envRequireRedis + "=1 to make its absence a failure")
	}
	s := &redisServer{t: t, bin: bin, dir: t.TempDir(), addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t)))}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Start starts the server (again, after Stop) on the same address, and
// returns when it accepts connections.
func (s *redisServer) Start() {
	s.t.Helper()
	_, port, _ := net.SplitHostPort(s.addr)
	cmd := exec.Command(s.bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--logfile", "")
	out, err := cmd.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.cmd, s.done = cmd, make(chan struct{})
	ready := make(chan error, 1)
	go func() {
		ready <- waitReady(out)
		io.Copy(io.Discard, out) //nolint:errcheck // draining until the server exits
		cmd.Wait()               //nolint:errcheck // the exit status of a stopped server says nothing
		close(s.done)
	}()
	select {
	case err := <-ready:
		if err != nil {
			s.t.Fatalf("redis-server on %s: %v", s.addr, err)
		}
	case <-time.After(20 * time.Second):
		s.t.Fatalf("redis-server on %s: not ready after 20s", s.addr)
	}
	s.ping()
}

// waitReady reads the server's log until it says it accepts connections.
func waitReady(out io.Reader) error {
	sc := bufio.NewScanner(out)
	var last string
	for sc.Scan() {
		last = sc.Text()
		if strings.Contains(last, "Ready to accept connections") {
			return nil
		}
	}
	return fmt.Errorf("exited before it was ready; last line: %q", last)
}

func (s *redisServer) ping() {
	s.t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: s.addr})
	defer rdb.Close()
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		s.t.Fatalf("redis-server on %s does not answer PING: %v", s.addr, err)
	}
}

// Stop stops the server and waits until it has exited; it does nothing
// when the server is not running.
func (s *redisServer) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill() //nolint:errcheck // it may have exited already
	<-s.done
	s.cmd = nil
}

// Client returns a client of the server that does not retry, so that a
// stopped server shows at once, and is closed at cleanup.
func (s *redisServer) Client() *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialTimeout: time.Second})
	s.t.Cleanup(func() { rdb.Close() })
	return rdb
}
