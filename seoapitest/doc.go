// Package seoapitest is an in-process fake of the Workspace Automation API,
// for testing code that uses the seoapi SDK.
//
// Test your code with the real seoapi.Client against this fake server, so
// that the SDK's encoding, errors, retries and rate limiting stay under test:
//
//	func TestRenameProject(t *testing.T) {
//		srv := seoapitest.NewServer(t)
//		ws := srv.AddWorkspace("Acme")
//		p := srv.AddProject(ws, "Shop", "shop.example")
//
//		err := RenameProject(context.Background(), srv.Client(), ws, p, "Shop EU")
//
//		// assert on err, then on srv.Requests()
//	}
//
// NewServer starts the fake on a loopback port for one test and closes it
// when the test ends; its Client method returns a seoapi.Client for it,
// with any options. New returns the fake unstarted, as an http.Handler, for
// an Example, a benchmark or a program: serve it with httptest.NewServer
// and pass the server's URL and Key to seoapi.NewClient.
//
// The SDK waits at least the minimum of seoapi.WithRetryWait (500ms by
// default) before it retries; a test that injects failures keeps fast with
// srv.Client(seoapi.WithRetryWait(time.Millisecond, 10*time.Millisecond)).
//
// The SDK's own tests, its quickstart and its contract tests run against
// this fake; cmd/seoapi-fake serves it as a standalone program. It shares no
// decoding code with the SDK: it reads requests with encoding/json only.
//
// # What it promises
//
// The behaviour below is what the fake does and will keep doing. Where the
// published API says "not shown", this is the SDK's documented assumption
// (internal/contract/openapi.yaml), not a statement about the real service.
//
// Accounts and keys. Key is an Enterprise key of a fresh account that has
// no workspaces until AddWorkspace or a POST /api/workspaces adds one; it
// is listed in no workspace's API keys. IssueKey creates another account
// with one workspace ("Default workspace") and a key listed in it. Every
// request needs "Authorization: Bearer <key>": a missing or unknown key is
// answered 401 with a WWW-Authenticate header; a key of an account on any
// plan but PlanEnterprise is answered 403 (code "plan_without_api_access").
// A workspace of another account is answered 404, as if it did not exist.
//
// Endpoints. The twelve endpoints of the API, under /api/workspaces:
//
//	GET    /api/workspaces                                   200, a list
//	POST   /api/workspaces                                   201 {"name"}
//	GET    /api/workspaces/{id}/projects                     200, a list
//	POST   /api/workspaces/{id}/projects                     201 {"name", "domain"?}
//	PATCH  /api/workspaces/{id}/projects/{projectId}         200 {"name"?, "domain"?}
//	DELETE /api/workspaces/{id}/projects/{projectId}         204, no body
//	GET    /api/workspaces/{id}/content-plans                200, a list
//	GET    /api/workspaces/{id}/members                      200, a list
//	POST   /api/workspaces/{id}/members                      201 {"email", "role"?, "name"?}
//	GET    /api/workspaces/{id}/projects/{projectId}/competitors  200, a list
//	GET    /api/workspaces/{id}/api-keys                     200, a list
//	POST   /api/workspaces/{id}/api-keys                     201 {"name"}
//
// Records are really created, listed in creation order, updated and
// deleted. IDs are strings with a prefix (ws_, proj_, cp_, mem_, comp_,
// key_); fields are camelCase (id, name, domain, workspaceId, projectId,
// status, email, role, prefix, createdAt, updatedAt, lastUsedAt, expiresAt)
// and times are RFC 3339 in UTC. Other paths are answered 404, other
// methods 405 with an Allow header.
//
// Validation. A body must be sent with Content-Type application/json (else
// 415) and be a JSON object of at most 1 MiB (else 400). A required field
// that is missing, not a string or blank, or an optional field that is not
// a string or null, is answered 422; so is a PATCH setting a blank name and
// a member email without "@". Adding a member whose email (compared without
// case) is already in the workspace is answered 409. A member's role
// defaults to "member". Unknown fields are ignored.
//
// API keys. A created key's secret is shown once, in the "key" field of the
// 201 answer to its creation, and works at once as a key of the same
// account; lists show only its id, name, prefix, createdAt, lastUsedAt and
// expiresAt.
//
// Errors. Every error is answered with a JSON body
// {"error": {"code": "...", "message": "..."}}. Every answer has an
// X-Request-Id header (req_1, req_2, ... in order of arrival).
//
// Rate limits. Each key has its own strict rolling windows: a request is
// refused when the last second, or the last hour, already holds as many
// admitted requests as the limit. A refused request is answered 429 with
// Retry-After (whole seconds until a request would be admitted) and does
// not count. While the hourly limit is on, every answer to a key with API
// access, but for an injected fault, carries X-RateLimit-Limit,
// X-RateLimit-Remaining and X-RateLimit-Reset (seconds until the oldest
// admitted request leaves the hour). Throttled counts the 429 answers. A new Server
// enforces PublishedLimits (10 000 an hour, 50 a second); SetLimits
// changes them, and the zero Limits turns them off. Authentication comes
// before the limits, so a refused key is never counted.
//
// Paging. Lists honour per_page (default 50, see SetPaging; at most
// MaxPageSize) in one of four styles: PagingLink (the default), PagingPage,
// PagingCursor and PagingNone. A per_page that is not a positive integer,
// a page that is not one (PagingLink and PagingPage), or a cursor the fake
// cannot read (PagingCursor) is answered 400.
//
// Faults. FailNext (a status, with headers such as Retry-After), DropNext
// (a connection closed unanswered, before or after the request took
// effect), SetFaultRates (a random fraction of requests answered 503, and
// of writes carried out whose answer is lost), SetDelay (every answer
// held) and SetListLag (lists that show a resource created or deleted
// through the API only after a while) inject failures. Each request
// takes the next queued fault, in the order they were queued, before
// authentication and limits; a request with none meets the random faults,
// drawn from a source that SetRandSeed makes replayable. SetDelay holds
// every answer, faults included; a client that gives up during the delay
// gets nothing.
//
// Recording. Requests returns every request that reached the server, in
// order of arrival, with the key redacted.
//
// # Use
//
// A Server is safe for concurrent use, and each Server is independent, so
// parallel tests each start their own. Setup methods (AddWorkspace and the
// others) panic when given an ID the fake does not hold, a blank name or an
// invalid email: those are mistakes in the test, not behaviour under test.
// Nothing a client sends makes the fake panic.
package seoapitest
