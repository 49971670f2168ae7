package stages

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

// The log path for a text inside a document (a JSON string value that
// holds a log or a stack trace): the nodes a log document goes through,
// in code order, each with protected regions stashed, as the pipeline runs
// them. number_normalize is left out: a JSON document keeps exact numbers,
// and the template counts already say how values varied.

// logPathNodes are built once from the shipped defaults.
var logPathNodes = func() []Node {
	o := DefaultOptions()
	return []Node{
		NewDedup(o.Dedup), NewWhitespace(o.Whitespace), NewLogDedup(o.LogDedup),
		NewNearDup(o.NearDup), NewKeywords(o.Keywords), NewHeadTail(o.HeadTail),
	}
}()

// compactLogText runs the log nodes on text. A node that fails, panics,
// loses a protected region or returns invalid UTF-8 is undone; only
// cancellation is returned.
func compactLogText(ctx context.Context, text string) (string, error) {
	in := Input{Text: text, Kind: KindLog, Mode: ModeAlgorithmic, Log: logs.Analyze(text)}
	for _, nd := range logPathNodes {
		stashed, stash := Protect(in.Text)
		out, err := applySafely(ctx, nd, Input{Text: stashed, Kind: in.Kind, Mode: in.Mode, Log: in.Log})
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			continue
		}
		if out.Text == stashed {
			continue
		}
		if restored, ok := stash.Restore(out.Text); ok && utf8.ValidString(restored) {
			in.Text = restored
		}
	}
	return foldRepeatedTraces(in.Text), nil
}

// markdownLines counts the lines that are Markdown list items, table rows
// or headings.
func markdownLines(lines []string) int {
	n := 0
	for _, l := range lines {
		t := strings.TrimLeft(l, " \t")
		switch {
		case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, "+ "),
			strings.HasPrefix(t, "|"), strings.HasPrefix(t, "#"):
			n++
		default:
			d := 0
			for d < len(t) && textkit.IsDigit(t[d]) {
				d++
			}
			if d > 0 && d < len(t)-1 && (t[d] == '.' || t[d] == ')') && t[d+1] == ' ' {
				n++
			}
		}
	}
	return n
}

func nonBlank(lines []string) int {
	n := 0
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// tailLines: the last lines of a log string stay as they were logged.
const tailLines = 3

// withTail appends the last tailLines non-blank lines of the original
// (lines) to out, under a marker, when the last of them is not in out as
// it was logged: a step's output ends with why it failed, and folding
// templates may have moved its last lines up into their first instance.
func withTail(out string, lines []string) string {
	var tail []string
	for i := len(lines) - 1; i >= 0 && len(tail) < tailLines; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			tail = append(tail, lines[i])
		}
	}
	slices.Reverse(tail)
	if len(tail) == 0 || strings.Contains(out, tail[len(tail)-1]) {
		return out // the last line shows as it was logged
	}
	t := strings.Join(tail, "\n")
	return strings.TrimRight(out, "\n") + "\n" + foldMarker(len(tail), "end the log") + "\n" + t
}

// applySafely runs a node, turning a panic into an error: a value the log
// path cannot fold stays as it is.
func applySafely(ctx context.Context, nd Node, in Input) (out Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("node %s panicked: %v", nd.Key(), r)
		}
	}()
	return nd.Apply(ctx, in)
}

// traceFolded names indented lines (a stack trace) printed before.
const traceFolded = "as printed above"

// foldRepeatedTraces replaces a run of three or more indented lines (the
// frames of a stack trace, in every runtime's format) that repeats an
// earlier run exactly by one marker line. The class: a log that prints the
// same trace under several records; the exception lines, not indented,
// stay.
func foldRepeatedTraces(text string) string {
	lines := strings.Split(text, "\n")
	seen := map[string]struct{}{}
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && isIndented(lines[j]) && !IsProtectedLine(lines[j]) {
			j++
		}
		if j-i < 3 {
			if j == i {
				j++
			}
			out = append(out, lines[i:j]...)
			i = j
			continue
		}
		run := strings.Join(lines[i:j], "\n")
		if _, dup := seen[run]; dup {
			indent := lines[i][:len(lines[i])-len(strings.TrimLeft(lines[i], " \t"))]
			out = append(out, indent+foldMarker(j-i, traceFolded))
		} else {
			seen[run] = struct{}{}
			out = append(out, lines[i:j]...)
		}
		i = j
	}
	if len(out) == len(lines) {
		return text
	}
	return strings.Join(out, "\n")
}

func isIndented(l string) bool {
	return len(l) > 1 && (l[0] == ' ' || l[0] == '\t') && strings.TrimSpace(l) != ""
}

// compactLogValue is jsonfold's CompactLog: a long JSON string that is a
// log or a stack trace, or was folded by the log path before, goes through
// the log path; out is "" for one kept whole.
func compactLogValue(ctx context.Context, v string, lines []string) (out string, isLog bool, err error) {
	if hasLogFoldMark(v) {
		return "", true, nil
	}
	if len(lines) < 4 || !isLogText(v, lines) {
		return "", false, nil
	}
	out, err = compactLogText(ctx, v)
	if err != nil || len(out) >= len(v) {
		return "", true, err
	}
	if out = withTail(out, lines); len(out) >= len(v) {
		return "", true, nil
	}
	return out, true, nil
}

// hasLogFoldMark reports text the log path folded before: a template's
// count (" [×12") or a trace folded as printed above.
func hasLogFoldMark(s string) bool {
	if strings.Contains(s, traceFolded+" ...]") {
		return true
	}
	for i := 0; ; {
		j := strings.Index(s[i:], " [×")
		if j < 0 {
			return false
		}
		i += j + len(" [×")
		if i < len(s) && textkit.IsDigit(s[i]) {
			return true
		}
	}
}

// stackFrame matches a frame of the stack traces runtimes print: Java and
// .NET ("at pkg.Type.method(File.java:12)"), Python ("File "x.py", line
// 3"), Go ("path/file.go:12 +0x1d"), Node ("at fn (file.js:1:2)").
var stackFrame = regexp.MustCompile(`^\s+(?:at [\w$.<>/\\:\[\]-]+ ?\(.*\)|at [^\s]+:\d+:\d+|File ".*", line \d+|[^\s]+\.go:\d+(?: \+0x[0-9a-f]+)?)\s*$`)

// isLogText reports a log or a stack trace: records a log layout finds
// (time stamps, levels, JSON lines, logfmt), or several frames of a stack
// trace, or lines Detect takes for machine output that are not code.
// Stack traces are asked first: their frames look like code.
func isLogText(v string, lines []string) bool {
	frames := 0
	for _, l := range lines {
		if stackFrame.MatchString(l) {
			if frames++; frames >= 3 {
				return true
			}
		}
	}
	if strings.Contains(v, "Traceback (most recent call last):") {
		return true
	}
	if markdownLines(lines)*2 >= nonBlank(lines) {
		return false // a list or a table: its numbers and bars are no log columns
	}
	if lay := logs.Analyze(v); lay.Records && !lay.ByRepeats {
		return true
	}
	return !textkit.IsCode(lines) && Detect(v) == KindLog
}
