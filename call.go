package seoapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	"github.com/hashicorp/go-retryablehttp"
)

// call is one call: go-retryablehttp's loop sends its request through the
// call itself (RoundTrip, the attempt) and judges each attempt with the
// call's retryPolicy; finish builds the result from the last attempt.
type call struct {
	client *Client
	ep     *endpoint
	req    *http.Request // as the caller gave it: its URL is the one errors name
	body   []byte        // the request body, read once; nil when there is none
	policy retryPolicy
	obs    *observation

	// Written by RoundTrip, one attempt after another, and read by finish.
	attempts       int  // the attempts the limiter let go
	outcomeUnknown bool // an attempt so far may have done what it asked: it may have reached the server and failed, or got a 5xx
	lastResp       *http.Response
	lastErr        error // with lastResp, what the last attempt sent came to

	hc http.Client          // sends each attempt through the call
	rc retryablehttp.Client // the loop
}

// newCall begins a call to ep whose request has body.
func (c *Client) newCall(ep *endpoint, method string, body []byte) *call {
	cl := &call{client: c, ep: ep, body: body, policy: c.retry}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		cl.policy.idempotent = true
	}
	return cl
}

// send is the one path every call takes: go-retryablehttp's loop over the
// attempts, then the result of the last one.
func (cl *call) send(req *http.Request, v any) (*Response, error) {
	c := cl.client
	cl.req = req
	cl.hc = http.Client{Transport: cl, CheckRedirect: c.httpClient.CheckRedirect, Jar: c.httpClient.Jar}
	cl.rc = retryablehttp.Client{
		HTTPClient:   &cl.hc,
		RetryMax:     cl.policy.maxRetries,
		CheckRetry:   cl.policy.checkRetry,
		Backoff:      cl.policy.retryWait,
		ErrorHandler: retryablehttp.PassthroughErrorHandler, // finish reads the last attempt
	}
	if len(c.observers) > 0 {
		cl.obs = c.startObservation(req, cl)
	}
	resp, err := cl.rc.Do(&retryablehttp.Request{Request: req})
	out, err := cl.finish(req.Context(), resp, err, v)
	if cl.obs != nil {
		cl.obs.end(out, err)
	}
	return out, err
}

// finish builds the call's Response and its one error from the last
// attempt, and decodes a 2xx body into v.
func (cl *call) finish(ctx context.Context, resp *http.Response, err error, v any) (*Response, error) {
	var lim *limiterError
	if errors.As(err, &lim) && lim.retry && refusal(lim) != nil {
		return cl.refusedRetry(ctx, refusal(lim), v)
	}
	if err != nil {
		return nil, cl.failure(ctx, err)
	}
	c, a := cl.client, resp.Body.(*answer)
	out := &Response{Response: resp, Rate: a.rate.rate, RequestID: a.rate.requestID, Attempts: cl.attempts}
	if len(a.link) > 0 {
		out.readLink(a.link)
	}
	// A DELETE whose earlier attempt may have taken effect, and whose
	// retry finds the resource gone, did what was asked.
	deleted := cl.req.Method == http.MethodDelete && cl.outcomeUnknown &&
		(resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone)
	switch {
	case deleted:
	case resp.StatusCode/100 != 2:
		err = cl.statusError(resp)
	case a.tooLarge:
		err = cl.decodeError(resp, fmt.Errorf("%w: exceeds %d bytes (WithMaxResponseBytes)", errBodyTooLarge, c.maxResponseBytes))
	case v != nil:
		err = cl.decode(ctx, resp, out, v)
	}
	if out.NextURL != "" || out.NextCursor != "" {
		c.dropNextWithKey(out)
	}
	resp.Body = http.NoBody // read and closed
	return out, err
}

// refusedRetry ends a call whose retry the limiter refused with what the
// attempt before it came to, and the wait refused.
func (cl *call) refusedRetry(ctx context.Context, refused *APIError, v any) (*Response, error) {
	out, err := cl.finish(ctx, cl.lastResp, cl.lastErr, v)
	if e, ok := err.(*APIError); ok {
		e.RetryAfter = refused.RetryAfter
	}
	return out, err
}

// decode decodes the 2xx body of resp into v, and its paging into out.
func (cl *call) decode(ctx context.Context, resp *http.Response, out *Response, v any) error {
	err := decodeBody(ctx, resp.Body.(*answer).data, v, out, cl.client.itemLimit)
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		// The caller's context ended the decoding: its error, no kind; a
		// write the server answered took effect.
		e := cl.apiError(nil)
		e.Err, e.outcomeUnknown = ctxErr, !cl.policy.idempotent
		return e
	} else if err != nil {
		return cl.decodeError(resp, err)
	}
	return nil
}

// callOne sends body to ep and decodes the single resource of its answer. A
// nil body fails with ErrInvalidArgument before anything is sent; a 2xx
// answer without the resource (a 204, an empty body) fails with
// ErrUnexpectedResponse: the request took effect, its result is unreadable.
func callOne[T any, PT resourcePtr[T]](ctx context.Context, c *Client, ep *endpoint, body json.Marshaler, ids ...string) (*T, *Response, error) {
	if rv := reflect.ValueOf(body); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, nil, invalidArgument("%s: nil %T", ep.operation, body)
	}
	path, err := ep.path(ids...)
	if err != nil {
		return nil, nil, err
	}
	// Request types encode valid JSON: json.Marshal would only check and copy it.
	data, err := body.MarshalJSON()
	if err != nil {
		return nil, nil, invalidArgument("encoding request body: %v", err)
	}
	req, err := c.newRequest(ctx, ep.method, c.baseString+path, nil)
	if err != nil {
		return nil, nil, err
	}
	out := PT(new(T))
	resp, err := c.newCall(ep, ep.method, data).send(req, out)
	if err != nil {
		return nil, resp, err
	}
	if out.Raw() == nil {
		msg := fmt.Sprintf("%s: the server answered %d without the resource; the request took effect", ep.operation, resp.StatusCode)
		return nil, resp, unexpectedAnswer(req, resp, msg)
	}
	return out, resp, nil
}

// callNoContent sends a request to ep whose answer the SDK does not read.
func callNoContent(ctx context.Context, c *Client, ep *endpoint, ids ...string) (*Response, error) {
	path, err := ep.path(ids...)
	if err != nil {
		return nil, err
	}
	req, err := c.newRequest(ctx, ep.method, c.baseString+path, nil)
	if err != nil {
		return nil, err
	}
	return c.newCall(ep, ep.method, nil).send(req, nil)
}
