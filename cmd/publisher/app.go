package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/jetcompact/jetcompact/config"
	"github.com/jetcompact/jetcompact/embedded"
	"github.com/jetcompact/jetcompact/internal/cli"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/telemetry"
	"github.com/jetcompact/jetcompact/transcripts"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
)

type app struct {
	o              options
	file           config.File
	mode           stages.Mode
	kind           stages.Kind
	stdin          io.Reader
	stdout, stderr io.Writer
	pipe           *pipeline.Pipeline
	tel            *telemetry.Providers
	chatModel      transcripts.ChatModel // nil without a configured model
	rt             *config.Runtime
	nc             *nats.Conn // the fleet connection, once made
	headers        int        // ==> FILE <== headers written
}

func (a *app) buildPipeline(ctx context.Context) error {
	rt, err := a.file.Build(ctx, config.BuildOptions{Mode: a.o.mode, Model: a.o.tx.model, TelemetryOut: a.stderr,
		Log: slog.Default(), Version: version}) // run set the default: --log-format, on stderr
	if err != nil {
		return err
	}
	a.rt, a.file, a.pipe, a.tel, a.chatModel = rt, rt.File, rt.Pipeline, rt.Telemetry, rt.ChatModel()
	if a.chatModel == nil && rt.EffectiveMode().UsesLLM() && !a.o.noLLM {
		rt.LLM.Model() // the one line saying how to name a model
	}
	return nil
}

func (a *app) request(text string) pipeline.Request {
	return pipeline.Request{Text: text, Kind: a.kind, Mode: a.mode, AllowLLM: !a.o.noLLM, BudgetTokens: a.o.budgetTokens}
}

// document is text as this run compacts it: kind, mode, LLM permission,
// budget and the config fingerprint, which together derive its id.
func (a *app) document(text string) jetstream.Document {
	doc := a.rt.Document(text, a.kind, !a.o.noLLM)
	doc.BudgetTokens = a.budget()
	return doc
}

func (a *app) compactLocal(ctx context.Context, inputs []string) error {
	for _, name := range inputs {
		text, err := a.readDoc(name)
		if err != nil {
			return err
		}
		start := time.Now()
		res, err := a.pipe.Run(ctx, a.request(text))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		id := jetstream.DocumentID(text, a.document(text).Settings(""))
		a.keepOriginal(id, text, &res.Text, &res.Report)
		out := newResult(name, id, res.Report, res.Text, time.Since(start), len(inputs))
		if err := a.emit(out); err != nil {
			return err
		}
		a.addToHTMLReport(out, text)
		a.writeReport(name, res.Report)
	}
	return nil
}

func (a *app) writeReport(name string, r pipeline.Report) {
	if strings.HasPrefix(r.Guard, pipeline.PassBinary) {
		slog.Warn("input is not text: passed through unchanged", "file", name, "reason", strings.TrimPrefix(r.Guard, "passthrough: "))
	}
	if !a.o.report {
		return
	}
	fmt.Fprintf(a.stderr, "== %s\n", name)
	_ = r.WriteText(a.stderr)
}

// connect returns a JetStream handle: the given cluster, whose topology
// its workers own, or an embedded server with in-process workers for
// every segment.
func (a *app) connect(ctx context.Context) (njs.JetStream, func(), error) {
	cleanup := func() {}
	if a.o.conn.URL == "" {
		dir := a.o.storeDir
		if dir == "" {
			tmp, release, err := embedded.TempStore("")
			if err != nil {
				return nil, nil, err
			}
			dir, cleanup = tmp, release
		}
		// The embedded fleet is this command's own: its --mode is the
		// operator's, and it serves every transcript task.
		fleet, err := embedded.StartFleet(ctx, embedded.FleetOptions{StoreDir: dir, Runtime: a.rt})
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		a.o.conn.URL = fleet.URL()
		prev := cleanup
		cleanup = func() {
			if err := fleet.Close(); err != nil {
				slog.Warn("embedded fleet did not stop cleanly", "error", err.Error())
			}
			prev()
		}
	}
	a.o.conn.Name = "jetcompact-publisher"
	a.o.conn.WaitNotice = 5 * time.Second
	nc, err := jetstream.Connect(a.o.conn)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	js, err := njs.New(nc)
	if err != nil {
		nc.Close()
		cleanup()
		return nil, nil, err
	}
	a.nc = nc
	return js, func() { nc.Close(); cleanup() }, nil
}

// explain names the reason behind a fleet error a user cannot act on
// alone: a server without JetStream, or a wait that timed out while the
// connection was down.
func (a *app) explain(err error) error {
	if a.nc == nil {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) && !a.nc.IsConnected() {
		return fmt.Errorf("gave up after --timeout %s while disconnected from NATS at %s: %w", a.o.timeout, jetstream.RedactURL(a.o.conn.URL), err)
	}
	return jetstream.ExplainJetStream(err, a.nc)
}

// explainStall adds to a --timeout that ran out while connected why the
// fleet had not answered.
func (a *app) explainStall(ctx context.Context, client *jetstream.Client, err error) error {
	if !errors.Is(err, context.DeadlineExceeded) || a.nc == nil || !a.nc.IsConnected() {
		return err
	}
	if why := client.Stall(ctx); why != "" {
		return fmt.Errorf("gave up after --timeout %s: %s: %w", a.o.timeout, why, err)
	}
	return fmt.Errorf("gave up after --timeout %s: %w", a.o.timeout, err)
}

// fleetClient connects (see connect) and returns a publisher client; the
// returned function closes both.
func (a *app) fleetClient(ctx context.Context) (*jetstream.Client, func(), error) {
	js, closeAll, err := a.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	client, err := jetstream.NewClient(ctx, js, a.file.Fleet, jetstream.WithClientTracerProvider(a.tel.TracerProvider))
	if err != nil {
		err = a.explain(err) // a server without JetStream answers "no responders"
		closeAll()
		return nil, nil, err
	}
	return client, func() { client.Close(); closeAll() }, nil
}

func (a *app) compactFleet(ctx context.Context, inputs []string) error {
	ctx, cancel := context.WithTimeout(ctx, a.o.timeout)
	defer cancel()
	client, closeAll, err := a.fleetClient(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	prog := cli.NewProgress(a.stderr, len(inputs))
	for _, name := range inputs {
		text, err := a.readDoc(name)
		if err != nil {
			return err
		}
		prog.Start(name, len(text))
		start := time.Now()
		doc := a.document(text)
		doc.ID = a.o.id
		res, err := client.Compact(ctx, doc)
		prog.Done()
		if err != nil {
			return fmt.Errorf("%s: %w", name, a.explainStall(ctx, client, a.explain(err)))
		}
		if res.Error != "" {
			slog.Warn("permanent error; original emitted", "file", name, "doc", res.DocID, "reason", res.Error)
		}
		if g := res.Report.Guard; (a.o.report || a.o.output == "json") && (g == pipeline.GuardKeptResult || g == pipeline.GuardKeptOriginal || strings.HasPrefix(g, pipeline.PassBinary)) {
			pipeline.ReportEncoding(&res.Report, text)
		}
		a.fitBudget(&res.Text, &res.Report)
		a.keepOriginal(res.DocID, text, &res.Text, &res.Report)
		out := newResult(name, res.DocID, res.Report, res.Text, time.Since(start), len(inputs))
		out.Error = res.Error
		if err := a.emit(out); err != nil {
			return err
		}
		a.addToHTMLReport(out, text)
		if a.o.report {
			fmt.Fprintf(a.stderr, "doc id: %s\n", res.DocID)
		}
		a.writeReport(name, res.Report)
	}
	return nil
}

func (a *app) subcommand(ctx context.Context, cmd string, args []string) error {
	if a.o.conn.URL == "" && a.o.storeDir == "" {
		return usagef("%s needs stored documents: give --nats URL, or --store-dir DIR of an earlier embedded run", cmd)
	}
	ctx, cancel := context.WithTimeout(ctx, a.o.timeout)
	defer cancel()
	client, closeAll, err := a.fleetClient(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	switch cmd {
	case "dead":
		dl, err := client.DeadLetters(ctx)
		if err != nil {
			return err
		}
		for _, d := range dl {
			if a.o.output == "json" {
				if err := writeJSON(a.stdout, deadLetter{d.Sequence, d.DocID, d.Stage, d.Reason}); err != nil {
					return err
				}
				continue
			}
			fmt.Fprintf(a.stdout, "%d\t%s\t%s\t%s\n", d.Sequence, d.DocID, d.Stage, d.Reason)
		}
		return nil
	}
	if len(args) != 1 {
		return usagef("%s takes one document id", cmd)
	}
	id := args[0]
	switch cmd {
	case "get":
		ref, err := pipeline.ParseRef(id)
		if err != nil {
			return usageError{Err: err}
		}
		text, err := client.Original(ctx, a.wholeID(ref.ID))
		if err != nil {
			return err
		}
		return writeRef(a.stdout, text, ref)
	case "replay":
		start := time.Now()
		res, err := client.Replay(ctx, id, jetstream.Document{Kind: a.kind, Mode: a.mode, AllowLLM: !a.o.noLLM, BudgetTokens: a.o.budgetTokens})
		if err != nil {
			return err
		}
		// A replay's markers reference the original as a first run's do.
		if original, err := client.Original(ctx, id); err == nil {
			a.keepOriginal(id, original, &res.Text, &res.Report)
		}
		out := newResult(id, id, res.Report, res.Text, time.Since(start), 1)
		out.Error = res.Error
		if err := a.emit(out); err != nil {
			return err
		}
		a.writeReport(id, res.Report)
		return nil
	}
	return errors.New("unknown subcommand " + cmd)
}

// readDoc reads one document, refusing it before reading when it is above
// fleet.max_document_bytes (both --local and the fleet).
func (a *app) readDoc(name string) (string, error) {
	return cli.ReadLimited(name, a.stdin, a.file.Fleet.MaxDocumentBytes)
}

// readInput reads a request file under the default max_document_bytes.
func readInput(name string, stdin io.Reader) (string, error) {
	return cli.ReadLimited(name, stdin, jetstream.DefaultConfig().MaxDocumentBytes)
}
