// Command worker runs compaction segments as durable JetStream consumers.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/jetcompact/jetcompact/config"
	"github.com/jetcompact/jetcompact/embedded"
	"github.com/jetcompact/jetcompact/internal/cli"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/telemetry"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
)

var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(cli.ExitCode("worker", run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

const usage = `usage: worker [flags]

Runs the configured segments of the compaction pipeline (and transcript
tasks, sources, the NATS service) as durable JetStream consumers.

examples:
  worker --config my.yaml --nats nats://nats:4222            every segment
  worker --config my.yaml --nats nats://nats:4222 --segment guard
  worker --config my.yaml --nats nats://nats:4222 --setup-only
  worker --embedded --store-dir /var/lib/jetcompact          its own nats-server
  worker --config my.yaml --print-permissions                per-role NATS users

environment: JETCOMPACT_CONFIG (--config), NATS_URL (--nats), NATS_CREDS,
NATS_NKEY, NATS_USER, NATS_PASSWORD, NATS_TOKEN, NATS_CA, NATS_CERT, NATS_KEY,
NATS_INBOX_PREFIX, NATS_EMBEDDED_TLS_CERT, NATS_EMBEDDED_TLS_KEY,
NATS_EMBEDDED_AUTHORIZATION, OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL, GOGC,
GOMEMLIMIT, OTEL_* (telemetry)

flags:`

type flags struct {
	config, segment, mode, prefix   string
	tasks, sources                  string
	conn                            jetstream.ConnectOptions
	httpAddr                        string
	embedded                        bool
	storeDir, embeddedListen        string
	embeddedTLSCert, embeddedTLSKey string
	embeddedAuthorization           string
	setupOnly, skipSetup            bool
	printPermissions                bool
	service                         bool
	drain                           time.Duration
	gcPercent                       int
	cpuProfile                      string
	logs                            telemetry.LogFlags
}

// parseFlags reads the command line; showVersion reports --version.
func parseFlags(args []string, stderr io.Writer) (f flags, showVersion bool, err error) {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.StringVar(&f.config, "config", os.Getenv("JETCOMPACT_CONFIG"), "YAML config file (default: built-in defaults)")
	fs.StringVar(&f.segment, "segment", "all", "comma-separated stages of one configured segment, or all")
	fs.StringVar(&f.segment, "stages", "all", "alias of --segment")
	fs.StringVar(&f.mode, "mode", "", "override the mode: algorithmic, llm or hybrid")
	fs.StringVar(&f.tasks, "tasks", "auto", "transcript tasks to serve: auto (all with --segment all), all, none, or a list such as debate,evidence")
	fs.StringVar(&f.sources, "sources", "none", "sources of raw events to compact in windows: none, all, or a list of configured source names")
	fs.StringVar(&f.prefix, "prefix", "", "subject/stream prefix (default: config fleet.prefix)")
	f.conn.RegisterFlags(fs)
	fs.DurationVar(&f.conn.ConnectTimeout, "connect-timeout", time.Minute, "keep retrying the first connection to NATS this long")
	fs.StringVar(&f.httpAddr, "http-addr", defaultHTTPAddr(), "serve /healthz, /readyz and /metrics here (empty: off; default loopback outside Kubernetes)")
	fs.BoolVar(&f.embedded, "embedded", false, "start an embedded nats-server with JetStream (single binary)")
	fs.StringVar(&f.storeDir, "store-dir", "", "embedded JetStream store directory (default: a cache dir)")
	fs.StringVar(&f.embeddedListen, "embedded-listen", "127.0.0.1:4222", "embedded server listen address; clients must present the worker's own NATS credentials (token, user, nkey)")
	fs.StringVar(&f.embeddedTLSCert, "embedded-tls-cert", os.Getenv("NATS_EMBEDDED_TLS_CERT"), "embedded server: TLS certificate (with --embedded-tls-key)")
	fs.StringVar(&f.embeddedTLSKey, "embedded-tls-key", os.Getenv("NATS_EMBEDDED_TLS_KEY"), "embedded server: TLS key")
	fs.StringVar(&f.embeddedAuthorization, "embedded-authorization", os.Getenv("NATS_EMBEDDED_AUTHORIZATION"), "embedded server: a nats-server file with an authorization block (e.g. from --print-permissions) adding least-privilege users; the worker keeps its own --nats-user or --nats-nkey")
	fs.BoolVar(&f.setupOnly, "setup-only", false, "create or update streams and consumers, then exit")
	fs.BoolVar(&f.printPermissions, "print-permissions", false, "print a nats-server authorization block with one least-privilege user per role of this fleet, then exit")
	fs.BoolVar(&f.skipSetup, "skip-setup", false, "use the topology as it is (per-role permissions: the setup role creates it)")
	fs.BoolVar(&f.service, "service", true, "serve the jetcompact NATS micro service: <prefix>.compact and <prefix>.get (--service=false: off)")
	fs.DurationVar(&f.drain, "drain-timeout", 30*time.Second, "on shutdown, wait this long for in-flight work")
	fs.IntVar(&f.gcPercent, "gc-percent", 400, "Go GC target when GOGC is unset: the live heap is small, so collecting less often saves CPU for little memory")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file (benchmarks)")
	f.logs.RegisterFlags(fs)
	fs.BoolVar(&showVersion, "version", false, "print the version and exit")
	err = cli.Parse(fs, args, usage, stderr)
	return f, showVersion, err
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, showVersion, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if showVersion {
		fmt.Fprintln(stdout, telemetry.VersionString(version))
		return nil
	}
	if f.gcPercent < 25 {
		return cli.Usagef("--gc-percent: want 25 or more, got %d", f.gcPercent)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(f.gcPercent)
	}
	if f.cpuProfile != "" {
		stop, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	logw := telemetry.NewScopedWriter(stderr)
	defer logw.Close()
	log, err := f.logs.NewLogger(logw)
	if err != nil {
		return cli.UsageError{Err: err}
	}
	file, err := config.Load(f.config)
	if err != nil {
		return err
	}
	if f.prefix != "" {
		file.Fleet.Prefix = f.prefix
	}
	build := config.BuildOptions{Mode: f.mode, Log: log, TelemetryOut: stdout, Version: version}
	if err := file.Check(build); err != nil {
		return cli.UsageError{Err: err} // --mode
	}
	if err := file.Fleet.Validate(); err != nil {
		return err
	}
	if f.printPermissions {
		_, err := io.WriteString(stdout, jetstream.PermissionsConfig(file.Fleet))
		return err
	}
	work, err := selectWork(f, file)
	if err != nil {
		return cli.UsageError{Err: err}
	}
	if f.conn.URL == "" && !f.embedded {
		return cli.Usagef("no NATS server: give --nats URL or set NATS_URL, or start one in process with --embedded")
	}
	nc, closeConn, err := connect(&f, log)
	if err != nil {
		return err
	}
	defer closeConn()
	js, err := njs.New(nc)
	if err != nil {
		return err
	}
	if !f.skipSetup || f.setupOnly {
		// Under per-role permissions (--skip-setup) the account info request
		// may be refused; the setup role asks it.
		if err := jetstream.CheckJetStream(ctx, js); err != nil {
			return err
		}
		if err := config.Retry(ctx, log, "topology", func() error { return jetstream.EnsureTopology(ctx, js, file.Fleet) }); err != nil {
			return err
		}
	}
	if f.setupOnly {
		log.Info("topology ready", "prefix", file.Fleet.Prefix, "segments", len(file.Fleet.Segments))
		return nil
	}
	return serve(ctx, f, file, work, build, nc, js, log)
}

// defaultHTTPAddr is loopback, except inside Kubernetes, where probes and
// scrapes come from outside the pod.
func defaultHTTPAddr() string {
	if os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		return ":8080"
	}
	return "127.0.0.1:8080"
}

// selected is the work the flags select from the config.
type selected struct {
	segments [][]stages.Key
	tasks    []string
	sources  []jetstream.SourceConfig
}

func selectWork(f flags, file config.File) (w selected, err error) {
	if w.segments, err = jetstream.SelectSegments(file.Fleet.Segments, f.segment); err != nil {
		return w, err
	}
	if w.tasks, err = config.SelectTasks(f.tasks, f.segment, file.Fleet.Tasks); err != nil {
		return w, err
	}
	w.sources, err = config.SelectSources(file.Sources, f.sources)
	return w, err
}

// serve builds the runtime and runs the worker on the selected segments,
// tasks and sources until ctx ends.
func serve(ctx context.Context, f flags, file config.File, work selected, build config.BuildOptions, nc *nats.Conn, js njs.JetStream, log *slog.Logger) error {
	if jetstream.OpensLLMCache(work.segments, work.tasks) {
		build.JetStream = js
	}
	rt, err := file.Build(ctx, build)
	if err != nil {
		return err
	}
	defer rt.Shutdown(context.WithoutCancel(ctx))
	opts, err := rt.WorkerOptions(ctx, js, work.tasks)
	if err != nil {
		return err
	}
	w, err := jetstream.NewWorker(ctx, js, file.Fleet, rt.Pipeline, opts...)
	if err != nil {
		return err
	}
	defer startService(ctx, nc, js, file, rt.Fingerprint(), f.service, log)()
	if f.httpAddr != "" {
		ready := func() bool { return w.Ready() && nc.IsConnected() }
		srv, err := telemetry.ServeHTTP(f.httpAddr, telemetry.HealthHandler(ready, rt.Telemetry.MetricsHandler), log)
		if err != nil {
			return fmt.Errorf("--http-addr: %w", err)
		}
		defer srv.Close()
	}
	waitSources, err := rt.StartSources(ctx, js, work.sources)
	if err != nil {
		return err
	}
	defer waitSources()
	log.Info("worker running", "version", telemetry.VersionString(version), "segment", f.segment, "prefix", file.Fleet.Prefix)
	err = w.Run(ctx, work.segments, f.drain)
	log.Info("worker stopped", "drained", err == nil)
	return err
}

// connect starts the embedded server when --embedded asks for it, then
// connects; closeAll closes both.
func connect(f *flags, log *slog.Logger) (nc *nats.Conn, closeAll func(), err error) {
	stopServer := func() {}
	if f.embedded {
		dir, err := embedded.StoreDir(f.storeDir)
		if err != nil {
			return nil, nil, err
		}
		srv, err := embedded.Start(embedded.Options{StoreDir: dir, Listen: f.embeddedListen,
			Token: f.conn.Token, User: f.conn.User, Password: f.conn.Password, NKeySeedFile: f.conn.NKeyFile,
			TLSCert: f.embeddedTLSCert, TLSKey: f.embeddedTLSKey, Authorization: f.embeddedAuthorization})
		if err != nil {
			return nil, nil, err
		}
		stopServer = srv.Shutdown
		f.conn.URL, f.conn.InProcess, f.conn.InProcessTLS = srv.ClientURL(), srv, f.embeddedTLSCert != ""
		log.Info("embedded nats-server started", "url", f.conn.URL, "store", dir)
	}
	f.conn.Name = "jetcompact-worker " + f.segment
	if nc, err = jetstream.Connect(f.conn); err != nil {
		stopServer()
		return nil, nil, err
	}
	return nc, func() { nc.Close(); stopServer() }, nil
}

// startCPUProfile profiles this process until the returned stop.
func startCPUProfile(path string) (stop func(), err error) {
	out, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); out.Close() }, nil
}
