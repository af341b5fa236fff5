package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lag is the -lag of the tests that watch a list catch up.
const lag = time.Second

func TestFaultFlags(t *testing.T) {
	t.Parallel()
	bin := build(t)

	t.Run("a change shows in lists only after -lag", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name    string
			args    []string
			change  func(ctx context.Context, c *seoapi.Client, ws, shop string) error
			wantErr []error
			watch   string // the project whose listing is watched
			listed  bool   // whether it is listed once the lag has passed
			log     string // a line the log holds
		}{
			{
				name: "-drop 1: a create's answer is lost, and the project is listed after the lag",
				args: []string{"-drop", "1"},
				change: func(ctx context.Context, c *seoapi.Client, ws, _ string) error {
					_, _, err := c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: "Blog"})
					return err
				},
				wantErr: []error{seoapi.ErrOutcomeUnknown, seoapi.ErrConnection},
				watch:   "Blog", listed: true, log: "/projects dropped ",
			},
			{
				name: "a create",
				change: func(ctx context.Context, c *seoapi.Client, ws, _ string) error {
					_, _, err := c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: "Blog"})
					return err
				},
				watch: "Blog", listed: true, log: "/projects 201 ",
			},
			{
				name: "a delete",
				change: func(ctx context.Context, c *seoapi.Client, ws, shop string) error {
					_, err := c.Projects.Delete(ctx, ws, shop)
					return err
				},
				watch: "Shop", listed: false, log: " 204 ",
			},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				args := append([]string{"-addr", "127.0.0.1:0", "-seed", writeFile(t, seedJSON), "-lag", lag.String()}, tt.args...)
				p := start(t, bin, args...)
				c, err := seoapi.NewClient(p.url, p.key)
				require.NoError(t, err)
				ctx := context.Background()
				ws, shop := seededIDs(t, p)

				began := time.Now()
				err = tt.change(ctx, c, ws, shop)
				for _, want := range tt.wantErr {
					require.ErrorIs(t, err, want)
				}
				if tt.wantErr == nil {
					require.NoError(t, err)
				}
				waitListed(t, c, ws, tt.watch, tt.listed, began)

				require.NoError(t, p.stop(t))
				assert.Contains(t, p.stderr.String(), tt.log)
			})
		}
	})

	t.Run("-fail 1: every request is answered 503", func(t *testing.T) {
		t.Parallel()
		p := start(t, bin, "-addr", "127.0.0.1:0", "-seed", writeFile(t, seedJSON), "-fail", "1")
		ws, _ := seededIDs(t, p)
		ctx := context.Background()
		tests := []struct {
			name         string
			retries      int
			call         func(c *seoapi.Client) (*seoapi.Response, error)
			wantErr      []error
			wantAttempts int
		}{
			{"a list, not retried", 0, func(c *seoapi.Client) (*seoapi.Response, error) {
				_, resp, err := c.Projects.List(ctx, ws, nil)
				return resp, err
			}, []error{seoapi.ErrServer}, 1},
			{"a list, retried after Retry-After: 1", 1, func(c *seoapi.Client) (*seoapi.Response, error) {
				_, resp, err := c.Projects.List(ctx, ws, nil)
				return resp, err
			}, []error{seoapi.ErrServer}, 2},
			{"a create", 3, func(c *seoapi.Client) (*seoapi.Response, error) {
				_, resp, err := c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: "Blog"})
				return resp, err
			}, []error{seoapi.ErrServer, seoapi.ErrOutcomeUnknown}, 1},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				c, err := seoapi.NewClient(p.url, p.key, seoapi.WithMaxRetries(tt.retries))
				require.NoError(t, err)
				resp, err := tt.call(c)
				for _, want := range tt.wantErr {
					require.ErrorIs(t, err, want)
				}
				require.NotNil(t, resp)
				assert.Equal(t, 503, resp.StatusCode)
				assert.Equal(t, "1", resp.Header.Get("Retry-After"))
				assert.Equal(t, tt.wantAttempts, resp.Attempts)
			})
		}

		require.NoError(t, p.stop(t))
		lines := requestLines(p.stderr.String())
		assert.Len(t, lines, 4)
		for _, line := range lines {
			assert.Contains(t, line, " 503 ", "nothing was handled")
		}
	})

	t.Run("-rand-seed replays the faults", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name     string
			first    []string
			second   func(logged uint64) []string
			wantSame bool
		}{
			{"the seed logged by a run without -rand-seed", nil,
				func(logged uint64) []string { return []string{"-rand-seed", fmt.Sprint(logged)} }, true},
			{"the same -rand-seed", []string{"-rand-seed", "42"},
				func(uint64) []string { return []string{"-rand-seed", "42"} }, true},
			{"another -rand-seed", []string{"-rand-seed", "42"},
				func(uint64) []string { return []string{"-rand-seed", "43"} }, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				first, logged := faultRun(t, bin, tt.first)
				second, _ := faultRun(t, bin, tt.second(logged))
				assert.Equal(t, tt.wantSame, slices.Equal(first, second), "%v\n%v", first, second)
				for _, kind := range []string{"created", "503", "dropped"} {
					assert.Contains(t, first, kind, "each outcome is drawn at these rates")
				}
			})
		}
	})

	t.Run("bad fault flags fail at start", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			args []string
			want string
		}{
			{[]string{"-drop", "1.5"}, `seoapi-fake: invalid value "1.5" for flag -drop: want a fraction from 0 to 1, such as 0.05`},
			{[]string{"-fail", "-0.1"}, `seoapi-fake: invalid value "-0.1" for flag -fail: want a fraction from 0 to 1, such as 0.05`},
			{[]string{"-fail", "NaN"}, `seoapi-fake: invalid value "NaN" for flag -fail: want a fraction from 0 to 1`},
			{[]string{"-drop", "a lot"}, `seoapi-fake: invalid value "a lot" for flag -drop: want a fraction from 0 to 1`},
			{[]string{"-lag", "-1s"}, `seoapi-fake: invalid value "-1s" for flag -lag: want a duration of 0 or more, such as 2s`},
			{[]string{"-lag", "2"}, `seoapi-fake: invalid value "2" for flag -lag: want a duration of 0 or more, such as 2s`},
			{[]string{"-rand-seed", "-1"}, `seoapi-fake: invalid value "-1" for flag -rand-seed: want a whole number`},
		}
		for _, tt := range tests {
			t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
				t.Parallel()
				var stdout, stderr bytes.Buffer
				cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, tt.args...)...)
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				assert.Equal(t, 2, cmd.ProcessState.ExitCode(), "%v; stderr: %s", err, &stderr)
				assert.Contains(t, stderr.String(), tt.want)
				assert.Empty(t, stdout.String(), "nothing served")
			})
		}
	})

	t.Run("-help documents every fault flag", func(t *testing.T) {
		t.Parallel()
		out, err := exec.Command(bin, "-help").CombinedOutput()
		require.NoError(t, err, "exit 0")
		for _, want := range []string{"-drop RATE", "-fail RATE", "Retry-After: 1", "-lag DURATION", "-rand-seed N", "to replay a run"} {
			assert.Contains(t, string(out), want)
		}
	})
}

// seededIDs reads the workspace and project IDs that the program printed
// for seedJSON.
func seededIDs(t *testing.T, p *started) (ws, project string) {
	t.Helper()
	require.Len(t, p.seeded, 2)
	ws = strings.Fields(p.seeded[0])[2]
	project = strings.Fields(p.seeded[1])[2]
	return ws, project
}

// waitListed polls the projects of ws until the one named name is listed
// (or not, as want says), and checks that this took at least lag from
// began, a time before the change was sent. An answer's time is taken
// after it arrived, so a busy machine can only make the wait look longer.
func waitListed(t *testing.T, c *seoapi.Client, ws, name string, want bool, began time.Time) {
	t.Helper()
	deadline := began.Add(time.Minute)
	polls := 0
	for {
		ps, _, err := c.Projects.List(context.Background(), ws, nil)
		require.NoError(t, err)
		answered := time.Now()
		polls++
		listed := slices.ContainsFunc(ps, func(p *seoapi.Project) bool { return p.Name == name })
		if listed == want {
			assert.GreaterOrEqual(t, answered.Sub(began), lag, "the list caught up before the lag had passed")
			t.Logf("the list caught up after %s, at poll %d", answered.Sub(began).Round(time.Millisecond), polls)
			return
		}
		require.True(t, answered.Before(deadline), "%q listed %v still after a minute", name, listed)
		time.Sleep(50 * time.Millisecond) // the interval between polls, not a synchronisation
	}
}

// faultRun starts the program with -fail 0.3 -drop 0.3 and args, sends 60
// creates one at a time, and returns what each met and the seed the
// program logged.
func faultRun(t *testing.T, bin string, args []string) ([]string, uint64) {
	t.Helper()
	p := start(t, bin, append([]string{"-addr", "127.0.0.1:0", "-limits", "0,0", "-fail", "0.3", "-drop", "0.3"}, args...)...)
	c, err := seoapi.NewClient(p.url, p.key, seoapi.WithMaxRetries(0), seoapi.WithoutRateLimit())
	require.NoError(t, err)
	out := make([]string, 60)
	for i := range out {
		_, _, err := c.Workspaces.Create(context.Background(), &seoapi.WorkspaceCreateRequest{Name: "W"})
		switch {
		case err == nil:
			out[i] = "created"
		case errors.Is(err, seoapi.ErrServer):
			out[i] = "503"
		case errors.Is(err, seoapi.ErrConnection):
			out[i] = "dropped"
		default:
			t.Fatalf("create %d: %v", i, err)
		}
	}
	require.NoError(t, p.stop(t))
	m := regexp.MustCompile(`seoapi-fake: faults: -fail 0.3 -drop 0.3 -lag 0s -rand-seed (\d+)\n`).FindStringSubmatch(p.stderr.String())
	require.NotNil(t, m, "the faults are logged: %s", p.stderr)
	seed, err := strconv.ParseUint(m[1], 10, 64)
	require.NoError(t, err)
	return out, seed
}

// requestLines are the log lines of requests, without the program's own.
func requestLines(log string) []string {
	var out []string
	for line := range strings.SplitSeq(strings.TrimSpace(log), "\n") {
		if !strings.HasPrefix(line, "seoapi-fake: ") {
			out = append(out, line)
		}
	}
	return out
}
