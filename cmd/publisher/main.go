// Command publisher sends text to jetcompact and prints the compacted result.
// With --local it compacts in process, without NATS.
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

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

type flags struct {
	local    bool
	report   bool
	describe bool
	config   string
	mode     string
	kind     string
	noLLM    bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "publisher:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var f flags
	fs := flag.NewFlagSet("publisher", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&f.local, "local", false, "compact in process, without NATS")
	fs.BoolVar(&f.report, "report", false, "write the per-node table to stderr")
	fs.BoolVar(&f.describe, "describe", false, "print the nodes that will run, and why others will not, then exit")
	fs.StringVar(&f.config, "config", os.Getenv("JETCOMPACT_CONFIG"), "YAML config file (default: built-in defaults)")
	fs.StringVar(&f.mode, "mode", "", "override the mode: algorithmic, llm or hybrid")
	fs.StringVar(&f.kind, "kind", "", "content kind instead of detection: log, json, html, transcript or prose")
	fs.BoolVar(&f.noLLM, "no-llm", false, "use the algorithmic entry point: never call the LLM")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: publisher [flags] [FILE|-]...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := pipeline.DefaultConfig()
	if f.config != "" {
		var err error
		if cfg, err = pipeline.LoadFile(f.config); err != nil {
			return err
		}
	}
	mode := stages.Mode(f.mode)
	if f.mode != "" {
		if !mode.Valid() {
			return fmt.Errorf("--mode: unknown mode %q (want algorithmic, llm or hybrid)", f.mode)
		}
		if mode.UsesLLM() {
			cfg.SetNode(stages.KeyLLMSummary, true)
		}
	}
	kind := stages.ParseKind(f.kind)
	if f.kind != "" && kind == "" {
		return fmt.Errorf("--kind: unknown kind %q", f.kind)
	}
	p, err := pipeline.New(cfg, stages.Deps{})
	if err != nil {
		return err
	}
	if f.describe {
		return p.Describe(!f.noLLM, mode).WriteText(stdout)
	}
	if !f.local {
		return errors.New("only --local is available in this build")
	}
	inputs := fs.Args()
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	for _, name := range inputs {
		text, err := readInput(name, stdin)
		if err != nil {
			return err
		}
		res, err := p.Run(ctx, pipeline.Request{Text: text, Kind: kind, Mode: mode, AllowLLM: !f.noLLM})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if _, err := io.WriteString(stdout, res.Text); err != nil {
			return err
		}
		if f.report {
			fmt.Fprintf(stderr, "== %s\n", name)
			if err := res.Report.WriteText(stderr); err != nil {
				return err
			}
		}
	}
	return nil
}

func readInput(name string, stdin io.Reader) (string, error) {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	return string(data), nil
}
