package transcripts

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/jetcompact/jetcompact/stages"
)

// placeholderRune opens every stages.Protect placeholder. A text that already
// holds it is never folded: stages escapes it as two runes, and a key point
// cut to KeyPointChars could split them.
const placeholderRune = '\uE000'

// StructuralResult is one answer folded by CompressStructural.
type StructuralResult struct {
	Text    string
	Changed bool   // false: Text is the input
	Reason  string // why nothing changed, or what was folded
	// CodeBlocks is how many fenced code blocks were stashed and restored.
	CodeBlocks  int
	FoldedLines int
	KeyPoints   []string
}

// CompressStructural folds one answer without a model (design.md,
// Debate): fenced
// code blocks are stashed first and restored byte for byte, the first
// HeadLines and last TailLines lines are kept, and the middle becomes one
// marker line
//
//	[... N lines compressed. Key points: a; b; c ...]
//
// built from the middle's first KeyPoints key lines (markdown headings,
// "-" or "*" bullets, numbered items, bold lines), each cut to KeyPointChars
// characters. Code blocks that sat in the middle follow the marker, in their
// order. The result is used only when it is shorter than the input.
//
// Code blocks are what stages.ProtectIndented finds: fences at the start of
// a line, indented fences, as in list items, and fences whose closing line
// is indented.
func CompressStructural(raw string, c DebateConfig) StructuralResult {
	unchanged := func(why string, blocks int) StructuralResult {
		return StructuralResult{Text: raw, Reason: why, CodeBlocks: blocks}
	}
	code, ok := stashCode(raw)
	if !ok {
		return unchanged("holds private-use placeholder runes, so its code cannot be protected: kept verbatim", 0)
	}
	cut, ok := stages.CutHeadTail(code.text, c.HeadLines, c.TailLines)
	if !ok {
		lines := strings.Count(code.text, "\n") + 1
		return unchanged(fmt.Sprintf("%d lines <= head %d + tail %d", lines, c.HeadLines, c.TailLines), code.n)
	}
	var kept, points []string
	folded := 0
	// The error is ctx's only, and Background has none.
	_, _ = cut.FoldMiddle(context.Background(), stages.MiddleFold{
		Keep: isCodeLine,
		Folded: func(l string) int {
			folded++
			if len(points) < c.KeyPoints {
				if p, ok := keyPoint(l); ok {
					points = append(points, cutRunes(p, c.KeyPointChars))
				}
			}
			return 1
		},
		Kept: func(l string, _ int) { kept = append(kept, l) },
	})
	if folded == 0 {
		return unchanged("the middle holds only code blocks", code.n)
	}
	out := make([]string, 0, 3+len(kept))
	if c.HeadLines > 0 {
		out = append(out, cut.Head)
	}
	out = append(out, foldMarker(folded, points))
	out = append(out, kept...)
	if c.TailLines > 0 {
		out = append(out, cut.Tail)
	}
	text, ok := code.restore(strings.Join(out, "\n"))
	if !ok {
		// Cannot happen: every placeholder line was kept exactly once.
		return unchanged("code blocks could not be restored: kept verbatim", code.n)
	}
	if stages.Chars(text) >= stages.Chars(raw) {
		return unchanged("folding would not make it shorter", code.n)
	}
	return StructuralResult{
		Text:        text,
		Changed:     true,
		Reason:      fmt.Sprintf("%d middle lines folded, %d key points", folded, len(points)),
		CodeBlocks:  code.n,
		FoldedLines: folded,
		KeyPoints:   points,
	}
}

// stashedCode is a text whose code blocks are placeholder lines.
type stashedCode struct {
	text  string
	stash *stages.Stash
	n     int
}

// stashCode replaces every fenced code block of raw with a one-line
// placeholder (stages.ProtectIndented: fences at column 0, indented fences
// and fences closed by an indented line). ok is false when raw already
// holds placeholder runes.
func stashCode(raw string) (stashedCode, bool) {
	if strings.ContainsRune(raw, placeholderRune) {
		return stashedCode{text: raw}, false
	}
	protected, stash := stages.ProtectIndented(raw)
	return stashedCode{text: protected, stash: stash, n: stash.Len()}, true
}

// isCodeLine reports whether line is a code block placeholder.
func isCodeLine(line string) bool { return stages.IsProtectedLine(line) }

// restore puts the code blocks back.
func (sc stashedCode) restore(text string) (string, bool) {
	if sc.stash == nil {
		return text, true
	}
	return sc.stash.Restore(text)
}

// foldMarker stands for a folded middle: stages' fold marker, so stages'
// nodes count its lines, saying what the middle held.
func foldMarker(n int, points []string) string {
	what := "compressed"
	if len(points) > 0 {
		what += ". Key points: " + strings.Join(points, "; ")
	}
	return stages.FoldMarker(n, what)
}

var (
	headingLine  = regexp.MustCompile(`^#{1,6}\s+(.*\S)`)
	bulletLine   = regexp.MustCompile(`^[-*]\s+(.*\S)`)
	numberedLine = regexp.MustCompile(`^\d{1,3}[.)]\s+(.*\S)`)
	boldLine     = regexp.MustCompile(`^(?:\*\*|__)\S.*?(?:\*\*|__)`)
)

// keyPoint reports whether line is a key line and returns its text without
// the markdown that made it one.
func keyPoint(line string) (string, bool) {
	l := strings.TrimSpace(line)
	var text string
	switch {
	case headingLine.MatchString(l):
		text = headingLine.FindStringSubmatch(l)[1]
	case boldLine.MatchString(l):
		text = l
	case bulletLine.MatchString(l):
		text = bulletLine.FindStringSubmatch(l)[1]
	case numberedLine.MatchString(l):
		text = numberedLine.FindStringSubmatch(l)[1]
	default:
		return "", false
	}
	text = strings.ReplaceAll(text, "**", "")
	text = strings.ReplaceAll(text, "__", "")
	text = strings.Join(strings.Fields(text), " ")
	return text, text != ""
}

// cutRunes returns the first n runes of s.
func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return strings.TrimRight(s[:j], " ")
		}
		i++
	}
	return s
}

// codeBlocks returns the fenced code blocks of raw, joined by newlines in
// their order, and how many there are; -1 when they cannot be extracted.
func codeBlocks(raw string) (string, int) {
	code, ok := stashCode(raw)
	if !ok {
		return "", -1
	}
	if code.n == 0 {
		return "", 0
	}
	var ph []string
	for _, l := range strings.Split(code.text, "\n") {
		if isCodeLine(l) {
			ph = append(ph, l)
		}
	}
	text, ok := code.restore(strings.Join(ph, "\n"))
	if !ok {
		return "", -1
	}
	return text, code.n
}

const debateSummarySystem = `You wrote the answer below in a debate between several models. A chairman will combine the answers into one, and your answer is too long to be read whole.
Rewrite it as a short briefing in the answer's own language, under these headings:
- Core arguments: 3 to 5 bullets.
- Key conclusions.
- Where this answer differs from other likely answers.
- Risks and caveats.
Keep numbers, names, file paths and commands exactly. Do not invent anything. Do not say how many models, people or reviewers agree with anything. Do not reproduce code blocks: they are appended verbatim after your briefing.`

// llmCompress asks the answer's own model for a briefing. A non-empty why
// means the result was rejected and the caller falls back; err is only ctx's.
func llmCompress(ctx context.Context, question, raw string, m ChatModel, c DebateConfig) (text string, blocks int, why string, err error) {
	maxTokens := c.LLMMaxTokens
	if maxTokens == 0 {
		maxTokens = stages.MaxSummaryTokens(raw)
	}
	user := stages.UserPrompt("The debated question and your answer are below.",
		[]stages.PromptDoc{{Label: "question", Text: question}, {Label: "your answer", Text: raw}}, "")
	summary, callErr := m.Complete(ctx, stages.SystemPrompt(debateSummarySystem), user, maxTokens)
	if callErr != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", 0, "", ctxErr
		}
		return "", 0, "llm failed: " + callErr.Error(), nil
	}
	summary = strings.TrimSpace(summary)
	if summary == "" {
		return "", 0, "llm returned an empty summary", nil
	}
	if added := IntroducedTallies(raw, summary); len(added) > 0 {
		return "", 0, fmt.Sprintf("llm summary introduced tallies %q", added), nil
	}
	code, n := codeBlocks(raw)
	if n < 0 {
		return "", 0, "llm: code blocks could not be extracted", nil
	}
	if n > 0 {
		summary += "\n\n" + code
	}
	if stages.Chars(summary) >= stages.Chars(raw) {
		return "", 0, "llm summary not shorter than the answer", nil
	}
	return summary, n, "", nil
}
