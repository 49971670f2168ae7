package stages

import (
	"context"
	"strings"
)

// LogTemplateSpans maps the first line of every template that log_dedup
// would mine from text (a log of records) to the last line of its last
// record, both 0-based lines of text split on "\n": the lines a count line
// " [×N]" stands for lie between them, with other templates' records among
// them. It mines as log_dedup's first pass does, with its default knobs,
// and is nil for text that is not a log of records. It writes no text, so
// it is for references, not for compaction.
func LogTemplateSpans(text string) map[int]int {
	t, events := mineLog(text)
	if t == nil {
		return nil
	}
	spans := map[int]int{}
	t.eventSpans(events, spans)
	return spans
}

// LogTemplateMembers maps the first line of every template that log_dedup
// would mine from text (the key of LogTemplateSpans) to the first lines
// of all the records it stands for, in order, the key first: as many as
// the N of its count line after log_dedup's first pass. It is nil for text
// that is not a log of records.
func LogTemplateMembers(text string) map[int][]int {
	t, events := mineLog(text)
	if t == nil {
		return nil
	}
	byRoot := map[int][]int{}
	for _, e := range events {
		r := t.find(int(e.group))
		byRoot[r] = append(byRoot[r], int(e.start))
	}
	members := make(map[int][]int, len(byRoot))
	for _, m := range byRoot {
		members[m[0]] = m
	}
	return members
}

// mineLog mines text as log_dedup's first pass does, with its default
// knobs; a nil templates for text that is not a log of records.
func mineLog(text string) (*templates, []logEvent) {
	if strings.IndexByte(text, '\n') < 0 {
		return nil, nil
	}
	lay := AnalyzeLog(text)
	if !lay.Records {
		return nil, nil
	}
	t, events, _, err := mineTemplates(context.Background(), newLineIndex(text), lay, DefaultLogDedupOptions())
	if err != nil {
		return nil, nil
	}
	return t, events
}
