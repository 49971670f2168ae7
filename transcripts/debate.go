package transcripts

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/jetcompact/jetcompact/stages"
)

// GateDecision records whether a debate crossed the gate. The rule is
// "compress when TotalChars >= GateChars": 59,999 characters pass through,
// 60,000 are compressed.
type GateDecision struct {
	TotalChars int    `json:"total_chars"`
	GateChars  int    `json:"gate_chars"`
	Compress   bool   `json:"compress"`
	Reason     string `json:"reason"`
}

// AnswerReport says what happened to one answer.
type AnswerReport struct {
	Index int    `json:"index"` // position in Debate.Answers
	Model string `json:"model"`
	Seat  int    `json:"seat"` // 1-based place after seating
	// Method is "verbatim", "structural", "llm" or "unchanged".
	Method     string `json:"method"`
	Reason     string `json:"reason,omitempty"`
	CharsIn    int    `json:"chars_in"`
	CharsOut   int    `json:"chars_out"`
	CodeBlocks int    `json:"code_blocks,omitempty"`
}

// The methods an AnswerReport can name.
const (
	MethodVerbatim   = "verbatim"
	MethodStructural = "structural"
	MethodLLM        = "llm"
	MethodUnchanged  = "unchanged"
)

// DebateReport is the accounting of one CompressDebate call.
type DebateReport struct {
	Mode    DebateMode     `json:"mode"`
	Gate    GateDecision   `json:"gate"`
	Answers []AnswerReport `json:"answers"` // in seating order
	// LLMGate says why the LLM path was not open for any answer; empty when
	// it was open (per-answer model availability is in each Reason).
	LLMGate  string `json:"llm_gate,omitempty"`
	CharsIn  int    `json:"chars_in"`
	CharsOut int    `json:"chars_out"`
	// Overflow says what was done when the compressed answers still
	// exceeded the window; empty when they fit.
	Overflow string `json:"overflow,omitempty"`
}

// EffectiveMode returns d.Mode, or when it is empty, ModeDebate if any
// answer carries review scores and ModeCompare otherwise.
func (d Debate) EffectiveMode() (DebateMode, error) {
	switch d.Mode {
	case ModeDebate, ModeCompare:
		return d.Mode, nil
	case "":
		for _, a := range d.Answers {
			if len(a.ReviewScores) > 0 {
				return ModeDebate, nil
			}
		}
		return ModeCompare, nil
	}
	return "", fmt.Errorf("%w: debate mode %q (want debate or compare)", ErrInvalid, d.Mode)
}

// Seating returns the answer indexes in seating order: total review score
// descending in debate mode, priority ascending in compare mode. Ties keep
// input order.
func Seating(d Debate, mode DebateMode) []int {
	order := make([]int, len(d.Answers))
	for i := range order {
		order[i] = i
	}
	switch mode {
	case ModeDebate:
		total := make([]float64, len(d.Answers))
		for i, a := range d.Answers {
			for _, s := range a.ReviewScores {
				total[i] += s
			}
		}
		sort.SliceStable(order, func(x, y int) bool { return total[order[x]] > total[order[y]] })
	case ModeCompare:
		sort.SliceStable(order, func(x, y int) bool {
			return d.Answers[order[x]].Priority < d.Answers[order[y]].Priority
		})
	}
	return order
}

// CheckGate measures the answers against the gate.
func CheckGate(d Debate, c DebateConfig) GateDecision {
	g := GateDecision{GateChars: c.GateChars()}
	for _, a := range d.Answers {
		g.TotalChars += stages.Chars(a.ResponseRaw)
	}
	g.Compress = g.TotalChars >= g.GateChars
	if g.Compress {
		g.Reason = fmt.Sprintf("%d chars >= gate %d (%.2f × %d): compressing", g.TotalChars, g.GateChars, c.GateRatio, c.WindowChars)
	} else {
		g.Reason = fmt.Sprintf("%d chars < gate %d (%.2f × %d): passed to the chairman as is", g.TotalChars, g.GateChars, c.GateRatio, c.WindowChars)
	}
	return g
}

// CompressDebate returns a copy of d in which every answer seated below the
// first KeepVerbatim carries a ResponseCompressed, when the answers together
// reach the gate. ResponseRaw is never changed; d itself is not modified.
// models may be nil; it is only consulted when the LLM gates are open.
// Model failures fall back to the structural compression and are reported,
// never returned; only an invalid config or mode, or ctx, yield an error.
func CompressDebate(ctx context.Context, d Debate, c DebateConfig, models ModelLookup) (Debate, DebateReport, error) {
	if err := c.Validate(); err != nil {
		return d, DebateReport{}, err
	}
	mode, err := d.EffectiveMode()
	if err != nil {
		return d, DebateReport{}, err
	}
	out := d.clone()
	for i := range out.Answers {
		out.Answers[i].ResponseCompressed = ""
	}
	rep := DebateReport{Mode: mode, Gate: CheckGate(d, c)}
	rep.LLMGate = llmGate(c, models)
	modelFailed := false
	for seat, idx := range Seating(d, mode) {
		if err := ctx.Err(); err != nil {
			return d, DebateReport{}, err
		}
		a := &out.Answers[idx]
		ar := AnswerReport{Index: idx, Model: a.Model, Seat: seat + 1, CharsIn: stages.Chars(a.ResponseRaw)}
		switch {
		case !rep.Gate.Compress:
			ar.Method, ar.Reason = MethodVerbatim, "below the gate"
		case seat < c.KeepVerbatim:
			ar.Method, ar.Reason = MethodVerbatim, fmt.Sprintf("seat %d of the top %d", seat+1, c.KeepVerbatim)
		default:
			gate := rep.LLMGate
			if gate == "" && modelFailed {
				// A failed call was retried by the client under its time
				// budget; asking again per answer would multiply a hang.
				gate = "the model failed on an earlier answer of this debate"
			}
			if err := compressAnswer(ctx, d.Question, a, &ar, c, gate, models); err != nil {
				return d, DebateReport{}, err
			}
			modelFailed = modelFailed || strings.HasPrefix(ar.Reason, "llm failed")
		}
		ar.CharsOut = stages.Chars(chairmanText(*a))
		rep.CharsIn += ar.CharsIn
		rep.CharsOut += ar.CharsOut
		rep.Answers = append(rep.Answers, ar)
	}
	if rep.Gate.Compress && rep.CharsOut > c.WindowChars {
		fitWindow(&out, &rep, c)
	}
	return out, rep, nil
}

// fitWindow runs when the compressed answers still exceed the chairman's
// window: it compresses the answers that are still long, the third and
// lower seats first (folded tighter), then the top seats from the second
// up, until the total fits. Code blocks are never touched, so it can still
// end over the window; Overflow says what happened either way.
func fitWindow(d *Debate, rep *DebateReport, c DebateConfig) {
	before := rep.CharsOut
	tight := c
	tight.HeadLines, tight.TailLines = min(c.HeadLines, 5), min(c.TailLines, 3)
	order := make([]int, 0, len(rep.Answers))
	for i := len(rep.Answers) - 1; i >= 0; i-- {
		if rep.Answers[i].Seat > c.KeepVerbatim {
			order = append([]int{i}, order...)
		}
	}
	for i := min(c.KeepVerbatim, len(rep.Answers)) - 1; i >= 0; i-- {
		order = append(order, i)
	}
	var seats []string
	for _, i := range order {
		if rep.CharsOut <= c.WindowChars {
			break
		}
		ar := &rep.Answers[i]
		a := &d.Answers[ar.Index]
		cur := stages.Chars(chairmanText(*a))
		best, how := "", ""
		for _, try := range []struct {
			cfg  DebateConfig
			name string
		}{{c, fmt.Sprintf("head %d / tail %d", c.HeadLines, c.TailLines)}, {tight, fmt.Sprintf("head %d / tail %d", tight.HeadLines, tight.TailLines)}} {
			res := CompressStructural(a.ResponseRaw, try.cfg)
			if res.Changed && stages.Chars(res.Text) < cur {
				best, how, cur = res.Text, try.name, stages.Chars(res.Text)
				ar.CodeBlocks = res.CodeBlocks
			}
			if rep.CharsOut-ar.CharsOut+cur <= c.WindowChars {
				break
			}
		}
		if best == "" {
			continue
		}
		a.ResponseCompressed = best
		ar.Method = MethodStructural
		ar.Reason = joinReasons(ar.Reason, "over the window after compression: folded to "+how)
		rep.CharsOut += cur - ar.CharsOut
		ar.CharsOut = cur
		seats = append(seats, fmt.Sprintf("%d", ar.Seat))
	}
	state := "fits"
	if rep.CharsOut > c.WindowChars {
		state = "still over the window (code blocks are never folded)"
	}
	rep.Overflow = fmt.Sprintf("compressed total %d chars > window %d: recompressed seats [%s], now %d chars, %s",
		before, c.WindowChars, strings.Join(seats, " "), rep.CharsOut, state)
}

// llmGate returns why the LLM path is closed for every answer, or "".
func llmGate(c DebateConfig, models ModelLookup) string {
	switch {
	case !c.AllowLLM:
		return "gate 1 (entry point): this entry point does not allow model calls"
	case !c.Mode.UsesLLM():
		mode := c.Mode
		if mode == "" {
			mode = stages.ModeAlgorithmic
		}
		return fmt.Sprintf("gate 2 (mode): mode is %s", mode)
	case models == nil:
		return "gate 3 (model): no model configured"
	}
	return ""
}

func compressAnswer(ctx context.Context, question string, a *Answer, ar *AnswerReport, c DebateConfig, gate string, models ModelLookup) error {
	var fallback string
	if gate == "" {
		if m := models(a.Model); m == nil {
			fallback = fmt.Sprintf("gate 3 (model): no model for %q", a.Model)
		} else {
			text, blocks, why, err := llmCompress(ctx, question, a.ResponseRaw, m, c)
			if err != nil {
				return err
			}
			if why == "" {
				a.ResponseCompressed = text
				ar.Method, ar.CodeBlocks = MethodLLM, blocks
				return nil
			}
			fallback = why
		}
	}
	res := CompressStructural(a.ResponseRaw, c)
	ar.CodeBlocks = res.CodeBlocks
	if !res.Changed {
		ar.Method, ar.Reason = MethodUnchanged, joinReasons(fallback, res.Reason)
		return nil
	}
	a.ResponseCompressed = res.Text
	ar.Method, ar.Reason = MethodStructural, joinReasons(fallback, res.Reason)
	return nil
}

func joinReasons(rs ...string) string {
	var kept []string
	for _, r := range rs {
		if r != "" {
			kept = append(kept, r)
		}
	}
	return strings.Join(kept, "; ")
}

// chairmanText is response_compressed ?? response_raw.
func chairmanText(a Answer) string {
	if a.ResponseCompressed != "" {
		return a.ResponseCompressed
	}
	return a.ResponseRaw
}

// ChairmanView returns, in answer order, what the chairman reads of each
// answer: ResponseCompressed when set, ResponseRaw otherwise.
func ChairmanView(d Debate) []string {
	out := make([]string, len(d.Answers))
	for i, a := range d.Answers {
		out[i] = chairmanText(a)
	}
	return out
}

// ChairmanText is the text the chairman reads: the question, then each
// answer's chairman view (response_compressed ?? response_raw) under a
// heading with its model, in answer order.
func ChairmanText(d Debate) string {
	var b strings.Builder
	if d.Question != "" {
		b.WriteString("Question: ")
		b.WriteString(d.Question)
		b.WriteString("\n\n")
	}
	for i, a := range d.Answers {
		fmt.Fprintf(&b, "## Answer %d", i+1)
		if a.Model != "" {
			fmt.Fprintf(&b, " (%s)", a.Model)
		}
		b.WriteString("\n\n")
		b.WriteString(strings.TrimRight(chairmanText(a), "\n"))
		b.WriteString("\n\n")
	}
	return b.String()
}

// AnswerChars is one answer's size before and after compression.
type AnswerChars struct {
	Model      string `json:"model"`
	CharsIn    int    `json:"chars_in"`
	CharsOut   int    `json:"chars_out"`
	Compressed bool   `json:"compressed"`
}

// CharCounts returns, in answer order, the characters of each answer's raw
// response and of its chairman view.
func CharCounts(d Debate) []AnswerChars {
	out := make([]AnswerChars, len(d.Answers))
	for i, a := range d.Answers {
		out[i] = AnswerChars{
			Model:      a.Model,
			CharsIn:    stages.Chars(a.ResponseRaw),
			CharsOut:   stages.Chars(chairmanText(a)),
			Compressed: a.ResponseCompressed != "",
		}
	}
	return out
}
