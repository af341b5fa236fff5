package otelseoapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/otelseoapi"
	"github.com/seoapi/seoapi-go/seoapitest"
)

// Example reports a call that the fake API answers 503 once: a call span,
// one child span per attempt, and the metrics. A program gives its
// TracerProvider and MeterProvider the same way, or none to use the global
// ones.
func Example() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ws := fake.AddWorkspace("Acme")
	fake.AddProject(ws, "Shop", "shop.example")
	fake.FailNext(1, http.StatusServiceUnavailable, http.Header{"Retry-After": {"0"}})

	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	metrics := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(metrics))

	c, err := seoapi.NewClient(srv.URL, fake.Key(),
		seoapi.WithObserver(otelseoapi.NewObserver(
			otelseoapi.WithTracerProvider(tp),
			otelseoapi.WithMeterProvider(mp),
		)),
		seoapi.WithRetryWait(time.Millisecond, 10*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	projects, _, err := c.Projects.List(context.Background(), ws, nil)
	fmt.Println("projects:", len(projects), "error:", err)

	printSpans(spans.Ended())
	for _, r := range fake.Requests() {
		fmt.Println("server got", r.Method, r.Status, "with a traceparent:", r.Header.Get("Traceparent") != "")
	}
	printMetrics(metrics)
	// Output:
	// projects: 1 error: <nil>
	// GET /api/workspaces/{id}/projects seoapi.attempts=2 http.response.status_code=200
	//   HTTP GET /api/workspaces/{id}/projects http.response.status_code=503 error.type=server
	//   HTTP GET /api/workspaces/{id}/projects http.response.status_code=200 http.request.resend_count=1
	// server got GET 503 with a traceparent: true
	// server got GET 200 with a traceparent: true
	// http.client.request.duration: 2
	// seoapi.client.call.duration: 1
	// seoapi.client.retries: 1
}

// printSpans prints spans as a tree, children in order of start, each
// with the attributes that tell calls, attempts and waits apart.
func printSpans(spans []sdktrace.ReadOnlySpan) {
	slices.SortStableFunc(spans, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	ids := map[trace.SpanID]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID()] = true
	}
	children := map[trace.SpanID][]sdktrace.ReadOnlySpan{}
	var roots []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if p := s.Parent().SpanID(); ids[p] {
			children[p] = append(children[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	var show func(s sdktrace.ReadOnlySpan, depth int)
	show = func(s sdktrace.ReadOnlySpan, depth int) {
		line := strings.Repeat("  ", depth) + s.Name()
		for _, key := range []attribute.Key{"seoapi.attempts", "http.response.status_code", "error.type", "http.request.resend_count", "seoapi.wait.level"} {
			for _, kv := range s.Attributes() {
				if kv.Key == key {
					line += " " + string(kv.Key) + "=" + kv.Value.String()
				}
			}
		}
		fmt.Println(line)
		for _, c := range children[s.SpanContext().SpanID()] {
			show(c, depth+1)
		}
	}
	for _, r := range roots {
		show(r, 0)
	}
}

// printMetrics prints how many values each metric recorded.
func printMetrics(r *sdkmetric.ManualReader) {
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		fmt.Println(err)
		return
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			var n uint64
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					n += dp.Count
				}
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					n += uint64(dp.Value)
				}
			}
			fmt.Printf("%s: %d\n", m.Name, n)
		}
	}
}

// WithPropagator chooses the trace headers each request carries: here
// none at all, for a server that must not see the caller's traces.
func ExampleWithPropagator() {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	tp := sdktrace.NewTracerProvider()
	obs := otelseoapi.NewObserver(
		otelseoapi.WithTracerProvider(tp),
		otelseoapi.WithPropagator(propagation.NewCompositeTextMapPropagator()),
	)
	c, err := seoapi.NewClient(srv.URL, fake.Key(), seoapi.WithObserver(obs))
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, _, err := c.Workspaces.List(context.Background(), nil); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("traceparent sent:", fake.Requests()[0].Header.Get("Traceparent") != "")
	// Output: traceparent sent: false
}
