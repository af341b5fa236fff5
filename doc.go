// Package seoapi is a client for the Workspace Automation REST API of an
// SEO workflow platform: workspaces, their projects, content plans,
// members and API keys, and the competitors of a project.
//
// # Usage
//
// Create one [Client] with the API's base URL and an API key, or read both
// from SEOAPI_BASE_URL and SEOAPI_API_KEY with [NewClientFromEnv], and
// share it: a Client is safe for concurrent use.
//
//	client, err := seoapi.NewClient("https://api.example.com", os.Getenv("SEOAPI_API_KEY"))
//
// Each resource has a service on the Client with one method per endpoint:
//
//	client.Workspaces    List, All, Pages, Create
//	client.Projects      List, All, Pages, Create, Update, Delete
//	client.ContentPlans  List, All, Pages
//	client.Members       List, All, Pages, Add
//	client.Competitors   List, All, Pages
//	client.APIKeys       List, All, Pages, Create
//
// Every method takes a context, which bounds the whole call, waits and
// retries included, and returns the value it read, a [*Response] and an
// error:
//
//	ws, _, err := client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"})
//	p, _, err := client.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Name: "Shop"})
//	p, _, err = client.Projects.Update(ctx, ws.ID, p.ID, &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("Shop EU")})
//
// Update sends only the fields that are set. An empty ID, a nil request or
// a negative page fails with [ErrInvalidArgument] before anything is sent.
// [Client.NewRequest] and [Client.Do] send any other request through the
// same headers, rate limiter, retries and errors.
//
// The API publishes no fields, bodies or status codes. The SDK assumes
// them (the README lists every assumption) and reads answers tolerantly.
// Every resource keeps the JSON object it was read from in Raw, and every
// request type sends extra fields from Extra.
//
// # Errors
//
// Every error matches exactly one kind with [errors.Is]: [ErrInvalidArgument],
// [ErrUnauthorized], [ErrForbidden], [ErrNotFound], [ErrConflict],
// [ErrValidation], [ErrRateLimited], [ErrServer], [ErrConnection] or
// [ErrUnexpectedResponse]; or, when the call's context ended, the
// context's own error. An [*APIError] holds the status, the code and
// message of the body, the request ID and RetryAfter:
//
//	_, _, err := client.Members.Add(ctx, wsID, &seoapi.MemberAddRequest{Email: "ana@acme.example"})
//	if errors.Is(err, seoapi.ErrConflict) {
//		// already a member
//	}
//
// A POST or PATCH that may have taken effect also matches
// [ErrOutcomeUnknown]. The SDK never repeats such a write: look for what
// it created before trying again.
//
// # Listing
//
// List returns one page. All iterates over every item of every page,
// fetching each page as the loop reaches it:
//
//	for p, err := range client.Projects.All(ctx, wsID, nil) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(p.Name)
//	}
//
// Pages iterates over whole pages. Each [Page] carries a Next token; a
// job saves it and sets it as [ListOptions.Resume] to start again where
// it stopped, in this process or another. A token is bound to its list
// and base URL, and a changed or foreign token fails with
// [ErrInvalidArgument] before anything is sent. An empty Resume starts at
// the first page, so a job records that it finished rather than saving an
// empty token.
//
// # Rate limits and retries
//
// The API allows 10 000 requests an hour and 50 a second per key. Each
// Client keeps inside both with its own limiter, and keeps the server's
// hold after a 429 or X-RateLimit-Remaining: 0. Clients of one key in one
// process share a limiter ([NewLimiter], [WithLimiter]); processes share
// one in Redis (package redislimit). [WithReserve] makes a batch client
// leave part of the shared budget to the others, and [Client.Budget] says
// how much of it is used, without sending a request.
//
// A wait longer than [WithMaxWait] (60 s by default) or past the
// context's deadline is not waited: the call fails with [ErrRateLimited],
// or with the last answer's [ErrServer] when a 5xx's Retry-After asked
// for it.
// Retries ([WithMaxRetries], 3 by default) follow connection failures,
// timeouts, 408, 429, 500, 502, 503 and 504 for GET and DELETE; a POST or
// PATCH is retried only after a 429 or when it certainly never reached the
// server.
//
// # Testing and observing
//
// Package seoapitest is an in-process fake of the API: test code with a
// real Client against it. cmd/seoapi-fake serves the same fake as a
// program. Nothing is logged unless asked: [WithLogger] logs to a
// [*slog.Logger], and [WithObserver] reports every call, attempt and wait
// to an [Observer], such as package otelseoapi's for OpenTelemetry.
//
// # Security
//
// The key is sent only under the base URL, never over plain http except
// to loopback (unless [WithInsecureHTTP]), and never appears in an error, a log record or printed
// output, even when a server echoes it. A created key's secret is a
// [Secret], which prints as "[REDACTED]"; string(key.Key) gives it.
// Bodies are read up to [WithMaxResponseBytes].
//
// # Other packages
//
//   - [github.com/seoapi/seoapi-go/bulk]: bulk jobs that plan, apply and
//     resume after a crash without repeating or skipping a write.
//   - [github.com/seoapi/seoapi-go/seoapitest]: the fake API for tests.
//   - [github.com/seoapi/seoapi-go/redislimit]: one rate-limit budget in
//     Redis for every process that uses a key (a module of its own).
//   - [github.com/seoapi/seoapi-go/otelseoapi]: OpenTelemetry spans and
//     metrics (a module of its own).
package seoapi
