package seoapi

import (
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Option configures a Client.
type Option func(*clientConfig)

type clientConfig struct {
	httpClient       *http.Client
	userAgent        string
	maxResponseBytes int64
	maxItems         int // 0: derived from maxResponseBytes
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

// WithMaxRetries sets how many times a call is retried after its first
// attempt (default 3); 0 turns retrying off.
func WithMaxRetries(n int) Option {
	return func(cfg *clientConfig) {
		if n < 0 {
			cfg.reject("WithMaxRetries(%d): negative", n)
			return
		}
		cfg.retry.maxRetries = n
	}
}

// WithRetryWait bounds the backoff between retries when the server does
// not say how long to wait (default 500ms to 8s).
func WithRetryWait(min, max time.Duration) Option {
	return func(cfg *clientConfig) {
		if min < 0 || max < min {
			cfg.reject("WithRetryWait(%s, %s): need 0 <= min <= max", min, max)
			return
		}
		cfg.retry.waitMin, cfg.retry.waitMax = min, max
	}
}

// WithMaxWait sets the longest single wait the SDK accepts (default 60s).
// A wait for the limiter or the server's hold that would be longer fails
// the call at once, nothing sent, with ErrRateLimited. A retry whose wait
// would be longer is not made: the call ends with the answer it got, such
// as a 429 (ErrRateLimited) or a 503 (ErrServer), with RetryAfter set to
// the wait refused.
func WithMaxWait(d time.Duration) Option {
	return func(cfg *clientConfig) {
		if d < 0 {
			cfg.reject("WithMaxWait(%s): negative", d)
			return
		}
		cfg.retry.maxWait = d
	}
}

// WithObserver adds o to the observers told about every call (see
// Observer). Several can be given; each is told in the order given.
func WithObserver(o Observer) Option {
	return func(cfg *clientConfig) {
		if o == nil {
			cfg.reject("WithObserver: nil Observer")
			return
		}
		cfg.observers = append(cfg.observers, o)
	}
}
