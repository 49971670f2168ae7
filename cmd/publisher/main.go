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
	"github.com/jetcompact/jetcompact/internal/cli"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/telemetry"
)

var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(cli.ExitCode("publisher", run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr), os.Stderr))
}

// usageError is a mistake in the command line: exit status 2 (cli).
type usageError = cli.UsageError

var usagef = cli.Usagef

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
	output                         string
	quiet                          bool
	budgetTokens                   int
	noStore                        bool
	logs                           telemetry.LogFlags
	tx                             transcriptFlags
	html                           htmlReportFlags
}

const usage = `usage:
  publisher [flags] [FILE|-]...   compact files or stdin, print the results
  publisher [flags] get REF       print a stored original: ID, an ID prefix, or ID:L<from>-<to>
  publisher [flags] replay ID     re-run a stored original through the pipeline
  publisher [flags] dead          list dead letters
  publisher [--config F] validate check a config file, print the effective pipeline
  publisher [flags] mcp           serve the compact and retrieve tools over MCP on stdio

examples:
  publisher testdata/app.log                  compact on an embedded fleet
  publisher --local --report build.log        in process, with the per-node table
  cat payload.json | publisher --local -      from stdin
  publisher --nats nats://nats:4222 get ID    a stored original
  publisher --config my.yaml validate         check a config before deploying it

environment: JETCOMPACT_CONFIG (--config), NATS_URL (--nats), NATS_CREDS,
NATS_NKEY, NATS_USER, NATS_PASSWORD, NATS_TOKEN, NATS_CA, NATS_CERT, NATS_KEY,
NATS_INBOX_PREFIX, OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL, XDG_STATE_HOME (the
store of originals), OTEL_* (telemetry)

flags:`

func parse(args []string, stderr io.Writer) (options, []string, error) {
	var o options
	fs := flag.NewFlagSet("publisher", flag.ContinueOnError)
	fs.BoolVar(&o.local, "local", false, "compact in process, without NATS")
	fs.BoolVar(&o.report, "report", false, "write the per-node table to stderr")
	fs.BoolVar(&o.describe, "describe", false, "print the nodes that will run, and why others will not, then exit")
	fs.StringVar(&o.config, "config", os.Getenv("JETCOMPACT_CONFIG"), "YAML config file (default: built-in defaults)")
	fs.StringVar(&o.mode, "mode", "", "override the mode: algorithmic, llm or hybrid")
	fs.StringVar(&o.kind, "kind", "", "content kind instead of detection: log, json, html, transcript or prose")
	fs.BoolVar(&o.noLLM, "no-llm", false, "use the algorithmic entry point: never call the LLM")
	fs.StringVar(&o.id, "id", "", "document id (one input only; default: derived from the text)")
	fs.StringVar(&o.storeDir, "store-dir", "", "keep originals (for get) and embedded JetStream data here (default: originals in $XDG_STATE_HOME/jetcompact, JetStream data in a temp dir removed at exit)")
	fs.BoolVar(&o.noStore, "no-store", false, "keep no original: fold markers carry no references")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up waiting for results after this long")
	fs.BoolVar(&o.version, "version", false, "print the version and exit")
	fs.StringVar(&o.debate, "debate", "", "debate JSON file (or -): print the chairman's view, response_compressed filled")
	fs.StringVar(&o.evidence, "evidence", "", "evidence request JSON file (or -): print the evidence-balanced summary")
	fs.StringVar(&o.meeting, "meeting", "", "meeting request JSON file (or -): print the chair's or an agent's context under budget")
	fs.StringVar(&o.session, "session", "", "session id: append --messages, auto-compact, print the compacted view")
	fs.StringVar(&o.messages, "messages", "", "with --session: JSON array of messages to append first (file or -)")
	fs.BoolVar(&o.compactNow, "compact-now", false, "with --session: compact even below the usage threshold")
	fs.StringVar(&o.output, "output", "text", "text, or json: one JSON object per input (id, file, kind, mode, ratio, chars, text, report)")
	fs.IntVar(&o.budgetTokens, "budget-tokens", 0, "fold more until each output is at most N estimated tokens (default: the config's budget_tokens; 0 = none)")
	fs.BoolVar(&o.quiet, "quiet", false, "with several inputs, no ==> FILE <== header before each result")
	o.tx.register(fs)
	o.html.register(fs)
	o.conn.RegisterFlags(fs)
	o.logs.RegisterFlags(fs)
	if err := cli.Parse(fs, args, usage, stderr); err != nil {
		return o, nil, err
	}
	rest := fs.Args()
	// Flags may also follow a subcommand and its arguments:
	// publisher get --nats URL ID, publisher replay ID --output json.
	if len(rest) > 0 && isSubcommand(rest[0]) {
		args := []string{rest[0]}
		for rest = rest[1:]; len(rest) > 0; rest = rest[1:] {
			if err := cli.Parse(fs, rest, usage, stderr); err != nil {
				return o, nil, err
			}
			if rest = fs.Args(); len(rest) == 0 {
				break
			}
			args = append(args, rest[0])
		}
		rest = args
	}
	return o, rest, nil
}

func isSubcommand(s string) bool {
	return s == "get" || s == "replay" || s == "dead" || s == "validate" || s == "mcp"
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o, rest, err := parse(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if o.version {
		fmt.Fprintln(stdout, telemetry.VersionString(version))
		return nil
	}
	logw := telemetry.NewScopedWriter(stderr)
	defer logw.Close()
	if _, err := o.logs.NewLogger(logw); err != nil {
		return usageError{Err: err}
	}
	if o.output != "text" && o.output != "json" {
		return usagef("--output: %q is neither text nor json", o.output)
	}
	file, err := config.Load(o.config)
	if err != nil {
		return err
	}
	mode, err := file.Pipeline.OverrideMode(o.mode)
	if err != nil {
		return usageError{Err: err}
	}
	if len(rest) > 0 && rest[0] == "validate" {
		return validate(o, file, mode, rest[1:], stdout)
	}
	kind := stages.ParseKind(o.kind)
	if o.kind != "" && kind == "" {
		return usagef("--kind: unknown kind %q (want log, json, html, transcript or prose)", o.kind)
	}
	app := &app{o: o, file: file, mode: mode, kind: kind, stdin: stdin, stdout: stdout, stderr: stderr}
	if err := app.buildPipeline(ctx); err != nil {
		return err
	}
	defer app.tel.Shutdown(context.WithoutCancel(ctx))
	return app.dispatch(ctx, rest)
}

// dispatch runs what the flags and arguments ask for: a description, a
// transcript job, a subcommand, or the compaction of the inputs.
func (a *app) dispatch(ctx context.Context, rest []string) error {
	if a.o.describe {
		return a.describe()
	}
	name, body, err := a.transcriptJob()
	if err != nil {
		return err
	}
	if name != "" {
		if len(rest) > 0 {
			return usagef("--%s takes its input from its own flag; unexpected arguments %v", name, rest)
		}
		return a.runTranscriptJob(ctx, name, body)
	}
	if len(rest) > 0 && rest[0] == "mcp" {
		return a.serveMCP(ctx, rest[1:])
	}
	if len(rest) > 0 && rest[0] == "get" && a.o.conn.URL == "" {
		return a.getRef(ctx, rest[1:])
	}
	if len(rest) > 0 && isSubcommand(rest[0]) {
		if a.o.local {
			return usagef("%s needs the fleet: drop --local", rest[0])
		}
		return a.subcommand(ctx, rest[0], rest[1:])
	}
	return a.compactInputs(ctx, rest)
}

// describe writes what will run, and why not, in the output format.
func (a *app) describe() error {
	d := a.pipe.Describe(!a.o.noLLM, a.mode)
	if a.o.output == "json" {
		return writeJSON(a.stdout, d)
	}
	return d.WriteText(a.stdout)
}

// compactInputs compacts the named inputs (stdin when none), in process
// or on the fleet.
func (a *app) compactInputs(ctx context.Context, inputs []string) error {
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	if a.o.id != "" && len(inputs) > 1 {
		return usagef("--id names one document; give one input")
	}
	return a.withHTMLReport(func() error {
		if a.o.local {
			return a.compactLocal(ctx, inputs)
		}
		return a.compactFleet(ctx, inputs)
	})
}
