package stages

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

// LogDedupOptions are the log-dedup node's knobs.
type LogDedupOptions struct {
	// MinVariants: lines that agree on every token but one position merge
	// into one template when that position shows at least this many
	// different words (user names, hosts). Fewer variants are kept apart:
	// "from NEW to RUNNING" and "from RUNNING to DONE" are different events.
	MinVariants int `yaml:"min_variants"`
	// RecordPercent: templates are mined across the whole text only when at
	// least this share of its non-blank lines are log records (a timestamp
	// or a level first). Other logs (build and test output) only get runs of
	// consecutive repeats collapsed, since their repeats tell a story.
	RecordPercent int `yaml:"record_percent"`
	// MinRun is the shortest run of consecutive repeats collapsed in build
	// and test output.
	MinRun int `yaml:"min_run"`
}

// DefaultLogDedupOptions returns the shipped defaults.
func DefaultLogDedupOptions() LogDedupOptions {
	return LogDedupOptions{MinVariants: 5, RecordPercent: 50, MinRun: 3}
}

// Validate reports a knob that is out of range.
func (o LogDedupOptions) Validate() error {
	var errs []error
	if o.MinVariants < 2 {
		errs = append(errs, &fieldError{"min_variants", fmt.Sprintf("must be >= 2, got %d", o.MinVariants)})
	}
	if o.RecordPercent < 1 || o.RecordPercent > 100 {
		errs = append(errs, &fieldError{"record_percent", fmt.Sprintf("must be in [1, 100], got %d", o.RecordPercent)})
	}
	if o.MinRun < 2 {
		errs = append(errs, &fieldError{"min_run", fmt.Sprintf("must be >= 2, got %d", o.MinRun)})
	}
	return errors.Join(errs...)
}

type logdedupNode struct{ opt LogDedupOptions }

// NewLogDedup builds the log-dedup node.
//
// On logs made of time-stamped records it mines templates in two steps,
// both linear. First every record is tokenized and masked: numbers, hex
// ids, dates, paths and tokens that are mostly digits become variables,
// while a token that keeps a word (sshd[0]:, user_0) keeps its shape; the
// masked token sequence is the record's template, found by hashing (the
// exact leaf a Drain parse tree would reach, without its similarity guess).
// Then, position by position, templates that agree everywhere but one
// position are bucketed; a bucket showing MinVariants or more different
// words there (user names, hosts) is one template with a parameter and
// merges, while a position with a few values ("from NEW to RUNNING") marks
// different events and stays apart. Similarity thresholds merge those,
// which loses events; counting variants does not.
//
// Every template keeps one full instance, its first, with the number of
// records it stands for appended (" [×57]"); a record's continuation lines
// (a stack trace) travel with it and are part of its identity. A failing
// record whose id (a request's, a job's) an earlier folded record carries
// comes after that record, the request's first, marked as context. In build and
// test output (few time stamps) repeats tell the story of a failure, so
// only runs of consecutive equal lines (numbers aside) that carry no
// failure signal collapse. Other kinds pass: counts never enter transcripts
// or prose.
func NewLogDedup(o LogDedupOptions) Node { return logdedupNode{o} }

func (logdedupNode) Key() Key { return KeyLogDedup }

func (n logdedupNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	if in.Kind != KindLog {
		return skip(in, "kind "+string(in.Kind)+" is not a log"), nil
	}
	if strings.IndexByte(in.Text, '\n') < 0 {
		return skip(in, "single line"), nil
	}
	lay := layoutOf(in)
	var spans map[int]int // the first pass's, on in.Text
	first := true
	// A later pass reads the first records of the templates an earlier
	// one wrote: the memos hold their tokens.
	var memos logs.Memos
	if lay.Records {
		memos = logs.NewMemos()
		defer memos.Release()
	}
	out, err := fixpoint(ctx, in.Text, 4, func(ctx context.Context, text string) (string, bool, error) {
		if first {
			first, spans = false, map[int]int{}
			return n.passSpans(ctx, text, lay, spans, &memos)
		}
		return n.passSpans(ctx, text, lay, nil, &memos)
	})
	if err != nil {
		return Outcome{}, err
	}
	if out == in.Text {
		return skip(in, "no repeated templates"), nil
	}
	return Outcome{Text: out, Spans: spans}, nil
}

// pass mines a log of records, or collapses runs of repeats in other
// logs, as the document's layout says: the text it is given may already
// be rewritten, so it does not decide again.
func (n logdedupNode) pass(ctx context.Context, text string, lay logs.Layout) (string, bool, error) {
	return n.passSpans(ctx, text, lay, nil, nil)
}

// passSpans is pass that fills a non-nil spans as mine does, and mines
// through memos (nil: its own).
func (n logdedupNode) passSpans(ctx context.Context, text string, lay logs.Layout, spans map[int]int, memos *logs.Memos) (string, bool, error) {
	x := lineIndex(ctx, text)
	if lay.Records {
		out, merged, err := n.mine(ctx, x, lay, spans, memos)
		// Without merged variants, a second pass finds the same
		// templates, each once, and writes the same text.
		return out, err == nil && !merged, err
	}
	out, err := n.runs(ctx, x)
	return out, err == nil, err
}

// recordsDominate reports whether at least percent of the non-blank lines
// are time-stamped log records, not counting the lines that continue a
// record (an indented line, a stack frame or the exception line that heads
// one, right after a record or another continuation). It stops early once
// the share cannot be reached.
func recordsDominate(n int, line func(int) string, percent int) bool {
	records, other := 0, 0
	inEvent := false
	for i := 0; i < n; i++ {
		l := line(i)
		if l == "" || textkit.ParseFoldMarker(l) > 0 {
			continue
		}
		switch stamped, level := textkit.RecordStart(l); {
		case stamped:
			records++
			inEvent = true
		case level:
			// A level without a time: build tool output, not an event.
			other++
			inEvent = true
		case inEvent && continues(l):
		case inEvent && i+1 < n && continues(line(i+1)) && line(i+1) != "":
			// The header of a stack trace: java.io.IOException: reset.
		default:
			other++
			inEvent = false
		}
		if i&1023 == 1023 {
			best := records + n - i - 1
			if best*100 < percent*(best+other) {
				return false
			}
		}
	}
	return records > 0 && records*100 >= percent*(records+other)
}

// recordsDominateLines is recordsDominate over a slice of lines.
func recordsDominateLines(lines []string, percent int) bool {
	return recordsDominate(len(lines), func(i int) string { return lines[i] }, percent)
}

// mine collapses every template of a record log to its first event. It
// reports whether variants merged, or a count grew too long to read back.
// A non-nil spans gets each template's span (see LogTemplateSpans).
func (n logdedupNode) mine(ctx context.Context, x textkit.LineIndex, lay logs.Layout, spans map[int]int, memos *logs.Memos) (string, bool, error) {
	// A build's failure is kept as it was written.
	m, err := logs.MineWith(ctx, x, lay, n.opt.MinVariants, failingTailLines(x), memos)
	if err != nil {
		return "", false, err
	}
	defer m.Release()
	if spans != nil {
		m.Spans(spans)
	}
	out, long := m.Write(x)
	seedRecordKeys(ctx, lay, out, m.HeadKeys())
	return out, m.Merged || long, nil
}

// runs collapses runs of consecutive lines that are equal once numbers
// are masked and that carry no failure signal.
func (n logdedupNode) runs(ctx context.Context, x textkit.LineIndex) (string, error) {
	cc := canceled{ctx: ctx}
	nl := x.Len()
	w := newLineWriter(len(x.Text))
	changed := false
	tail := failingTailLines(x) // a build's failure is kept as it was written
	head, weight := logs.SplitCount(x.Line(0))
	h := logs.MaskedHash(head)
	for i := 0; i < nl; {
		if err := cc.check(); err != nil {
			return "", err
		}
		// Find the run [i, j) of lines equal to line i once masked.
		j, total := i+1, weight
		var nextHead string
		var nextWeight int
		var nextHash uint64
		for ; j < nl; j++ {
			nextHead, nextWeight = logs.SplitCount(x.Line(j))
			nextHash = logs.MaskedHash(nextHead)
			if nextHash != h {
				break
			}
			total += nextWeight
		}
		if (j-i >= n.opt.MinRun || (j-i > 1 && weight > 1)) && len(strings.TrimSpace(head)) >= 8 &&
			!IsProtectedLine(head) && lineSignal(head) == 0 && (tail == nil || !tail[i] && !tail[j-1]) {
			w.Add(logs.WithCount(head, total))
			changed = true
		} else {
			w.Add(x.Span(i, j))
		}
		i, head, weight, h = j, nextHead, nextWeight, nextHash
	}
	if !changed {
		return x.Text, nil
	}
	return w.String(), nil
}
