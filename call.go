package seoapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/hashicorp/go-retryablehttp"
)

// Do sends req through the rate limiter and retry policy and reads the
// response. Its context bounds the whole call, retries and waits
// included; when it ends, the error matches the context's error (and no
// kind).
//
// A 2xx body is decoded into v when v is non-nil and the body is not
// empty: a resource type or a pointer to one (var p *Project; Do(req,
// &p)) is unwrapped from a data or singular-name envelope, a slice from a
// bare array or a list envelope, whose paging fields go into the
// Response; anything else is decoded by encoding/json.
//
// The *Response is returned whenever the server answered, also with an
// error; it is nil when the request was rejected before sending or no
// response arrived. Every error is an *APIError matching exactly one kind,
// except ErrInvalidArgument for a request that cannot be sent. A request
// for a path of the API is reported to observers under its endpoint's
// operation, such as "Projects.List"; any other as "Client.Do".
func (c *Client) Do(req *http.Request, v any) (*Response, error) {
	if req == nil || req.URL == nil {
		return nil, invalidArgument("nil request")
	}
	return c.do(req, c.endpointOf(req), v)
}

// do is the one path every call takes, to the endpoint ep.
func (c *Client) do(req *http.Request, ep *endpoint, v any) (*Response, error) {
	call := c.calls.Get().(*callState)
	defer c.release(call)
	call.reset(req, ep)
	if len(c.observers) > 0 {
		call.obs, req = c.startObservation(req, call)
	}
	resp, err := c.run(call, req, v)
	if call.obs != nil {
		call.obs.end(resp, err, call.attempts)
	}
	return resp, err
}

// release puts call back in the pool without the last response, which
// would otherwise stay alive until the state is reused.
func (c *Client) release(call *callState) {
	call.last, call.body, call.obs = outcome{}, nil, nil
	c.calls.Put(call)
}

// run runs the attempts (go-retryablehttp's loop, whose hooks read each
// attempt's outcome) and turns the last outcome into the call's result.
func (c *Client) run(call *callState, req *http.Request, v any) (*Response, error) {
	rreq, err := retryableRequest(req)
	if err != nil {
		return nil, err
	}
	if _, err := call.rc.Do(rreq); err != nil && (call.last.retry || !call.last.settled()) {
		// The loop ended outside an attempt: the context ended, or the
		// body could not be rewound, in the wait before a retry.
		call.last = call.classify(req.Context(), nil, err)
	}
	o := &call.last
	if o.err != nil {
		return nil, c.failure(call, req, o)
	}
	defer o.resp.Body.Close()
	var failed error
	switch {
	case !o.success():
		failed = c.statusError(call, req, o)
	case o.answer.tooLarge:
		failed = c.decodeError(call, req, o, fmt.Errorf("%w: exceeds %d bytes (WithMaxResponseBytes)", errBodyTooLarge, c.maxResponseBytes))
	}
	// A Response is built after the call's error, which cleans the answer
	// of a created secret.
	resp := newResponse(o, call.attempts)
	if failed != nil || v == nil {
		return resp, failed
	}
	if err := decodeBody(req.Context(), o.answer.data, v, resp, c.maxItems); err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			// The caller's context ended the decoding: its error, no
			// kind; a write the server answered took effect.
			return resp, c.failure(call, req, &outcome{err: ctxErr, written: true})
		}
		err = c.decodeError(call, req, o, err)
		return newResponse(o, call.attempts), err
	}
	// A list envelope may name the next page with the key a server
	// echoed; the next request, and a resume token, must not carry it.
	resp.NextURL, resp.NextCursor = c.redact.string(resp.NextURL), c.redact.string(resp.NextCursor)
	return resp, nil
}

// callState is what one call learns across its attempts. Each Client
// keeps its call states in a pool, each with a retryablehttp.Client whose
// hooks are bound to it once, so a call allocates neither.
type callState struct {
	policy *retryPolicy
	rc     retryablehttp.Client
	obs    *observation // nil when the client has no observers

	ep       *endpoint
	idem     bool // whether a repeat cannot do harm
	attempts int  // attempts sent
	// body is the current attempt's body: whether it was read says
	// whether the request can have left (see bodyWasRead), whatever error a
	// failed dial or TLS handshake is reported as and whatever
	// RoundTripper sent it.
	body io.ReadCloser
	last outcome // the latest attempt's
}

func newCallState(p *retryPolicy, hc *http.Client) *callState {
	call := &callState{policy: p}
	call.rc = retryablehttp.Client{
		HTTPClient:   hc,
		RetryMax:     p.maxRetries,
		CheckRetry:   call.settle,
		Backoff:      call.backoffHook,
		ErrorHandler: call.errorHandler,
		PrepareRetry: call.rewindBody,
	}
	return call
}

// reset readies a pooled call state for req to ep.
func (call *callState) reset(req *http.Request, ep *endpoint) {
	call.ep = ep
	call.idem = idempotent(req.Method)
	call.attempts = 0
	call.body = req.Body // obs and last were cleared by release
}

// rewindBody is go-retryablehttp's PrepareRetry: it gives a retry a fresh
// copy of the request body. The SDK hands retryablehttp the request as it
// is, so that the body is not copied once more for every call.
func (call *callState) rewindBody(req *http.Request) error {
	if req.GetBody == nil || req.Body == nil || req.Body == http.NoBody {
		return nil
	}
	body, err := req.GetBody()
	if err != nil {
		return err
	}
	req.Body = body
	call.body = body
	return nil
}

// callOne sends body to ep and decodes the single resource of its answer.
// A 2xx answer without one (a 204, an empty body) fails with
// ErrUnexpectedResponse: the request took effect, but its result cannot
// be read.
func callOne[T any, PT resourcePtr[T]](ctx context.Context, c *Client, ep *endpoint, body any, ids ...string) (*T, *Response, error) {
	req, err := newEndpointRequest(ctx, c, ep, body, ids)
	if err != nil {
		return nil, nil, err
	}
	out := PT(new(T))
	resp, err := c.do(req, ep, out)
	if err != nil {
		return nil, resp, err
	}
	if out.Raw() == nil {
		return nil, resp, c.emptyAnswerError(req, ep, resp)
	}
	return out, resp, nil
}

// callNoContent sends a request to ep whose answer the SDK does not read.
func callNoContent(ctx context.Context, c *Client, ep *endpoint, ids ...string) (*Response, error) {
	req, err := newEndpointRequest(ctx, c, ep, nil, ids)
	if err != nil {
		return nil, err
	}
	return c.do(req, ep, nil)
}

// newEndpointRequest builds the request to ep for the IDs of its path.
func newEndpointRequest(ctx context.Context, c *Client, ep *endpoint, body any, ids []string) (*http.Request, error) {
	path, err := ep.path(ids...)
	if err != nil {
		return nil, err
	}
	return c.NewRequest(ctx, ep.method, path, body)
}
