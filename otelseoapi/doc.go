// Package otelseoapi reports what a seoapi.Client does to OpenTelemetry:
// a span for every call, a child span for every attempt and every wait for
// the rate limit, W3C trace context on every request, and metrics.
//
//	client, err := seoapi.NewClient(baseURL, key, seoapi.WithObserver(otelseoapi.NewObserver()))
//
// By default the observer uses the global TracerProvider, MeterProvider and
// TextMapPropagator (see WithTracerProvider, WithMeterProvider and
// WithPropagator). It is safe for concurrent use, and one observer can
// serve several clients. It is told the events beside the client's other
// observers (seoapi.WithLogger's, for one); of what a call does it changes
// only the trace headers each request carries.
//
// Only programs that import this package compile the OpenTelemetry
// dependencies; the seoapi package has none. Install it with
//
//	go get github.com/seoapi/seoapi-go/otelseoapi
//
// It needs Go 1.26 or later, as the OpenTelemetry modules it requires
// (v1.47) do.
//
// # Spans
//
// A call is one span of kind Client named by its route template, such as
// "GET /api/workspaces/{id}/projects", from the call's start (before any
// wait) to its end (after the last retry). Each attempt is a child span,
// also of kind Client because it is the HTTP request the semantic
// conventions describe, named "HTTP " followed by the route; its context
// is the one the server receives in the traceparent header, so the
// server's span is its child. Each wait for the rate limit is a child span
// of its attempt, of kind Internal, named "seoapi.limiter.wait".
//
// Attributes follow the stable HTTP semantic conventions: http.request.method,
// url.template, server.address, server.port, http.response.status_code,
// error.type, and http.request.resend_count on the second attempt and
// later. The SDK's own are seoapi.operation ("Projects.List") and
// seoapi.attempts on the call span, seoapi.retry.wait (seconds before the
// next attempt) on an attempt that is retried, and seoapi.wait.level
// ("per_second", "per_hour", "server" or "limiter") on a wait span. A
// method outside the HTTP standard (possible with Client.Do) is "_OTHER",
// with http.request.method_original on the spans only, and its spans are
// named "HTTP" and the template, as the conventions ask. A
// failed call, attempt or wait has status Error with its error.type as the
// description.
//
// No span name, attribute or metric attribute holds an ID: the observer
// never reads Event.URL and never records an error's message (both hold
// the request's path), and error.type is the kind of the error, such as
// "not_found" or "connection" (see seoapi.ErrorType).
//
// # Metrics
//
//	http.client.request.duration         histogram, s: each attempt that sent a request, limiter waits left out
//	seoapi.client.call.duration          histogram, s: each call, waits and retries included
//	seoapi.client.retries                counter: attempts followed by another attempt
//	seoapi.client.rate_limited           counter: responses with status 429
//	seoapi.client.limiter.wait.duration  histogram, s: each wait for the rate limit, per seoapi.wait.level
//
// Their attributes are the bounded ones above: http.request.method,
// url.template, server.address, server.port, http.response.status_code and
// error.type on the first three and seoapi.client.rate_limited, with
// seoapi.operation on seoapi.client.call.duration; seoapi.wait.level and
// error.type on the wait histogram. An attempt held back without being
// sent (its wait refused or cut short) is not in
// http.client.request.duration.
//
// # Trace context
//
// Every attempt carries the attempt span's context in the headers the
// propagator writes. With no WithPropagator option, the global propagator
// is used, and, as long as none has been set (the global one then writes
// nothing), W3C Trace Context: the server's traces join the caller's
// without further setup. To send no trace headers at all, give
// WithPropagator(propagation.NewCompositeTextMapPropagator()).
package otelseoapi
