package seoapi

import (
	"cmp"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
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
	// apiKey and authHeader ("Bearer <key>") sit behind pointers so that
	// fmt's reflection over a caller's struct holding a Client prints addresses.
	apiKey           *Secret
	authHeader       *string
	userAgent        string
	maxResponseBytes int64
	maxItems         int // the item limit of a list response (WithMaxItems)
	httpClient       *http.Client
	transport        *hopTransport
	retry            retryPolicy
	observers        []Observer
	redact           *redactor
	baseString       string // baseURL.String(), for joining relative paths
	basePath         string // the base URL's path as serverPath reads it
	serverPort       int
	now              func() time.Time
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
	cfg := clientConfig{
		maxResponseBytes: DefaultMaxResponseBytes,
		rateLimit:        defaultRateLimitConfig(),
		retry: retryPolicy{
			maxRetries: DefaultMaxRetries,
			waitMin:    DefaultRetryWaitMin,
			waitMax:    DefaultRetryWaitMax,
			maxWait:    -1, // none set: the limiter's own bound, else DefaultMaxWait
		},
	}
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
		baseURL:          base,
		apiKey:           Ptr(Secret(apiKey)),
		userAgent:        strings.TrimPrefix(cfg.userAgent+" seoapi-go/"+Version, " "),
		maxResponseBytes: cfg.maxResponseBytes,
		maxItems:         defaultMaxItems(cfg.maxItems, cfg.maxResponseBytes),
		retry:            cfg.retry,
		observers:        cfg.observers,
		redact:           newRedactor(apiKey),
		authHeader:       Ptr("Bearer " + apiKey),
		baseString:       base.String(),
		serverPort:       portOf(base),
		now:              time.Now,
	}
	c.basePath, _ = serverPath(base.EscapedPath())
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

// wrapHTTPClient returns the HTTP client every attempt goes through: a
// copy of hc (or a new one) sending through a hopTransport, which also
// takes hc's Timeout, and following redirects only inside the base URL.
func (c *Client) wrapHTTPClient(hc *http.Client, rl rateLimitConfig) *http.Client {
	var wrapped http.Client
	if hc != nil {
		wrapped = *hc
	}
	next, builtIn := wrapped.Transport, wrapped.Transport == nil
	if builtIn {
		next = newStallTransport(stallTimeout)
	}
	c.transport = &hopTransport{
		next:     next,
		builtIn:  builtIn,
		limiter:  newAttemptLimiter(rl, c.now),
		maxWait:  c.retry.maxWait,
		timeout:  wrapped.Timeout,
		observed: len(c.observers) > 0,
	}
	wrapped.Transport = c.transport
	wrapped.Timeout = 0
	wrapped.CheckRedirect = c.checkRedirect(wrapped.CheckRedirect)
	return &wrapped
}

// CloseIdleConnections closes the idle connections of the client's transport.
func (c *Client) CloseIdleConnections() {
	type closeIdler interface{ CloseIdleConnections() }
	if t, ok := c.transport.next.(closeIdler); ok {
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
