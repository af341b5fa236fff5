package otelseoapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/otelseoapi"
)

// benchObserver is an observer on SDK providers that record every span
// and metric and export nothing, so the benchmarks measure the observer
// and the SDK's recording, not an exporter.
func benchObserver(b *testing.B) seoapi.Observer {
	tp := sdktrace.NewTracerProvider()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	return otelseoapi.NewObserver(otelseoapi.WithTracerProvider(tp), otelseoapi.WithMeterProvider(mp))
}

// BenchmarkObserverCall feeds the observer the events of one call with a
// limiter wait: what the observer costs a call, without the network.
func BenchmarkObserverCall(b *testing.B) {
	obs := benchObserver(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		now := time.Now()
		cctx := obs.Observe(ctx, listEvent(seoapi.EventCallStart, 0, now, 0))
		e := listEvent(seoapi.EventAttemptStart, 1, now, 0)
		e.Header = http.Header{}
		actx := obs.Observe(cctx, e)
		e = listEvent(seoapi.EventLimiterWait, 1, now, time.Millisecond)
		e.Level = seoapi.WaitPerSecond
		obs.Observe(actx, e)
		e = listEvent(seoapi.EventAttemptEnd, 1, now, 2*time.Millisecond)
		e.StatusCode = http.StatusOK
		obs.Observe(actx, e)
		e = listEvent(seoapi.EventCallEnd, 1, now, 2*time.Millisecond)
		e.StatusCode = http.StatusOK
		obs.Observe(cctx, e)
	}
}

// BenchmarkListProjects sends Projects.List to a loopback server without
// an observer ("none") and with this one ("otel"): the difference between
// the two is what the observer and the OpenTelemetry SDK add to a call.
func BenchmarkListProjects(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[{"id":"proj_1","name":"Shop"}]`))
	}))
	b.Cleanup(srv.Close)
	for _, bc := range []struct {
		name string
		opts []seoapi.Option
	}{
		{"none", nil},
		{"otel", []seoapi.Option{seoapi.WithObserver(benchObserver(b))}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := seoapi.NewClient(srv.URL, "sk_bench", append(bc.opts, seoapi.WithoutRateLimit())...)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := c.Projects.List(ctx, "ws_1", nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
