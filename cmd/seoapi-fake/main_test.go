package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const seedJSON = `{
  "workspaces": [
    {
      "name": "Acme",
      "members": [{"email": "ana@acme.example", "role": "admin"}],
      "contentPlans": [{"name": "Backlog", "status": "draft"}],
      "projects": [
        {
          "name": "Shop",
          "domain": "shop.example",
          "contentPlans": [{"name": "Q3 calendar", "status": "active"}],
          "competitors": [{"name": "Rival", "domain": "rival.example"}]
        }
      ]
    }
  ]
}
`

// build compiles the program once for the tests that run it.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "seoapi-fake")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "seed.json")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// started is a running child process and what it printed.
type started struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	url    string
	key    string
	seeded []string
}

// start runs the program and reads its stdout up to the key line.
func start(t *testing.T, bin string, args ...string) *started {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, args...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	p := &started{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = p.stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	sc := bufio.NewScanner(stdout)
	for p.key == "" && sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "SEOAPI_BASE_URL="):
			p.url = strings.TrimPrefix(line, "SEOAPI_BASE_URL=")
		case strings.HasPrefix(line, "SEOAPI_API_KEY="):
			p.key = strings.TrimPrefix(line, "SEOAPI_API_KEY=")
		default:
			p.seeded = append(p.seeded, line)
		}
	}
	require.NotEmpty(t, p.key, "no key printed; stderr: %s", p.stderr)
	go io.Copy(io.Discard, stdout) //nolint:errcheck // drain, so the child never blocks on a full pipe.
	return p
}

// stop sends SIGTERM and returns the exit error (nil for exit 0).
func (p *started) stop(t *testing.T) error {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	return p.cmd.Wait()
}

func TestProgram(t *testing.T) {
	t.Parallel()
	bin := build(t)

	t.Run("serves all twelve endpoints, then stops on SIGTERM", func(t *testing.T) {
		t.Parallel()
		p := start(t, bin, "-addr", "127.0.0.1:0", "-seed", writeFile(t, seedJSON), "-limits", "1000,100")
		assert.True(t, strings.HasPrefix(p.url, "http://127.0.0.1:"), p.url)
		assert.True(t, strings.HasPrefix(p.key, "sk_"), "a random key")
		require.Len(t, p.seeded, 2)
		exerciseAll(t, p.url, p.key)

		require.NoError(t, p.stop(t), "exit 0 after SIGTERM; stderr: %s", p.stderr)
		logs := p.stderr.String()
		assert.NotContains(t, logs, p.key)
		lines := strings.Split(strings.TrimSpace(logs), "\n")
		assert.Contains(t, lines[0], "GET /api/workspaces 200 ")
		assert.Contains(t, lines[0], "req_1")
		assert.Contains(t, logs, "POST /api/workspaces/")
		assert.Contains(t, logs, " 201 ")
		assert.Contains(t, logs, "DELETE /api/workspaces/")
		assert.Contains(t, logs, " 204 ")
		assert.Equal(t, "seoapi-fake: shutting down", lines[len(lines)-1])
		assert.Len(t, lines, 13, "one line per request and the shutdown line: %s", logs)
	})

	t.Run("-key fixes the key and stays out of the log", func(t *testing.T) {
		t.Parallel()
		const key = "sk_test_compose_fixed"
		p := start(t, bin, "-addr", "127.0.0.1:0", "-key", key, "-limits", "2,0")
		assert.Equal(t, key, p.key)
		c, err := seoapi.NewClient(p.url, key, seoapi.WithMaxRetries(0), seoapi.WithoutRateLimit())
		require.NoError(t, err)
		ctx := context.Background()
		_, resp, err := c.Workspaces.List(ctx, nil)
		require.NoError(t, err)
		assert.Equal(t, 2, resp.Rate.Limit, "-limits set the hourly window")
		_, _, err = c.Workspaces.List(ctx, nil)
		require.NoError(t, err)
		_, _, err = c.Workspaces.List(ctx, nil)
		require.ErrorIs(t, err, seoapi.ErrRateLimited, "the hour's two requests are spent")
		resp2, err := http.Get(p.url + "/api/workspaces?token=" + key)
		require.NoError(t, err)
		resp2.Body.Close()
		assert.Equal(t, 401, resp2.StatusCode)
		require.NoError(t, p.stop(t))
		assert.NotContains(t, p.stderr.String(), key)
		assert.Contains(t, p.stderr.String(), "GET /api/workspaces?token=[REDACTED] 401 ")
	})

	t.Run("a bad seed file fails naming the line or field", func(t *testing.T) {
		t.Parallel()
		tests := []struct {
			name, seed, want string
		}{
			{"syntax", "{\"workspaces\": [\n  {\"name\": \"A\",,}\n]}", "line 2, column 17: invalid character ','"},
			{"type", "{\"workspaces\": [\n  {\"name\": 5}\n]}", "line 2, column 13: field workspaces.name: want string, got JSON number"},
			{"nested type", "{\"workspaces\": [{\"name\": \"A\"},\n  {\"name\": \"B\", \"projects\": [{\"name\": \"P\", \"competitors\": [{\"name\": true}]}]}\n]}",
				"line 2, column 73: field workspaces.projects.competitors.name: want string, got JSON bool"},
			{"unknown field", "{\"workspaces\": [\n  {\"name\": \"A\",\n   \"projects\": [{\"name\": \"P\", \"domian\": \"x\"}]}\n]}", `line 3, column 31: unknown field "domian"`},
			{"blank name", `{"workspaces": [{"name": "A", "projects": [{"name": " "}]}]}`, "workspaces[0].projects[0].name: required"},
			{"bad email", `{"workspaces": [{"name": "A", "members": [{"email": "ana"}]}]}`, `workspaces[0].members[0].email: "ana" is not an email address`},
			{"cut short", `{"workspaces": [{"name": "A"}`, "the JSON ends too soon"},
			{"empty", ``, "the file is empty"},
			{"trailing data", `{"workspaces": []} {}`, "line 1, column 21: unexpected data after the seed object"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				path := writeFile(t, tt.seed)
				var stderr bytes.Buffer
				cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-seed", path)
				cmd.Stderr = &stderr
				err := cmd.Run()
				var exit *exec.ExitError
				require.True(t, errors.As(err, &exit), "it must fail, got %v", err)
				assert.Equal(t, 2, exit.ExitCode())
				assert.Contains(t, stderr.String(), "seoapi-fake: seed "+path+": ")
				assert.Contains(t, stderr.String(), tt.want)
			})
		}
	})
}

// exerciseAll calls the twelve endpoints through the SDK on the seeded
// data and checks what each answered.
func exerciseAll(t *testing.T, url, key string) {
	t.Helper()
	ctx := context.Background()
	c, err := seoapi.NewClient(url, key, seoapi.WithMaxRetries(0))
	require.NoError(t, err)

	wss, _, err := c.Workspaces.List(ctx, nil) // 1
	require.NoError(t, err)
	require.Len(t, wss, 1)
	assert.Equal(t, "Acme", wss[0].Name)
	ws := wss[0].ID
	created, _, err := c.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Beta"}) // 2
	require.NoError(t, err)
	assert.Equal(t, "Beta", created.Name)

	ps, _, err := c.Projects.List(ctx, ws, nil) // 3
	require.NoError(t, err)
	require.Len(t, ps, 1)
	assert.Equal(t, "shop.example", ps[0].Domain)
	p, _, err := c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: "Blog"}) // 4
	require.NoError(t, err)
	up, _, err := c.Projects.Update(ctx, ws, p.ID, &seoapi.ProjectUpdateRequest{Domain: seoapi.Ptr("blog.example")}) // 5
	require.NoError(t, err)
	assert.Equal(t, "blog.example", up.Domain)
	_, err = c.Projects.Delete(ctx, ws, p.ID) // 6
	require.NoError(t, err)

	plans, _, err := c.ContentPlans.List(ctx, ws, nil) // 7
	require.NoError(t, err)
	require.Len(t, plans, 2)
	assert.Equal(t, []string{"Backlog", ""}, []string{plans[0].Name, plans[0].ProjectID})
	assert.Equal(t, []string{"Q3 calendar", ps[0].ID}, []string{plans[1].Name, plans[1].ProjectID})

	members, _, err := c.Members.List(ctx, ws, nil) // 8
	require.NoError(t, err)
	require.Len(t, members, 1)
	assert.Equal(t, "admin", members[0].Role)
	_, _, err = c.Members.Add(ctx, ws, &seoapi.MemberAddRequest{Email: "ana@acme.example"}) // 9
	require.ErrorIs(t, err, seoapi.ErrConflict, "seeded already")

	comps, _, err := c.Competitors.List(ctx, ws, ps[0].ID, nil) // 10
	require.NoError(t, err)
	require.Len(t, comps, 1)
	assert.Equal(t, "rival.example", comps[0].Domain)

	k, _, err := c.APIKeys.Create(ctx, ws, &seoapi.APIKeyCreateRequest{Name: "ci"}) // 12
	require.NoError(t, err)
	assert.NotEmpty(t, string(k.Key))
	keys, _, err := c.APIKeys.List(ctx, ws, nil) // 11
	require.NoError(t, err)
	require.Len(t, keys, 1)
	assert.Empty(t, string(keys[0].Key), "shown once")
}
