// Package contract_test holds the fake API, and the requests the SDK sends
// it, to the OpenAPI contract in openapi.yaml: every request body and every
// response of an end-to-end run over all twelve endpoints, their error
// cases and every paging style is validated against the document's schemas.
package contract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

const docURL = "file:///openapi.json"

// contract is the parsed document with a schema compiler over it.
type contract struct {
	doc      map[string]any
	compiler *jsonschema.Compiler
}

func loadContract(t *testing.T) *contract {
	t.Helper()
	raw, err := os.ReadFile("openapi.yaml")
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, yaml.Unmarshal(raw, &doc))
	// Round-trip through JSON so the validator sees JSON types only.
	buf, err := json.Marshal(doc)
	require.NoError(t, err)
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	require.NoError(t, c.AddResource(docURL, parsed))
	require.NoError(t, json.Unmarshal(buf, &doc))
	return &contract{doc: doc, compiler: c}
}

// operation finds the path template and operation for a request.
func (c *contract) operation(method, path string) (template string, op map[string]any) {
	paths := c.doc["paths"].(map[string]any)
	for tmpl, item := range paths {
		if !matchTemplate(tmpl, path) {
			continue
		}
		if o, ok := item.(map[string]any)[strings.ToLower(method)].(map[string]any); ok {
			return tmpl, o
		}
	}
	return "", nil
}

func matchTemplate(tmpl, path string) bool {
	a, b := strings.Split(strings.Trim(tmpl, "/"), "/"), strings.Split(strings.Trim(path, "/"), "/")
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.HasPrefix(a[i], "{") && a[i] != b[i] {
			return false
		}
	}
	return true
}

// pointer escapes a JSON pointer token.
func pointer(tokens ...string) string {
	var b strings.Builder
	for _, tok := range tokens {
		b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(tok))
	}
	return b.String()
}

func (c *contract) validate(location string, body []byte) error {
	schema, err := c.compiler.Compile(docURL + "#" + location)
	if err != nil {
		return fmt.Errorf("compiling %s: %w", location, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	return schema.Validate(inst)
}

// exchange is one request and response that crossed the wire.
type exchange struct {
	method, path string
	reqBody      []byte
	status       int
	header       http.Header
	body         []byte
}

type recordingWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *recordingWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

// tap records every exchange the fake serves.
type tap struct {
	mu        sync.Mutex
	exchanges []exchange
	next      http.Handler
}

func (t *tap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reqBody, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	rw := &recordingWriter{ResponseWriter: w}
	t.next.ServeHTTP(rw, r)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.exchanges = append(t.exchanges, exchange{method: r.Method, path: r.URL.EscapedPath(), reqBody: reqBody, status: rw.status, header: w.Header().Clone(), body: rw.body.Bytes()})
}

func TestFakeAPIHoldsToTheContract(t *testing.T) {
	t.Parallel()
	c := loadContract(t)
	fake := seoapitest.New()
	tp := &tap{next: fake}
	srv := httptest.NewServer(tp)
	defer srv.Close()

	exerciseEveryEndpoint(t, fake, srv.URL)

	require.NotEmpty(t, tp.exchanges)
	statuses := map[int]bool{}
	for _, ex := range tp.exchanges {
		statuses[ex.status] = true
		tmpl, op := c.operation(ex.method, ex.path)
		require.NotNil(t, op, "%s %s is not in the contract", ex.method, ex.path)
		base := pointer("paths", tmpl, strings.ToLower(ex.method))
		// A request the fake answered 422 was made invalid on purpose.
		if len(ex.reqBody) > 0 && ex.status != http.StatusUnprocessableEntity {
			require.NoError(t, c.validate(base+pointer("requestBody", "content", "application/json", "schema"), ex.reqBody),
				"request body of %s %s: %s", ex.method, ex.path, ex.reqBody)
		}
		responses := op["responses"].(map[string]any)
		key := strconv.Itoa(ex.status)
		if _, ok := responses[key]; !ok {
			key = key[:1] + "XX"
		}
		resp, ok := responses[key].(map[string]any)
		require.True(t, ok, "%s %s answered %d, which the contract does not list", ex.method, ex.path, ex.status)
		loc := base + pointer("responses", key)
		if ref, ok := resp["$ref"].(string); ok {
			loc = strings.TrimPrefix(ref, "#")
			resp = c.resolve(ref)
		}
		if _, hasContent := resp["content"]; !hasContent {
			require.Empty(t, ex.body, "%s %s %d has no body in the contract", ex.method, ex.path, ex.status)
			continue
		}
		require.NoError(t, c.validate(loc+pointer("content", "application/json", "schema"), ex.body),
			"response %d of %s %s: %s", ex.status, ex.method, ex.path, ex.body)
	}
	for _, want := range []int{200, 201, 204, 400, 401, 403, 404, 409, 422, 429, 503} {
		require.True(t, statuses[want], "the run never produced a %d", want)
	}
}

func (c *contract) resolve(ref string) map[string]any {
	var node any = c.doc
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		node = node.(map[string]any)[strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)]
	}
	return node.(map[string]any)
}

// exerciseEveryEndpoint drives all twelve endpoints through the SDK, with
// their failure cases and every paging style.
func exerciseEveryEndpoint(t *testing.T, fake *seoapitest.Server, baseURL string) {
	t.Helper()
	ctx := context.Background()
	key, _ := fake.IssueKey(seoapitest.PlanEnterprise)
	opts := []seoapi.Option{seoapi.WithoutRateLimit(), seoapi.WithMaxRetries(0)}
	c, err := seoapi.NewClient(baseURL, key, opts...)
	require.NoError(t, err)

	_, _, err = c.Workspaces.List(ctx, nil)
	require.NoError(t, err)
	ws, _, err := c.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"})
	require.NoError(t, err)
	p, _, err := c.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Name: "Shop", Domain: "shop.example", Extra: map[string]any{"locale": "de"}})
	require.NoError(t, err)
	fake.AddContentPlan(ws.ID, p.ID, "Plan", "active")
	fake.AddContentPlan(ws.ID, "", "Unattached", "draft")
	fake.AddCompetitor(ws.ID, p.ID, "Rival", "rival.example")
	_, _, err = c.Projects.Update(ctx, ws.ID, p.ID, &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("Shop EU")})
	require.NoError(t, err)
	_, _, err = c.Members.Add(ctx, ws.ID, &seoapi.MemberAddRequest{Email: "ana@acme.example", Role: "editor"})
	require.NoError(t, err)
	k, _, err := c.APIKeys.Create(ctx, ws.ID, &seoapi.APIKeyCreateRequest{Name: "ci"})
	require.NoError(t, err)
	c2, err := seoapi.NewClient(baseURL, string(k.Key), opts...)
	require.NoError(t, err)

	for _, style := range []seoapitest.Paging{seoapitest.PagingLink, seoapitest.PagingPage, seoapitest.PagingCursor, seoapitest.PagingNone} {
		fake.SetPaging(style, 1)
		for range c.Workspaces.All(ctx, nil) {
		}
		for range c.Projects.All(ctx, ws.ID, nil) {
		}
		for range c.ContentPlans.All(ctx, ws.ID, nil) {
		}
		for range c.Members.All(ctx, ws.ID, nil) {
		}
		for range c.Competitors.All(ctx, ws.ID, p.ID, nil) {
		}
		for range c2.APIKeys.All(ctx, ws.ID, nil) {
		}
	}
	fake.SetPaging(seoapitest.PagingLink, 50)

	// Failures, each of a status the contract lists.
	_, _, err = c.Members.Add(ctx, ws.ID, &seoapi.MemberAddRequest{Email: "ana@acme.example"})
	require.ErrorIs(t, err, seoapi.ErrConflict)
	_, _, err = c.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Domain: "nameless.example"})
	require.ErrorIs(t, err, seoapi.ErrValidation)
	_, _, err = c.Projects.List(ctx, ws.ID, &seoapi.ListOptions{Extra: map[string][]string{"page": {"zero"}}})
	require.ErrorIs(t, err, seoapi.ErrValidation)
	_, _, err = c.Projects.List(ctx, "ws_missing", nil)
	require.ErrorIs(t, err, seoapi.ErrNotFound)
	bad, err := seoapi.NewClient(baseURL, "sk_wrong_key", opts...)
	require.NoError(t, err)
	_, _, err = bad.Workspaces.List(ctx, nil)
	require.ErrorIs(t, err, seoapi.ErrUnauthorized)
	agencyKey, _ := fake.IssueKey(seoapitest.PlanAgency)
	agency, err := seoapi.NewClient(baseURL, agencyKey, opts...)
	require.NoError(t, err)
	_, _, err = agency.Workspaces.List(ctx, nil)
	require.ErrorIs(t, err, seoapi.ErrForbidden)
	fake.FailNext(1, http.StatusServiceUnavailable, nil)
	_, _, err = c.Workspaces.List(ctx, nil)
	require.ErrorIs(t, err, seoapi.ErrServer)
	// One a second, without X-RateLimit headers (there is no hourly
	// limit), so the client sends the second request and the fake refuses
	// it. Tried a few times, should a loaded machine space two requests a
	// second apart.
	fake.SetLimits(seoapitest.Limits{PerSecond: 1})
	for range 5 {
		if _, _, err = c.Workspaces.List(ctx, nil); errors.Is(err, seoapi.ErrRateLimited) {
			break
		}
	}
	require.ErrorIs(t, err, seoapi.ErrRateLimited)
	fake.SetLimits(seoapitest.PublishedLimits())

	_, err = c.Projects.Delete(ctx, ws.ID, p.ID)
	require.NoError(t, err)
}
