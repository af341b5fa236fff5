package seoapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Do sends req through the rate limiter and retry policy and reads the
// response. Its context bounds the whole call, retries and waits included;
// when it ends, the error matches the context's error and no kind.
//
// A non-empty 2xx body is decoded into a non-nil v: a resource type or a
// pointer to one (var p *Project; Do(req, &p)) is unwrapped from a data or
// singular-name envelope, a slice from a bare array or a list envelope,
// whose paging fields go into the Response; anything else by encoding/json.
// A v that is not a non-nil pointer, and a URL the key may not go to, fail
// with ErrInvalidArgument before anything is sent.
//
// The *Response is returned whenever the server answered, also with an
// error (see Response). Every error is an *APIError matching exactly one
// kind, except ErrInvalidArgument for a request that cannot be sent.
// Observers see a request for a path of the API under its endpoint's
// operation, such as "Projects.List"; any other as "Client.Do".
func (c *Client) Do(req *http.Request, v any) (*Response, error) {
	switch rv := reflect.ValueOf(v); {
	case req == nil || req.URL == nil:
		return nil, invalidArgument("nil request")
	case !c.keyMayGo(req.URL):
		return nil, invalidArgument("URL %q is not under the client's base URL", req.URL.Redacted())
	case v != nil && (rv.Kind() != reflect.Pointer || rv.IsNil()):
		return nil, invalidArgument("Do: v must be nil or a non-nil pointer, not %T", v)
	}
	body, err := readRequestBody(req)
	if err != nil {
		return nil, err
	}
	cl := c.newCall(c.endpointOf(req), req.Method, body)
	if ctx := cl.context(req.Context()); ctx != req.Context() {
		req = req.WithContext(ctx)
	}
	return cl.send(req, v)
}

// call is one call: its request, and what its attempts came to.
// go-retryablehttp's loop runs the attempts through hooks, in this order:
// prepare (the attempt's copy of the body), hopTransport.RoundTrip for
// each hop (limiter's turn, send), settle (read, classify, decide, record)
// and backoff (the wait settle decided). finish makes the call's result.
type call struct {
	client *Client
	ep     *endpoint
	req    *http.Request // as the caller gave it: its URL is the one errors name
	body   []byte        // the request body, read once; nil when there is none
	obs    *observation
	rc     retryablehttp.Client // the loop that runs the attempts

	marks        atomic.Pointer[attemptMarks] // the current attempt's, set from net/http's goroutines
	attemptStart time.Time
	attempts     int    // attempts sent
	last         result // the latest attempt's, as settle worked it out
	idem         bool   // whether repeating the request can do no harm
	effect       bool   // an attempt before the last may have taken effect
}

// newCall begins a call to ep whose request has body.
func (c *Client) newCall(ep *endpoint, method string, body []byte) *call {
	return &call{client: c, ep: ep, idem: idempotent(method), body: body}
}

// attemptMarks say of one attempt's request whether it may have left and
// whether net/http wrote it whole.
type attemptMarks struct{ left, written atomic.Bool }

// context returns ctx with, for a request with a body, a trace that marks
// the current attempt left once net/http has a connection for it (before
// it writes anything) and written once it wrote it whole. There are no marks
// before the first attempt, so an observer's requests do not count; a
// caller's transport sending others with ctx marks early, which is only careful.
func (cl *call) context(ctx context.Context) context.Context {
	if ctx == nil || cl.body == nil {
		return ctx
	}
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) {
			if m := cl.marks.Load(); m != nil {
				m.left.Store(true)
			}
		},
		WroteRequest: func(w httptrace.WroteRequestInfo) {
			if m := cl.marks.Load(); m != nil && w.Err == nil {
				m.written.Store(true)
			}
		},
	})
}

// send is the one path every call takes.
func (cl *call) send(req *http.Request, v any) (*Response, error) {
	cl.req = req
	if len(cl.client.observers) > 0 {
		cl.obs, req = cl.client.startObservation(req, cl)
	}
	cl.prepare(req)
	cl.rc = retryablehttp.Client{
		HTTPClient:   cl.client.httpClient,
		RetryMax:     cl.client.retry.maxRetries,
		CheckRetry:   cl.settle,
		Backoff:      cl.backoff,
		ErrorHandler: retryablehttp.PassthroughErrorHandler, // finish reads the last result
		PrepareRetry: cl.prepare,
	}
	if _, err := cl.rc.Do(&retryablehttp.Request{Request: req}); err != nil && (cl.last.retry || cl.last.resp == nil && cl.last.err == nil) {
		// The loop ended outside an attempt: ctx ended in the wait before a retry.
		cl.last = result{err: err}
	}
	resp, err := cl.finish(req.Context(), v)
	if cl.obs != nil {
		cl.obs.end(resp, err)
	}
	return resp, err
}

// readRequestBody reads the body of req once, so that each attempt sends
// a copy the SDK owns.
func readRequestBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	r := req.Body
	if req.GetBody != nil {
		var err error
		if r, err = req.GetBody(); err != nil {
			return nil, invalidArgument("reading request body: %v", err)
		}
	}
	defer r.Close()
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, invalidArgument("reading request body: %v", err)
	}
	return body, nil
}

// prepare is go-retryablehttp's PrepareRetry, and readies the first
// attempt too: a fresh copy of the body that marks when it is read.
func (cl *call) prepare(req *http.Request) error {
	cl.attemptStart = cl.client.now()
	marks := new(attemptMarks)
	cl.marks.Store(marks)
	if cl.body == nil {
		return nil
	}
	left := &marks.left
	req.ContentLength = int64(len(cl.body))
	if cl.client.transport.builtIn {
		// The trace certainly marks the attempt: a reader net/http knows to
		// be in memory goes out with the headers, and records no read.
		req.Body = io.NopCloser(bytes.NewReader(cl.body))
	} else {
		req.Body = &sentBody{*bytes.NewReader(cl.body), left}
	}
	req.GetBody = func() (io.ReadCloser, error) {
		if marks.written.Load() && !cl.idem {
			// net/http's HTTP/2 sends a request again after a stream reset
			// it takes for a refusal, also when the server read it whole.
			return refusedBody{}, nil
		}
		left.Store(true)
		return &sentBody{*bytes.NewReader(cl.body), left}, nil
	}
	return nil
}

// refusedBody is the copy GetBody gives a write net/http wrote whole:
// reading it fails, so it is not sent again. (http.Client's copy for a 307
// or 308 is never read: checkRedirect never follows one for a write.)
type refusedBody struct{}

func (refusedBody) Read([]byte) (int, error) { return 0, errNoResend }
func (refusedBody) Close() error             { return nil }

var errNoResend = errors.New("seoapi: a write the transport wrote whole is not sent again")

// backoff is go-retryablehttp's Backoff: the wait settle decided.
func (cl *call) backoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	return cl.last.wait
}

// finish turns the last result into the call's Response and error, and
// decodes a 2xx body into v.
func (cl *call) finish(ctx context.Context, v any) (*Response, error) {
	r := &cl.last
	if r.resp == nil {
		return nil, cl.failure(ctx, r)
	}
	resp := cl.client.newResponse(r, cl.attempts)
	// A DELETE whose earlier attempt may have taken effect, and whose
	// retry finds the resource gone, did what was asked.
	deleted := cl.req.Method == http.MethodDelete && cl.effect && (r.status == http.StatusNotFound || r.status == http.StatusGone)
	switch {
	case deleted:
		return resp, nil
	case r.kind != nil:
		return resp, cl.statusError(r)
	case r.tooLarge:
		return resp, cl.decodeError(r, fmt.Errorf("%w: exceeds %d bytes (WithMaxResponseBytes)", errBodyTooLarge, cl.client.maxResponseBytes))
	case v == nil:
		return resp, nil
	}
	err := decodeBody(ctx, r.data, v, resp, cl.client.maxItems)
	switch ctxErr := ctx.Err(); {
	case err == nil:
		cl.client.dropNextWithKey(resp)
		return resp, nil
	case ctxErr != nil && errors.Is(err, ctxErr):
		// The caller's context ended the decoding: its error, no kind; a
		// write the server answered took effect.
		return resp, cl.failure(ctx, &result{err: ctxErr, sent: true, mayHaveLeft: true})
	}
	return resp, cl.decodeError(r, err)
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
	cl := c.newCall(ep, ep.method, data)
	req, err := c.newRequest(cl.context(ctx), ep.method, path, nil)
	if err != nil {
		return nil, nil, err
	}
	out := PT(new(T))
	resp, err := cl.send(req, out)
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
	req, err := c.newRequest(ctx, ep.method, path, nil)
	if err != nil {
		return nil, err
	}
	return c.newCall(ep, ep.method, nil).send(req, nil)
}
