package seoapi

import (
	"context"
	"fmt"
	"net/http"
)

// Do sends req through the rate limiter and retry policy and reads the
// response. Its context bounds the whole call, retries and waits included;
// when it ends, the error matches the context's error (and no kind). A 2xx body is decoded into v when v is non-nil and the body is
// not empty; a list destination (a pointer to a slice) and a resource
// destination are unwrapped from the envelopes described in the README. A
// non-2xx response returns an *APIError. The *Response is returned
// whenever the server answered, also with an error. Every error is an
// *APIError matching exactly one kind (see the README), except
// ErrInvalidArgument for a request that cannot be sent.
func (c *Client) Do(req *http.Request, v any) (*Response, error) {
	if req == nil || req.URL == nil {
		return nil, invalidArgument("nil request")
	}
	call := c.calls.Get().(*callState)
	defer c.calls.Put(call)
	call.reset(req)
	if len(c.observers) > 0 {
		call.obs, req = c.startObservation(req)
	}
	resp, err := c.do(call, req, v)
	if call.obs != nil {
		call.obs.end(resp, err, call.attempts)
	}
	return resp, err
}

func (c *Client) do(call *callState, req *http.Request, v any) (*Response, error) {
	rreq, err := retryableRequest(req)
	if err != nil {
		return nil, err
	}
	httpResp, err := call.rc.Do(rreq)
	if err != nil {
		return nil, c.failure(call, req, err)
	}
	defer httpResp.Body.Close()

	resp := c.newResponse(httpResp, call.attempts)
	body, tooLarge := bodyOf(httpResp)
	if httpResp.StatusCode < 200 || httpResp.StatusCode > 299 {
		return resp, c.apiError(req, httpResp, body, call)
	}
	if tooLarge {
		return resp, c.decodeError(req, httpResp, body, fmt.Errorf("%w: exceeds %d bytes (WithMaxResponseBytes)", errBodyTooLarge, c.maxResponseBytes), call)
	}
	if v == nil {
		return resp, nil
	}
	if err := decodeBody(req.Context(), body, v, resp, c.maxItems); err != nil {
		return resp, c.decodeError(req, httpResp, body, err, call)
	}
	return resp, nil
}

// getOne sends one request whose response is a single resource. An empty
// 2xx body gives a nil resource.
func getOne[T any, PT resourcePtr[T]](ctx context.Context, c *Client, method, path string, body any) (*T, *Response, error) {
	req, err := c.NewRequest(ctx, method, path, body)
	if err != nil {
		return nil, nil, err
	}
	out := PT(new(T))
	resp, err := c.Do(req, out)
	if err != nil || out.Raw() == nil {
		return nil, resp, err
	}
	return out, resp, nil
}
