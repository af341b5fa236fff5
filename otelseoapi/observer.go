package otelseoapi

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/seoapi/seoapi-go"
)

// ScopeName is the instrumentation scope of the spans and metrics this
// package reports: the package's import path.
const ScopeName = "github.com/seoapi/seoapi-go/otelseoapi"

// Option configures NewObserver.
type Option func(*config)

type config struct {
	tracerProvider trace.TracerProvider
	meterProvider  metric.MeterProvider
	propagator     propagation.TextMapPropagator
}

// WithTracerProvider makes the observer start its spans with tp. Without
// it, or with nil, the global TracerProvider is used (otel.GetTracerProvider).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tracerProvider = tp }
}

// WithMeterProvider makes the observer record its metrics with mp. Without
// it, or with nil, the global MeterProvider is used (otel.GetMeterProvider).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.meterProvider = mp }
}

// WithPropagator makes the observer write trace context into every request
// with p. Without it, or with nil, the global propagator is used, and W3C
// Trace Context while the global one writes nothing (none was set). Give
// propagation.NewCompositeTextMapPropagator() to send no trace headers.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.propagator = p }
}

// NewObserver returns a seoapi.Observer that reports every call of the
// client it is given to (with seoapi.WithObserver) as spans and metrics.
// It is safe for concurrent use; one observer can serve several clients.
func NewObserver(opts ...Option) seoapi.Observer {
	var c config
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	if c.tracerProvider == nil {
		c.tracerProvider = otel.GetTracerProvider()
	}
	if c.meterProvider == nil {
		c.meterProvider = otel.GetMeterProvider()
	}
	return &observer{
		tracer: c.tracerProvider.Tracer(ScopeName,
			trace.WithInstrumentationVersion(seoapi.Version),
			trace.WithSchemaURL(semconv.SchemaURL)),
		propagator: c.propagator,
		metrics: newInstruments(c.meterProvider.Meter(ScopeName,
			metric.WithInstrumentationVersion(seoapi.Version),
			metric.WithSchemaURL(semconv.SchemaURL))),
	}
}

// observer turns seoapi events into spans and metrics. Its per-call and
// per-attempt state travels in the contexts Observe returns.
type observer struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator // nil: the global one, or W3C Trace Context
	metrics    instruments
}

// Observe implements seoapi.Observer.
func (o *observer) Observe(ctx context.Context, e seoapi.Event) context.Context {
	switch e.Type {
	case seoapi.EventCallStart:
		return o.callStart(ctx, &e)
	case seoapi.EventAttemptStart:
		return o.attemptStart(ctx, &e)
	case seoapi.EventLimiterWait:
		o.limiterWait(ctx, &e)
	case seoapi.EventAttemptEnd:
		o.attemptEnd(ctx, &e)
	case seoapi.EventCallEnd:
		o.callEnd(ctx, &e)
	}
	return ctx
}

// inject writes the trace context of ctx into h with the configured
// propagator. A process that never set a global propagator gets W3C Trace
// Context rather than nothing, because joining the server's traces is the
// point of sending it.
func (o *observer) inject(ctx context.Context, h propagation.HeaderCarrier) {
	if h == nil {
		return
	}
	p := o.propagator
	if p == nil {
		p = otel.GetTextMapPropagator()
		if len(p.Fields()) == 0 {
			p = propagation.TraceContext{}
		}
	}
	p.Inject(ctx, h)
}
