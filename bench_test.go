package seoapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
)

// The benchmarks compare the SDK with a hand-written net/http +
// encoding/json client on identical responses. The server runs in a child
// process (this test binary, re-executed with benchServerEnv set), so that
// the bytes and allocations reported are the client's alone. Compare the
// two with benchstat, interleaving the runs so that both see the same
// machine:
//
//	go test -c -o seoapi.test . && for i in $(seq 10); do
//	  ./seoapi.test -test.run '^$' -test.bench 'ListProjects|CreateProject|UpdateProject' -test.benchmem -test.count 1
//	done | tee bench.txt
//	benchstat -col '/impl@(nethttp sdk floor)' bench.txt

// benchServerEnv, when set, makes the test binary serve the benchmark
// responses instead of running tests.
const benchServerEnv = "SEOAPI_BENCH_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(benchServerEnv) == "1" {
		serveBench()
		return
	}
	code := m.Run()
	benchServer.stop()
	os.Exit(code)
}

// benchServer is the child process serving the benchmarks, started by the
// first benchmark that needs it and stopped when the tests end.
var benchServer childServer

type childServer struct {
	once  sync.Once
	cmd   *exec.Cmd
	stdin io.WriteCloser // held open: the child ends when it closes
	url   string
	err   error
}

// start returns the child's base URL, starting it on first use.
func (s *childServer) start(b *testing.B) string {
	b.Helper()
	s.once.Do(func() {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), benchServerEnv+"=1")
		cmd.Stderr = os.Stderr
		// The child serves until its stdin closes, so it also ends if this
		// process dies without stopping it.
		if s.stdin, s.err = cmd.StdinPipe(); s.err != nil {
			return
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			s.err = err
			return
		}
		if s.err = cmd.Start(); s.err != nil {
			return
		}
		s.cmd = cmd
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			s.err = fmt.Errorf("benchmark server: %w", err)
			return
		}
		s.url = strings.TrimSpace(line)
	})
	if s.err != nil {
		b.Fatal(s.err)
	}
	return s.url
}

func (s *childServer) stop() {
	if s.cmd == nil {
		return
	}
	_ = s.stdin.Close()
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// serveBench is the child: it serves the benchmark responses on a loopback
// port, prints its URL and serves until stdin closes.
func serveBench() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: benchHandler(), ReadHeaderTimeout: time.Minute}
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		_ = srv.Close()
	}()
	fmt.Printf("http://%s\n", ln.Addr())
	_ = srv.Serve(ln)
}

// benchHandler answers GET /api/workspaces/ws_<n>/projects with n projects
// and a POST or PATCH of a project with one project.
func benchHandler() http.Handler {
	lists := map[string][]byte{}
	for _, n := range benchSizes {
		lists[fmt.Sprintf("/api/workspaces/ws_%d/projects", n)] = projectsBody(n)
	}
	one := []byte(projectJSON(1))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/workspaces/{ws}/projects", func(w http.ResponseWriter, r *http.Request) {
		body, ok := lists[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		writeJSON(w, http.StatusOK, body)
	})
	mux.HandleFunc("POST /api/workspaces/{ws}/projects", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		writeJSON(w, http.StatusCreated, one)
	})
	mux.HandleFunc("PATCH /api/workspaces/{ws}/projects/{id}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		writeJSON(w, http.StatusOK, one)
	})
	return mux
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// benchSizes are the list lengths BenchmarkListProjects measures.
var benchSizes = []int{100, 1000}

// projectJSON is one project in the fake API's shape.
func projectJSON(i int) string {
	return fmt.Sprintf(`{"id":"proj_%06d","workspaceId":"ws_000001","name":"Project number %d","domain":"site%d.example.com","createdAt":"2025-03-04T05:06:07.123456789Z","updatedAt":"2025-06-07T08:09:10Z"}`, i, i, i)
}

// projectsBody is a list of n projects as a bare array.
func projectsBody(n int) []byte {
	var b bytes.Buffer
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(projectJSON(i))
	}
	b.WriteString("]")
	return b.Bytes()
}

// plainProject is what a hand-written client would decode into.
type plainProject struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	Name        string    `json:"name"`
	Domain      string    `json:"domain"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// plainClient is the hand-written net/http + encoding/json client.
type plainClient struct {
	hc      *http.Client
	baseURL string
}

func newPlainClient(baseURL string) *plainClient {
	return &plainClient{
		hc:      &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: time.Minute},
		baseURL: baseURL,
	}
}

func (c *plainClient) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		buf, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(buf)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "plain/1.0")
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	if out == nil {
		return nil // the floor: the body read, not decoded
	}
	return json.Unmarshal(data, out)
}

// reportCPU reports, once the benchmark loop ends, the CPU time (user and
// system) the client process used per operation: on a busy machine the
// other processes disturb it less than the wall time.
func reportCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		if cpu := processCPU() - start; cpu > 0 {
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}

func newBenchSDK(b *testing.B, baseURL string) *seoapi.Client {
	b.Helper()
	c, err := seoapi.NewClient(baseURL, testKey, seoapi.WithoutRateLimit())
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkListProjects lists 100 and 1000 projects through the SDK
// (limiter off), through the hand-written client, and through the same
// client reading the body without decoding it (impl=floor): what any
// client pays for the request and the bytes.
func BenchmarkListProjects(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes {
		ws := fmt.Sprintf("ws_%d", n)
		b.Run(fmt.Sprintf("n=%d/impl=sdk", n), func(b *testing.B) {
			c := newBenchSDK(b, benchServer.start(b))
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				list, _, err := c.Projects.List(ctx, ws, nil)
				if err != nil || len(list) != n {
					b.Fatal(err, len(list))
				}
			}
		})
		b.Run(fmt.Sprintf("n=%d/impl=nethttp", n), func(b *testing.B) {
			c := newPlainClient(benchServer.start(b))
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				var list []*plainProject
				if err := c.do(ctx, http.MethodGet, "/api/workspaces/"+ws+"/projects", nil, &list); err != nil || len(list) != n {
					b.Fatal(err, len(list))
				}
			}
		})
		b.Run(fmt.Sprintf("n=%d/impl=floor", n), func(b *testing.B) {
			c := newPlainClient(benchServer.start(b))
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				if err := c.do(ctx, http.MethodGet, "/api/workspaces/"+ws+"/projects", nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// plainCreate and plainUpdate are the request bodies of the hand-written
// client.
type plainCreate struct {
	Name   string `json:"name,omitempty"`
	Domain string `json:"domain,omitempty"`
}

type plainUpdate struct {
	Name   *string `json:"name,omitempty"`
	Domain *string `json:"domain,omitempty"`
}

// BenchmarkCreateProject creates one project through the SDK and through
// the hand-written client.
func BenchmarkCreateProject(b *testing.B) {
	ctx := context.Background()
	b.Run("impl=sdk", func(b *testing.B) {
		c := newBenchSDK(b, benchServer.start(b))
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			p, _, err := c.Projects.Create(ctx, "ws_1", &seoapi.ProjectCreateRequest{Name: "Shop", Domain: "shop.example.com"})
			if err != nil || p.ID == "" {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=nethttp", func(b *testing.B) {
		c := newPlainClient(benchServer.start(b))
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			var p plainProject
			if err := c.do(ctx, http.MethodPost, "/api/workspaces/ws_1/projects", &plainCreate{Name: "Shop", Domain: "shop.example.com"}, &p); err != nil || p.ID == "" {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkUpdateProject renames one project through the SDK and through
// the hand-written client.
func BenchmarkUpdateProject(b *testing.B) {
	ctx := context.Background()
	name := "Renamed shop"
	b.Run("impl=sdk", func(b *testing.B) {
		c := newBenchSDK(b, benchServer.start(b))
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			p, _, err := c.Projects.Update(ctx, "ws_1", "proj_1", &seoapi.ProjectUpdateRequest{Name: &name})
			if err != nil || p.ID == "" {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=nethttp", func(b *testing.B) {
		c := newPlainClient(benchServer.start(b))
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			var p plainProject
			if err := c.do(ctx, http.MethodPatch, "/api/workspaces/ws_1/projects/proj_1", &plainUpdate{Name: &name}, &p); err != nil || p.ID == "" {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReadBodyOfUnknownLength reads a 3 MiB answer sent without a
// Content-Length (as every gzip answer arrives) through Client.Do, from a
// transport in memory. x-body is what one call allocates, in multiples of
// the body's size: the buffer grows with the body, not to the 32 MiB cap.
//
//	go test -run '^$' -bench ReadBodyOfUnknownLength -benchmem .
func BenchmarkReadBodyOfUnknownLength(b *testing.B) {
	const size = 3 << 20
	body := bytes.Repeat([]byte("a"), size)
	hc := &http.Client{Transport: rtFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{}, ContentLength: -1,
			Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
	})}
	c, err := seoapi.NewClient("https://api.example.com", testKey, seoapi.WithoutRateLimit(), seoapi.WithHTTPClient(hc))
	if err != nil {
		b.Fatal(err)
	}
	req, err := c.NewRequest(context.Background(), http.MethodGet, "api/export", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(size)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		if _, err := c.Do(req, nil); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/size, "x-body")
}
