package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/contrib/exporters/autoexport"
	otelruntime "go.opentelemetry.io/contrib/instrumentation/runtime"
	"go.opentelemetry.io/otel/attribute"
	promexporter "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
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
	res := resource.NewSchemaless(semconv.ServiceName(serviceName(cfg.ServiceName)))
	spanExp, err := spanExporter(ctx, cfg.Exporter, stdout)
	if err != nil {
		return nil, fmt.Errorf("telemetry: trace exporter: %w", err)
	}
	if spanExp != nil {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spanExp), sdktrace.WithResource(res))
		p.TracerProvider = tp
		p.shutdown = append(p.shutdown, tp.Shutdown)
	}
	readers := []sdkmetric.Option{sdkmetric.WithResource(res), sdkmetric.WithView(durationView)}
	if cfg.Metrics == nil || *cfg.Metrics {
		reg := prometheus.NewRegistry()
		exp, err := promexporter.New(promexporter.WithRegisterer(reg), promexporter.WithoutScopeInfo())
		if err != nil {
			return nil, fmt.Errorf("telemetry: prometheus exporter: %w", err)
		}
		readers = append(readers, sdkmetric.WithReader(exp))
		reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		p.MetricsHandler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	}
	reader, err := pushMetricReader(ctx, cfg.Exporter, stdout)
	if err != nil {
		return nil, fmt.Errorf("telemetry: metric exporter: %w", err)
	}
	if reader != nil {
		readers = append(readers, sdkmetric.WithReader(reader))
	}
	if len(readers) > 2 {
		mp := sdkmetric.NewMeterProvider(readers...)
		p.MeterProvider = mp
		p.shutdown = append(p.shutdown, mp.Shutdown)
		if err := registerBuildInfo(mp); err != nil {
			return nil, errors.Join(err, p.Shutdown(ctx))
		}
		if err := otelruntime.Start(otelruntime.WithMeterProvider(mp)); err != nil {
			return nil, errors.Join(fmt.Errorf("telemetry: runtime metrics: %w", err), p.Shutdown(ctx))
		}
	}
	return p, nil
}

// serviceName is OTEL_SERVICE_NAME unless the config names a service of
// its own: the config file overrides the environment, the environment the
// default.
func serviceName(configured string) string {
	if env := os.Getenv("OTEL_SERVICE_NAME"); env != "" && configured == DefaultConfig().ServiceName {
		return env
	}
	return configured
}

// spanExporter builds the trace exporter the config names; nil for none.
// "auto" follows the OTel SDK's environment: OTEL_TRACES_EXPORTER (otlp,
// console, none) when set, else OTLP when an OTLP endpoint is set, else
// none. OTLP's transport follows OTEL_EXPORTER_OTLP_PROTOCOL. Console
// output goes to stdout, the writer given (a publisher's stdout is its
// result, so it passes stderr).
func spanExporter(ctx context.Context, configured string, stdout io.Writer) (sdktrace.SpanExporter, error) {
	env := os.Getenv("OTEL_TRACES_EXPORTER")
	switch configured {
	case "none":
		return nil, nil
	case "stdout":
		return stdouttrace.New(stdouttrace.WithWriter(stdout), stdouttrace.WithPrettyPrint())
	case "otlp":
		env = "otlp"
	case "auto":
		if env == "" && !otlpEndpointSet("TRACES") {
			return nil, nil
		}
	}
	switch env {
	case "console":
		return stdouttrace.New(stdouttrace.WithWriter(stdout), stdouttrace.WithPrettyPrint())
	case "none":
		return nil, nil
	}
	exp, err := autoexport.NewSpanExporter(ctx) // OTLP when the variable is unset
	if err != nil || autoexport.IsNoneSpanExporter(exp) {
		return nil, err
	}
	return exp, nil
}

// pushMetricReader builds the reader that pushes metrics, beside the
// Prometheus scrape: OTEL_METRICS_EXPORTER when set (otlp, console, none;
// prometheus is the scrape endpoint already), else OTLP when an OTLP
// endpoint is set or the config says otlp. Console output goes to stdout,
// the writer given.
func pushMetricReader(ctx context.Context, configured string, stdout io.Writer) (sdkmetric.Reader, error) {
	env := os.Getenv("OTEL_METRICS_EXPORTER")
	switch {
	case configured == "none" || configured == "stdout" || env == "none" || env == "prometheus":
		return nil, nil
	case env == "" && configured == "auto" && !otlpEndpointSet("METRICS"):
		return nil, nil
	case env == "console":
		exp, err := stdoutmetric.New(stdoutmetric.WithWriter(stdout), stdoutmetric.WithPrettyPrint())
		if err != nil {
			return nil, err
		}
		return sdkmetric.NewPeriodicReader(exp), nil
	}
	r, err := autoexport.NewMetricReader(ctx) // OTLP when the variable is unset
	if err != nil || autoexport.IsNoneMetricReader(r) {
		return nil, err
	}
	return r, nil
}

// otlpEndpointSet reports whether OTEL_EXPORTER_OTLP_ENDPOINT or the
// signal's own endpoint variable is set.
func otlpEndpointSet(signal string) bool {
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") != ""
}

// DurationBuckets are the histogram boundaries, in seconds, of every
// duration histogram: 50 µs to 30 s. OTel's default boundaries are meant
// for milliseconds and put every sub-second observation in one bucket.
var DurationBuckets = []float64{
	0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
}

// durationView gives every histogram measured in seconds DurationBuckets,
// whatever package created it.
func durationView(inst sdkmetric.Instrument) (sdkmetric.Stream, bool) {
	if inst.Kind != sdkmetric.InstrumentKindHistogram || inst.Unit != "s" {
		return sdkmetric.Stream{}, false
	}
	return sdkmetric.Stream{
		Name: inst.Name, Description: inst.Description, Unit: inst.Unit,
		Aggregation: sdkmetric.AggregationExplicitBucketHistogram{Boundaries: DurationBuckets},
	}, true
}

// registerBuildInfo reports jetcompact_build_info{version,revision,go} = 1,
// from the binary's build information.
func registerBuildInfo(mp metric.MeterProvider) error {
	version, revision, goVersion := BuildInfo()
	attrs := metric.WithAttributes(
		attribute.String("version", version), attribute.String("revision", revision), attribute.String("go_version", goVersion))
	_, err := mp.Meter(scope).Int64ObservableGauge("jetcompact.build_info",
		metric.WithDescription("Always 1; the labels name the build"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			o.Observe(1, attrs)
			return nil
		}))
	return err
}

// BuildInfo returns the module version, VCS revision and Go version the
// binary was built from; "(devel)" and "unknown" where the build lacks them.
func BuildInfo() (version, revision, goVersion string) {
	version, revision, goVersion = "(devel)", "unknown", runtime.Version()
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	if v := bi.Main.Version; v != "" {
		version = v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			revision = s.Value
		}
	}
	return
}

// VersionString is injected unless it is "dev"; then the module version
// and VCS revision of the build.
func VersionString(injected string) string {
	if injected != "dev" && injected != "" {
		return injected
	}
	v, rev, goVersion := BuildInfo()
	return fmt.Sprintf("%s (revision %s, %s)", v, rev, goVersion)
}
