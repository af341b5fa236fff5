package seoapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Version is the SDK's version, sent in the User-Agent header.
const Version = "0.1.0"

// DefaultMaxResponseBytes is the largest response body the SDK reads
// unless WithMaxResponseBytes says otherwise.
const DefaultMaxResponseBytes = 32 << 20

// stallTimeout is how long the HTTP client the SDK builds itself waits for
// a connection, for the response's headers, and for each read or write on
// the connection; WithHTTPClient replaces it.
const stallTimeout = 60 * time.Second

// Environment variables read by NewClientFromEnv.
const (
	EnvBaseURL = "SEOAPI_BASE_URL"
	EnvAPIKey  = "SEOAPI_API_KEY"
)

// Client talks to the Workspace Automation API. Create it with NewClient or
// NewClientFromEnv. A Client is safe for concurrent use by many goroutines,
// which share its rate limiter.
type Client struct {
	Workspaces   *WorkspacesService
	Projects     *ProjectsService
	ContentPlans *ContentPlansService
	Members      *MembersService
	Competitors  *CompetitorsService
	APIKeys      *APIKeysService

	baseURL *url.URL
	// apiKey sits behind a pointer so that even fmt's reflection over an
	// unexported Client field of a caller's struct prints an address.
	apiKey           *Secret
	userAgent        string
	maxResponseBytes int64
	httpClient       *http.Client
	transport        *limitedTransport
	retry            retryPolicy
	observers        []Observer
	calls            *sync.Pool // of *callState
	redact           redactor
	authHeader       string // "Bearer <key>", built once
	baseString       string // baseURL.String(), for joining relative paths
	serverPort       int
	now              func() time.Time
}

// service is embedded by every resource service.
type service struct{ client *Client }

// Option configures a Client.
type Option func(*clientConfig)

type clientConfig struct {
	httpClient       *http.Client
	userAgent        string
	maxResponseBytes int64
	insecureHTTP     bool
	rateLimit        rateLimitConfig
	retry            retryPolicy
	observers        []Observer
	errs             []error
}

func (cfg *clientConfig) reject(format string, args ...any) {
	cfg.errs = append(cfg.errs, invalidArgument(format, args...))
}

// WithHTTPClient makes the Client send through hc. The SDK wraps a copy of
// hc's transport with its rate limiter; hc itself is not changed. hc's
// Timeout applies to each attempt (to each hop, when it follows a
// redirect), body included.
func WithHTTPClient(hc *http.Client) Option {
	return func(cfg *clientConfig) {
		if hc == nil {
			cfg.reject("WithHTTPClient: nil *http.Client")
			return
		}
		cfg.httpClient = hc
	}
}

// WithUserAgent puts ua in front of the SDK's own User-Agent, so the server
// sees "ua seoapi-go/<version>".
func WithUserAgent(ua string) Option {
	return func(cfg *clientConfig) {
		if strings.ContainsFunc(ua, isControl) {
			cfg.reject("WithUserAgent: user agent contains control characters")
			return
		}
		cfg.userAgent = strings.TrimSpace(ua)
	}
}

// WithLogger makes the SDK log each attempt at Debug and long waits at Warn
// to l. Without it, or with a nil l, the SDK logs nothing. Records never
// hold a header, a body or the API key. The logger is an Observer like any
// other (see WithObserver).
func WithLogger(l *slog.Logger) Option {
	return func(cfg *clientConfig) {
		if l != nil {
			cfg.observers = append(cfg.observers, slogObserver{l})
		}
	}
}

// WithMaxResponseBytes caps how much of a response body the SDK reads; a
// larger body fails the call. The default is 32 MiB.
func WithMaxResponseBytes(n int64) Option {
	return func(cfg *clientConfig) {
		if n <= 0 {
			cfg.reject("WithMaxResponseBytes: %d is not positive", n)
			return
		}
		cfg.maxResponseBytes = n
	}
}

// WithInsecureHTTP allows a plain http base URL whose host is not loopback.
// The API key then crosses the network unencrypted.
func WithInsecureHTTP() Option {
	return func(cfg *clientConfig) { cfg.insecureHTTP = true }
}

// NewClient returns a Client for the API at baseURL (for example
// "https://api.example.com" or "https://host/prefix"), authenticating with
// apiKey. It fails with ErrInvalidArgument for an empty key, a key with
// white space or control characters, a base URL that is not absolute http
// or https, plain http to a host that is not loopback (unless
// WithInsecureHTTP), or an invalid option. No error it returns holds the
// key, even when the arguments were swapped.
func NewClient(baseURL, apiKey string, opts ...Option) (*Client, error) {
	c, err := newClient(baseURL, apiKey, opts)
	if err != nil {
		return nil, scrubError(err, apiKey)
	}
	return c, nil
}

func newClient(baseURL, apiKey string, opts []Option) (*Client, error) {
	cfg := clientConfig{
		maxResponseBytes: DefaultMaxResponseBytes,
		rateLimit:        defaultRateLimitConfig(),
		retry:            defaultRetryPolicy(),
	}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if len(cfg.errs) > 0 {
		return nil, cfg.errs[0]
	}
	if err := checkAPIKey(apiKey); err != nil {
		return nil, err
	}
	if looksLikeURL(apiKey) && !looksLikeURL(baseURL) {
		return nil, invalidArgument("the API key looks like a URL and the base URL does not: are the arguments of NewClient swapped?")
	}
	base, err := parseBaseURL(baseURL, cfg.insecureHTTP)
	if err != nil {
		return nil, err
	}
	c := &Client{
		baseURL:          base,
		apiKey:           Ptr(Secret(apiKey)),
		userAgent:        userAgent(cfg.userAgent),
		maxResponseBytes: cfg.maxResponseBytes,
		retry:            cfg.retry,
		observers:        cfg.observers,
		redact:           redactor{secret: apiKey},
		authHeader:       "Bearer " + apiKey,
		baseString:       base.String(),
		serverPort:       portOf(base),
		now:              time.Now,
	}
	c.httpClient = c.wrapHTTPClient(cfg.httpClient, cfg.rateLimit)
	c.calls = &sync.Pool{New: func() any { return newCallState(&c.retry, c.httpClient) }}
	svc := service{client: c}
	c.Workspaces = &WorkspacesService{svc}
	c.Projects = &ProjectsService{svc}
	c.ContentPlans = &ContentPlansService{svc}
	c.Members = &MembersService{svc}
	c.Competitors = &CompetitorsService{svc}
	c.APIKeys = &APIKeysService{svc}
	return c, nil
}

// scrubError keeps the key out of an error of NewClient: a key passed
// where the base URL belongs would otherwise be quoted back.
func scrubError(err error, apiKey string) error {
	r := redactor{secret: apiKey}
	if msg := err.Error(); r.string(msg) != msg {
		return invalidArgument("%s", strings.TrimPrefix(r.string(msg), ErrInvalidArgument.Error()+": "))
	}
	return err
}

func looksLikeURL(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

func portOf(u *url.URL) int {
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return p
	}
	if u.Scheme == "http" {
		return 80
	}
	return 443
}

// NewClientFromEnv is NewClient with the base URL from SEOAPI_BASE_URL and
// the key from SEOAPI_API_KEY. A missing variable fails with
// ErrInvalidArgument.
func NewClientFromEnv(opts ...Option) (*Client, error) {
	baseURL, apiKey := os.Getenv(EnvBaseURL), os.Getenv(EnvAPIKey)
	if baseURL == "" {
		return nil, invalidArgument("%s is not set", EnvBaseURL)
	}
	if apiKey == "" {
		return nil, invalidArgument("%s is not set", EnvAPIKey)
	}
	c, err := newClient(baseURL, apiKey, opts)
	if err != nil {
		return nil, scrubError(fmt.Errorf("%w (from %s and %s)", err, EnvBaseURL, EnvAPIKey), apiKey)
	}
	return c, nil
}

func userAgent(prefix string) string {
	own := "seoapi-go/" + Version
	if prefix == "" {
		return own
	}
	return prefix + " " + own
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func checkAPIKey(key string) error {
	if key == "" {
		return invalidArgument("API key is empty")
	}
	if strings.ContainsFunc(key, func(r rune) bool { return isControl(r) || r == ' ' || r == '\u00a0' }) {
		return invalidArgument("API key contains white space or control characters")
	}
	return nil
}

// parseBaseURL checks baseURL and returns it with a trailing slash, so
// that relative paths resolve under any path prefix it carries.
func parseBaseURL(raw string, insecureHTTP bool) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return nil, invalidArgument("base URL %q is not an absolute http(s) URL", raw)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !insecureHTTP && !isLoopback(u.Hostname()) {
			return nil, invalidArgument("base URL %q uses plain http to a host that is not loopback; use https, or WithInsecureHTTP", u.Redacted())
		}
	default:
		return nil, invalidArgument("base URL %q is not an absolute http(s) URL", u.Redacted())
	}
	if u.User != nil {
		return nil, invalidArgument("base URL must not carry credentials; the API key authenticates")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, invalidArgument("base URL %q must not have a query or fragment", u.Redacted())
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// wrapHTTPClient returns the HTTP client every attempt goes through: a copy
// of hc (or a new one) whose transport waits for the rate limiter and reads
// each body within its attempt, and which follows a redirect only inside
// the base URL. hc's Timeout moves into the transport, where it bounds the
// attempt, body included.
func (c *Client) wrapHTTPClient(hc *http.Client, rl rateLimitConfig) *http.Client {
	var wrapped http.Client
	if hc != nil {
		wrapped = *hc
	}
	next := wrapped.Transport
	if next == nil {
		next = newStallTransport(stallTimeout)
	}
	c.transport = &limitedTransport{
		next:     next,
		limiter:  newAttemptLimiter(rl, c.retry.maxWait, c.now),
		maxWait:  c.retry.maxWait,
		timeout:  wrapped.Timeout,
		maxBytes: c.maxResponseBytes,
		now:      c.now,
	}
	wrapped.Transport = c.transport
	wrapped.Timeout = 0
	wrapped.CheckRedirect = c.checkRedirect(wrapped.CheckRedirect)
	return &wrapped
}

// maxRedirects is how many redirects one attempt follows, as net/http.
const maxRedirects = 10

// redirectError is a redirect the caller's own CheckRedirect refused, or
// one too many.
type redirectError struct{ err error }

func (e *redirectError) Error() string { return "redirect not followed: " + e.err.Error() }
func (e *redirectError) Unwrap() error { return e.err }

// checkRedirect follows a redirect only when it keeps the method, the
// method is GET, HEAD or DELETE, and the target is under the base URL
// (same scheme, host, port and path prefix), so the key never goes to
// another origin and a write is never turned into a GET. Any other
// redirect is handed back as the response, which becomes an *APIError
// with the 3xx status and its Location. The caller's own check runs
// after ours.
func (c *Client) checkRedirect(user func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		first := via[0]
		switch {
		case req.Method != first.Method || !redirectableMethod(first.Method) || !c.underBase(req.URL):
			return http.ErrUseLastResponse
		case len(via) >= maxRedirects:
			return &redirectError{fmt.Errorf("stopped after %d redirects", maxRedirects)}
		case user != nil:
			if err := user(req, via); err != nil && err != http.ErrUseLastResponse {
				return &redirectError{err}
			} else if err != nil {
				return err
			}
		}
		return nil
	}
}

func redirectableMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodDelete
}

// CloseIdleConnections closes the idle pooled connections of the
// transport the client sends through.
func (c *Client) CloseIdleConnections() {
	type closeIdler interface{ CloseIdleConnections() }
	if t, ok := c.transport.next.(closeIdler); ok {
		t.CloseIdleConnections()
	}
}

// Format keeps the API key out of every fmt verb (%v, %+v, %#v, %s), for
// a Client and a *Client alike.
func (c Client) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "seoapi.Client{BaseURL: %q, APIKey: %s}", c.redactedBase(), redacted)
}

// MarshalJSON encodes the client as its base URL and a redacted key.
func (c *Client) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		BaseURL string `json:"baseURL"`
		APIKey  string `json:"apiKey"`
	}{c.redactedBase(), redacted})
}

// LogValue keeps the API key out of slog records.
func (c *Client) LogValue() slog.Value {
	return slog.GroupValue(slog.String("baseURL", c.redactedBase()), slog.String("apiKey", redacted))
}

// redactedBase is the base URL for printing; empty for a zero Client.
func (c *Client) redactedBase() string {
	if c.baseURL == nil {
		return ""
	}
	return c.baseURL.Redacted()
}

// BaseURL returns the base URL requests are resolved against.
func (c *Client) BaseURL() *url.URL {
	u := *c.baseURL
	return &u
}

// NewRequest builds a request for path, which is relative to the base URL
// (a leading slash is ignored) or an absolute URL under the base URL, such
// as a next-page link. A non-nil body is sent as JSON. The request carries
// the Authorization, Content-Type, Accept and User-Agent headers. A URL
// outside the base URL fails with ErrInvalidArgument, so the key is never
// sent to another host.
func (c *Client) NewRequest(ctx context.Context, method, path string, body any) (*http.Request, error) {
	if ctx == nil {
		return nil, invalidArgument("nil context")
	}
	target, err := c.resolve(path)
	if err != nil {
		return nil, err
	}
	var reader io.Reader
	if body != nil {
		buf, err := encodeBody(body)
		if err != nil {
			return nil, invalidArgument("encoding request body: %v", err)
		}
		// A *bytes.Reader: net/http writes it with the headers in one go,
		// and bodyWasRead can tell whether it left.
		reader = bytes.NewReader(buf)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, reader)
	if err != nil {
		return nil, invalidArgument("building request: %v", err)
	}
	// One backing array for the four header values: one allocation, not four.
	values := [...]string{c.authHeader, "application/json", "application/json", c.userAgent}
	req.Header["Authorization"] = values[0:1:1]
	req.Header["Content-Type"] = values[1:2:2]
	req.Header["Accept"] = values[2:3:3]
	req.Header["User-Agent"] = values[3:4:4]
	return req, nil
}

// resolve returns the URL for path. A plain relative path (the SDK's own)
// is joined to the base URL as text, parsed once by http.NewRequest; any
// other reference is resolved and checked against the base URL.
func (c *Client) resolve(path string) (string, error) {
	if plainRelative(path) {
		return c.baseString + strings.TrimPrefix(path, "/"), nil
	}
	ref, err := url.Parse(path)
	if err != nil {
		return "", invalidArgument("path %q: %v", path, err)
	}
	if ref.IsAbs() || ref.Host != "" {
		// Resolving removes dot segments, which could climb out of the
		// base path once the server reads them.
		ref = c.baseURL.ResolveReference(ref)
		if !c.underBase(ref) {
			return "", invalidArgument("URL %q is not under the client's base URL", ref.Redacted())
		}
		return ref.String(), nil
	}
	ref, err = url.Parse(strings.TrimLeft(path, "/"))
	if err != nil {
		return "", invalidArgument("path %q: %v", path, err)
	}
	return c.baseURL.ResolveReference(ref).String(), nil
}

// plainRelative reports a path that can be appended to the base URL as
// it is: no scheme or authority, no dot segment, no fragment, nothing
// that needs escaping.
func plainRelative(path string) bool {
	if strings.HasPrefix(path, "//") {
		return false
	}
	p := strings.TrimPrefix(path, "/")
	if p == "" || strings.HasPrefix(p, ".") || strings.Contains(p, "/.") {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("-._~/%?&=+,;@!$'()*", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// underBase reports whether u has the base URL's scheme, host and port and
// lies under its path prefix.
func (c *Client) underBase(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, c.baseURL.Scheme) &&
		strings.EqualFold(u.Hostname(), c.baseURL.Hostname()) &&
		portOf(u) == c.serverPort &&
		u.User == nil &&
		strings.HasPrefix(u.EscapedPath(), c.baseURL.EscapedPath())
}

// relativePath returns the path of u under the base URL.
func (c *Client) relativePath(u *url.URL) string {
	return strings.TrimPrefix(u.EscapedPath(), c.baseURL.EscapedPath())
}

// Response is the server's response to a call, with what the SDK read from
// its headers. Its body has been read and closed.
type Response struct {
	*http.Response

	Rate      Rate   // from rate-limit headers; zero when the server sends none
	RequestID string // from X-Request-Id or Request-Id
	Attempts  int    // how many attempts the call made

	// Where the next page is, when the server said so (see ListOptions).
	NextPage   int
	NextCursor string
	NextURL    string
}

// Format prints the response's status and what the SDK read from it, but
// none of its request (whose headers hold the key), for every fmt verb.
func (r Response) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "seoapi.Response{Status: %q, RequestID: %q, Attempts: %d, Rate: %+v, NextPage: %d, NextCursor: %q, NextURL: %q}",
		r.status(), r.RequestID, r.Attempts, r.Rate, r.NextPage, r.NextCursor, r.NextURL)
}

func (r Response) status() string {
	if r.Response == nil {
		return ""
	}
	return r.Status
}

// MarshalJSON encodes what Format prints; never the request.
func (r Response) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		StatusCode int    `json:"statusCode"`
		RequestID  string `json:"requestId,omitempty"`
		Attempts   int    `json:"attempts"`
		Rate       Rate   `json:"rate"`
		NextPage   int    `json:"nextPage,omitempty"`
		NextCursor string `json:"nextCursor,omitempty"`
		NextURL    string `json:"nextUrl,omitempty"`
	}{r.statusCode(), r.RequestID, r.Attempts, r.Rate, r.NextPage, r.NextCursor, r.NextURL})
}

func (r Response) statusCode() int {
	if r.Response == nil {
		return 0
	}
	return r.StatusCode
}

// LogValue gives slog what MarshalJSON gives encoding/json.
func (r Response) LogValue() slog.Value {
	return slog.GroupValue(slog.Int("statusCode", r.statusCode()), slog.String("requestId", r.RequestID),
		slog.Int("attempts", r.Attempts))
}

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
	if err := decodeBody(body, v, resp); err != nil {
		return resp, c.decodeError(req, httpResp, body, err, call)
	}
	return resp, nil
}

// bodyWasRead tells whether any of an attempt's body was read, for a
// body of a known in-memory type (as http.NewRequest makes from a
// *bytes.Reader or *strings.Reader, the SDK's own included); known is false
// for any other body. A transport reads the body only once it has a
// connection and has written the headers, so an unread body means the
// request never left, whatever error the attempt reports.
func bodyWasRead(body io.ReadCloser) (read, known bool) {
	var r io.Reader = body
	// io.NopCloser's wrapper has one exported field, the reader; net/http
	// looks through it the same way.
	if v := reflect.ValueOf(body); v.Kind() == reflect.Struct && v.NumField() == 1 && v.Type().PkgPath() == "io" && v.Field(0).CanInterface() {
		if inner, ok := v.Field(0).Interface().(io.Reader); ok {
			r = inner
		}
	}
	switch r := r.(type) {
	case *bytes.Reader:
		return int64(r.Len()) < r.Size(), r.Size() > 0
	case *strings.Reader:
		return int64(r.Len()) < r.Size(), r.Size() > 0
	}
	return false, false
}

// retryableRequest wraps req for retryablehttp without copying its body
// when it can be read again (GetBody, as http.NewRequest sets for the
// SDK's own requests); rewindBody gives each retry a fresh copy.
func retryableRequest(req *http.Request) (*retryablehttp.Request, error) {
	if req.Body == nil || req.Body == http.NoBody || req.GetBody != nil {
		return &retryablehttp.Request{Request: req}, nil
	}
	rreq, err := retryablehttp.FromRequest(req)
	if err != nil {
		return nil, invalidArgument("reading request body: %v", err)
	}
	return rreq, nil
}

// bodyOf returns the body the transport read, and whether it passed the
// size cap (then only its start was kept).
func bodyOf(resp *http.Response) ([]byte, bool) {
	if b, ok := resp.Body.(*bufferedBody); ok {
		return b.data, b.tooLarge
	}
	// Only a response that did not pass through the SDK's transport (a
	// caller's RoundTripper that replaced the body) lands here.
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return data, err != nil
}

// newResponse reads what the SDK shows of a response's headers, with any
// form of the key a server echoed in them removed.
func (c *Client) newResponse(httpResp *http.Response, attempts int) *Response {
	header := c.redact.header(httpResp.Header)
	resp := &Response{
		Response:  httpResp,
		Rate:      parseRate(header, c.now()),
		RequestID: requestID(header),
		Attempts:  attempts,
	}
	resp.readLink(header)
	return resp
}

// responseError is the *APIError of a response to req that the call
// fails on, with body (what the SDK kept of it) and the headers cleaned of
// any form of the key the server echoed. It names the URL the caller asked
// for, not a redirect's, which the server chose.
func (c *Client) responseError(req *http.Request, resp *http.Response, body []byte, call *callState) *APIError {
	clean, header := c.redact.bytes(body), c.redact.header(resp.Header)
	e := &APIError{
		StatusCode: resp.StatusCode,
		Method:     req.Method,
		URL:        redactedURL(req),
		RequestID:  requestID(header),
		Body:       clean[:min(len(clean), maxErrorBody)],
		Header:     header,
		Attempts:   call.attempts,
	}
	if d, ok := retryAfter(header, c.now()); ok {
		e.RetryAfter = d
	}
	return e
}

// apiError is the error of a non-2xx response to req.
func (c *Client) apiError(req *http.Request, resp *http.Response, body []byte, call *callState) error {
	e := c.responseError(req, resp, body, call)
	e.Message, e.Code = parseErrorBody(e.Body)
	e.Message, e.Code = c.redact.string(e.Message), c.redact.string(e.Code)
	if call.refusedWait > 0 {
		// The server asked for a wait the caller does not accept: the call
		// failed for the rate limit, whatever the status.
		e.RetryAfter, e.kind = call.refusedWait, ErrRateLimited
	}
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		e.Message = "redirect not followed"
		if loc := e.Header.Get("Location"); loc != "" {
			e.Message += " (Location: " + loc + ")"
		}
	}
	return e
}

// decodeError is the error of a 2xx body the SDK could not read.
func (c *Client) decodeError(req *http.Request, resp *http.Response, body []byte, err error, call *callState) error {
	// A decoding error may quote what it failed on.
	err = c.cleanCause(err)
	if createsSecret(req.Method, c.relativePath(req.URL)) {
		// The answer of a created key that cannot be read may hold its
		// secret anywhere: none of it, nor what a decoder quoted of it,
		// goes into the error.
		body, err = nil, errSecretWithheld
	}
	e := c.responseError(req, resp, body, call)
	e.Message = decodeMessage(resp.StatusCode, err, e.Body, body == nil)
	e.Err, e.kind = err, ErrUnexpectedResponse
	return e
}

// errSecretWithheld stands for the decoding error of an answer that may
// hold a created secret.
var errSecretWithheld = errors.New("the answer could not be read")

// createsSecret reports a request whose answer carries a new secret (a
// created API key).
func createsSecret(method, path string) bool {
	_, route := routeOf(method, path)
	return route == "POST /api/workspaces/{id}/api-keys"
}

func decodeMessage(status int, err error, body []byte, withheld bool) string {
	if withheld {
		return fmt.Sprintf("decoding the %d response: %v (body withheld: it may hold a created secret)", status, err)
	}
	if errors.Is(err, errBodyTooLarge) {
		return fmt.Sprintf("%d response: %v", status, err)
	}
	return fmt.Sprintf("decoding the %d response: %v (body: %q)", status, err, snippet(body))
}

// failure is the error of a call that ended without a response to use.
func (c *Client) failure(call *callState, req *http.Request, err error) error {
	var refused *APIError
	if errors.As(err, &refused) && refused.StatusCode == 0 {
		refused.Attempts = call.attempts
		if refused.Method == "" {
			refused.Method, refused.URL = req.Method, redactedURL(req)
		}
		return refused
	}
	ctxErr := req.Context().Err()
	e := &APIError{Method: req.Method, URL: redactedURL(req), Attempts: call.attempts}
	e.outcomeUnknown = !call.idem && call.written
	e.kind = failureKind(err, ctxErr)
	cause := c.cleanCause(err)
	var lim *limiterError
	if errors.As(err, &lim) {
		cause = lim.err
		e.Message = "not sent: the rate limiter failed"
	}
	switch {
	case e.kind != nil:
		e.Err = causeError{cause}
	case cause == ctxErr:
		e.Err = ctxErr
	default:
		// The context's error, and no kind the cause might carry.
		e.Err = fmt.Errorf("%w: %w", ctxErr, causeError{cause})
	}
	return e
}

// failureKind is the one kind of an attempt or a call that ended with err
// and no response to use, or nil when it is the caller's context's error
// (ctxErr, when the context has ended). The call's error and the
// observers' attempt events both take their kind from here.
func failureKind(err, ctxErr error) error {
	var (
		refused *APIError
		lim     *limiterError
	)
	switch {
	case errors.As(err, &refused) && refused.StatusCode == 0:
		return ErrRateLimited
	case errors.As(err, &lim) && ctxErr == nil:
		return kindOf(lim.err)
	case ctxErr != nil && !errors.Is(err, errAttemptTimeout):
		return nil
	case isRedirectError(err):
		return ErrUnexpectedResponse
	}
	return ErrConnection
}

func isRedirectError(err error) bool {
	var r *redirectError
	return errors.As(err, &r)
}

// cleanCause strips the *url.Error around err (Do's error already names
// the method and URL) and any form of the key a server sent back, which
// net/http may quote in a malformed-response error.
func (c *Client) cleanCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if msg := err.Error(); c.redact.string(msg) != msg {
		return errors.New(c.redact.string(msg))
	}
	return err
}

// causeError holds the cause of a failure whose kind the SDK chose (a
// connection that failed, a limiter that failed). errors.As reaches into
// it, and errors.Is too, except for the kinds and the context errors:
// the *APIError around it matches exactly its one kind, and an attempt
// that timed out, or a limiter's own store timing out, is not the
// caller's context ending.
type causeError struct{ err error }

func (e causeError) Error() string { return e.err.Error() }

// Is reports whether the cause matches target, unless target is a kind or
// a context error.
func (e causeError) Is(target error) bool {
	if isKind(target) || target == ErrOutcomeUnknown || target == context.DeadlineExceeded || target == context.Canceled {
		return false
	}
	return errors.Is(e.err, target)
}

// As finds the first error in the cause's chain that matches target.
func (e causeError) As(target any) bool { return errors.As(e.err, target) }

func redactedURL(req *http.Request) string {
	if req == nil || req.URL == nil {
		return ""
	}
	return req.URL.Redacted()
}

// Ptr returns a pointer to v, for the optional fields of request types:
// ProjectUpdateRequest{Name: seoapi.Ptr("new name")}.
func Ptr[T any](v T) *T { return &v }

// escapeID checks a path ID and escapes it into exactly one path segment
// ("a/b" travels as "a%2Fb"). Empty IDs, "." and "..", and IDs holding
// control characters fail with ErrInvalidArgument.
func escapeID(name, id string) (string, error) {
	switch {
	case id == "":
		return "", invalidArgument("%s is empty", name)
	case id == "." || id == "..":
		return "", invalidArgument("%s %q is not a valid ID", name, id)
	case strings.ContainsFunc(id, isControl):
		return "", invalidArgument("%s contains control characters", name)
	}
	return url.PathEscape(id), nil
}

// workspacePath returns api/workspaces/{workspaceID}/{rest...}.
func workspacePath(workspaceID string, rest ...string) (string, error) {
	ws, err := escapeID("workspaceID", workspaceID)
	if err != nil {
		return "", err
	}
	return strings.Join(append([]string{workspacesPath, ws}, rest...), "/"), nil
}

// projectPath returns api/workspaces/{workspaceID}/projects/{projectID}/{rest...}.
func projectPath(workspaceID, projectID string, rest ...string) (string, error) {
	p, err := escapeID("projectID", projectID)
	if err != nil {
		return "", err
	}
	return workspacePath(workspaceID, append([]string{"projects", p}, rest...)...)
}

// failed is an iterator that yields err once, for arguments rejected
// before the first page.
func failed[T any](err error) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) { yield(nil, err) }
}
