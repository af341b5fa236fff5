package seoapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Version is the SDK's version, sent in the User-Agent header.
const Version = "0.1.0"

// DefaultMaxResponseBytes is the largest response body the SDK reads
// unless WithMaxResponseBytes says otherwise.
const DefaultMaxResponseBytes = 32 << 20

// defaultTimeout bounds one attempt (connect, send, read) on the HTTP
// client the SDK builds itself; WithHTTPClient replaces it.
const defaultTimeout = 60 * time.Second

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
	retry            retryPolicy
	logger           *slog.Logger
	now              func() time.Time
}

// service is embedded by every resource service.
type service struct{ client *Client }

// Option configures a Client.
type Option func(*clientConfig)

type clientConfig struct {
	httpClient       *http.Client
	userAgent        string
	logger           *slog.Logger
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
// Timeout applies to each attempt.
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
// hold a header, a body or the API key.
func WithLogger(l *slog.Logger) Option {
	return func(cfg *clientConfig) { cfg.logger = l }
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
// WithInsecureHTTP), or an invalid option.
func NewClient(baseURL, apiKey string, opts ...Option) (*Client, error) {
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
		logger:           cfg.logger,
		now:              time.Now,
	}
	c.retry.logger = cfg.logger
	c.httpClient = c.wrapHTTPClient(cfg.httpClient, cfg.rateLimit)
	svc := service{client: c}
	c.Workspaces = &WorkspacesService{svc}
	c.Projects = &ProjectsService{svc}
	c.ContentPlans = &ContentPlansService{svc}
	c.Members = &MembersService{svc}
	c.Competitors = &CompetitorsService{svc}
	c.APIKeys = &APIKeysService{svc}
	return c, nil
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
	return NewClient(baseURL, apiKey, opts...)
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
// of hc (or a new one) whose transport waits for the rate limiter.
func (c *Client) wrapHTTPClient(hc *http.Client, rl rateLimitConfig) *http.Client {
	var wrapped http.Client
	if hc != nil {
		wrapped = *hc
	} else {
		wrapped.Timeout = defaultTimeout
	}
	next := wrapped.Transport
	if next == nil {
		next = http.DefaultTransport.(*http.Transport).Clone()
	}
	wrapped.Transport = newLimitedTransport(next, rl, c.retry.maxWait, c.logger, c.now)
	return &wrapped
}

// Format keeps the API key out of every fmt verb (%v, %+v, %#v, %s), for
// a Client and a *Client alike.
func (c Client) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "seoapi.Client{BaseURL: %q, APIKey: %s}", c.baseURL.Redacted(), *c.apiKey)
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
	u, err := c.resolve(path)
	if err != nil {
		return nil, err
	}
	var reader io.Reader
	if body != nil {
		buf, err := json.Marshal(body)
		if err != nil {
			return nil, invalidArgument("encoding request body: %v", err)
		}
		reader = bytes.NewReader(buf)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), reader)
	if err != nil {
		return nil, invalidArgument("building request: %v", err)
	}
	req.Header.Set("Authorization", "Bearer "+string(*c.apiKey))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	return req, nil
}

func (c *Client) resolve(path string) (*url.URL, error) {
	ref, err := url.Parse(path)
	if err != nil {
		return nil, invalidArgument("path %q: %v", path, err)
	}
	if ref.IsAbs() || ref.Host != "" {
		if !c.underBase(ref) {
			return nil, invalidArgument("URL %q is not under the client's base URL", ref.Redacted())
		}
		return ref, nil
	}
	ref, err = url.Parse(strings.TrimLeft(path, "/"))
	if err != nil {
		return nil, invalidArgument("path %q: %v", path, err)
	}
	return c.baseURL.ResolveReference(ref), nil
}

// underBase reports whether u has the base URL's scheme and host and lies
// under its path prefix.
func (c *Client) underBase(u *url.URL) bool {
	return u.Scheme == c.baseURL.Scheme &&
		strings.EqualFold(u.Host, c.baseURL.Host) &&
		u.User == nil &&
		strings.HasPrefix(u.EscapedPath(), c.baseURL.EscapedPath())
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

// Do sends req through the rate limiter and retry policy and reads the
// response. A 2xx body is decoded into v when v is non-nil and the body is
// not empty; a list destination (a pointer to a slice) and a resource
// destination are unwrapped from the envelopes described in the README. A
// non-2xx response returns an *APIError. The *Response is returned
// whenever the server answered, also with an error.
func (c *Client) Do(req *http.Request, v any) (*Response, error) {
	call := c.retry.newCall(req)
	rreq, err := retryablehttp.FromRequest(req)
	if err != nil {
		return nil, invalidArgument("reading request body: %v", err)
	}
	httpResp, err := call.client(c.httpClient).Do(rreq)
	if err != nil {
		return nil, call.transportError(err)
	}
	defer httpResp.Body.Close()

	resp := c.newResponse(httpResp, call.attempts)
	body, err := c.readBody(httpResp)
	if err != nil {
		return resp, err
	}
	if httpResp.StatusCode < 200 || httpResp.StatusCode > 299 {
		return resp, c.apiError(httpResp, body, call)
	}
	if v == nil {
		return resp, nil
	}
	if err := decodeBody(body, v, resp); err != nil {
		return resp, c.decodeError(httpResp, body, err)
	}
	return resp, nil
}

func (c *Client) newResponse(httpResp *http.Response, attempts int) *Response {
	resp := &Response{
		Response:  httpResp,
		Rate:      parseRate(httpResp.Header, c.now()),
		RequestID: requestID(httpResp.Header),
		Attempts:  attempts,
	}
	resp.readLink(httpResp.Header)
	return resp
}

// readBody reads the whole body, up to the configured cap.
func (c *Client) readBody(resp *http.Response) ([]byte, error) {
	limit := c.maxResponseBytes
	var buf bytes.Buffer
	if resp.ContentLength > 0 && resp.ContentLength <= limit {
		buf.Grow(int(resp.ContentLength) + 1)
	}
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, responseError(resp, "reading %d response: %w", resp.StatusCode, err)
	}
	if n > limit {
		return nil, responseError(resp, "%d response body exceeds %d bytes (WithMaxResponseBytes)", resp.StatusCode, limit)
	}
	return buf.Bytes(), nil
}

// responseError is an error about resp, prefixed with its method and URL.
func responseError(resp *http.Response, format string, args ...any) error {
	prefix := []any{resp.Request.Method, redactedURL(resp.Request)}
	return fmt.Errorf("seoapi: %s %s: "+format, append(prefix, args...)...)
}

func (c *Client) apiError(resp *http.Response, body []byte, call *callState) error {
	e := newAPIError(resp, redactSecret(body, string(*c.apiKey)), c.now())
	e.Attempts = call.attempts
	if call.refusedWait > 0 {
		e.RetryAfter = call.refusedWait
		e.kind = ErrRateLimited
	}
	return e
}

func (c *Client) decodeError(resp *http.Response, body []byte, err error) error {
	return responseError(resp, "decoding %d response: %w (body: %q)",
		resp.StatusCode, err, snippet(redactSecret(body, string(*c.apiKey))))
}

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
