package stages

import (
	"context"
	"regexp"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Tool output in an aider chat history is every line quoted with "> ".
// Its classes, each compacted by what it is:
//   - aider's status lines: the token and cost count after every reply
//     (the last one holds the session's total), usage hints, confirm
//     prompts with their option legend, an "Applied edit to" line per
//     edit (the edit block shows it; a failure has its own report);
//   - an edit block aider quotes back when it could not apply it: the
//     assistant's reply above holds it whole;
//   - aider's fixed advice (lint and failed-match reports), repeated in
//     every report;
//   - command output (tests, builds): the log path when it is long.

// foldToolRuns compacts each run of "> " lines of a Markdown transcript.
// Request lines ("#### ") and protected placeholders end a run.
func foldToolRuns(ctx context.Context, text string) string {
	lines := strings.Split(text, "\n")
	lastCost := -1
	for i, l := range lines {
		if isAiderCostLine(quotedBody(l)) {
			lastCost = i
		}
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(lines))
	changed := false
	for i := 0; i < len(lines); {
		if !isQuotedLine(lines[i]) {
			out = append(out, lines[i])
			i++
			continue
		}
		j := i
		for j < len(lines) && isQuotedLine(lines[j]) {
			j++
		}
		run := tidyToolRun(lines[i:j], i, lastCost, seen)
		joined := strings.Join(run, "\n")
		if folded := compactToolRun(ctx, joined); folded != joined {
			run = strings.Split(folded, "\n")
			for k, l := range run {
				if !strings.HasPrefix(l, ">") {
					run[k] = "> " + l // a marker stays inside the quote
				}
			}
		}
		if len(run) != j-i || strings.Join(run, "\n") != strings.Join(lines[i:j], "\n") {
			changed = true
		}
		out = append(out, run...)
		i = j
	}
	if !changed {
		return text
	}
	return strings.Join(out, "\n")
}

func isQuotedLine(l string) bool { return strings.HasPrefix(l, ">") && !IsProtectedLine(l) }

// quotedBody is a quoted line without its "> " and Markdown's trailing
// line-break spaces.
func quotedBody(l string) string {
	if !strings.HasPrefix(l, ">") {
		return ""
	}
	return strings.TrimSpace(l[1:])
}

// isAiderCostLine reports aider's count after a reply: "Tokens: 2.1k
// sent, 340 received. Cost: $0.01 message, $0.12 session."
func isAiderCostLine(body string) bool {
	return strings.HasPrefix(body, "Tokens: ") && strings.Contains(body, " sent") && strings.Contains(body, "received")
}

// aiderHints are aider's fixed usage hints.
var aiderHints = [...]string{
	"You can use /undo to undo and discard each aider commit.",
	"Use /help <question> for help, run \"aider --help\" to see cmd line args",
}

// aiderConfirmLegend is the option legend of an aider question:
// "(Y)es/(N)o/(D)on't ask again [Yes]:", or in older versions
// "[y/n] (y):". The question and the answer stay.
var aiderConfirmLegend = regexp.MustCompile(` (?:\(Y\)es/\(N\)o[^:\[]*(?:\[[^\]]*\])?|\[y/n\](?: \([yn]\))?):`)

// editQuoteFolded stands for an edit block aider quoted back.
const editQuoteFolded = "…[the edit block, as in the reply above]…"

// tidyToolRun applies the per-line classes to one run of quoted lines
// starting at line first; seen holds aider's advice lines met before.
func tidyToolRun(run []string, first, lastCost int, seen map[string]bool) []string {
	out := make([]string, 0, len(run))
	for k := 0; k < len(run); k++ {
		l := run[k]
		body := quotedBody(l)
		switch {
		case body == "":
			continue // a blank quoted line separates nothing once folded
		case isAiderCostLine(body):
			if first+k != lastCost {
				continue
			}
		case isAiderHint(body):
			continue
		case isEditOpen(body):
			if end := quotedEditEnd(run, k); end > k {
				out = append(out, "> "+editQuoteFolded)
				k = end
				continue
			}
		case strings.HasPrefix(body, "Applied edit to "):
			// The edit block above shows the edit; a failure to apply
			// one is reported on its own lines.
			continue
		case isAiderAdvice(body):
			if seen[body] {
				continue
			}
			seen[body] = true
		}
		if strings.Contains(l, "(Y)es/(N)o") || strings.Contains(l, "[y/n]") {
			l = aiderConfirmLegend.ReplaceAllString(l, "")
		}
		out = append(out, l)
	}
	return out
}

func isAiderHint(body string) bool {
	for _, h := range aiderHints {
		if body == h {
			return true
		}
	}
	return false
}

func isEditOpen(body string) bool {
	return body == "<<<<<<< SEARCH" || body == "<<<<<<< ORIGINAL"
}

// quotedEditEnd is the index of the line closing the quoted edit block
// that opens at run[k], or -1.
func quotedEditEnd(run []string, k int) int {
	sep := false
	for e := k + 1; e < len(run); e++ {
		switch quotedBody(run[e]) {
		case "=======":
			sep = true
		case ">>>>>>> REPLACE", ">>>>>>> UPDATED":
			if sep {
				return e
			}
			return -1
		}
	}
	return -1
}

// isAiderAdvice reports a line of fixed advice: five words or more, no
// digit, neither a failure nor a question (those carry the run's facts).
func isAiderAdvice(body string) bool {
	if len(strings.Fields(body)) < 5 || strings.ContainsAny(body, "0123456789?") || textkit.IsFailureLine(body) {
		return false
	}
	return true
}

// compactToolRun folds a long run: command output through the log path
// (its templates counted, its failures and tail kept), else its head,
// failures and tail.
func compactToolRun(ctx context.Context, run string) string {
	best := compactOutput(run)
	if len(run) <= toolKeepChars {
		return best
	}
	lines := strings.Split(run, "\n")
	bodies := make([]string, len(lines))
	for i, l := range lines {
		bodies[i] = strings.TrimRight(strings.TrimPrefix(strings.TrimPrefix(l, ">"), " "), " ")
	}
	plain := strings.Join(bodies, "\n")
	if len(bodies) < 16 || !isLogText(plain, bodies) {
		return best
	}
	folded, err := compactLogText(ctx, plain)
	if err != nil || len(folded) >= len(plain) {
		return best
	}
	folded = withoutCounts(withTail(folded, bodies))
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimRight(folded, "\n"), "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("> " + l)
	}
	if q := b.String(); len(q) < len(best) {
		return q
	}
	return best
}

// The assistant's prose in an aider history explains the edit blocks it
// comes with; the request says what was wanted and the blocks say what
// changed. Before the last recentProseBytes of the history (about its
// last turns), a stretch of prose (paragraphs and lists between code,
// edits and tool output) keeps its first sentence; the end of the history, the requests, code (indented or
// fenced) and tool output stay as they are. The node sees requests as
// placeholders, so "recent" is measured in bytes, not turns.

// recentProseBytes is how much of the end of a history keeps its prose.
const recentProseBytes = 8000

// proseFolded ends a paragraph cut to its first sentence.
const proseFolded = " …[folded]…"

// foldOlderProse cuts the prose of an aider history, before its last
// recentProseBytes, to the first sentence of each stretch.
func foldOlderProse(text string) string {
	if len(text) <= recentProseBytes || !isAiderHistoryText(text) {
		return text
	}
	lines := strings.Split(text, "\n")
	end, pos := 0, 0
	for end < len(lines) && pos+len(lines[end]) < len(text)-recentProseBytes {
		pos += len(lines[end]) + 1
		end++
	}
	dropped := make([]bool, len(lines))
	changed := false
	for i := 0; i < end; i++ {
		if !isAssistantProse(lines[i]) {
			continue
		}
		// A stretch of prose: paragraphs and list items with only blank
		// lines between them.
		j, last := i+1, i
		for j < end && (isAssistantProse(lines[j]) || strings.TrimSpace(lines[j]) == "") {
			if isAssistantProse(lines[j]) {
				last = j
			}
			j++
		}
		j = last + 1
		stretch := strings.Join(lines[i:j], "\n")
		if cut, ok := firstSentence(stretch); ok {
			lines[i] = cut
			for k := i + 1; k < j; k++ {
				dropped[k] = true
			}
			changed = true
		}
		i = j - 1
	}
	if !changed {
		return text
	}
	out := lines[:0]
	for k, l := range lines {
		if !dropped[k] {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// isAiderHistoryText reports aider's history by its own lines: the
// session header, or two of its status lines.
func isAiderHistoryText(text string) bool {
	if strings.HasPrefix(text, "# aider chat started at") || strings.Contains(text, "\n# aider chat started at") {
		return true
	}
	n := 0
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "> ") && isAiderToolLine(line) {
			if n++; n >= 2 {
				return true
			}
		}
	}
	return false
}

// isAssistantProse reports a line of the assistant's prose: not blank, not a
// request, tool output, heading, table row, placeholder or indented code.
func isAssistantProse(l string) bool {
	if strings.TrimSpace(l) == "" || IsProtectedLine(l) {
		return false
	}
	switch l[0] {
	case '#', '>', '|', ' ', '\t', '`', '~', '<':
		return false
	}
	return true
}

// firstSentence cuts para after its first sentence; ok is false when the
// paragraph is one sentence, or already cut.
func firstSentence(para string) (string, bool) {
	if strings.HasSuffix(para, proseFolded) {
		return "", false
	}
	const minSentence = 24 // "e.g. x" and "1. " are no sentence ends
	for i := minSentence; i < len(para)-1; i++ {
		switch para[i] {
		case '.', '!', '?', ':':
		default:
			continue
		}
		if c := para[i+1]; c != ' ' && c != '\n' {
			continue
		}
		rest := strings.TrimSpace(para[i+1:])
		if len(rest) < minSentence {
			return "", false // a short tail is not worth a marker
		}
		if inCodeSpan(para[:i]) {
			continue
		}
		return para[:i+1] + proseFolded, true
	}
	return "", false
}

// inCodeSpan reports an open `code span` at the end of s.
func inCodeSpan(s string) bool { return strings.Count(s, "`")%2 == 1 }

var (
	logRepeatCount = regexp.MustCompile(`\[×\d+(; )?`)
	logFoldCount   = regexp.MustCompile(`(?m)^\[\.\.\. \d+ lines? .*\.\.\.\]$`)
)

// withoutCounts rewrites the log path's markers without their counts:
// no node puts counts in a transcript, where a reader may take them for
// votes (see the README, Content awareness).
func withoutCounts(s string) string {
	s = logRepeatCount.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasSuffix(m, "; ") {
			return "[similar lines folded; "
		}
		return "[similar lines folded"
	})
	return logFoldCount.ReplaceAllLiteralString(s, "…[lines folded]…")
}
