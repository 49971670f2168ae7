// Package jetcompact compacts text for language models (logs, CI output,
// JSON, HTML, transcripts, prose) in process: the same pipeline the NATS
// fleet runs, without NATS.
//
//	res, err := jetcompact.Compact(ctx, text, jetcompact.WithBudget(2000))
//
// A Compactor built once with New is safe for concurrent use. Input that
// cannot be compacted comes out unchanged; the result is never longer
// than the input.
package jetcompact

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

type (
	// Config turns nodes on and off and sets their options (see
	// DefaultConfig; the config file's pipeline section).
	Config = pipeline.Config
	// Result is the compacted text and the per-node report.
	Result = pipeline.Result
	// Kind is the content kind: log, json, html, transcript or prose.
	Kind = stages.Kind
	// Mode is algorithmic, llm or hybrid.
	Mode = stages.Mode
	// Summarizer is the LLM behind the llm_summary node, such as *llm.Client.
	Summarizer = stages.Summarizer
)

// The content kinds WithKind takes.
const (
	KindLog        = stages.KindLog
	KindJSON       = stages.KindJSON
	KindHTML       = stages.KindHTML
	KindTranscript = stages.KindTranscript
	KindProse      = stages.KindProse
)

// The modes WithMode takes.
const (
	ModeAlgorithmic = stages.ModeAlgorithmic
	ModeLLM         = stages.ModeLLM
	ModeHybrid      = stages.ModeHybrid
)

// DefaultConfig is the pipeline configuration code ships.
func DefaultConfig() Config { return pipeline.DefaultConfig() }

// Option sets how a text is compacted. Kind, mode and budget apply to New
// (as defaults) and to each Compact call; WithLLM only to New.
type Option func(*options) error

type options struct {
	kind   Kind
	mode   Mode
	budget int
	llm    Summarizer
	llmSet bool // WithLLM was given
}

// WithKind skips detection: the text is of kind k.
func WithKind(k Kind) Option {
	return func(o *options) error {
		if stages.ParseKind(string(k)) != k {
			return fmt.Errorf("jetcompact: unknown kind %q (want log, json, html, transcript or prose)", k)
		}
		o.kind = k
		return nil
	}
}

// WithMode overrides the config's mode.
func WithMode(m Mode) Option {
	return func(o *options) error {
		if !m.Valid() {
			return fmt.Errorf("jetcompact: unknown mode %q (want algorithmic, llm or hybrid)", m)
		}
		o.mode = m
		return nil
	}
}

// WithBudget folds more until the output is at most tokens estimated
// tokens (see pipeline.FitBudget); 0 means the config's budget_tokens.
func WithBudget(tokens int) Option {
	return func(o *options) error {
		if tokens < 0 {
			return fmt.Errorf("jetcompact: budget %d below 0", tokens)
		}
		o.budget = tokens
		return nil
	}
}

// WithLLM gives the llm_summary node a model (for example an *llm.Client
// from llm.New), turns the node on, and allows calling it where the mode
// (llm or hybrid) and the gates do. Without it, no model is ever called.
func WithLLM(s Summarizer) Option {
	return func(o *options) error {
		if s == nil {
			return errors.New("jetcompact: nil LLM")
		}
		o.llm, o.llmSet = s, true
		return nil
	}
}

// Compactor compacts texts with one configuration.
type Compactor struct {
	pipe     *pipeline.Pipeline
	defaults options
}

// New builds a Compactor from cfg.
func New(cfg Config, opts ...Option) (*Compactor, error) {
	var o options
	if err := apply(&o, opts); err != nil {
		return nil, err
	}
	if o.llmSet {
		// A model given is a model to use, where the mode and gates allow.
		cfg.Nodes = slices.Clone(cfg.Nodes)
		cfg.SetNode(stages.KeyLLMSummary, true)
	}
	pipe, err := pipeline.New(cfg, stages.Deps{Summarizer: o.llm})
	if err != nil {
		return nil, err
	}
	return &Compactor{pipe: pipe, defaults: o}, nil
}

// Compact compacts text; opts override New's kind, mode and budget for
// this call.
func (c *Compactor) Compact(ctx context.Context, text string, opts ...Option) (Result, error) {
	o := c.defaults
	o.llmSet = false
	if err := apply(&o, opts); err != nil {
		return Result{}, err
	}
	if o.llmSet {
		return Result{}, errors.New("jetcompact: WithLLM applies to New, not to one call")
	}
	return c.pipe.Run(ctx, pipeline.Request{Text: text, Kind: o.kind, Mode: o.mode, AllowLLM: o.llm != nil, BudgetTokens: o.budget})
}

// Compact compacts text with the default configuration and opts.
func Compact(ctx context.Context, text string, opts ...Option) (Result, error) {
	c, err := New(DefaultConfig(), opts...)
	if err != nil {
		return Result{}, err
	}
	return c.Compact(ctx, text)
}

func apply(o *options, opts []Option) error {
	for _, opt := range opts {
		if err := opt(o); err != nil {
			return err
		}
	}
	return nil
}
