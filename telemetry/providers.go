package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	promexporter "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Config is the telemetry section of the config file.
type Config struct {
	// ServiceName names this process in traces (default "jetcompact").
	ServiceName string `yaml:"service_name"`
	// Exporter for traces: auto (OTLP when OTEL_EXPORTER_OTLP_ENDPOINT or
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, else none), otlp, stdout or
	// none. otlp pushes metrics too (OTEL_EXPORTER_OTLP_METRICS_* apply).
	Exporter string `yaml:"exporter"`
	// Metrics serves Prometheus metrics on the worker's HTTP port (default true).
	Metrics *bool `yaml:"metrics"`
}

// DefaultConfig returns the telemetry defaults.
func DefaultConfig() Config { return Config{ServiceName: "jetcompact", Exporter: "auto"} }

// Validate names a bad field.
func (c Config) Validate() error {
	switch c.Exporter {
	case "auto", "otlp", "stdout", "none":
	default:
		return fmt.Errorf("telemetry.exporter: %q must be auto, otlp, stdout or none", c.Exporter)
	}
	if c.ServiceName == "" {
		return errors.New("telemetry.service_name: must not be empty")
	}
	return nil
}

// Providers are the tracer and meter providers the rest of the program is given.
type Providers struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// MetricsHandler serves Prometheus metrics; nil when metrics are off.
	MetricsHandler http.Handler
	shutdown       []func(context.Context) error
}

// Shutdown flushes and stops the exporters.
func (p *Providers) Shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range p.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}

// Setup builds providers from cfg. stdout is where the stdout exporter writes.
func Setup(ctx context.Context, cfg Config, stdout io.Writer) (*Providers, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p := &Providers{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()}
	res := resource.NewSchemaless(semconv.ServiceName(cfg.ServiceName))
	exporter := cfg.Exporter
	if exporter == "auto" {
		exporter = "none"
		if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
			exporter = "otlp"
		}
	}
	var spanExp sdktrace.SpanExporter
	var err error
	switch exporter {
	case "otlp":
		spanExp, err = otlptracehttp.New(ctx)
	case "stdout":
		spanExp, err = stdouttrace.New(stdouttrace.WithWriter(stdout), stdouttrace.WithPrettyPrint())
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: %s exporter: %w", exporter, err)
	}
	if spanExp != nil {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spanExp), sdktrace.WithResource(res))
		p.TracerProvider = tp
		p.shutdown = append(p.shutdown, tp.Shutdown)
	}
	readers := []sdkmetric.Option{sdkmetric.WithResource(res)}
	if cfg.Metrics == nil || *cfg.Metrics {
		reg := prometheus.NewRegistry()
		exp, err := promexporter.New(promexporter.WithRegisterer(reg))
		if err != nil {
			return nil, fmt.Errorf("telemetry: prometheus exporter: %w", err)
		}
		readers = append(readers, sdkmetric.WithReader(exp))
		p.MetricsHandler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	}
	if exporter == "otlp" {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("telemetry: otlp metric exporter: %w", err)
		}
		readers = append(readers, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	}
	if len(readers) > 1 {
		mp := sdkmetric.NewMeterProvider(readers...)
		p.MeterProvider = mp
		p.shutdown = append(p.shutdown, mp.Shutdown)
	}
	return p, nil
}
