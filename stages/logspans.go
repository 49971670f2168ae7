package stages

import (
	"context"
	"strings"

	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

// LogTemplateSpans maps the first line of every template that log_dedup
// would mine from text (a log of records) to the last line of its last
// record, both 0-based lines of text split on "\n": the lines a count line
// " [×N]" stands for lie between them, with other templates' records among
// them. It mines as log_dedup's first pass does, with its default knobs,
// and is nil for text that is not a log of records. It writes no text, so
// it is for references, not for compaction.
func LogTemplateSpans(text string) map[int]int {
	m := mineLog(text)
	if m == nil {
		return nil
	}
	spans := map[int]int{}
	m.Spans(spans)
	return spans
}

// LogTemplateMembers maps the first line of every template that log_dedup
// would mine from text (the key of LogTemplateSpans) to the first lines
// of all the records it stands for, in order, the key first: as many as
// the N of its count line after log_dedup's first pass. It is nil for text
// that is not a log of records.
func LogTemplateMembers(text string) map[int][]int {
	m := mineLog(text)
	if m == nil {
		return nil
	}
	return m.Members()
}

// mineLog mines text as log_dedup's first pass does, with its default
// knobs; nil for text that is not a log of records.
func mineLog(text string) *logs.Mined {
	if strings.IndexByte(text, '\n') < 0 {
		return nil
	}
	lay := logs.Analyze(text)
	if !lay.Records {
		return nil
	}
	x := textkit.NewLineIndex(text)
	m, err := logs.Mine(context.Background(), x, lay, DefaultLogDedupOptions().MinVariants, failingTailLines(x))
	if err != nil {
		return nil
	}
	return m
}

// layoutOf returns the layout a node works with: the one it was given, or
// the analysis of its text when it was given none.
func layoutOf(in Input) logs.Layout {
	if in.Log.Analyzed {
		return in.Log
	}
	return logs.Analyze(in.Text)
}
