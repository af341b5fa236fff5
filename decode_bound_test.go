package seoapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
)

// TestDecodedMemory measures the heap of one call answered with a 2xx
// body that fills the response cap with a hostile shape, each case in a
// child process (this test binary, re-run with decodeMemEnv set) with
// GOGC=100 and no memory limit, so that nothing else allocates beside it.
// The body is handed over by an in-process RoundTripper, with and without
// a Content-Length, so the SDK's own reading of the body is measured too.
//
// It fails when a call allocates more than 5 times the cap in all, 6 for a
// body of unknown length, read into a buffer that doubles with the body
// rather than one of the whole cap: the bytes allocated bound the heap's
// growth whatever the garbage collector does, and, unlike a sampled peak,
// do not depend on timing. The figures
// (allocated, sampled peak heap and heap kept after a collection, each
// over the cap) are logged; docs/decoding.md holds them. It uses only the
// public API, so it runs unchanged against an older tree.
//
//	go test -run '^TestDecodedMemory$' -v .           # 1 MiB and 32 MiB caps
//	go test -short -run '^TestDecodedMemory$' -v .    # 1 MiB only
func TestDecodedMemory(t *testing.T) {
	if spec := os.Getenv(decodeMemEnv); spec != "" {
		runDecodeMemChild(spec)
		return
	}
	if raceEnabled {
		// Under the race detector sync.Pool drops what it is given at
		// random, so encoding/json, which pools its decoding state from
		// Go 1.27 on, allocates many times what a build without it does.
		t.Skip("the race detector changes what is allocated")
	}
	caps := []int64{1 << 20, seoapi.DefaultMaxResponseBytes}
	if testing.Short() {
		caps = caps[:1]
	}
	timeout := 10 * time.Minute
	if s := os.Getenv(decodeMemTimeoutEnv); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatal(err)
		}
		timeout = d
	}
	for _, capBytes := range caps {
		for i, shape := range decodeMemShapes {
			for _, chunked := range []bool{false, true} {
				name := fmt.Sprintf("cap=%s/shape=%s/length=%s", mib(capBytes), shape.name, lengthName(chunked))
				t.Run(name, func(t *testing.T) {
					r := runDecodeMemCase(t, fmt.Sprintf("%d:%d:%t", i, capBytes, chunked), timeout)
					t.Logf("alloc/cap %.2f  peak-heap/cap %.2f  kept/cap %.2f  %v  %s", r.Alloc, r.Peak, r.Kept, r.Elapsed.Round(time.Millisecond), r.Outcome)
					bound := 5.0
					if chunked {
						// A body of unknown length is read into a buffer that
						// doubles with it: up to one more cap of garbage.
						bound = 6
					}
					if r.Alloc > bound {
						t.Errorf("the call allocated %.2f times the response cap (peak heap %.2f times): more than %.0f", r.Alloc, r.Peak, bound)
					}
				})
			}
		}
	}
}

const (
	decodeMemEnv        = "SEOAPI_DECODE_MEM_CASE"
	decodeMemTimeoutEnv = "SEOAPI_DECODE_MEM_TIMEOUT"
	decodeMemPrefix     = "decodemem: "
)

// decodeMemResult is what a child reports: bytes over the cap, and what
// the call returned.
type decodeMemResult struct {
	Alloc   float64       // bytes allocated during the call
	Peak    float64       // sampled peak of the heap's objects, over the heap before the call
	Kept    float64       // heap kept after a collection, the result still held
	Elapsed time.Duration // the call's duration
	Outcome string        // "ok: n items" or the error
	Done    bool          // false in a progress report of a call still running
}

// decodeMemShape is a hostile body: fill returns one that fills capBytes,
// and call makes the call it answers.
type decodeMemShape struct {
	name string
	fill func(capBytes int64) []byte
	call func(ctx context.Context, c *seoapi.Client) (n int, result any, err error)
}

// The list calls decode content plans, the largest resource.
var decodeMemShapes = []decodeMemShape{
	{"[{},...]", listOf("[", "{}", "]"), listContentPlans},
	{`[{"id":"a"},...]`, listOf("[", `{"id":"a"}`, "]"), listContentPlans},
	{"[1,...]", listOf("[", "1", "]"), listContentPlans},
	{"[{},...] at the default item limit, padded", atItemLimit, listContentPlans},
	{`{"data":[{},...]}`, listOf(`{"data":[`, "{}", "]}"), listContentPlans},
	{`{"data":[{"id":"a"},...]}`, listOf(`{"data":[`, `{"id":"a"}`, "]}"), listContentPlans},
	{`{"data":[],"k0":0,...}`, envelopeKeys, listContentPlans},
	{"[128-byte content plans,...]", listOf("[", plan128, "]"), listContentPlans},
	{"[128-byte numeric-time plans,...]", listOf("[", `{"createdAt":0.000000001`+strings.Repeat("1", 102)+`}`, "]"), listContentPlans},
	{`[{"name":"\xff x200"},...]`, listOf("[", `{"name":"`+strings.Repeat("\xff", 200)+`"}`, "]"), listContentPlans},
	{`{"id":"a","name":"aaa..."}`, singleString("a"), createWorkspace},
	{`{"id":"a","name":"\xff\xff..."}`, singleString("\xff"), createWorkspace},
	{`{"id":"a","name":"\n\n..."}`, singleString(`\n`), createWorkspace},
	{`{"id":"a","createdAt":"2023-01-01T00:00:00Zxxx..."}`, longTime, createWorkspace},
	{"[1,...] into []int", listOf("[", "1", "]"), doInts},
	{"[{},...] into []map", listOf("[", "{}", "]"), doMaps},
	{"[{},...] at the default item limit, padded, into []map", atItemLimit, doMaps},
	{"[128-byte content plans,...] into []ContentPlan", listOf("[", plan128, "]"), doPlanValues},
	{"[{},...] at the default item limit, padded, into []ContentPlan", atItemLimit, doPlanValues},
}

// plan128 is a content plan of 127 bytes, 128 with the comma after it:
// the size at which the default item limit and the byte cap meet, with
// long strings (the decoded strings take as much as their JSON).
const plan128 = `{"id":"IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIII","name":"NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN"}`

// listOf returns a body of open, then as many items as fit, then close.
func listOf(open, item, end string) func(int64) []byte {
	return func(capBytes int64) []byte {
		n := (int(capBytes) - len(open) - len(end) + 1) / (len(item) + 1)
		var b bytes.Buffer
		b.Grow(int(capBytes))
		b.WriteString(open)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(item)
		}
		b.WriteString(end)
		return b.Bytes()
	}
}

// atItemLimit is a list of as many empty objects as the default item
// limit allows, one per 128 bytes of the cap, padded with white space to
// the cap: the most resources a body can give without failing the call.
func atItemLimit(capBytes int64) []byte {
	n := int(capBytes / 128)
	b := "[" + strings.Repeat("{},", n-1) + "{}]"
	return []byte(b + strings.Repeat(" ", int(capBytes)-len(b)))
}

// envelopeKeys is an envelope of as many distinct members as fit.
func envelopeKeys(capBytes int64) []byte {
	var b bytes.Buffer
	b.Grow(int(capBytes))
	b.WriteString(`{"data":[]`)
	for i := 0; int64(b.Len()+16) < capBytes; i++ {
		fmt.Fprintf(&b, `,"k%09d":0`, i)
	}
	b.WriteString("}")
	return b.Bytes()
}

// singleString returns one resource whose name, of repeated unit, fills
// the body.
func singleString(unit string) func(int64) []byte {
	return func(capBytes int64) []byte {
		const open, end = `{"id":"a","name":"`, `"}`
		return []byte(open + strings.Repeat(unit, (int(capBytes)-len(open)-len(end))/len(unit)) + end)
	}
}

// longTime returns one resource whose time string, valid up to its
// zone and then filled with x, fills the body.
func longTime(capBytes int64) []byte {
	const open, end = `{"id":"a","createdAt":"2023-01-01T00:00:00Z`, `"}`
	return []byte(open + strings.Repeat("x", int(capBytes)-len(open)-len(end)) + end)
}

func listContentPlans(ctx context.Context, c *seoapi.Client) (int, any, error) {
	list, _, err := c.ContentPlans.List(ctx, "ws", nil)
	return len(list), list, err
}

func createWorkspace(ctx context.Context, c *seoapi.Client) (int, any, error) {
	w, _, err := c.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "a"})
	if w == nil {
		return 0, w, err
	}
	return 1, w, err
}

func doInts(ctx context.Context, c *seoapi.Client) (int, any, error) {
	var out []int
	err := doList(ctx, c, &out)
	return len(out), out, err
}

func doPlanValues(ctx context.Context, c *seoapi.Client) (int, any, error) {
	var out []seoapi.ContentPlan
	err := doList(ctx, c, &out)
	return len(out), out, err
}

func doMaps(ctx context.Context, c *seoapi.Client) (int, any, error) {
	var out []map[string]any
	err := doList(ctx, c, &out)
	return len(out), out, err
}

func doList(ctx context.Context, c *seoapi.Client, v any) error {
	req, err := c.NewRequest(ctx, http.MethodGet, "api/anything", nil)
	if err != nil {
		return err
	}
	_, err = c.Do(req, v)
	return err
}

func mib(n int64) string { return strconv.FormatInt(n>>20, 10) + "MiB" }

func lengthName(chunked bool) string {
	if chunked {
		return "unknown"
	}
	return "known"
}

// runDecodeMemCase runs one case in a child process and returns its
// report; a child that passes the timeout is killed, and its last
// progress report returned.
func runDecodeMemCase(t *testing.T, spec string, timeout time.Duration) decodeMemResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestDecodedMemory$", "-test.count=1", "-test.timeout=0")
	cmd.Env = []string{decodeMemEnv + "=" + spec, "GOGC=100", "GOMEMLIMIT=off"}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GOGC" && k != "GOMEMLIMIT" && k != "GODEBUG" && k != decodeMemEnv {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var last decodeMemResult
	seen := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), decodeMemPrefix); ok {
			if err := json.Unmarshal([]byte(line), &last); err != nil {
				t.Fatal(err)
			}
			seen = true
		}
	}
	_ = cmd.Wait()
	switch {
	case !seen:
		t.Fatalf("the child reported nothing (%v)", ctx.Err())
	case !last.Done:
		last.Outcome = fmt.Sprintf("killed after %v, still decoding (figures so far)", timeout)
	}
	return last
}

// runDecodeMemChild is the child: it makes one call and prints its report.
func runDecodeMemChild(spec string) {
	parts := strings.Split(spec, ":")
	capBytes, _ := strconv.ParseInt(parts[1], 10, 64)
	chunked := parts[2] == "true"
	i, _ := strconv.Atoi(parts[0])
	shape := decodeMemShapes[i]
	body := shape.fill(capBytes)
	rt := &fixedBody{body: []byte("[]"), chunked: chunked}
	c, err := seoapi.NewClient("https://api.example.com", "sk_decode_memory",
		seoapi.WithHTTPClient(&http.Client{Transport: rt}), seoapi.WithMaxResponseBytes(capBytes), seoapi.WithoutRateLimit())
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	_, _, _ = shape.call(ctx, c) // warm up the client's pools
	rt.body = body

	runtime.GC()
	runtime.GC()
	heap0, alloc0 := heapStats()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(sampled)
		report := time.NewTicker(2 * time.Second)
		defer report.Stop()
		for {
			h, a := heapStats()
			if h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-stop:
				return
			case <-report.C:
				printDecodeMem(decodeMemResult{
					Alloc: ratio(a-alloc0, capBytes), Peak: ratio(peak.Load()-min(heap0, peak.Load()), capBytes),
					Elapsed: time.Since(start), Outcome: "running",
				})
			default:
				time.Sleep(100 * time.Microsecond)
			}
		}
	}()
	n, result, callErr := shape.call(ctx, c)
	elapsed := time.Since(start)
	close(stop)
	<-sampled
	h, alloc1 := heapStats()
	peak.Store(max(peak.Load(), h))
	runtime.GC()
	kept, _ := heapStats()
	outcome := fmt.Sprintf("ok: %d items", n)
	if callErr != nil {
		outcome = callErr.Error()
		if i := strings.Index(outcome, " (body: "); i >= 0 {
			outcome = outcome[:i]
		}
		if i := strings.Index(outcome, "decoding the 200 response: "); i >= 0 {
			outcome = outcome[i+len("decoding the 200 response: "):]
		}
	}
	printDecodeMem(decodeMemResult{
		Alloc: ratio(alloc1-alloc0, capBytes), Peak: ratio(peak.Load()-min(heap0, peak.Load()), capBytes),
		Kept: ratio(kept-min(heap0, kept), capBytes), Elapsed: elapsed, Outcome: outcome, Done: true,
	})
	runtime.KeepAlive(c)
	runtime.KeepAlive(result)
}

func printDecodeMem(r decodeMemResult) {
	b, _ := json.Marshal(r)
	fmt.Printf("%s%s\n", decodeMemPrefix, b)
}

func ratio(n uint64, capBytes int64) float64 { return float64(n) / float64(capBytes) }

// heapStats returns the bytes of heap objects (live, and dead ones not yet
// swept) and the bytes allocated since the program started.
func heapStats() (heap, allocated uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// fixedBody answers every request with 200 and body, with its
// Content-Length or, when chunked, without one.
type fixedBody struct {
	body    []byte
	chunked bool
}

func (f *fixedBody) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	length := int64(len(f.body))
	var body io.Reader = bytes.NewReader(f.body)
	if f.chunked {
		length = -1
		body = struct{ io.Reader }{body}
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(body),
		ContentLength: length,
		Request:       req,
	}, nil
}
