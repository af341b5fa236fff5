package otelseoapi_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/otelseoapi"
)

// harness is an observer whose spans and metrics stay in memory.
type harness struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
	obs    seoapi.Observer
}

func newHarness(t *testing.T, opts ...otelseoapi.Option) *harness {
	t.Helper()
	h := &harness{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	h.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	t.Cleanup(func() {
		assert.NoError(t, h.tp.Shutdown(context.Background()))
		assert.NoError(t, mp.Shutdown(context.Background()))
	})
	h.obs = otelseoapi.NewObserver(append([]otelseoapi.Option{
		otelseoapi.WithTracerProvider(h.tp), otelseoapi.WithMeterProvider(mp),
	}, opts...)...)
	return h
}

// observe hands e to the observer, as the SDK does.
func (h *harness) observe(ctx context.Context, e seoapi.Event) context.Context {
	return h.obs.Observe(ctx, e)
}

// ended returns the ended spans by name, each list in order of start.
func (h *harness) ended() map[string][]sdktrace.ReadOnlySpan {
	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range h.spans.Ended() {
		byName[s.Name()] = append(byName[s.Name()], s)
	}
	for _, list := range byName {
		slices.SortStableFunc(list, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	}
	return byName
}

// one returns the only span named name.
func one(t *testing.T, spans map[string][]sdktrace.ReadOnlySpan, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	require.Len(t, spans[name], 1, "spans named %q", name)
	return spans[name][0]
}

// traceparent is the W3C traceparent header of a sampled span.
func traceparent(s sdktrace.ReadOnlySpan) string {
	return "00-" + s.SpanContext().TraceID().String() + "-" + s.SpanContext().SpanID().String() + "-01"
}

// point is a metric's value for one attribute set: a histogram's count and
// sum, or a counter's value as count.
type point struct {
	Count uint64
	Sum   float64
}

// metrics collects the metrics as name -> encoded attribute set -> point.
func (h *harness) metrics(t *testing.T) map[string]map[string]point {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, h.reader.Collect(context.Background(), &rm))
	out := map[string]map[string]point{}
	for _, sm := range rm.ScopeMetrics {
		assert.Equal(t, otelseoapi.ScopeName, sm.Scope.Name)
		assert.Equal(t, seoapi.Version, sm.Scope.Version)
		for _, m := range sm.Metrics {
			points := map[string]point{}
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					points[encode(dp.Attributes)] = point{Count: dp.Count, Sum: dp.Sum}
				}
			case metricdata.Sum[int64]:
				assert.True(t, d.IsMonotonic, m.Name)
				for _, dp := range d.DataPoints {
					points[encode(dp.Attributes)] = point{Count: uint64(dp.Value)}
				}
			default:
				t.Fatalf("metric %s: unexpected aggregation %T", m.Name, m.Data)
			}
			out[m.Name] = points
		}
	}
	return out
}

// assertPoints compares histogram points, sums to the microsecond.
func assertPoints(t *testing.T, want, got map[string]point) {
	t.Helper()
	require.Equal(t, counts(want), counts(got))
	for k, p := range want {
		assert.InDelta(t, p.Sum, got[k].Sum, 1e-6, k)
	}
}

// counts drops the sums, for metrics of real calls whose durations vary.
func counts(points map[string]point) map[string]uint64 {
	out := make(map[string]uint64, len(points))
	for k, p := range points {
		out[k] = p.Count
	}
	return out
}

func encode(s attribute.Set) string { return s.Encoded(attribute.DefaultEncoder()) }

// attrs returns a span's attributes as a map, for exact comparison.
func attrs(s sdktrace.ReadOnlySpan) map[string]any {
	m := map[string]any{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

// assertNoIDs fails if any span name, attribute, event, status description
// or metric attribute holds one of ids.
func assertNoIDs(t *testing.T, h *harness, ids ...string) {
	t.Helper()
	var texts []string
	for _, s := range h.spans.Ended() {
		texts = append(texts, s.Name(), s.Status().Description)
		for _, kv := range s.Attributes() {
			texts = append(texts, kv.Value.String())
		}
		for _, ev := range s.Events() {
			texts = append(texts, ev.Name)
			for _, kv := range ev.Attributes {
				texts = append(texts, kv.Value.String())
			}
		}
	}
	for _, points := range h.metrics(t) {
		for set := range points {
			texts = append(texts, set)
		}
	}
	require.NotEmpty(t, texts)
	for _, text := range texts {
		for _, id := range ids {
			assert.False(t, strings.Contains(text, id), "%q holds the ID %q", text, id)
		}
	}
}
