// Package stages holds the compaction nodes: pure text transforms that run in
// one fixed order owned by code. It imports no transport and no telemetry.
package stages

import (
	"context"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages/jsonfold"
	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Key is a node's stable name, used in config, subjects, spans and reports.
type Key string

// The node keys, in execution order.
const (
	KeyStructured      Key = "structured"
	KeyDedup           Key = "dedup"
	KeyWhitespace      Key = "whitespace"
	KeyLogDedup        Key = "log_dedup"
	KeyNearDup         Key = "near_dup"
	KeyNumberNormalize Key = "number_normalize"
	KeyStopwords       Key = "stopwords"
	KeyKeywords        Key = "keywords"
	KeyHeadTail        Key = "headtail"
	KeyRedact          Key = "redact"
	KeyLLMSummary      Key = "llm_summary"
)

// KeyGuard names the guard that runs after every node. It is not a node.
const KeyGuard Key = "guard"

// Spec is what code says about a node: its place, label and default.
type Spec struct {
	Key       Key
	Order     int
	Label     string
	DefaultOn bool
}

var specs = [...]Spec{
	{KeyStructured, 1, "Structured folding", true},
	{KeyDedup, 2, "Duplicate merge", true},
	{KeyWhitespace, 3, "Whitespace", true},
	{KeyLogDedup, 4, "Log dedup", true},
	{KeyNearDup, 5, "Near duplicates", true},
	{KeyNumberNormalize, 6, "Number normalization", true},
	{KeyStopwords, 7, "Stop word filter", false},
	{KeyKeywords, 8, "Key line extraction", true},
	{KeyHeadTail, 9, "Head / tail", true},
	// redact sits after every algorithmic node, so it sees the text the
	// user gets, and before llm_summary, so the first fleet segment keeps
	// its name and the default segments (algorithmic, llm, guard) stay
	// valid. The model never sees a secret either way: the LLM client
	// redacts what it sends.
	{KeyRedact, 10, "Secret redaction", false},
	{KeyLLMSummary, 11, "LLM summary", false},
}

// Specs returns every node code knows, in execution order.
func Specs() []Spec { return append([]Spec(nil), specs[:]...) }

// Mode selects whether the LLM summary may run.
type Mode string

// The three modes.
const (
	ModeAlgorithmic Mode = "algorithmic"
	ModeLLM         Mode = "llm"
	ModeHybrid      Mode = "hybrid"
)

// Valid reports whether m is one of the three modes.
func (m Mode) Valid() bool {
	return m == ModeAlgorithmic || m == ModeLLM || m == ModeHybrid
}

// UsesLLM reports whether the mode asks for the LLM summary.
func (m Mode) UsesLLM() bool { return m == ModeLLM || m == ModeHybrid }

// Input is what a node is given.
type Input struct {
	Text     string
	Kind     Kind
	Mode     Mode
	AllowLLM bool // false on the algorithmic-only entry point
	// Log is the analysis of the original text when it is a log (see
	// logs.Analyze); the zero value makes a node analyse the text it gets.
	Log logs.Layout
	// JSON is the token tape Detect recorded when it read the original
	// as one JSON document (see jsonfold.ValidTape); the structured node
	// reads it instead of the text's bytes when it was made from the very
	// text it folds. nil makes the node tokenize the text.
	JSON *jsonfold.Tape
}

// LLMUsage records what one LLM call cost.
type LLMUsage struct {
	Model            string
	PromptTokens     int
	CompletionTokens int
	Retries          int
	CacheHit         bool
	LatencyMS        int64
	// Redactions counts the secrets removed from the request, by kind,
	// as "kind=n ..." (see package redact); "" when none.
	Redactions string
}

// Outcome is what a node returns. Skipped nodes return their input text.
type Outcome struct {
	Text    string
	Skipped bool
	Reason  string
	LLM     *LLMUsage
	// Redactions counts the secrets a node replaced, by kind, as
	// "kind=n ..."; never the secrets themselves.
	Redactions string
	// Chars is Text's character count when whoever made the outcome
	// counted it, else 0. Nodes leave it 0; the pipeline fills it in.
	Chars int
	// Spans is what log_dedup mined of its input, as LogTemplateSpans
	// says, for references: nil from other nodes.
	Spans map[int]int
}

// Node is one compaction step. Apply must be safe for concurrent use, must
// return its input unchanged when it has nothing to do, must keep every
// protected placeholder line (see Protect) and must honour ctx.
type Node interface {
	Key() Key
	Apply(ctx context.Context, in Input) (Outcome, error)
}

// Chars counts characters as textkit.Chars defines them: runes, an
// invalid byte counting as one. Every node's input and output is counted.
func Chars(s string) int { return textkit.Chars(s) }

// TruncateBytes cuts s to at most n bytes without splitting a rune: for
// header values, reasons and error text bounded in bytes.
func TruncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func skip(in Input, reason string) Outcome {
	return Outcome{Text: in.Text, Skipped: true, Reason: reason}
}

func done(text string) Outcome { return Outcome{Text: text} }
