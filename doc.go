// Package seoapi is a client for the Workspace Automation REST API of an
// SEO workflow platform: workspaces, projects, content plans, members, API
// keys and competitors. The README covers installation and every option.
//
// Create one [Client] with [NewClient] or [NewClientFromEnv] and share it:
// it is safe for concurrent use. Each resource has a service with a method
// per endpoint; the context bounds the whole call, retries included:
//
//	client, err := seoapi.NewClient("https://api.example.com", os.Getenv("SEOAPI_API_KEY"))
//	p, _, err := client.Projects.Create(ctx, wsID, &seoapi.ProjectCreateRequest{Name: "Shop"})
//	p, _, err = client.Projects.Update(ctx, wsID, p.ID, &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("Shop EU")})
//
// # Errors
//
// Every error matches exactly one kind with [errors.Is], such as
// [ErrInvalidArgument] (nothing was sent), [ErrNotFound] or
// [ErrRateLimited], or is the context's own error. An [*APIError] holds the
// status, code, message and request ID. A POST or PATCH that may have taken
// effect also matches [ErrOutcomeUnknown]; the SDK never repeats it.
//
// # Listing
//
// List returns one page, All iterates over every item, and Pages over
// whole pages. A job saves each [Page]'s Next token and passes it as
// [ListOptions.Resume] to go on where it stopped, in any process. An empty
// Resume starts over, so a finished job records that, not an empty token.
//
// # Rate limits and logs
//
// A Client keeps within the API's limits and the server's hold after a
// 429. Clients of one key share a limiter ([WithLimiter]), processes share
// one in Redis ([github.com/seoapi/seoapi-go/redislimit]), and [WithReserve]
// leaves part of the budget to others. Nothing is logged unless you ask
// with [WithLogger] or [WithObserver], and the API key never appears in an
// error or a log.
package seoapi
