// Package seoapi is a typed client for the Workspace Automation REST API of
// an SEO workflow platform: workspaces, their projects, content plans,
// members and API keys, and the competitors of a project.
//
//	import "github.com/seoapi/seoapi-go"
//
// # Creating a client
//
// Create a [Client] with the API's base URL and an API key (keys are
// issued in the API Keys tab of a workspace's settings; only the
// Enterprise plan has API access):
//
//	client, err := seoapi.NewClient("https://api.example.com", os.Getenv("SEOAPI_API_KEY"))
//
// or read both from SEOAPI_BASE_URL and SEOAPI_API_KEY with
// [NewClientFromEnv]. Options (the With functions) change its HTTP client,
// retries, rate limits, logging and observers. Arguments are checked at
// once: a missing key, a base URL that is not absolute http or https, plain
// http to a host that is not loopback (unless [WithInsecureHTTP]) or a
// bad option fail with [ErrInvalidArgument]. A Client is safe for
// concurrent use by many goroutines; create one and share it.
//
// # Calling the API
//
// Each resource has a service on the Client, with one method per endpoint:
//
//	client.Workspaces    List, All, Create     GET, POST /api/workspaces
//	client.Projects      List, All, Create     GET, POST /api/workspaces/:id/projects
//	                     Update, Delete        PATCH, DELETE /api/workspaces/:id/projects/:projectId
//	client.ContentPlans  List, All             GET /api/workspaces/:id/content-plans
//	client.Members       List, All, Add        GET, POST /api/workspaces/:id/members
//	client.Competitors   List, All             GET /api/workspaces/:id/projects/:projectId/competitors
//	client.APIKeys       List, All, Create     GET, POST /api/workspaces/:id/api-keys
//
// Every method takes a context, which bounds the whole call, waits and
// retries included. It returns what it read, a [*Response] and an error
// (Delete only the last two; All an iterator, see Listing):
//
//	ctx := context.Background()
//	ws, _, err := client.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "Acme"})
//	if err != nil {
//		return err
//	}
//	p, _, err := client.Projects.Create(ctx, ws.ID, &seoapi.ProjectCreateRequest{Name: "Shop", Domain: "shop.example"})
//
// Update sends only the fields that are set; [Ptr] sets one:
//
//	p, _, err = client.Projects.Update(ctx, ws.ID, p.ID, &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("Shop EU")})
//
// Each ID travels as one escaped path segment; an empty ID, "." or "..",
// an ID with control characters, a negative page or a nil request fails
// with [ErrInvalidArgument] before anything is sent. For a request the
// services do not cover, [Client.NewRequest] and [Client.Do] go through
// the same headers, rate limiter, retries and errors.
//
// The API publishes no fields, bodies or status codes, so the SDK assumes
// them (the README lists every assumption) and reads answers tolerantly:
// camelCase or snake_case keys, string or numeric IDs, a bare array or an
// envelope around a list. Every resource keeps the JSON object it was read
// from in Raw, and every request type sends extra fields from Extra.
//
// # Responses
//
// A [Response] embeds the [*http.Response], whose body has already been
// read and closed, and adds what the SDK read from it: the server's Rate
// (limit, remaining, reset), the RequestID, how many Attempts the call
// made, and where the next page of a list is (NextPage, NextCursor,
// NextURL).
//
// The *Response is nil when the call ended without an answer from the
// server: an argument rejected before sending (then only err is set), a
// wait for the rate limit that was refused, a connection that failed, or
// a context that ended. Whenever the call ended on an answer, it is
// non-nil, also beside an error. So when err is not nil, check resp for
// nil before reading resp.StatusCode.
//
// # Errors
//
// Every error a call returns matches exactly one of these kinds with
// [errors.Is]:
//
//	ErrInvalidArgument     an argument the SDK rejected; nothing was sent
//	ErrValidation          400, 413, 414, 422, 431
//	ErrUnauthorized        401, 407
//	ErrForbidden           403, 451 (also a plan without API access)
//	ErrNotFound            404, 410
//	ErrConflict            409, 412, 423, 424
//	ErrRateLimited         429, or a wait the server or the rate limiter asked
//	                       for that was refused (longer than WithMaxWait or
//	                       past the context's deadline)
//	ErrServer              408, 425, any 5xx
//	ErrConnection          no usable response: refused, reset or cut,
//	                       TLS failure, an attempt that timed out, or a
//	                       rate limiter that failed (such as Redis down)
//	ErrUnexpectedResponse  a 2xx the SDK cannot read (or larger than
//	                       WithMaxResponseBytes), a redirect not followed,
//	                       any other status (405, 406, 415, ...)
//
// or, when the call's context ended, none of them: the context's own
// error ([context.Canceled] or [context.DeadlineExceeded]). An
// [*APIError] holds the details when the call was attempted: StatusCode (0
// when no response was used), Code and Message from the body, RequestID,
// RetryAfter, the capped Body and Header, Attempts, and the underlying
// error, such as a [*net.OpError], which [errors.As] reaches:
//
//	_, _, err := client.Members.Add(ctx, wsID, &seoapi.MemberAddRequest{Email: "ana@acme.example"})
//	switch {
//	case errors.Is(err, seoapi.ErrConflict):
//		// already a member
//	case errors.Is(err, seoapi.ErrRateLimited):
//		var apiErr *seoapi.APIError
//		if errors.As(err, &apiErr) {
//			log.Printf("try again in %s", apiErr.RetryAfter)
//		}
//	case err != nil:
//		return err
//	}
//
// A POST or PATCH that may have reached the server, because its answer
// was cut or timed out after the request was written or its context ended
// after it went out, also matches [ErrOutcomeUnknown]. The write may have
// taken effect and the SDK does not repeat it: look before trying again.
// [ErrorType] names an error's kind in one word ("not_found",
// "connection", ...) for logs and metrics.
//
// # Listing
//
// List returns one page; All returns an iterator over every item of every
// page, fetching each page as the loop reaches it:
//
//	for p, err := range client.Projects.All(ctx, wsID, nil) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(p.Name)
//	}
//
// When a page fails, All yields the error once, with a nil item, and the
// iteration ends; breaking out of the loop stops the fetching. All follows
// the next page each answer announces (a Link header, or a next link,
// cursor or page counters in an enveloped body) and ends with an error
// matching [ErrUnexpectedResponse] instead of fetching a page it already
// fetched, so a server that repeats pages cannot make it loop. To page by
// hand, pass [ListOptions] to List and read Response.NextPage or
// NextCursor. The API publishes no paging parameters: page, per_page and
// cursor are the SDK's assumption.
//
// # Rate limits and retries
//
// The API allows 10 000 requests an hour and 50 a second per key. Each
// Client keeps inside both with its own limiter (strict rolling windows),
// which every attempt waits for, retries included. Clients of the same key
// in one process should share one limiter ([NewLimiter], [WithLimiter]);
// processes of a fleet, one in Redis (package redislimit). [WithRateLimit]
// takes a smaller share, [WithoutRateLimit] turns the limiter off. Whatever
// the limiter, the server's hold is kept, by the client or by a
// [FeedbackLimiter] that is told it: after X-RateLimit-Remaining: 0 with a
// reset ahead, or a 429 with Retry-After, nothing is sent until then.
//
// A call is retried up to 3 times ([WithMaxRetries]). GET and DELETE (and
// HEAD, OPTIONS and PUT through Client.Do) are retried after a connection
// failure, a timeout, a 408, 429, 500, 502, 503 or 504; POST and PATCH only
// after a 429 or an attempt that certainly never left, so that nothing is
// created twice. Other statuses are not retried. The wait between attempts
// is the server's Retry-After (or rate-limit reset) when it gives one, else
// an exponential backoff with jitter ([WithRetryWait], 500ms to 8s).
//
// No wait is longer than the max wait ([WithMaxWait], 60s by default) or
// ends after the context's deadline. A longer wait that the server or the
// rate limiter asks for fails the call at once with [ErrRateLimited], the
// wait in APIError.RetryAfter (StatusCode 0 when nothing was sent); a
// backoff that would end after the deadline ends the retries with the last
// attempt's error. A [Limiter] of one's own applies the same rule with
// [CheckWait] or [RefuseWait].
//
// # Testing code that uses the SDK
//
// Package seoapitest is an in-process fake of the API: test your code with
// a real Client against it, so that encoding, errors, retries and rate
// limits stay under test. It stores what is created, pages lists, enforces
// the published limits, injects failures (a status, a dropped connection,
// a delay) and records every request:
//
//	srv := seoapitest.NewServer(t)
//	ws := srv.AddWorkspace("Acme")
//	srv.FailNext(1, http.StatusServiceUnavailable, nil)
//	client := srv.Client(seoapi.WithRetryWait(time.Millisecond, 10*time.Millisecond))
//	// call your code with client, then check srv.Requests()
//
// cmd/seoapi-fake serves the same fake as a standalone program.
//
// # Observability
//
// Nothing is logged unless asked. [WithLogger] logs each attempt at Debug
// and a wait longer than a second at Warn to a [*slog.Logger].
// [WithObserver] gives an [Observer] every event of every call: its start
// and end, each attempt and each wait for the rate limit, with the
// operation ("Projects.List"), the route template (which holds no ID, for
// metric labels), the status and the error's kind. Package otelseoapi is
// such an observer for OpenTelemetry spans, metrics and trace context.
//
// # Security
//
// The API key is sent only to the base URL: plain http only to loopback
// unless WithInsecureHTTP, redirects followed only under the base URL (and
// only for GET, HEAD and DELETE), and NewRequest and All refuse a URL
// outside it. The key never appears in an error, a log record, an event,
// or fmt, slog or JSON output of a Client, Response or error, even when a
// server echoes it back. A created key's secret is a [Secret], which prints
// as "[REDACTED]"; string(key.Key) gives it. Response bodies are read up to
// [WithMaxResponseBytes] (32 MiB), error bodies kept up to 64 KiB, so a
// server cannot exhaust memory.
//
// # Subpackages
//
//   - [github.com/seoapi/seoapi-go/seoapitest]: the fake API for tests.
//   - [github.com/seoapi/seoapi-go/redislimit]: one rate-limit budget for
//     every process that uses a key, kept in Redis.
//   - [github.com/seoapi/seoapi-go/otelseoapi]: OpenTelemetry spans and
//     metrics for every call.
//
// Only programs that import redislimit or otelseoapi compile go-redis or
// OpenTelemetry; this package depends on neither.
package seoapi
