package stages

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// LLMSummaryOptions are the LLM summary node's knobs.
type LLMSummaryOptions struct {
	// Threshold is gate 3: shorter texts are not sent to the model.
	Threshold int `yaml:"threshold"`
}

// DefaultLLMSummaryOptions returns the shipped defaults (seed 004: 500).
func DefaultLLMSummaryOptions() LLMSummaryOptions { return LLMSummaryOptions{Threshold: 500} }

// Validate reports a knob that is out of range.
func (o LLMSummaryOptions) Validate() error {
	return mustBeNonNegative("threshold", o.Threshold)
}

// ErrCircuitOpen is returned by a Summarizer whose breaker is open.
var ErrCircuitOpen = errors.New("circuit open")

// SummaryRequest is one text to summarise.
type SummaryRequest struct {
	Text            string
	Kind            Kind
	MaxOutputTokens int
}

// Summarizer is the LLM behind the llm_summary node.
type Summarizer interface {
	// Model returns the model that would answer, or false when none is configured.
	Model() (string, bool)
	// Summarize returns the summary and what the call cost.
	Summarize(ctx context.Context, req SummaryRequest) (string, LLMUsage, error)
}

// Gate numbers, in seed order.
const (
	GateEntryPoint = 1
	GateMode       = 2
	GateLength     = 3
	GateModel      = 4
)

// GateResult says which gate stopped the LLM summary, or Open when none did.
type GateResult struct {
	Open   bool
	Gate   int
	Reason string
}

// CheckGates evaluates the four gates in order. chars < 0 means "length not
// known yet" and leaves gate 3 open.
func CheckGates(allowLLM bool, mode Mode, chars int, o LLMSummaryOptions, s Summarizer) GateResult {
	if !allowLLM {
		return GateResult{Gate: GateEntryPoint, Reason: "gate 1 (entry point): this entry point never calls the LLM"}
	}
	if !mode.UsesLLM() {
		return GateResult{Gate: GateMode, Reason: fmt.Sprintf("gate 2 (mode): mode is %s", mode)}
	}
	if chars >= 0 && chars < o.Threshold {
		return GateResult{Gate: GateLength, Reason: fmt.Sprintf("gate 3 (length): %d chars is below the threshold of %d", chars, o.Threshold)}
	}
	if s == nil {
		return GateResult{Gate: GateModel, Reason: "gate 4 (model): no summary model and no default chat model configured"}
	}
	if _, ok := s.Model(); !ok {
		return GateResult{Gate: GateModel, Reason: "gate 4 (model): no summary model and no default chat model configured"}
	}
	return GateResult{Open: true}
}

type llmSummaryNode struct {
	opt LLMSummaryOptions
	llm Summarizer
}

// NewLLMSummary builds the gated LLM summary node. Any failure of the model
// leaves the text unchanged and is reported as the skip reason.
func NewLLMSummary(o LLMSummaryOptions, s Summarizer) Node { return llmSummaryNode{o, s} }

func (llmSummaryNode) Key() Key { return KeyLLMSummary }

func (n llmSummaryNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	chars := Chars(in.Text)
	g := CheckGates(in.AllowLLM, in.Mode, chars, n.opt, n.llm)
	if !g.Open {
		return skip(in, g.Reason), nil
	}
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	summary, usage, err := n.llm.Summarize(ctx, SummaryRequest{
		Text:            in.Text,
		Kind:            in.Kind,
		MaxOutputTokens: MaxSummaryTokens(in.Text),
	})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Outcome{}, ctxErr
		}
		reason := "llm failed: " + err.Error()
		if errors.Is(err, ErrCircuitOpen) {
			reason = "circuit open"
		}
		out := skip(in, reason)
		out.LLM = &usage
		return out, nil
	}
	if summary == "" {
		out := skip(in, "llm returned an empty summary")
		out.LLM = &usage
		return out, nil
	}
	out := done(keepProtectedLines(summary, in.Text))
	out.LLM = &usage
	if Chars(summary) >= chars {
		out.Reason = "summary not shorter than its input; the guard decides"
	}
	return out, nil
}

// EstimateTokens approximates a token count: CJK about 1.5 characters per
// token, other text about 4 (seed 003).
func EstimateTokens(text string) int {
	cjk, other := 0, 0
	for _, r := range text {
		if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) {
			cjk++
		} else {
			other++
		}
	}
	return int(float64(cjk)/1.5 + float64(other)/4.0)
}

// MaxSummaryTokens bounds a summary's length from its input: half the
// input's estimated tokens, at least 64 and at most 4096.
func MaxSummaryTokens(text string) int {
	n := EstimateTokens(text) / 2
	return min(max(n, 64), 4096)
}

// keepProtectedLines makes a model's summary keep the node contract:
// every placeholder of source appears exactly once. Duplicates and
// placeholders source does not hold are removed; missing ones are appended,
// each on its own line, in source order.
func keepProtectedLines(summary, source string) string {
	want := placeholders(source)
	if len(want) == 0 && !strings.ContainsRune(summary, protectOpen) {
		return summary
	}
	wanted := make(map[string]bool, len(want))
	for _, p := range want {
		wanted[p] = true
	}
	seen := make(map[string]bool, len(want))
	var b strings.Builder
	b.Grow(len(summary) + 16*len(want))
	rest := summary
	for {
		i := strings.IndexRune(rest, protectOpen)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		p, n := placeholderAt(rest[i:])
		if n == 0 { // a stray open rune: drop it
			rest = rest[i+len(string(protectOpen)):]
			continue
		}
		if wanted[p] && !seen[p] {
			seen[p] = true
			b.WriteString(p)
		}
		rest = rest[i+n:]
	}
	out := b.String()
	for _, p := range want {
		if seen[p] {
			continue
		}
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += p
	}
	return out
}

// placeholders lists the distinct well-formed placeholders in text, in order.
func placeholders(text string) []string {
	var out []string
	seen := map[string]bool{}
	for {
		i := strings.IndexRune(text, protectOpen)
		if i < 0 {
			return out
		}
		p, n := placeholderAt(text[i:])
		if n == 0 {
			text = text[i+len(string(protectOpen)):]
			continue
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
		text = text[i+n:]
	}
}

// placeholderAt returns the placeholder s starts with and its length in
// bytes, or 0 when s does not start with a well-formed one.
func placeholderAt(s string) (string, int) {
	if !strings.HasPrefix(s, string(protectOpen)) {
		return "", 0
	}
	end := strings.IndexRune(s, protectClose)
	if end < 0 {
		return "", 0
	}
	if _, ok := decodePlaceholder(s[len(string(protectOpen)):end]); !ok {
		return "", 0
	}
	n := end + len(string(protectClose))
	return s[:n], n
}
