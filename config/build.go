package config

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/llm"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/telemetry"
	"github.com/jetcompact/jetcompact/transcripts"
	njs "github.com/nats-io/nats.go/jetstream"
)

// BuildOptions are what a command adds to its config file.
type BuildOptions struct {
	// Mode overrides pipeline.mode (--mode); "" keeps it.
	Mode string
	// Model overrides llm.model (--model); "" keeps it.
	Model string
	// Log receives the LLM client's and the worker's logs (default slog.Default()).
	Log *slog.Logger
	// TelemetryOut is where a stdout or console trace exporter writes
	// (default io.Discard). A publisher, whose stdout is its result, passes stderr.
	TelemetryOut io.Writer
	// JetStream, when set, gives the LLM client the fleet's shared summary
	// cache (a KV bucket every replica reads), created if missing.
	JetStream njs.JetStream
	// Version is the release, part of the document-id fingerprint.
	Version string
}

// Runtime is what a config file builds for one process: the telemetry
// providers, the LLM client and the pipeline, its nodes decorated with
// spans and metrics. The worker, the publisher and the embedded fleet all
// get theirs from Build.
type Runtime struct {
	File      File
	Mode      stages.Mode // the effective override ("" = the pipeline's own)
	Telemetry *telemetry.Providers
	LLM       *llm.Client
	Pipeline  *pipeline.Pipeline
	Log       *slog.Logger
	version   string
}

// Check reports what Build would refuse in o (an unknown mode) without
// building anything, so that a command fails on a bad flag before it
// connects.
func (f File) Check(o BuildOptions) error {
	_, err := f.Pipeline.OverrideMode(o.Mode)
	return err
}

// Build assembles f: telemetry first, then the LLM client, then the
// pipeline. Call Shutdown on the result to flush the exporters.
func (f File) Build(ctx context.Context, o BuildOptions) (*Runtime, error) {
	mode, err := f.Pipeline.OverrideMode(o.Mode)
	if err != nil {
		return nil, err
	}
	if o.Model != "" {
		f.LLM.Model = o.Model
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.TelemetryOut == nil {
		o.TelemetryOut = io.Discard
	}
	tel, err := telemetry.Setup(ctx, f.Telemetry, o.TelemetryOut)
	if err != nil {
		return nil, err
	}
	r := &Runtime{File: f, Mode: mode, Telemetry: tel, Log: o.Log, version: o.Version}
	fail := func(err error) (*Runtime, error) {
		_ = tel.Shutdown(context.WithoutCancel(ctx))
		return nil, err
	}
	deco, err := telemetry.Decorator(tel.TracerProvider, tel.MeterProvider)
	if err != nil {
		return fail(err)
	}
	llmOpts := []llm.Option{llm.WithLogger(o.Log)}
	if o.JetStream != nil {
		var cache *jetstream.LLMCache
		if err := Retry(ctx, o.Log, "llm cache", func() (err error) {
			cache, err = jetstream.NewLLMCache(ctx, o.JetStream, LLMCacheBucket(f.Fleet.Prefix), f.LLM.CacheTTL, f.Fleet.Replicas)
			return err
		}); err != nil {
			return fail(err)
		}
		llmOpts = append(llmOpts, llm.WithCache(cache))
	}
	if r.LLM, err = llm.New(f.LLM, llmOpts...); err != nil {
		return fail(err)
	}
	if r.Pipeline, err = pipeline.New(f.Pipeline, stages.Deps{Summarizer: r.LLM}, pipeline.WithDecorator(deco)); err != nil {
		return fail(err)
	}
	return r, nil
}

// Shutdown flushes and stops the telemetry exporters.
func (r *Runtime) Shutdown(ctx context.Context) error { return r.Telemetry.Shutdown(ctx) }

// ChatModel is the model the transcript jobs call: the LLM client when a
// model is configured (llm.model, else $OPENAI_MODEL), else nil.
func (r *Runtime) ChatModel() transcripts.ChatModel {
	if r.LLM.HasModel() {
		return r.LLM
	}
	return nil
}

// EffectiveMode is the mode documents that name none run in.
func (r *Runtime) EffectiveMode() stages.Mode {
	if r.Mode != "" {
		return r.Mode
	}
	return r.File.Pipeline.Mode
}

// Fingerprint names the release and the pipeline's config: a document
// compacted under another one is another document (see
// jetstream.Settings; kind, mode and the LLM permission are the
// document's own settings).
func (r *Runtime) Fingerprint() string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s|%v|%+v", r.version, r.File.Pipeline.Nodes, r.File.Pipeline.Options))
	return hex.EncodeToString(h[:12])
}

// Document is the fleet document for text, with the runtime's mode and
// fingerprint; its id is derived from the text and those settings.
func (r *Runtime) Document(text string, kind stages.Kind, allowLLM bool) jetstream.Document {
	return jetstream.Document{Text: text, Kind: kind, Mode: r.Mode, AllowLLM: allowLLM, Salt: r.Fingerprint()}
}

// WorkerOptions are a worker's options: its logger, mode override and
// telemetry, and the transcript tasks named (their sessions kept in a
// JetStream KV store, created if missing).
func (r *Runtime) WorkerOptions(ctx context.Context, js njs.JetStream, tasks []string) ([]jetstream.WorkerOption, error) {
	opts := []jetstream.WorkerOption{
		jetstream.WithLogger(r.Log), jetstream.WithMode(r.Mode),
		jetstream.WithTracerProvider(r.Telemetry.TracerProvider), jetstream.WithMeterProvider(r.Telemetry.MeterProvider),
	}
	if len(tasks) == 0 {
		return opts, nil
	}
	var store *jetstream.SessionStore
	if err := Retry(ctx, r.Log, "session store", func() (err error) {
		store, err = jetstream.NewSessionStore(ctx, js, jetstream.SessionStoreConfigFor(r.File.Fleet))
		return err
	}); err != nil {
		return nil, err
	}
	all := jetstream.TranscriptTasks(transcripts.Jobs{Config: r.File.Transcripts, Model: r.ChatModel(), Store: store})
	served := map[string]jetstream.TaskFunc{}
	for _, name := range tasks {
		served[name] = all[name]
	}
	return append(opts, jetstream.WithTasks(served)), nil
}

// LLMCacheBucket is the KV bucket all replicas share for LLM summaries.
func LLMCacheBucket(prefix string) string { return prefix + "_llm_cache" }

// SelectTasks resolves a --tasks value against the configured fleet.tasks:
// none, all, auto (all when the worker runs every segment, else none), or
// a comma-separated list.
func SelectTasks(flagValue, segment string, configured []string) ([]string, error) {
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

// Retry retries a start-up step while the cluster cannot answer (a
// leader election after a node died), for up to a minute, so that a
// worker comes up without an orchestrator's restart.
func Retry(ctx context.Context, log *slog.Logger, what string, step func() error) error {
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
