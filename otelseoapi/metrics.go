package otelseoapi

import (
	"context"
	"errors"
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/semconv/v1.43.0/httpconv"

	"github.com/seoapi/seoapi-go"
)

// Names of the SDK's own metrics.
const (
	callDurationName = "seoapi.client.call.duration"
	retriesName      = "seoapi.client.retries"
	rateLimitedName  = "seoapi.client.rate_limited"
	waitDurationName = "seoapi.client.limiter.wait.duration"
)

// longBuckets extend the HTTP conventions' buckets (5 ms to 10 s) to an
// hour, because a call's retries and a wait for the hourly limit can take
// that long.
var longBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 300, 900, 3600}

// instruments are the metrics an observer records.
type instruments struct {
	requestDuration metric.Float64Histogram
	callDuration    metric.Float64Histogram
	retries         metric.Int64Counter
	rateLimited     metric.Int64Counter
	waitDuration    metric.Float64Histogram
}

// newInstruments creates the instruments on m. One that cannot be created
// is reported to the global error handler and replaced by a no-op, so that
// a metrics problem never stops the traces.
func newInstruments(m metric.Meter) instruments {
	var errs []error
	check := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	var in instruments
	d, err := httpconv.NewClientRequestDuration(m)
	check(err)
	in.requestDuration = d.Inst()
	in.callDuration, err = m.Float64Histogram(callDurationName,
		metric.WithDescription("Duration of seoapi calls, limiter waits and retries included."),
		metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(longBuckets...))
	check(err)
	in.retries, err = m.Int64Counter(retriesName,
		metric.WithDescription("Attempts the SDK followed with another attempt of the same call."),
		metric.WithUnit("{retry}"))
	check(err)
	in.rateLimited, err = m.Int64Counter(rateLimitedName,
		metric.WithDescription("Responses with status 429 Too Many Requests."),
		metric.WithUnit("{response}"))
	check(err)
	in.waitDuration, err = m.Float64Histogram(waitDurationName,
		metric.WithDescription("Time requests waited for the rate limit before being sent."),
		metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(longBuckets...))
	check(err)
	if len(errs) > 0 {
		otel.Handle(errors.Join(errs...))
		in.fillNoop()
	}
	return in
}

// fillNoop replaces the instruments a failed creation left nil.
func (in *instruments) fillNoop() {
	var m noop.Meter
	if in.requestDuration == nil {
		in.requestDuration, _ = m.Float64Histogram("")
	}
	if in.callDuration == nil {
		in.callDuration, _ = m.Float64Histogram("")
	}
	if in.retries == nil {
		in.retries, _ = m.Int64Counter("")
	}
	if in.rateLimited == nil {
		in.rateLimited, _ = m.Int64Counter("")
	}
	if in.waitDuration == nil {
		in.waitDuration, _ = m.Float64Histogram("")
	}
}

// recordAttempt records an attempt's HTTP request duration, without the
// time it spent waiting for the rate limit, and counts it as a retry or a
// 429. An attempt held back without being sent (its wait was cut short, or
// refused: ErrRateLimited with no status) is no HTTP request and is not in
// http.client.request.duration.
func (in *instruments) recordAttempt(ctx context.Context, e *seoapi.Event, errType string, a *attempt) {
	attrs := responseAttrs(requestAttrs(e), e.StatusCode, errType)
	opt := metric.WithAttributeSet(attribute.NewSet(attrs...))
	if sent(e, errType, a) {
		d := e.Duration
		if a != nil {
			d -= a.waited
		}
		in.requestDuration.Record(ctx, max(d, 0).Seconds(), opt)
	}
	if e.Retry {
		in.retries.Add(ctx, 1, opt)
	}
	if e.StatusCode == http.StatusTooManyRequests {
		in.rateLimited.Add(ctx, 1, opt)
	}
}

// sent reports whether the attempt sent a request.
func sent(e *seoapi.Event, errType string, a *attempt) bool {
	if e.StatusCode != 0 {
		return true
	}
	if a != nil && a.held {
		return false
	}
	return errType != "rate_limited"
}

func (in *instruments) recordCall(ctx context.Context, e *seoapi.Event, errType string) {
	attrs := responseAttrs(requestAttrs(e, keyOperation.String(e.Operation)), e.StatusCode, errType)
	in.callDuration.Record(ctx, e.Duration.Seconds(), metric.WithAttributeSet(attribute.NewSet(attrs...)))
}

func (in *instruments) recordWait(ctx context.Context, e *seoapi.Event, errType string) {
	attrs := []attribute.KeyValue{keyWaitLevel.String(string(e.Level))}
	if errType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
	}
	in.waitDuration.Record(ctx, e.Duration.Seconds(), metric.WithAttributeSet(attribute.NewSet(attrs...)))
}

// responseAttrs adds the status code and error type, when set, to attrs.
func responseAttrs(attrs []attribute.KeyValue, status int, errType string) []attribute.KeyValue {
	if status != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(status))
	}
	if errType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
	}
	return attrs
}
