// Command publisher sends text to jetcompact and prints the compacted result.
//
// Without --nats it starts an embedded nats-server and in-process workers,
// compacts, prints and exits. With --nats URL it uses a real cluster. With
// --local it compacts in process, without NATS.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jetcompact/jetcompact/config"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/stages"
)

var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "publisher:", err)
		os.Exit(1)
	}
}

type options struct {
	local, report, describe, noLLM bool
	config, mode, kind, id         string
	storeDir                       string
	timeout                        time.Duration
	conn                           jetstream.ConnectOptions
	version                        bool
	debate, evidence, session      string
	meeting                        string
	messages                       string
	compactNow                     bool
	tx                             transcriptFlags
}

const usage = `usage:
  publisher [flags] [FILE|-]...   compact files or stdin, print the results
  publisher [flags] get ID        print a stored original
  publisher [flags] replay ID     re-run a stored original through the pipeline
  publisher [flags] dead          list dead letters
flags:`

func parse(args []string, stderr io.Writer) (options, []string, error) {
	var o options
	fs := flag.NewFlagSet("publisher", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.local, "local", false, "compact in process, without NATS")
	fs.BoolVar(&o.report, "report", false, "write the per-node table to stderr")
	fs.BoolVar(&o.describe, "describe", false, "print the nodes that will run, and why others will not, then exit")
	fs.StringVar(&o.config, "config", os.Getenv("JETCOMPACT_CONFIG"), "YAML config file (default: built-in defaults)")
	fs.StringVar(&o.mode, "mode", "", "override the mode: algorithmic, llm or hybrid")
	fs.StringVar(&o.kind, "kind", "", "content kind instead of detection: log, json, html, transcript or prose")
	fs.BoolVar(&o.noLLM, "no-llm", false, "use the algorithmic entry point: never call the LLM")
	fs.StringVar(&o.id, "id", "", "document id (one input only; default: derived from the text)")
	fs.StringVar(&o.storeDir, "store-dir", "", "embedded server: keep JetStream data here (default: a temp dir removed at exit)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up waiting for results after this long")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.StringVar(&o.debate, "debate", "", "debate JSON file (or -): print the chairman's view, response_compressed filled")
	fs.StringVar(&o.evidence, "evidence", "", "evidence request JSON file (or -): print the evidence-balanced summary")
	fs.StringVar(&o.meeting, "meeting", "", "meeting request JSON file (or -): print the chair's or an agent's context under budget")
	fs.StringVar(&o.session, "session", "", "session id: append --messages, auto-compact, print the compacted view")
	fs.StringVar(&o.messages, "messages", "", "with --session: JSON array of messages to append first (file or -)")
	fs.BoolVar(&o.compactNow, "compact-now", false, "with --session: compact even below the usage threshold")
	o.tx.register(fs)
	o.conn.RegisterFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, nil, err
	}
	rest := fs.Args()
	// Flags may also follow a subcommand: publisher get --nats URL ID.
	if len(rest) > 0 && isSubcommand(rest[0]) {
		if err := fs.Parse(rest[1:]); err != nil {
			return o, nil, err
		}
		rest = append([]string{rest[0]}, fs.Args()...)
	}
	return o, rest, nil
}

func isSubcommand(s string) bool { return s == "get" || s == "replay" || s == "dead" }

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o, rest, err := parse(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if o.version {
		fmt.Fprintln(stdout, version)
		return nil
	}
	file, err := config.Load(o.config)
	if err != nil {
		return err
	}
	mode, err := file.Pipeline.OverrideMode(o.mode)
	if err != nil {
		return err
	}
	kind := stages.ParseKind(o.kind)
	if o.kind != "" && kind == "" {
		return fmt.Errorf("--kind: unknown kind %q (want log, json, html, transcript or prose)", o.kind)
	}
	app := &app{o: o, file: file, mode: mode, kind: kind, stdin: stdin, stdout: stdout, stderr: stderr}
	if err := app.buildPipeline(ctx); err != nil {
		return err
	}
	defer app.tel.Shutdown(context.WithoutCancel(ctx))
	if o.describe {
		return app.pipe.Describe(!o.noLLM, mode).WriteText(stdout)
	}
	name, body, err := app.transcriptJob()
	if err != nil {
		return err
	}
	if name != "" {
		if len(rest) > 0 {
			return fmt.Errorf("--%s takes its input from its own flag; unexpected arguments %v", name, rest)
		}
		return app.runTranscriptJob(ctx, name, body)
	}
	if len(rest) > 0 && isSubcommand(rest[0]) {
		if o.local {
			return fmt.Errorf("%s needs the fleet: drop --local", rest[0])
		}
		return app.subcommand(ctx, rest[0], rest[1:])
	}
	inputs := rest
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	if o.id != "" && len(inputs) > 1 {
		return errors.New("--id names one document; give one input")
	}
	if o.local {
		return app.compactLocal(ctx, inputs)
	}
	return app.compactFleet(ctx, inputs)
}
