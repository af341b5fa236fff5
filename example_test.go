package seoapi_test

// The Examples in this package run against seoapitest, the in-process fake
// of the API, started with httptest in place of the real service: a
// program passes its own base URL and key to NewClient (or sets
// SEOAPI_BASE_URL and SEOAPI_API_KEY for NewClientFromEnv). Their output is
// checked by go test.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
)

func Example() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	ws, _, err := client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _, err := client.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Name: "Shop", Domain: "shop.example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name, p.Domain)

	for p, err := range client.Projects.All(ctx, ws.ID, nil) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(p.Name)
	}
	// Output:
	// Shop shop.example
	// Shop
}

// Every error a call returns matches exactly one kind with errors.Is; the
// *APIError behind it, with errors.As, says what the server answered.
func Example_errors() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for range 2 { // the second time, the member is there already
		_, _, err := client.Members.Add(ctx, ws, &seoapi.MemberAddRequest{Email: "ana@acme.example"})
		switch {
		case err == nil:
			fmt.Println("added")
		case errors.Is(err, seoapi.ErrConflict):
			fmt.Println("already a member")
		case errors.Is(err, seoapi.ErrNotFound):
			fmt.Println("no such workspace")
		case errors.Is(err, seoapi.ErrRateLimited):
			var apiErr *seoapi.APIError
			errors.As(err, &apiErr)
			fmt.Println("try again in", apiErr.RetryAfter)
		default:
			fmt.Println(err)
		}
	}
	// Output:
	// added
	// already a member
}

// A POST or PATCH whose answer was lost after the request went out may
// have taken effect. Its error matches ErrOutcomeUnknown besides its kind,
// and the SDK does not repeat it: look before trying again.
func Example_outcomeUnknown() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	// The fake creates the project, then drops the connection unanswered.
	fake.DropNext(1, true)

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	p, resp, err := client.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: "Blog", Domain: "blog.example"})
	fmt.Println(resp == nil, errors.Is(err, seoapi.ErrConnection), errors.Is(err, seoapi.ErrOutcomeUnknown))

	if errors.Is(err, seoapi.ErrOutcomeUnknown) {
		for found, err := range client.Projects.All(ctx, ws, nil) {
			if err != nil {
				fmt.Println(err)
				return
			}
			if found.Domain == "blog.example" {
				p = found
				break
			}
		}
	}
	fmt.Println(p.Name, "created once:", len(fake.Requests()) == 2)
	// Output:
	// true true true
	// Blog created once: true
}

// The *Response is nil when the call ended without an answer from the
// server: an argument the SDK rejected before sending anything (then err
// matches ErrInvalidArgument), a wait the rate limit refused, a connection
// that failed, or a context that ended. When the call ended on an answer,
// the Response is there, also beside an error.
func Example_response() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	_, resp, err := client.Projects.List(ctx, "", nil)
	fmt.Println(resp == nil, err)

	_, resp, err = client.Projects.List(ctx, "ws_gone", nil)
	if resp != nil {
		fmt.Println(resp.StatusCode, resp.RequestID, seoapi.ErrorType(err))
	}

	_, resp, err = client.Projects.List(ctx, ws, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, resp.RequestID, resp.Attempts, resp.Rate.Limit, resp.Rate.Remaining)
	// Output:
	// true seoapi: invalid argument: workspaceID is empty
	// 404 req_1 not_found
	// 200 req_2 1 10000 9998
}

// Paging by hand: List returns one page, and the Response says where the
// next one is. All does this for you.
func ExampleListOptions() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	for _, name := range []string{"Acme", "Globex", "Initech"} {
		fake.AddWorkspace(name)
	}

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := &seoapi.ListOptions{PerPage: 2}
	for {
		page, resp, err := client.Workspaces.List(context.Background(), opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("page", max(opts.Page, 1), len(page), "workspaces")
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage // or opts.Cursor = resp.NextCursor, for a cursor-paged list
	}
	// Output:
	// page 1 2 workspaces
	// page 2 1 workspaces
}

func ExampleNewClient() {
	// The base URL may carry a path prefix; paths resolve under it.
	client, err := seoapi.NewClient("https://api.example.com/seo", "sk_live_123")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(client.BaseURL())
	fmt.Println(client) // a Client never prints its key

	// Arguments are checked before anything is sent.
	_, err = seoapi.NewClient("api.example.com", "sk_live_123")
	fmt.Println(errors.Is(err, seoapi.ErrInvalidArgument), err)
	// Output:
	// https://api.example.com/seo/
	// seoapi.Client{BaseURL: "https://api.example.com/seo/", APIKey: [REDACTED]}
	// true seoapi: invalid argument: base URL "api.example.com" is not an absolute http(s) URL
}

func ExampleNewClientFromEnv() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	// A deployment sets these; the example sets them for itself.
	os.Setenv(seoapi.EnvBaseURL, srv.URL)
	os.Setenv(seoapi.EnvAPIKey, fake.Key())
	defer os.Unsetenv(seoapi.EnvBaseURL)
	defer os.Unsetenv(seoapi.EnvAPIKey)

	client, err := seoapi.NewClientFromEnv(seoapi.WithUserAgent("nightly-report"))
	if err != nil {
		fmt.Println(err)
		return
	}
	workspaces, _, err := client.Workspaces.List(context.Background(), nil)
	fmt.Println(len(workspaces), err)

	os.Unsetenv(seoapi.EnvAPIKey)
	_, err = seoapi.NewClientFromEnv()
	fmt.Println(err)
	// Output:
	// 0 <nil>
	// seoapi: invalid argument: SEOAPI_API_KEY is not set
}

func ExampleNewLimiter() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	// One limiter, here of 3 requests an hour, shared by two clients of the
	// same key: they draw on one budget.
	shared, err := seoapi.NewLimiter(3, seoapi.DefaultRequestsPerSecond, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	reporting, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithLimiter(shared))
	if err != nil {
		fmt.Println(err)
		return
	}
	syncing, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithLimiter(shared))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, c := range []*seoapi.Client{reporting, reporting, syncing, syncing} {
		_, _, err := c.Workspaces.List(ctx, nil)
		fmt.Println(err == nil, errors.Is(err, seoapi.ErrRateLimited))
	}
	fmt.Println("sent:", len(fake.Requests()))
	// Output:
	// true false
	// true false
	// true false
	// false true
	// sent: 3
}

func ExampleAPIError() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	_, _, err = client.Projects.List(context.Background(), "ws_does_not_exist", nil)
	var apiErr *seoapi.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.Message, apiErr.RequestID, apiErr.Attempts)
		fmt.Println(apiErr.Kind() == seoapi.ErrNotFound, errors.Is(err, seoapi.ErrNotFound))
	}
	// Output:
	// 404 not_found workspace not found req_1 1
	// true true
}

func ExampleErrorType() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.FailNext(1, http.StatusBadGateway, nil)

	client, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithMaxRetries(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	_, _, err = client.Workspaces.List(ctx, nil)
	fmt.Printf("%q\n", seoapi.ErrorType(err))

	// A call whose context ended matches the context's error, and no kind.
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, _, err = client.Workspaces.List(canceled, nil)
	fmt.Printf("%q\n", seoapi.ErrorType(err))

	fmt.Printf("%q %q\n", seoapi.ErrorType(nil), seoapi.ErrorType(errors.New("not from the SDK")))
	// Output:
	// "server"
	// "canceled"
	// "" "other"
}

func ExampleRefuseWait() {
	// A Limiter of one's own that will not wait 2 minutes says so with
	// RefuseWait. The call's error is a copy naming the method, URL and
	// attempts, and errors.Is matches it to the Limiter's value.
	err := seoapi.RefuseWait(2*time.Minute, "quota limit: wait of 2m0s exceeds the quota's patience")
	fmt.Println(errors.Is(err, seoapi.ErrRateLimited), err.StatusCode, err.RetryAfter)
	fmt.Println(err)
	// Output:
	// true 0 2m0s
	// seoapi: not sent: quota limit: wait of 2m0s exceeds the quota's patience (retry after 2m0s)
}

func ExampleSecret() {
	key := seoapi.APIKey{Name: "ci", Key: seoapi.Secret("sk_live_abc123")}
	fmt.Println(key.Key)
	fmt.Printf("%+v %q\n", key.Key, key.Key)
	fmt.Println(len(string(key.Key))) // string gives the value, deliberately
	// Output:
	// [REDACTED]
	// [REDACTED] "[REDACTED]"
	// 14
}

func ExampleClient_NewRequest() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	// A path relative to the base URL, and a body sent as JSON.
	req, err := client.NewRequest(ctx, http.MethodPost, "api/workspaces/"+ws+"/members", map[string]string{"email": "ana@acme.example"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(req.Method, strings.Replace(req.URL.Path, ws, "{id}", 1))
	fmt.Println(req.Header.Get("Content-Type"), strings.HasPrefix(req.Header.Get("Authorization"), "Bearer "))

	var m seoapi.Member
	resp, err := client.Do(req, &m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, m.Email, m.Role)

	// The key goes to the base URL only.
	_, err = client.NewRequest(ctx, http.MethodGet, "https://elsewhere.example/api/workspaces", nil)
	fmt.Println(err)
	// Output:
	// POST /api/workspaces/{id}/members
	// application/json true
	// 201 ana@acme.example member
	// seoapi: invalid argument: URL "https://elsewhere.example/api/workspaces" is not under the client's base URL
}

func ExampleClient_Do() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	fake.AddWorkspace("Acme")

	client, err := seoapi.NewClient(srv.URL, fake.Key())
	if err != nil {
		fmt.Println(err)
		return
	}
	// Do sends any request through the same headers, limiter, retries and
	// error kinds as the services. A list is decoded from a bare array or
	// from an envelope such as {"data": [...]}.
	req, err := client.NewRequest(context.Background(), http.MethodGet, "api/workspaces", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	var raw []map[string]any
	resp, err := client.Do(req, &raw)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, len(raw), raw[0]["name"])
	// Output: 200 1 Acme
}

func ExampleClient_BaseURL() {
	client, err := seoapi.NewClient("https://api.example.com/v1", "sk_example_0123456789abcdef0123456789")
	if err != nil {
		fmt.Println(err)
		return
	}
	// Relative paths given to NewRequest resolve under the base URL.
	fmt.Println(client.BaseURL())
	// Output:
	// https://api.example.com/v1/
}

func ExamplePtr() {
	// Update sends only the fields that are set: Ptr sets one, here to an
	// empty name, which a plain string field could not send.
	req := &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("")}
	body, err := json.Marshal(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(body))
	// Output:
	// {"name":""}
}
