// Command otel shows what otelseoapi reports: it runs a short session
// against the in-process fake API (seoapitest) and prints the spans, as a
// tree, and the metrics. The session creates a project, lists projects
// through one 503 that the SDK retries, updates a project that does not
// exist (404), and lists members; the client allows 3 requests a second,
// so one attempt waits for the limiter.
//
//	go run ./otelseoapi/examples/otel
//
// A service would install its providers and propagator once, globally
// (otel.SetTracerProvider, otel.SetMeterProvider, otel.SetTextMapPropagator),
// and give seoapi.WithObserver(otelseoapi.NewObserver()) with no options.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/otelseoapi"
	"github.com/seoapi/seoapi-go/seoapitest"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "otel:", err)
		cancel()
		os.Exit(1)
	}
}

// run does the session and prints what the observer reported to out.
func run(ctx context.Context, out io.Writer) error {
	fake := seoapitest.New()
	srv := httptest.NewServer(fake)
	defer srv.Close()

	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	metrics := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(metrics))
	defer func() { _ = mp.Shutdown(context.Background()) }()

	client, err := seoapi.NewClient(srv.URL, fake.Key(),
		seoapi.WithObserver(otelseoapi.NewObserver(
			otelseoapi.WithTracerProvider(tp),
			otelseoapi.WithMeterProvider(mp),
		)),
		seoapi.WithRateLimit(seoapi.DefaultRequestsPerHour, 3),
		seoapi.WithRetryWait(10*time.Millisecond, 50*time.Millisecond),
	)
	if err != nil {
		return err
	}

	// The application's own span: the SDK's spans become its children.
	ctx, span := tp.Tracer("example").Start(ctx, "sync shop")
	err = session(ctx, client, fake)
	span.End()
	if err != nil {
		return err
	}

	fmt.Fprintln(out, "Spans:")
	printSpans(out, spans.Ended())
	sent := 0
	for _, r := range fake.Requests() {
		if r.Header.Get("Traceparent") != "" {
			sent++
		}
	}
	fmt.Fprintf(out, "\nThe server got %d requests, %d of them with a traceparent.\n", len(fake.Requests()), sent)
	fmt.Fprintln(out, "\nMetrics:")
	return printMetrics(out, metrics)
}

// session is the work whose telemetry the program prints.
func session(ctx context.Context, c *seoapi.Client, fake *seoapitest.Server) error {
	ws := fake.AddWorkspace("Acme")
	if _, _, err := c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: "Shop", Domain: "shop.example"}); err != nil {
		return err
	}
	fake.FailNext(1, http.StatusServiceUnavailable, nil)
	if _, _, err := c.Projects.List(ctx, ws, nil); err != nil {
		return err
	}
	_, _, err := c.Projects.Update(ctx, ws, "proj_gone", &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("Shop EU")})
	if !errors.Is(err, seoapi.ErrNotFound) {
		return fmt.Errorf("updating a project that does not exist: want ErrNotFound, got %v", err)
	}
	_, _, err = c.Members.List(ctx, ws, nil)
	return err
}

// printSpans prints spans as a tree, children in order of start. A span
// shows its duration and the attributes its parent does not have.
func printSpans(out io.Writer, spans []sdktrace.ReadOnlySpan) {
	slices.SortStableFunc(spans, func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) })
	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byID[s.SpanContext().SpanID()] = s
	}
	children := map[trace.SpanID][]sdktrace.ReadOnlySpan{}
	var roots []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if p := s.Parent().SpanID(); byID[p] != nil {
			children[p] = append(children[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	var show func(s sdktrace.ReadOnlySpan, inherited attribute.Set, depth int)
	show = func(s sdktrace.ReadOnlySpan, inherited attribute.Set, depth int) {
		fmt.Fprintf(out, "%s%s [%s, %s]", strings.Repeat("  ", depth), s.Name(), s.SpanKind(),
			s.EndTime().Sub(s.StartTime()).Round(10*time.Microsecond))
		for _, kv := range s.Attributes() {
			if v, ok := inherited.Value(kv.Key); !ok || v != kv.Value {
				fmt.Fprintf(out, " %s=%s", kv.Key, kv.Value.String())
			}
		}
		if d := s.Status().Description; d != "" {
			fmt.Fprintf(out, " status=%s(%s)", s.Status().Code, d)
		}
		fmt.Fprintln(out)
		own := attribute.NewSet(s.Attributes()...)
		for _, c := range children[s.SpanContext().SpanID()] {
			show(c, own, depth+1)
		}
	}
	for _, r := range roots {
		show(r, *attribute.EmptySet(), 0)
	}
}

// printMetrics prints each metric's points: a histogram's count and sum, a
// counter's value, with the attribute set.
func printMetrics(out io.Writer, r *sdkmetric.ManualReader) error {
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		return err
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			fmt.Fprintf(out, "%s (%s)\n", m.Name, m.Unit)
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					fmt.Fprintf(out, "  count=%d sum=%.3f {%s}\n", dp.Count, dp.Sum, dp.Attributes.Encoded(attribute.DefaultEncoder()))
				}
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					fmt.Fprintf(out, "  %d {%s}\n", dp.Value, dp.Attributes.Encoded(attribute.DefaultEncoder()))
				}
			}
		}
	}
	return nil
}
