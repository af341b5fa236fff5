package seoapi

import (
	"cmp"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Option configures a Client, or a view of one (Client.With).
type Option func(*clientConfig)

type clientConfig struct {
	settings
	httpClient   *http.Client
	insecureHTTP bool
	rateLimit    rateLimitConfig
	err          error // the first error an option found
}

// settings are what the options a view may take set, for a client or one
// view of it.
type settings struct {
	userAgent        string      // WithUserAgent, sent before "seoapi-go/<version>"
	header           http.Header // WithHeader; copied before a view adds to it
	maxResponseBytes int64
	maxItems         int // 0: derived from maxResponseBytes
	retry            retryPolicy
	attemptTimeout   time.Duration // negative: not given (the HTTP client's Timeout)
	observers        []Observer
}

// option returns an Option that applies set when ok, and otherwise fails
// NewClient or With with ErrInvalidArgument and the message of format.
func option(ok bool, set func(*clientConfig), format string, args ...any) Option {
	return func(cfg *clientConfig) {
		if !ok {
			cfg.err = cmp.Or(cfg.err, invalidArgument(format, args...))
			return
		}
		set(cfg)
	}
}

// With returns a view of c: a client that shares c's transport and its
// connections, its limiter (built-in or a fleet's) and the server's hold,
// its key, observers and logger, and differs only in opts. A view can be
// derived again; c is never changed. A view is safe for concurrent use and
// cheap enough to make for one call.
//
// With takes WithMaxWait, WithMaxRetries, WithRetryWait, WithReserve,
// WithUserAgent, WithLogger, WithObserver, WithMaxResponseBytes,
// WithMaxItems, WithHeader and WithAttemptTimeout. A logger given replaces
// c's logger for the view; an observer given is told beside c's. Options
// that would replace what a view shares (WithHTTPClient, WithLimiter,
// WithRateLimit, WithoutRateLimit, WithInsecureHTTP), and invalid values,
// fail with ErrInvalidArgument and a nil view.
func (c *Client) With(opts ...Option) (*Client, error) {
	cfg := clientConfig{settings: c.settings, rateLimit: rateLimitConfig{reserve: noReserve}}
	cfg.observers = slices.Clip(cfg.observers) // an observer added is not added to c
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	rl := cfg.rateLimit
	switch {
	case cfg.err != nil:
		return nil, cfg.err
	case cfg.httpClient != nil || cfg.insecureHTTP || rl.limiter != nil || rl.limits || rl.off:
		return nil, invalidArgument("With: WithHTTPClient, WithLimiter, WithRateLimit, WithoutRateLimit and WithInsecureHTTP replace what a view shares with its client; give them to NewClient")
	}
	v := *c
	v.settings = cfg.settings
	if rl.reserve != noReserve {
		l, err := withReserve(c.limiter, rl.reserve.perHour, rl.reserve.perSecond)
		if err != nil {
			return nil, err
		}
		v.limiter = l
	}
	v.setSettings()
	return &v, nil
}

// noReserve marks a view not given WithReserve: it keeps its client's.
var noReserve = windowReserve{perHour: -1, perSecond: -1}

// WithHTTPClient makes the Client send through hc's transport, redirect
// check and cookie jar, under its rate limiter; hc itself is not changed.
// hc's Timeout bounds each attempt, as WithAttemptTimeout does.
func WithHTTPClient(hc *http.Client) Option {
	return option(hc != nil, func(cfg *clientConfig) { cfg.httpClient = hc }, "WithHTTPClient: nil *http.Client")
}

// WithUserAgent puts ua in front of the SDK's own User-Agent, so the server
// sees "ua seoapi-go/<version>".
func WithUserAgent(ua string) Option {
	return option(!strings.ContainsFunc(ua, isControl), func(cfg *clientConfig) { cfg.userAgent = strings.TrimSpace(ua) },
		"WithUserAgent: user agent contains control characters")
}

// WithHeader sends the header key: value on every request of the client or
// view, such as a job ID or a tracing tag. Headers add up along a chain of
// views: a name given again gets another value. The SDK puts the value in
// no log record, error or observer event; it is not a secret the redactor
// withholds when a server echoes it back. Headers the SDK or the connection
// owns (Authorization, Content-Type, Content-Length, Accept, User-Agent,
// Host, Cookie, Connection and the other hop-by-hop headers), an invalid
// name, and a value with a control character other than tab fail with
// ErrInvalidArgument.
func WithHeader(key, value string) Option {
	name := http.CanonicalHeaderKey(key)
	ok := validHeaderName(key) && !reserved(name) && !hopByHop(name) && !strings.ContainsFunc(value, func(r rune) bool { return isControl(r) && r != '\t' })
	return option(ok, func(cfg *clientConfig) {
		cfg.header = cfg.header.Clone()
		if cfg.header == nil {
			cfg.header = http.Header{}
		}
		cfg.header[name] = append(cfg.header[name], value)
	}, "WithHeader(%q): a header the SDK or the connection owns, an invalid name, or a value with CR, LF or NUL", key)
}

// validHeaderName reports a header name made of RFC 9110 token characters.
func validHeaderName(name string) bool {
	const tokenChars = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	return name != "" && strings.Trim(name, tokenChars) == ""
}

// hopByHop reports a header that belongs to one connection, not to the request.
func hopByHop(name string) bool {
	return slices.Contains([]string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
		"Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}, name)
}

// WithAttemptTimeout bounds one attempt: the longest it may take to get its
// whole answer, body included, after the limiter's turn (0, the default:
// no bound). An attempt that runs out fails as ErrConnection, not with the
// caller's context: a read is retried; a POST or PATCH that may have
// reached the server is not, and also matches ErrOutcomeUnknown. The
// context still bounds the whole call. It replaces the Timeout of an HTTP
// client given with WithHTTPClient; d must not be negative.
func WithAttemptTimeout(d time.Duration) Option {
	return option(d >= 0, func(cfg *clientConfig) { cfg.attemptTimeout = d }, "WithAttemptTimeout(%s): negative", d)
}

// WithLogger makes the SDK log each attempt at Debug and long waits at Warn
// to l, an Observer like any other (see WithObserver); without it, or with a
// nil l, it logs nothing. Records never hold a header, a body or the API key.
// Given to With, l replaces the client's logger for the view; the client's
// other observers stay.
func WithLogger(l *slog.Logger) Option {
	return func(cfg *clientConfig) {
		isLogger := func(o Observer) bool { _, ok := o.(slogObserver); return ok }
		cfg.observers = slices.DeleteFunc(slices.Clone(cfg.observers), isLogger)
		if l != nil {
			cfg.observers = append(cfg.observers, slogObserver{l})
		}
	}
}

// WithMaxResponseBytes caps how much of a response body the SDK reads; a
// larger body fails the call. The default is 32 MiB.
func WithMaxResponseBytes(n int64) Option {
	return option(n > 0, func(cfg *clientConfig) { cfg.maxResponseBytes = n },
		"WithMaxResponseBytes: %d is not positive", n)
}

// WithInsecureHTTP allows a plain http base URL whose host is not loopback.
// The API key then crosses the network unencrypted.
func WithInsecureHTTP() Option {
	return func(cfg *clientConfig) { cfg.insecureHTTP = true }
}

// WithMaxRetries sets how many times a call is retried after its first
// attempt (default 3); 0 turns retrying off.
func WithMaxRetries(n int) Option {
	return option(n >= 0, func(cfg *clientConfig) { cfg.retry.maxRetries = n }, "WithMaxRetries(%d): negative", n)
}

// WithRetryWait bounds the backoff between retries when the server does
// not say how long to wait (default 500ms to 8s).
func WithRetryWait(min, max time.Duration) Option {
	return option(min >= 0 && max >= min, func(cfg *clientConfig) { cfg.retry.waitMin, cfg.retry.waitMax = min, max },
		"WithRetryWait(%s, %s): need 0 <= min <= max", min, max)
}

// WithMaxWait sets the longest single wait the SDK accepts, whichever
// limiter is behind the client (without it, the limiter's own bound or
// DefaultMaxWait). A wait for the limiter or the server's hold that would
// be longer fails the call at once, nothing sent, with ErrRateLimited. A
// retry that would wait longer is not made: the call ends with the answer
// it got, such as a 429 (ErrRateLimited) or a 503 (ErrServer), with
// RetryAfter the wait refused.
func WithMaxWait(d time.Duration) Option {
	return option(d >= 0, func(cfg *clientConfig) { cfg.retry.maxWait = d }, "WithMaxWait(%s): negative", d)
}

// WithObserver adds o to the observers told about every call (see
// Observer). Several can be given; each is told in the order given.
func WithObserver(o Observer) Option {
	return option(o != nil, func(cfg *clientConfig) { cfg.observers = append(cfg.observers, o) },
		"WithObserver: nil Observer")
}

// WithMaxItems caps the elements the SDK decodes from one list response (one
// page): a list's resources (nulls skipped) or the elements Client.Do decodes
// into a slice. A 2xx list with more fails with ErrUnexpectedResponse; n must
// be positive. The default, one item per 128 bytes of WithMaxResponseBytes
// (262 144 at 32 MiB), keeps decoding into the SDK's types within 5 times the
// response cap whatever a 2xx body holds (docs/decoding.md); a larger n lets
// a list of small items take more.
func WithMaxItems(n int) Option {
	return option(n > 0, func(cfg *clientConfig) { cfg.maxItems = n }, "WithMaxItems: %d is not positive", n)
}

// rateLimitConfig is what the limiter options chose.
type rateLimitConfig struct {
	limiter            Limiter // WithLimiter
	perHour, perSecond int
	limits, off        bool          // WithRateLimit, WithoutRateLimit given
	reserve            windowReserve // WithReserve
}

func defaultRateLimitConfig() rateLimitConfig {
	return rateLimitConfig{perHour: DefaultRequestsPerHour, perSecond: DefaultRequestsPerSecond}
}

// check refuses options that contradict each other, whatever their order,
// and a reserve the client's limiter cannot keep.
func (rl *rateLimitConfig) check() error {
	if rl.limiter != nil && (rl.limits || rl.off) || rl.limits && rl.off {
		return invalidArgument("conflicting limiter options: give one of WithLimiter, WithRateLimit and WithoutRateLimit")
	}
	if rl.reserve == (windowReserve{}) {
		return nil
	}
	_, err := withReserve(newAttemptLimiter(*rl, time.Now), rl.reserve.perHour, rl.reserve.perSecond)
	return err
}

// WithRateLimit sets the built-in limiter's limits: at most perHour requests
// in any rolling hour and perSecond in any rolling second (default: the
// published 10 000 and 50). It excludes WithLimiter and WithoutRateLimit.
func WithRateLimit(perHour, perSecond int) Option {
	return option(perHour > 0 && perSecond > 0, func(cfg *clientConfig) {
		cfg.rateLimit.perHour, cfg.rateLimit.perSecond, cfg.rateLimit.limits = perHour, perSecond, true
	}, "WithRateLimit(%d, %d): limits must be positive", perHour, perSecond)
}

// WithLimiter replaces the built-in limiter with l, such as one shared by
// every client of the key (NewLimiter) or a fleet's (redislimit). Any two of
// WithLimiter, WithRateLimit and WithoutRateLimit fail NewClient with
// ErrInvalidArgument.
func WithLimiter(l Limiter) Option {
	return option(l != nil, func(cfg *clientConfig) { cfg.rateLimit.limiter = l }, "WithLimiter: nil Limiter")
}

// WithoutRateLimit turns the client-side limiter off. The server's hold
// (a rate-limit Remaining of 0, Retry-After on a 429) is still kept. It
// excludes WithLimiter and WithRateLimit.
func WithoutRateLimit() Option {
	return func(cfg *clientConfig) { cfg.rateLimit.off = true }
}

// WithReserve makes this client leave perHour requests of the rolling
// hour and perSecond of the rolling second to the other clients sharing
// its limiter (NewLimiter), for batch work beside a service on the same
// key: a request goes only while, after it, that many slots stay free.
// Otherwise it waits, without keeping the others waiting, or fails at
// once with ErrRateLimited when the wait is longer than the max wait.
// Client.Budget then reports the limits less the reserve. A negative
// value, a reserve as large as the limit, WithoutRateLimit, or a Limiter
// other than NewLimiter's fails NewClient with ErrInvalidArgument.
func WithReserve(perHour, perSecond int) Option {
	return option(perHour >= 0 && perSecond >= 0, func(cfg *clientConfig) {
		cfg.rateLimit.reserve = windowReserve{perHour: perHour, perSecond: perSecond}
	}, "WithReserve(%d, %d): a reserve cannot be negative", perHour, perSecond)
}
