package otelseoapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/seoapi/seoapi-go"
)

// Attribute keys of the SDK's own attributes.
const (
	keyOperation  = attribute.Key("seoapi.operation")
	keyAttempts   = attribute.Key("seoapi.attempts")
	keyWaitLevel  = attribute.Key("seoapi.wait.level")
	keyRetryWait  = attribute.Key("seoapi.retry.wait")
	waitSpanName  = "seoapi.limiter.wait"
	attemptPrefix = "HTTP "
)

// The context keys are per observer, so that two observers on one client
// (say, two TracerProviders) never take each other's spans.
type (
	callKey    struct{ o *observer }
	attemptKey struct{ o *observer }
)

// attempt is what the observer keeps for an attempt in flight. The events
// of one attempt come one after another, so it needs no lock.
type attempt struct {
	span   trace.Span
	waited time.Duration // the limiter waits reported so far
	held   bool          // a wait ended in an error: nothing was sent
}

// callStart starts the call span as a child of whatever span the caller's
// context holds.
func (o *observer) callStart(ctx context.Context, e *seoapi.Event) context.Context {
	ctx, span := o.tracer.Start(ctx, spanName(e),
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(startOf(e)),
		trace.WithAttributes(spanAttrs(e, keyOperation.String(e.Operation))...))
	return context.WithValue(ctx, callKey{o}, span)
}

// attemptStart starts the attempt span under this observer's call span,
// even when another observer put its own span in ctx since, and writes its
// context into the attempt's headers.
func (o *observer) attemptStart(ctx context.Context, e *seoapi.Event) context.Context {
	parent := ctx
	if call, ok := ctx.Value(callKey{o}).(trace.Span); ok {
		parent = trace.ContextWithSpan(ctx, call)
	}
	attrs := spanAttrs(e)
	if e.Attempt > 1 {
		attrs = append(attrs, semconv.HTTPRequestResendCount(e.Attempt-1))
	}
	ctx, span := o.tracer.Start(parent, attemptName(e),
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(startOf(e)),
		trace.WithAttributes(attrs...))
	o.inject(ctx, propagation.HeaderCarrier(e.Header))
	return context.WithValue(ctx, attemptKey{o}, &attempt{span: span})
}

// limiterWait reports a wait that is over, so its span is started and
// ended at once, with the times the event gives.
func (o *observer) limiterWait(ctx context.Context, e *seoapi.Event) {
	errType := errorType(e)
	o.metrics.recordWait(ctx, e, errType)
	a, ok := ctx.Value(attemptKey{o}).(*attempt)
	if !ok {
		return
	}
	a.waited += e.Duration
	if errType != "" {
		a.held = true
	}
	start := startOf(e)
	_, span := o.tracer.Start(trace.ContextWithSpan(ctx, a.span), waitSpanName,
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(start),
		trace.WithAttributes(keyWaitLevel.String(string(e.Level))))
	endSpan(span, errType, start.Add(e.Duration))
}

func (o *observer) attemptEnd(ctx context.Context, e *seoapi.Event) {
	errType := errorType(e)
	a, _ := ctx.Value(attemptKey{o}).(*attempt)
	o.metrics.recordAttempt(ctx, e, errType, a)
	if a == nil {
		return
	}
	if e.StatusCode != 0 {
		a.span.SetAttributes(semconv.HTTPResponseStatusCode(e.StatusCode))
	}
	if e.Retry {
		a.span.SetAttributes(keyRetryWait.Float64(e.RetryWait.Seconds()))
	}
	endSpan(a.span, errType, endOf(e))
}

func (o *observer) callEnd(ctx context.Context, e *seoapi.Event) {
	errType := errorType(e)
	o.metrics.recordCall(ctx, e, errType)
	span, ok := ctx.Value(callKey{o}).(trace.Span)
	if !ok {
		return
	}
	if e.StatusCode != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(e.StatusCode))
	}
	span.SetAttributes(keyAttempts.Int(e.Attempt))
	endSpan(span, errType, endOf(e))
}

// endSpan ends span at end, with status Error and error.type when errType
// is set. The description is the error type, not the error's message: the
// message holds the request's URL, and with it IDs.
func endSpan(span trace.Span, errType string, end time.Time) {
	if errType != "" {
		span.SetAttributes(semconv.ErrorTypeKey.String(errType))
		span.SetStatus(codes.Error, errType)
	}
	span.End(trace.WithTimestamp(end))
}

// requestAttrs returns the attributes every span and metric of a request
// has, followed by extra.
func requestAttrs(e *seoapi.Event, extra ...attribute.KeyValue) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 6+len(extra))
	attrs = append(attrs, method(e.Method), semconv.URLTemplate(urlTemplate(e.Route)))
	if e.ServerAddress != "" {
		attrs = append(attrs, semconv.ServerAddress(e.ServerAddress))
	}
	if e.ServerPort != 0 {
		attrs = append(attrs, semconv.ServerPort(e.ServerPort))
	}
	return append(attrs, extra...)
}

// spanAttrs are requestAttrs and, for a method outside the HTTP standard,
// http.request.method_original: a span may name it, a metric may not, to
// stay bounded.
func spanAttrs(e *seoapi.Event, extra ...attribute.KeyValue) []attribute.KeyValue {
	attrs := requestAttrs(e, extra...)
	if method(e.Method).Value.AsString() == otherMethod {
		attrs = append(attrs, semconv.HTTPRequestMethodOriginal(e.Method))
	}
	return attrs
}

// spanName is "{method} {url.template}" as the HTTP conventions name
// client spans, which is the route: "GET /api/workspaces/{id}/projects".
// A method outside the HTTP standard becomes "HTTP", as they ask.
func spanName(e *seoapi.Event) string {
	m := method(e.Method).Value.AsString()
	if m == otherMethod {
		m = "HTTP"
	}
	return m + " " + urlTemplate(e.Route)
}

// attemptName is "HTTP " and the route: "HTTP GET /api/workspaces/{id}".
// For a method outside the standard it is the call span's name, which
// already starts with "HTTP".
func attemptName(e *seoapi.Event) string {
	if method(e.Method).Value.AsString() == otherMethod {
		return spanName(e)
	}
	return attemptPrefix + spanName(e)
}

// urlTemplate is the path template of a route "GET /api/...".
func urlTemplate(route string) string {
	for i := 0; i < len(route); i++ {
		if route[i] == ' ' {
			return route[i+1:]
		}
	}
	return route
}

const otherMethod = "_OTHER"

// method is the http.request.method attribute: a method outside the HTTP
// standard is "_OTHER", so that the attribute stays bounded.
func method(m string) attribute.KeyValue {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return semconv.HTTPRequestMethodKey.String(m)
	}
	return semconv.HTTPRequestMethodKey.String(otherMethod)
}

// errorType is the event's error.type: the SDK's kind of the error, or the
// status code of a failed response the SDK gave no kind.
func errorType(e *seoapi.Event) string {
	switch {
	case e.ErrorType != "":
		return e.ErrorType
	case e.Err != nil:
		return seoapi.ErrorType(e.Err)
	case e.StatusCode >= 400:
		return strconv.Itoa(e.StatusCode)
	}
	return ""
}

// startOf is when the event's call, attempt or wait began; now if the
// event does not say.
func startOf(e *seoapi.Event) time.Time {
	if e.Start.IsZero() {
		return time.Now().Add(-e.Duration)
	}
	return e.Start
}

// endOf is when the event's call or attempt ended.
func endOf(e *seoapi.Event) time.Time {
	return startOf(e).Add(e.Duration)
}
