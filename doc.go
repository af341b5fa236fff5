// Package seoapi is a client for the Workspace Automation REST API of an
// SEO workflow platform: workspaces, their projects, content plans,
// members and API keys, and the competitors of a project.
//
// # Usage
//
// Create one [Client] with the base URL and an API key, or with
// [NewClientFromEnv], and share it: it is safe for concurrent use. Each
// resource has a service with a method per endpoint. The context bounds
// the whole call, waits and retries included:
//
//	client, err := seoapi.NewClient("https://api.example.com", os.Getenv("SEOAPI_API_KEY"))
//	ws, _, err := client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"})
//	p, _, err := client.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Name: "Shop"})
//	p, _, err = client.Projects.Update(ctx, ws.ID, p.ID, &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("Shop EU")})
//
// Update sends only the fields that are set. [Client.NewRequest] and
// [Client.Do] send any other request the same way. [Client.With] returns
// a view of a client with other options (a max wait, a reserve, a header,
// an attempt timeout) that shares its connections and rate limiter, cheap
// enough to make for one call. The API publishes no
// fields, so answers are read tolerantly: every resource keeps its JSON
// in Raw, and every request type sends extra fields from Extra. From a
// clone of the repository, these run the SDK against a fake API:
//
//	go run ./examples/quickstart                  # every endpoint, in process
//	go run ./cmd/seoapi-fake -addr 127.0.0.1:8080 # the fake as a server
//
// # Errors
//
// Every error matches exactly one kind with [errors.Is], such as
// [ErrNotFound], or is the context's own error when the call's context
// ended; a bad argument fails with [ErrInvalidArgument] before anything
// is sent. An [*APIError] holds the status, the body's code and message,
// the request ID and RetryAfter. A POST or PATCH that may have taken
// effect also matches [ErrOutcomeUnknown]: the SDK never repeats it, so
// look before trying again ([github.com/seoapi/seoapi-go/bulk] does this
// for many writes).
//
// # Listing
//
// Each list has three methods: List returns one page, All iterates over
// every item, fetching each page as the loop reaches it, and Pages over
// whole pages. A job saves each [Page]'s Next token and sets it as
// [ListOptions.Resume] to go on where it stopped, in any process; the
// last page's token resumes to an empty end, and a changed or foreign
// token fails with [ErrInvalidArgument].
//
// # Rate limits and retries
//
// Each Client keeps within the API's limits (10 000 requests an hour, 50
// a second per key) and the server's hold after a 429. Clients of one key
// share a limiter ([NewLimiter], [WithLimiter]); processes share one in
// Redis with [github.com/seoapi/seoapi-go/redislimit]. [WithReserve]
// leaves part of a shared budget to other clients; [Client.Budget]
// reports it. A wait longer than [WithMaxWait] or the context's deadline
// fails the call with [ErrRateLimited], or [ErrServer] when a 5xx asked
// for it. GET and DELETE are retried after failures and transient
// statuses ([WithMaxRetries]); a POST or PATCH only when it never reached
// the server or got a 429.
//
// # Testing, observing and security
//
// Package [github.com/seoapi/seoapi-go/seoapitest] is a fake API to test
// code with a real Client against. Nothing is logged unless asked:
// [WithLogger] logs to a [*slog.Logger], and [WithObserver] reports each
// call, attempt and wait to an [Observer], such as the one of
// [github.com/seoapi/seoapi-go/otelseoapi]. The key goes only under the
// base URL, and never into an error, a log record or printed output; a
// created key's [Secret] prints as "[REDACTED]". Bodies are read up to
// [WithMaxResponseBytes].
package seoapi
