package seoapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"time"
)

// Version is the SDK's version, sent in the User-Agent header.
const Version = "0.1.0"

// DefaultMaxResponseBytes is the largest response body the SDK reads
// unless WithMaxResponseBytes says otherwise.
const DefaultMaxResponseBytes = 32 << 20

// stallTimeout is how long the SDK's own transport waits for any progress.
const stallTimeout = 60 * time.Second

// Environment variables read by NewClientFromEnv.
const (
	EnvBaseURL = "SEOAPI_BASE_URL"
	EnvAPIKey  = "SEOAPI_API_KEY"
)

// Client talks to the Workspace Automation API. Create it with NewClient or
// NewClientFromEnv, and views of it with With. A Client is safe for
// concurrent use by many goroutines, which share its rate limiter.
type Client struct {
	Workspaces   *WorkspacesService
	Projects     *ProjectsService
	ContentPlans *ContentPlansService
	Members      *MembersService
	Competitors  *CompetitorsService
	APIKeys      *APIKeysService

	// Shared by a client and its views (With).
	baseURL *url.URL
	// apiKey and authHeader ("Bearer <key>") sit behind pointers so that
	// fmt's reflection over a caller's struct holding a Client prints addresses.
	apiKey     *Secret
	authHeader *string
	redact     *redactor
	baseString string // baseURL.String(), for joining relative paths
	basePath   string // baseURL.EscapedPath(), which every path the key goes to begins with
	serverPort int
	httpClient *http.Client      // the caller's CheckRedirect and Jar, under the SDK's redirect rule
	next       http.RoundTripper // sends each attempt: the caller's transport, or the SDK's own
	limiter    attemptLimiter
	now        func() time.Time

	settings         // of the client or this view
	agent     string // the User-Agent header
	itemLimit int    // the item limit of a list response
}

// service is embedded by every resource service.
type service struct{ client *Client }

// NewClient returns a Client for the API at baseURL (for example
// "https://api.example.com" or "https://host/prefix"), authenticating with
// apiKey. It fails with ErrInvalidArgument for a key shorter than
// MinAPIKeyLength or with white space or control characters, contradicting
// options, a base URL that is not absolute http or https, plain http to a
// non-loopback host (unless WithInsecureHTTP), or an invalid option. No
// error it returns holds the key, even when the arguments were swapped.
func NewClient(baseURL, apiKey string, opts ...Option) (*Client, error) {
	c, err := newClient(baseURL, apiKey, opts)
	return c, scrubError(err, apiKey)
}

func newClient(baseURL, apiKey string, opts []Option) (*Client, error) {
	cfg := clientConfig{settings: settings{
		maxResponseBytes: DefaultMaxResponseBytes,
		retry:            retryPolicy{maxRetries: DefaultMaxRetries, waitMin: DefaultRetryWaitMin, waitMax: DefaultRetryWaitMax, maxWait: -1},
		attemptTimeout:   -1,
	}, rateLimit: defaultRateLimitConfig()}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if err := cmp.Or(cfg.err, cfg.rateLimit.check()); err != nil {
		return nil, err
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
		baseURL:    base,
		apiKey:     Ptr(Secret(apiKey)),
		authHeader: Ptr("Bearer " + apiKey),
		redact:     newRedactor(apiKey),
		baseString: base.String(),
		serverPort: portOf(base),
		now:        time.Now,
		settings:   cfg.settings,
	}
	c.basePath = base.EscapedPath()
	c.setHTTPClient(cfg.httpClient)
	c.limiter = newAttemptLimiter(cfg.rateLimit, c.now)
	c.setSettings()
	return c, nil
}

// setSettings works out what the client's settings imply, and gives it
// services of its own.
func (c *Client) setSettings() {
	c.agent = strings.TrimPrefix(c.userAgent+" seoapi-go/"+Version, " ")
	c.itemLimit = defaultMaxItems(c.maxItems, c.maxResponseBytes)
	svc := service{client: c}
	c.Workspaces = &WorkspacesService{svc}
	c.Projects = &ProjectsService{svc}
	c.ContentPlans = &ContentPlansService{svc}
	c.Members = &MembersService{svc}
	c.Competitors = &CompetitorsService{svc}
	c.APIKeys = &APIKeysService{svc}
}

// scrubError keeps the key out of an error of NewClient: a key passed
// where the base URL belongs would otherwise be quoted back. A key too
// short to be accepted was refused before anything could quote it.
func scrubError(err error, apiKey string) error {
	if err == nil || len(apiKey) < MinAPIKeyLength {
		return err
	}
	r := newRedactor(apiKey)
	if msg := err.Error(); r.string(msg) != msg {
		return invalidArgument("%s", strings.TrimPrefix(r.string(msg), ErrInvalidArgument.Error()+": "))
	}
	return err
}

func looksLikeURL(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// NewClientFromEnv is NewClient with the base URL from SEOAPI_BASE_URL and
// the key from SEOAPI_API_KEY; a missing variable fails with ErrInvalidArgument.
func NewClientFromEnv(opts ...Option) (*Client, error) {
	baseURL, apiKey := os.Getenv(EnvBaseURL), os.Getenv(EnvAPIKey)
	if baseURL == "" {
		return nil, invalidArgument("%s is not set", EnvBaseURL)
	}
	if apiKey == "" {
		return nil, invalidArgument("%s is not set", EnvAPIKey)
	}
	c, err := NewClient(baseURL, apiKey, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w (from %s and %s)", err, EnvBaseURL, EnvAPIKey)
	}
	return c, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// MinAPIKeyLength is the shortest API key NewClient accepts: a shorter one is
// no real key, and the redactor could not tell it from ordinary text.
const MinAPIKeyLength = 8

func checkAPIKey(key string) error {
	switch {
	case len(key) < MinAPIKeyLength:
		return invalidArgument("API key is shorter than %d characters", MinAPIKeyLength)
	case strings.ContainsFunc(key, func(r rune) bool { return isControl(r) || r == ' ' || r == '\u00a0' }):
		return invalidArgument("API key contains white space or control characters")
	}
	return nil
}

// setHTTPClient keeps what the client sends with: hc's transport (or, when
// it has none, one the SDK builds), hc's Timeout as the attempt timeout, and its redirect
// check and cookie jar, following redirects only inside the base URL.
func (c *Client) setHTTPClient(hc *http.Client) {
	if hc == nil {
		hc = &http.Client{}
	}
	c.next = hc.Transport
	if c.next == nil {
		c.next = newStallTransport(stallTimeout)
	}
	if c.attemptTimeout < 0 {
		c.attemptTimeout = hc.Timeout
	}
	c.httpClient = &http.Client{CheckRedirect: c.checkRedirect(hc.CheckRedirect), Jar: hc.Jar}
}

// newStallTransport is the transport of the HTTP client the SDK builds
// itself. It fails an attempt with no connection, no response headers, or
// no progress reading or writing for d: no timer or context per attempt,
// and a large body that keeps arriving is never cut off.
func newStallTransport(d time.Duration) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = d
	// Keep a connection for each request a second may hold in flight, not
	// net/http's two: every request over two would dial anew.
	t.MaxIdleConnsPerHost = DefaultRequestsPerSecond
	t.TLSHandshakeTimeout = min(t.TLSHandshakeTimeout, d)
	dialer := &net.Dialer{Timeout: d, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &stallConn{Conn: conn, timeout: d}, nil
	}
	return t
}

// stallConn fails a read or a write that makes no progress for timeout.
type stallConn struct {
	net.Conn
	timeout time.Duration
}

func (c *stallConn) Read(p []byte) (int, error) {
	if err := c.Conn.SetReadDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *stallConn) Write(p []byte) (int, error) {
	if err := c.Conn.SetWriteDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

// NewRequest builds a request for path, which is relative to the base URL
// (a leading slash is ignored) or an absolute URL under the base URL, such
// as a next-page link. A non-nil body is sent as JSON. The request carries
// the Authorization, Content-Type, Accept and User-Agent headers. A URL
// the key may not go to fails with ErrInvalidArgument: another origin,
// a path outside the base URL's, or a path servers may read differently,
// which is refused rather than interpreted (%2e, %2f, %3b, %5c, "\", ";",
// "//" or a "." or ".." segment).
func (c *Client) NewRequest(ctx context.Context, method, path string, body any) (*http.Request, error) {
	data, err := encodeBody(body)
	if err != nil {
		return nil, err
	}
	target := c.resolve(path)
	var r io.Reader
	if data != nil {
		r = bytes.NewReader(data)
	}
	return c.newRequest(ctx, method, target, r)
}

// newRequest builds a request for the URL target. The SDK's own calls give
// no body: a call gives each attempt a copy of its body.
func (c *Client) newRequest(ctx context.Context, method, target string, body io.Reader) (*http.Request, error) {
	if ctx == nil {
		return nil, invalidArgument("nil context")
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, invalidArgument("building request: %v", err)
	}
	if !c.keyMayGo(req.URL) {
		return nil, invalidArgument("URL %q is not under the client's base URL", req.URL.Redacted())
	}
	// One backing array for the four header values: one allocation, not four.
	values := [...]string{*c.authHeader, "application/json", "application/json", c.agent}
	for k, v := range c.header {
		req.Header[k] = v[:len(v):len(v)] // an Add to the request's header does not write into the client's
	}
	req.Header["Authorization"] = values[0:1:1]
	req.Header["Content-Type"] = values[1:2:2]
	req.Header["Accept"] = values[2:3:3]
	req.Header["User-Agent"] = values[3:4:4]
	return req, nil
}

// encodeBody encodes a request body with encoding/json; the SDK's request
// types encode themselves with their MarshalJSON. A nil body encodes to
// nil: no body.
func encodeBody(body any) ([]byte, error) {
	if body == nil {
		return nil, nil
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, invalidArgument("encoding request body: %v", err)
	}
	return data, nil
}

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
	return c.newCall(c.endpointOf(req), req.Method, body).send(req, v)
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

// Ptr returns a pointer to v, for the optional fields of request types:
// ProjectUpdateRequest{Name: seoapi.Ptr("new name")}.
func Ptr[T any](v T) *T { return &v }

// CloseIdleConnections closes the idle connections of the client's transport.
func (c *Client) CloseIdleConnections() {
	type closeIdler interface{ CloseIdleConnections() }
	if t, ok := c.next.(closeIdler); ok {
		t.CloseIdleConnections()
	}
}

// Format keeps the API key out of every fmt verb, for a Client and a *Client.
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
