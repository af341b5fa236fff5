package seoapi

import (
	"context"
	"time"
)

// RefuseWait is for Limiter implementations: it returns the error a
// Limiter gives when it will not wait d, an *APIError matching
// ErrRateLimited with StatusCode 0 and RetryAfter d. The client fills in
// its Method, URL and Attempts, so a Limiter returns a new one for each
// refusal, never a value it shares. reason is the message; it should
// begin with the limit that asked for the wait, such as "fleet limit".
func RefuseWait(d time.Duration, reason string) *APIError {
	return &APIError{Message: reason, RetryAfter: d, kind: ErrRateLimited}
}

// CheckWait is for Limiter implementations: it tells a Limiter whether it
// may wait d before letting a request go. It returns ctx's error when ctx
// has ended; nil when d is at most the max wait and ends before ctx's
// deadline; and otherwise a RefuseWait error with reason and the bound d
// broke. The max wait is the calling client's WithMaxWait (DefaultMaxWait
// outside a Client), or maxWait, the limiter's own, when positive and smaller.
func CheckWait(ctx context.Context, d, maxWait time.Duration, reason string) error {
	return maxWaitLimit{client: clientMaxWait(ctx), own: maxWait, ownName: "the limiter's own"}.check(ctx, d, time.Now(), reason)
}

// maxWaitKey is the context key under which a client gives a Limiter its
// max wait, for CheckWait.
type maxWaitKey struct{}

// clientMaxWait returns the calling client's max wait, or DefaultMaxWait
// outside a Client.
func clientMaxWait(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(maxWaitKey{}).(time.Duration); ok {
		return d
	}
	return DefaultMaxWait
}

// maxWaitLimit bounds one wait by the smaller of the client's max wait and
// a limiter's own (0: none), named ownName; a tie names the client's.
type maxWaitLimit struct {
	client, own time.Duration
	ownName     string
}

// check refuses a wait of d from now that is longer than the limit or
// would end after ctx's deadline.
func (m maxWaitLimit) check(ctx context.Context, d time.Duration, now time.Time, reason string) error {
	if d <= 0 {
		return ctx.Err()
	}
	limit, name := m.client, "WithMaxWait"
	if m.own > 0 && m.own < m.client {
		limit, name = m.own, m.ownName
	}
	if d > limit {
		return RefuseWait(d, reason+": wait of "+d.String()+" exceeds the max wait of "+limit.String()+" ("+name+")")
	}
	if deadline, ok := ctx.Deadline(); ok && now.Add(d).After(deadline) {
		return RefuseWait(d, reason+": wait of "+d.String()+" would end after the context's deadline")
	}
	return ctx.Err()
}

// sleep waits for d or until ctx ends, whichever is first.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
