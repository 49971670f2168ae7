// Command worker runs compaction segments as durable JetStream consumers.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/jetcompact/jetcompact/config"
	"github.com/jetcompact/jetcompact/embedded"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/llm"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/telemetry"
	"github.com/jetcompact/jetcompact/transcripts"
	njs "github.com/nats-io/nats.go/jetstream"
)

var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

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
	logs                            telemetry.LogFlags
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f flags
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
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
	f.logs.RegisterFlags(fs)
	v := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *v {
		fmt.Fprintln(stdout, telemetry.VersionString(version))
		return nil
	}
	if f.gcPercent < 25 {
		return fmt.Errorf("--gc-percent: want 25 or more, got %d", f.gcPercent)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(f.gcPercent)
	}
	logw := telemetry.NewScopedWriter(stderr)
	defer logw.Close()
	log, err := f.logs.NewLogger(logw)
	if err != nil {
		return err
	}
	file, err := config.Load(f.config)
	if err != nil {
		return err
	}
	if f.prefix != "" {
		file.Fleet.Prefix = f.prefix
	}
	mode, err := file.Pipeline.OverrideMode(f.mode)
	if err != nil {
		return err
	}
	if err := file.Fleet.Validate(); err != nil {
		return err
	}
	if f.printPermissions {
		_, err := io.WriteString(stdout, jetstream.PermissionsConfig(file.Fleet))
		return err
	}
	segs, err := jetstream.SelectSegments(file.Fleet.Segments, f.segment)
	if err != nil {
		return err
	}
	taskNames, err := selectTasks(f.tasks, f.segment, file.Fleet.Tasks)
	if err != nil {
		return err
	}
	tel, err := telemetry.Setup(ctx, file.Telemetry, stdout)
	if err != nil {
		return err
	}
	defer tel.Shutdown(context.WithoutCancel(ctx))
	deco, err := telemetry.Decorator(tel.TracerProvider, tel.MeterProvider)
	if err != nil {
		return err
	}
	if f.embedded {
		dir, err := storeDir(f.storeDir)
		if err != nil {
			return err
		}
		srv, err := embedded.Start(embedded.Options{StoreDir: dir, Listen: f.embeddedListen,
			Token: f.conn.Token, User: f.conn.User, Password: f.conn.Password, NKeySeedFile: f.conn.NKeyFile,
			TLSCert: f.embeddedTLSCert, TLSKey: f.embeddedTLSKey, Authorization: f.embeddedAuthorization})
		if err != nil {
			return err
		}
		defer srv.Shutdown()
		f.conn.URL, f.conn.InProcess, f.conn.InProcessTLS = srv.ClientURL(), srv, f.embeddedTLSCert != ""
		log.Info("embedded nats-server started", "url", f.conn.URL, "store", dir)
	}
	f.conn.Name = "jetcompact-worker " + f.segment
	nc, err := jetstream.Connect(f.conn)
	if err != nil {
		return err
	}
	defer nc.Close()
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
		if err := retrySetup(ctx, log, "topology", func() error { return jetstream.EnsureTopology(ctx, js, file.Fleet) }); err != nil {
			return err
		}
	}
	if f.setupOnly {
		log.Info("topology ready", "prefix", file.Fleet.Prefix, "segments", len(file.Fleet.Segments))
		return nil
	}
	llmOpts := []llm.Option{llm.WithLogger(log)}
	if callsLLM(segs, taskNames) { // only these roles may open the cache (jetstream.RolePermissions)
		var cache *jetstream.LLMCache
		if err := retrySetup(ctx, log, "llm cache", func() (err error) {
			cache, err = jetstream.NewLLMCache(ctx, js, jetstream.Names{Prefix: file.Fleet.Prefix}.LLMCacheBucket(), file.LLM.CacheTTL, file.Fleet.Replicas)
			return err
		}); err != nil {
			return err
		}
		llmOpts = append(llmOpts, llm.WithCache(cache))
	}
	summarizer, err := llm.New(file.LLM, llmOpts...)
	if err != nil {
		return err
	}
	pipe, err := pipeline.New(file.Pipeline, stages.Deps{Summarizer: summarizer}, pipeline.WithDecorator(deco))
	if err != nil {
		return err
	}
	var chat transcripts.ChatModel
	if summarizer.HasModel() { // the config's model, else $OPENAI_MODEL
		chat = summarizer
	}
	var taskOpt []jetstream.WorkerOption
	if len(taskNames) > 0 {
		var store *jetstream.SessionStore
		if err := retrySetup(ctx, log, "session store", func() (err error) {
			store, err = jetstream.NewSessionStore(ctx, js, jetstream.SessionStoreConfigFor(file.Fleet))
			return err
		}); err != nil {
			return err
		}
		all := jetstream.TranscriptTasks(transcripts.Jobs{Config: file.Transcripts, Model: chat, Store: store})
		served := map[string]jetstream.TaskFunc{}
		for _, name := range taskNames {
			served[name] = all[name]
		}
		taskOpt = append(taskOpt, jetstream.WithTasks(served))
	}
	w, err := jetstream.NewWorker(ctx, js, file.Fleet, pipe, append(taskOpt,
		jetstream.WithLogger(log), jetstream.WithMode(mode),
		jetstream.WithTracerProvider(tel.TracerProvider), jetstream.WithMeterProvider(tel.MeterProvider))...)
	if err != nil {
		return err
	}
	defer startService(ctx, nc, js, file, f.service, log)()
	if f.httpAddr != "" {
		srv, err := serveHTTP(f.httpAddr, w, nc.IsConnected, tel.MetricsHandler)
		if err != nil {
			return err
		}
		defer srv.Close()
	}
	srcs, err := selectSources(file.Sources, f.sources)
	if err != nil {
		return err
	}
	waitSources, err := startSources(ctx, js, file, srcs, tel.MeterProvider, log)
	if err != nil {
		return err
	}
	defer waitSources()
	log.Info("worker running", "version", version, "segment", f.segment, "prefix", file.Fleet.Prefix)
	err = w.Run(ctx, segs, f.drain)
	log.Info("worker stopped", "drained", err == nil)
	return err
}

func serveHTTP(addr string, w *jetstream.Worker, connected func() bool, metrics http.Handler) (*http.Server, error) {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(rw http.ResponseWriter, _ *http.Request) { fmt.Fprintln(rw, "ok") })
	mux.HandleFunc("/readyz", func(rw http.ResponseWriter, _ *http.Request) {
		if !w.Ready() || !connected() {
			http.Error(rw, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(rw, "ready")
	})
	if metrics != nil {
		mux.Handle("/metrics", metrics)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--http-addr: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("http server", "error", err.Error())
		}
	}()
	return srv, nil
}

func storeDir(dir string) (string, error) { return embedded.StoreDir(dir) }

// defaultHTTPAddr is loopback, except inside Kubernetes, where probes and
// scrapes come from outside the pod.
func defaultHTTPAddr() string {
	if os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		return ":8080"
	}
	return "127.0.0.1:8080"
}

// callsLLM reports whether a worker serving segs and tasks calls the LLM:
// it runs llm_summary or a transcript task.
func callsLLM(segs [][]stages.Key, tasks []string) bool {
	for _, seg := range segs {
		if slices.Contains(seg, stages.KeyLLMSummary) {
			return true
		}
	}
	return len(tasks) > 0
}

// selectTasks resolves --tasks against the configured fleet.tasks.
func selectTasks(flagValue, segment string, configured []string) ([]string, error) {
	switch flagValue {
	case "none", "":
		return nil, nil
	case "auto":
		if segment == "all" {
			return configured, nil
		}
		return nil, nil
	case "all":
		return configured, nil
	}
	var out []string
	for _, t := range strings.Split(flagValue, ",") {
		t = strings.TrimSpace(t)
		if !slices.Contains(configured, t) {
			return nil, fmt.Errorf("--tasks: %q is not in fleet.tasks %v", t, configured)
		}
		out = append(out, t)
	}
	return out, nil
}

// retrySetup retries a start-up step while the cluster cannot answer (a
// leader election after a node died), for up to a minute, so the worker
// comes up without an orchestrator's restart.
func retrySetup(ctx context.Context, log *slog.Logger, what string, step func() error) error {
	deadline := time.Now().Add(time.Minute)
	delay := 250 * time.Millisecond
	for {
		err := step()
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		log.Warn(what+" not ready; retrying", "in", delay.String(), "error", err.Error())
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return ctx.Err()
		}
		delay = min(2*delay, 5*time.Second)
	}
}
