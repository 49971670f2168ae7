package telemetry

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
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

// TestOTELTracesExporterNoneExportsNothing: OTEL_TRACES_EXPORTER=none wins
// over an OTLP endpoint in the environment, for traces and pushed metrics.
func TestOTELTracesExporterNoneExportsNothing(t *testing.T) {
	var mu sync.Mutex
	hits := 0
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		hits++
		mu.Unlock()
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_TRACES_EXPORTER", "none")
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	p, err := Setup(context.Background(), DefaultConfig(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, span := p.TracerProvider.Tracer("test").Start(ctx, "node")
	span.End()
	if err := p.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits != 0 {
		t.Errorf("collector received %d requests with the exporters set to none", hits)
	}
}

// TestOTELConsoleExporterAndServiceName: OTEL_TRACES_EXPORTER=console writes
// spans to the writer given, under OTEL_SERVICE_NAME.
func TestOTELConsoleExporterAndServiceName(t *testing.T) {
	t.Setenv("OTEL_TRACES_EXPORTER", "console")
	t.Setenv("OTEL_SERVICE_NAME", "compactor-eu1")
	var buf strings.Builder
	p, err := Setup(context.Background(), DefaultConfig(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, span := p.TracerProvider.Tracer("test").Start(ctx, "node")
	span.End()
	if err := p.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"compactor-eu1"`) {
		t.Errorf("console spans lack the service name from OTEL_SERVICE_NAME:\n%.400s", buf.String())
	}
}

// TestOTLPProtocolIsValidated: an unknown OTEL_EXPORTER_OTLP_PROTOCOL is an
// error, grpc is accepted.
func TestOTLPProtocolIsValidated(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "carrier-pigeon")
	if _, err := Setup(context.Background(), DefaultConfig(), io.Discard); err == nil {
		t.Error("an unknown OTLP protocol was accepted")
	}
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	p, err := Setup(context.Background(), DefaultConfig(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_ = p.Shutdown(ctx) // nothing listens there; only the setup is under test
}

// TestOTELMetricsExporterConsole: OTEL_METRICS_EXPORTER=console writes
// metrics to the writer given (a publisher's stdout is its result, so it
// passes stderr), beside the Prometheus scrape.
func TestOTELMetricsExporterConsole(t *testing.T) {
	t.Setenv("OTEL_METRICS_EXPORTER", "console")
	var buf strings.Builder
	p, err := Setup(context.Background(), DefaultConfig(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := p.MeterProvider.Meter("test").Int64Counter("jetcompact.test_console")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(ctx, 2)
	if err := p.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"jetcompact.test_console"`) {
		t.Errorf("console metrics lack the counter:\n%.400s", buf.String())
	}
	if p.MetricsHandler == nil {
		t.Error("the Prometheus endpoint went away with console metrics on")
	}
}

// TestOTLPMetricsFollowTheEndpoint: with an OTLP endpoint set, metrics go
// over OTLP by default (the SDK's OTEL_METRICS_EXPORTER default), even
// when OTEL_TRACES_EXPORTER=none turns traces off.
func TestOTLPMetricsFollowTheEndpoint(t *testing.T) {
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
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_TRACES_EXPORTER", "none")
	p, err := Setup(context.Background(), DefaultConfig(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, span := p.TracerProvider.Tracer("test").Start(ctx, "node")
	span.End()
	c, err := p.MeterProvider.Meter("test").Int64Counter("jetcompact.test")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(ctx, 1)
	if err := p.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if paths["/v1/metrics"] == 0 || paths["/v1/traces"] != 0 {
		t.Errorf("collector received %v, want /v1/metrics only", paths)
	}
}
