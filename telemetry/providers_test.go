package telemetry

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestOTLPExportsTracesAndMetrics: with exporter otlp and the standard
// OTEL_EXPORTER_OTLP_ENDPOINT, both spans and metrics reach the collector.
func TestOTLPExportsTracesAndMetrics(t *testing.T) {
	var mu sync.Mutex
	paths := map[string]int{}
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		paths[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
	cfg := DefaultConfig()
	cfg.Exporter = "otlp"
	p, err := Setup(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if p.MetricsHandler == nil {
		t.Error("the Prometheus endpoint went away with OTLP on")
	}
	ctx := context.Background()
	_, span := p.TracerProvider.Tracer("test").Start(ctx, "node")
	span.End()
	counter, err := p.MeterProvider.Meter("test").Int64Counter("jetcompact.test")
	if err != nil {
		t.Fatal(err)
	}
	counter.Add(ctx, 3)
	if err := p.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if paths["/v1/traces"] == 0 || paths["/v1/metrics"] == 0 {
		t.Errorf("collector received %v, want /v1/traces and /v1/metrics", paths)
	}
}
