package stages

import (
	"errors"
	"fmt"
)

// Options holds every node's knobs. Each field is named by its node key in
// config; enablement lives elsewhere (see package pipeline).
type Options struct {
	Structured      StructuredOptions      `yaml:"structured"`
	Dedup           DedupOptions           `yaml:"dedup"`
	Whitespace      WhitespaceOptions      `yaml:"whitespace"`
	LogDedup        LogDedupOptions        `yaml:"log_dedup"`
	NearDup         NearDupOptions         `yaml:"near_dup"`
	NumberNormalize NumberNormalizeOptions `yaml:"number_normalize"`
	Stopwords       StopwordsOptions       `yaml:"stopwords"`
	Keywords        KeywordsOptions        `yaml:"keywords"`
	HeadTail        HeadTailOptions        `yaml:"headtail"`
	Redact          RedactOptions          `yaml:"redact"`
	LLMSummary      LLMSummaryOptions      `yaml:"llm_summary"`
}

// DefaultOptions returns the knobs every node ships with.
func DefaultOptions() Options {
	return Options{
		Structured:      DefaultStructuredOptions(),
		Dedup:           DefaultDedupOptions(),
		Whitespace:      DefaultWhitespaceOptions(),
		LogDedup:        DefaultLogDedupOptions(),
		NearDup:         DefaultNearDupOptions(),
		NumberNormalize: DefaultNumberNormalizeOptions(),
		Stopwords:       DefaultStopwordsOptions(),
		Keywords:        DefaultKeywordsOptions(),
		HeadTail:        DefaultHeadTailOptions(),
		Redact:          DefaultRedactOptions(),
		LLMSummary:      DefaultLLMSummaryOptions(),
	}
}

// Validate checks every node's knobs; errors name the field.
func (o Options) Validate() error {
	return errors.Join(
		prefixed(KeyStructured, o.Structured.Validate()),
		prefixed(KeyDedup, o.Dedup.Validate()),
		prefixed(KeyWhitespace, o.Whitespace.Validate()),
		prefixed(KeyLogDedup, o.LogDedup.Validate()),
		prefixed(KeyNearDup, o.NearDup.Validate()),
		prefixed(KeyNumberNormalize, o.NumberNormalize.Validate()),
		prefixed(KeyStopwords, o.Stopwords.Validate()),
		prefixed(KeyKeywords, o.Keywords.Validate()),
		prefixed(KeyHeadTail, o.HeadTail.Validate()),
		prefixed(KeyRedact, o.Redact.Validate()),
		prefixed(KeyLLMSummary, o.LLMSummary.Validate()),
	)
}

func prefixed(k Key, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("nodes.%s.%w", k, err)
}

// Deps are the outside services a node may call. Nil fields mean "none".
type Deps struct {
	Summarizer Summarizer
}

// constructors builds each node from its options, by key.
var constructors = map[Key]func(Options, Deps) Node{
	KeyStructured:      func(o Options, _ Deps) Node { return NewStructured(o.Structured) },
	KeyDedup:           func(o Options, _ Deps) Node { return NewDedup(o.Dedup) },
	KeyWhitespace:      func(o Options, _ Deps) Node { return NewWhitespace(o.Whitespace) },
	KeyLogDedup:        func(o Options, _ Deps) Node { return NewLogDedup(o.LogDedup) },
	KeyNearDup:         func(o Options, _ Deps) Node { return NewNearDup(o.NearDup) },
	KeyNumberNormalize: func(o Options, _ Deps) Node { return NewNumberNormalize(o.NumberNormalize) },
	KeyStopwords:       func(o Options, _ Deps) Node { return NewStopwords(o.Stopwords) },
	KeyKeywords:        func(o Options, _ Deps) Node { return NewKeywords(o.Keywords) },
	KeyHeadTail:        func(o Options, _ Deps) Node { return NewHeadTail(o.HeadTail) },
	KeyRedact:          func(o Options, _ Deps) Node { return NewRedact(o.Redact) },
	KeyLLMSummary:      func(o Options, d Deps) Node { return NewLLMSummary(o.LLMSummary, d.Summarizer) },
}

// New builds the node named k from its options.
func New(k Key, o Options, d Deps) (Node, error) {
	build, ok := constructors[k]
	if !ok {
		return nil, fmt.Errorf("unknown node %q", k)
	}
	return build(o, d), nil
}

// fieldError names the option field that is wrong.
type fieldError struct {
	Field  string
	Reason string
}

func (e *fieldError) Error() string { return e.Field + ": " + e.Reason }

func mustBePositive(field string, v int) error {
	if v <= 0 {
		return &fieldError{field, fmt.Sprintf("must be > 0, got %d", v)}
	}
	return nil
}

func mustBeNonNegative(field string, v int) error {
	if v < 0 {
		return &fieldError{field, fmt.Sprintf("must be >= 0, got %d", v)}
	}
	return nil
}

func validKinds(field string, kinds []Kind) error {
	for _, k := range kinds {
		if ParseKind(string(k)) == "" {
			return &fieldError{field, "unknown kind " + string(k)}
		}
	}
	return nil
}
