// Package pipeline runs the compaction nodes in code order, in process:
// config merge, the guard, the run report and self-description.
package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/stages/jsonfold"
	"github.com/jetcompact/jetcompact/stages/logs"
)

// NodeReport is one node's accounting for one run (defined in stages, so
// that transcripts reports its steps without importing pipeline).
type NodeReport = stages.NodeReport

// Report is the accounting of one run.
type Report struct {
	Kind     stages.Kind  `json:"kind"`
	Mode     stages.Mode  `json:"mode"`
	Nodes    []NodeReport `json:"nodes"`
	CharsIn  int          `json:"chars_in"`
	CharsOut int          `json:"chars_out"`
	// Guard says whether the result or the original was kept, and why.
	Guard string `json:"guard"`
	// Encoding is the input's encoding when it was not UTF-8 (see Decode).
	Encoding string `json:"encoding,omitempty"`
	// Replaced counts invalid bytes that became U+FFFD (see Decode).
	Replaced int `json:"replaced,omitempty"`
	// Form says how the input was read when not line by line as given:
	// FormJSONStream.
	Form string `json:"form,omitempty"`
	// Budget is what FitBudget folded, when the request had a budget.
	Budget *BudgetReport `json:"budget,omitempty"`
	// Spans is log_dedup's template spans over the original's lines, for
	// AddRefsWithinSpans; nil when not known (in process only).
	Spans map[int]int `json:"-"`
}

// Ratio is output characters over input characters.
func (r Report) Ratio() float64 {
	if r.CharsIn == 0 {
		return 1
	}
	return float64(r.CharsOut) / float64(r.CharsIn)
}

// Result is a compacted text and its report.
type Result struct {
	Text   string
	Report Report
}

// Pipeline runs the enabled nodes of one config. Safe for concurrent use.
type Pipeline struct {
	cfg   Config
	deps  stages.Deps
	nodes map[stages.Key]stages.Node // enabled nodes: protected, then decorated
	// redactor is the redact node, undecorated, when it is on: the guard
	// runs it on the original it keeps.
	redactor stages.Node
}

// Option changes how a Pipeline is built.
type Option func(*Pipeline) error

// WithDecorator wraps every node, for example to trace it. Decorators apply
// in the order given, the first one outermost; all of them see the text as
// it is, fenced code included (see stages.Protected).
func WithDecorator(wrap func(stages.Node) stages.Node) Option {
	return func(p *Pipeline) error {
		if wrap == nil {
			return errors.New("pipeline: nil decorator")
		}
		for k, n := range p.nodes {
			p.nodes[k] = wrap(n)
		}
		return nil
	}
}

// New builds the enabled nodes of cfg.
func New(cfg Config, deps stages.Deps, opts ...Option) (*Pipeline, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p := &Pipeline{cfg: cfg, deps: deps, nodes: map[stages.Key]stages.Node{}}
	for _, s := range stages.Specs() {
		if !cfg.NodeEnabled(s.Key) {
			continue
		}
		n, err := stages.New(s.Key, cfg.Options, deps)
		if err != nil {
			return nil, err
		}
		if s.Key == stages.KeyRedact {
			p.nodes[s.Key], p.redactor = n, n // a secret inside fenced code is a secret too
			continue
		}
		p.nodes[s.Key] = stages.Protected(n)
	}
	for i := len(opts) - 1; i >= 0; i-- {
		if err := opts[i](p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Config returns the config the pipeline was built from.
func (p *Pipeline) Config() Config { return p.cfg }

// Request is one document to compact.
type Request struct {
	Text     string
	Kind     stages.Kind // "" = detect
	Mode     stages.Mode // "" = config's mode
	AllowLLM bool
	// Log is the analysis of the original when an earlier segment made
	// it; the zero value analyses the text (see logs.Analyze).
	Log logs.Layout
	// BudgetTokens caps the output's estimated tokens (see FitBudget);
	// 0 = the config's budget_tokens, and none when that is 0 too.
	BudgetTokens int
}

// Compact runs the whole pipeline, the LLM summary included when its gates
// allow (design.md, Pipeline).
func (p *Pipeline) Compact(ctx context.Context, text string) (Result, error) {
	return p.Run(ctx, Request{Text: text, AllowLLM: true})
}

// CompactAlgorithmic never calls the LLM, whatever the mode
// (design.md, Pipeline).
func (p *Pipeline) CompactAlgorithmic(ctx context.Context, text string) (Result, error) {
	return p.Run(ctx, Request{Text: text, AllowLLM: false})
}

// Run compacts one document: every enabled node in order, then the guard.
// The input is decoded first (see Decode); binary input passes through.
func (p *Pipeline) Run(ctx context.Context, req Request) (Result, error) {
	in, dec, passReason := p.prepare(req)
	origChars := dec.Chars
	if origChars == 0 || dec.Text != req.Text {
		origChars = stages.Chars(req.Text)
	}
	rep := Report{Kind: in.Kind, Mode: in.Mode, CharsIn: origChars, Replaced: dec.Replaced, Form: dec.Form}
	if dec.Encoding != "utf-8" {
		rep.Encoding = dec.Encoding
	}
	if passReason != "" {
		rep.CharsOut, rep.Guard = origChars, passReason
		return Result{Text: req.Text, Report: rep}, nil
	}
	inChars := origChars
	if in.Text != req.Text {
		inChars = stages.Chars(in.Text)
	}
	text, outChars, reports, err := p.runSegment(ctx, AllKeys(), in, inChars)
	if err != nil {
		return Result{}, err
	}
	// The last node's count of the result is its count out, unless the
	// guard or the budget changed it.
	out, guard := text, GuardKeptResult
	if !shorter(text, outChars, origChars, len(req.Text)) {
		out, guard = p.keptOriginal(dec), GuardKeptOriginal
	}
	if budget := cmp.Or(req.BudgetTokens, p.cfg.BudgetTokens); budget > 0 {
		var b BudgetReport
		out, b = FitBudget(out, budget, in.Kind, 0)
		rep.Budget = &b
	}
	if out != text {
		outChars = stages.Chars(out)
	}
	rep.Nodes, rep.CharsOut, rep.Guard = reports, outChars, guard
	if in.Text == req.Text { // decoding kept the original's lines
		for _, r := range reports {
			if r.Spans != nil {
				rep.Spans = r.Spans
			}
		}
	}
	return Result{Text: out, Report: rep}, nil
}

// KeptOriginal is what the guard emits when it keeps the original: the
// decoded text (see Decode), redacted when the redact node is on.
func (p *Pipeline) KeptOriginal(original string) string {
	return p.keptOriginal(Decode(original))
}

func (p *Pipeline) keptOriginal(dec Decoded) string {
	if dec.Binary != "" {
		return dec.Text
	}
	if p.redactor != nil {
		if out, err := applyRecovered(context.Background(), p.redactor, stages.Input{Text: dec.Text}); err == nil {
			return out.Text
		}
	}
	return dec.Text
}

// Prepare turns a request into the first node's input. A non-empty reason
// means the document passes through untouched.
func (p *Pipeline) Prepare(req Request) (stages.Input, string) {
	in, _, reason := p.prepare(req)
	return in, reason
}

// FormJSONStream is Report.Form for a stream of indented JSON objects,
// compacted to one a line before the nodes ran.
const FormJSONStream = "json objects as lines"

// PassBinary starts the pass-through reason of binary input.
const PassBinary = "passthrough: binary input"

func (p *Pipeline) prepare(req Request) (stages.Input, Decoded, string) {
	mode := req.Mode
	if mode == "" {
		mode = p.cfg.Mode
	}
	in := stages.Input{Text: req.Text, Kind: req.Kind, Mode: mode, AllowLLM: req.AllowLLM, Log: req.Log}
	dec := Decoded{Text: req.Text, Encoding: "utf-8"}
	switch {
	case req.Text == "":
		return in, dec, "passthrough: empty input"
	case !p.cfg.Enabled:
		return in, dec, "passthrough: pipeline disabled"
	case len(p.nodes) == 0:
		return in, dec, "passthrough: no enabled nodes"
	}
	dec = Decode(req.Text)
	if dec.Binary != "" {
		return in, dec, PassBinary + " (" + dec.Binary + ")"
	}
	in.Text = dec.Text
	if in.Kind == "" {
		// Indented JSON records (jq's output over a log, loggers that
		// indent) are read as the JSON lines they are.
		if lines, ok := jsonfold.StreamLines(in.Text); ok {
			in.Text, dec.Form = lines, FormJSONStream
		}
		var lay logs.Layout
		if _, fold := p.nodes[stages.KeyStructured]; fold {
			// Detect's read of a JSON document serves the fold too.
			in.Kind, lay, in.JSON = stages.DetectTape(in.Text)
		} else {
			in.Kind, lay = stages.DetectLayout(in.Text)
		}
		if lay.Analyzed && !in.Log.Analyzed {
			in.Log = lay // Detect analysed this text already: once is enough
		}
	}
	if in.Kind == stages.KindLog && !in.Log.Analyzed {
		// Once per document, on the original: every node works with it.
		in.Log = logs.Analyze(in.Text)
	}
	return in, dec, ""
}

// AllKeys lists every node key in code order.
func AllKeys() []stages.Key {
	specs := stages.Specs()
	keys := make([]stages.Key, len(specs))
	for i, s := range specs {
		keys[i] = s.Key
	}
	return keys
}

// RunSegment runs the given nodes (a consecutive run in code order) on in.
// Disabled nodes are reported as skipped. A node that fails or panics is
// reported and its input passes on unchanged; only cancellation is returned
// as an error.
func (p *Pipeline) RunSegment(ctx context.Context, keys []stages.Key, in stages.Input) (string, []NodeReport, error) {
	text, _, reports, err := p.runSegment(ctx, keys, in, stages.Chars(in.Text))
	return text, reports, err
}

// runSegment is RunSegment with the input's character count known; it
// returns the output's too.
func (p *Pipeline) runSegment(ctx context.Context, keys []stages.Key, in stages.Input, chars int) (string, int, []NodeReport, error) {
	first := in.Text
	reports := make([]NodeReport, 0, len(keys))
	// Later nodes reuse what earlier ones found on the same bytes.
	ctx = stages.WithRunMemo(ctx)
	lines := -1 // the segment input's line count, once log_dedup needs it
	for _, k := range keys {
		node, on := p.nodes[k]
		if !on {
			reports = append(reports, NodeReport{Key: k, CharsIn: chars, CharsOut: chars, Skipped: true, Reason: "disabled in config"})
			continue
		}
		start := time.Now()
		out, err := applyRecovered(ctx, node, in)
		if err != nil {
			if ctx.Err() != nil {
				return "", 0, nil, ctx.Err()
			}
			out = stages.Outcome{Text: in.Text, Skipped: true, Reason: "error: " + err.Error()}
		}
		outChars := chars
		if out.Text != in.Text {
			if outChars = out.Chars; outChars == 0 {
				outChars = stages.Chars(out.Text) // a decorator that did not count
			}
		}
		redactions := out.Redactions
		if out.LLM != nil && out.LLM.Redactions != "" {
			redactions = out.LLM.Redactions
		}
		reports = append(reports, NodeReport{
			Key: k, CharsIn: chars, CharsOut: outChars,
			Duration: time.Since(start), Skipped: out.Skipped, Reason: out.Reason, LLM: out.LLM,
			Redactions: redactions,
		})
		if out.Spans != nil {
			if lines < 0 {
				lines = strings.Count(first, "\n")
			}
			if lineBreaks(ctx, in.Text) == lines { // earlier nodes kept every line in place
				reports[len(reports)-1].Spans = out.Spans
			}
		}
		in.Text, chars = out.Text, outChars
	}
	return in.Text, chars, reports, nil
}

// lineBreaks counts text's line breaks, or takes the count from ctx's
// run memo when a node read text's lines.
func lineBreaks(ctx context.Context, text string) int {
	if n, ok := stages.LineBreaksOf(ctx, text); ok {
		return n
	}
	return strings.Count(text, "\n")
}

// applyRecovered runs a node, decorators included, turning a panic into
// an error.
func applyRecovered(ctx context.Context, node stages.Node, in stages.Input) (out stages.Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("node %s panicked: %v", node.Key(), r)
		}
	}()
	return node.Apply(ctx, in)
}

// Guard keeps result only when it is shorter than the original, in
// characters, and no longer in bytes. It returns the text to emit and why.
func Guard(original, result string) (string, string) {
	if ShorterThan(result, stages.Chars(original), len(original)) {
		return result, GuardKeptResult
	}
	return original, GuardKeptOriginal
}

// Guard outcomes.
const (
	GuardKeptResult   = "kept result"
	GuardKeptOriginal = "kept original: result not shorter"
)

// ShorterThan is the guard's test against an original known by its sizes:
// fewer characters and no more bytes.
func ShorterThan(result string, origChars, origBytes int) bool {
	return shorter(result, stages.Chars(result), origChars, origBytes)
}

// shorter is ShorterThan with result's characters counted.
func shorter(result string, chars, origChars, origBytes int) bool {
	return chars < origChars && len(result) <= origBytes
}
