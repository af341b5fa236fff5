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
	"syscall"
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
	t     testing.TB
	bin   string
	dir   string
	addr  string
	extra []string // more arguments
	cmd   *exec.Cmd
	done  chan struct{} // closed when cmd has been waited for
}

// startRedis starts a redis-server for t and stops it at cleanup. It skips
// t when redis-server is not on PATH, unless SEOAPI_REQUIRE_REDIS=1.
func startRedis(t testing.TB) *redisServer {
	t.Helper()
	bin := lookPath(t, "redis-server")
	s := &redisServer{t: t, bin: bin, dir: t.TempDir(), addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t)))}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// lookPath returns the path of a Redis program, and skips t when it is not
// on PATH, unless SEOAPI_REQUIRE_REDIS=1.
func lookPath(t testing.TB, program string) string {
	t.Helper()
	bin, err := exec.LookPath(program)
	if err != nil {
		if os.Getenv(envRequireRedis) == "1" {
			t.Fatalf("%s is not on PATH and %s=1: %v", program, envRequireRedis, err)
		}
		t.Skip(program + " is not on PATH; install it (apt-get install redis-server) to run the redislimit tests, or set " + envRequireRedis + "=1 to make its absence a failure")
	}
	return bin
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
	args := append([]string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--logfile", ""}, s.extra...)
	cmd := exec.Command(s.bin, args...)
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

// Pause stops the server's process (SIGSTOP) until Resume or cleanup: it
// keeps its connections but answers nothing, as a hung Redis does.
func (s *redisServer) Pause() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(s.Resume)
}

// Resume lets a paused server run again.
func (s *redisServer) Resume() {
	if s.cmd != nil {
		s.cmd.Process.Signal(syscall.SIGCONT) //nolint:errcheck // it may have exited
	}
}

// Client returns a client of the server that does not retry, so that a
// stopped server shows at once, and is closed at cleanup.
func (s *redisServer) Client() *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialTimeout: time.Second})
	s.t.Cleanup(func() { rdb.Close() })
	return rdb
}

// redisCluster is a Redis Cluster of three masters without replicas,
// started for one test.
type redisCluster struct {
	nodes []*redisServer
	addrs []string
}

// startCluster starts three redis-server in cluster mode on free loopback
// ports (each with its cluster bus, the port + 10000, free too) and their
// own directories, joins them with redis-cli --cluster create, and returns
// once every node says cluster_state:ok. It skips t when redis-server or
// redis-cli is not on PATH, unless SEOAPI_REQUIRE_REDIS=1.
func startCluster(t testing.TB) *redisCluster {
	t.Helper()
	bin, cli := lookPath(t, "redis-server"), lookPath(t, "redis-cli")
	c := &redisCluster{}
	for range 3 {
		s := &redisServer{t: t, bin: bin, dir: t.TempDir(), addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(freeClusterPort(t))),
			extra: []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000"}}
		s.Start()
		t.Cleanup(s.Stop)
		c.nodes, c.addrs = append(c.nodes, s), append(c.addrs, s.addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := append(append([]string{"--cluster", "create"}, c.addrs...), "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, addr := range c.addrs {
		rdb := redis.NewClient(&redis.Options{Addr: addr})
		err := pollUntil(ctx, func() bool {
			info, err := rdb.ClusterInfo(ctx).Result()
			return err == nil && strings.Contains(info, "cluster_state:ok")
		})
		rdb.Close()
		if err != nil {
			t.Fatalf("Redis Cluster node %s: not cluster_state:ok: %v", addr, err)
		}
	}
	return c
}

// Client returns a go-redis ClusterClient of the cluster that does not
// retry, closed at cleanup.
func (c *redisCluster) Client(t testing.TB) *redis.ClusterClient {
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.addrs, MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// freeClusterPort returns a free loopback port whose cluster bus port
// (the port + 10000) is free too.
func freeClusterPort(t testing.TB) int {
	t.Helper()
	for range 100 {
		port := freePort(t)
		if port+10000 > 65535 {
			continue
		}
		if ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port+10000))); err == nil {
			ln.Close()
			return port
		}
	}
	t.Fatal("no free port with a free cluster bus port")
	return 0
}

// pollUntil asks cond every 20 ms until it holds or ctx ends: for a state
// of another process that nothing announces.
func pollUntil(ctx context.Context, cond func() bool) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}

// afterHook is a go-redis hook that calls f with each command, or
// pipeline, a client sent, once it has its answer.
type afterHook func(cmds ...redis.Cmder)

func (f afterHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (f afterHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		f(cmd)
		return err
	}
}
func (f afterHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		f(cmds...)
		return err
	}
}
