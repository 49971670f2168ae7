package stages

import "strings"

// LogTemplateSpans maps the first line of every template that log_dedup
// would mine from text (a log of records) to the last line of its last
// record, both 0-based lines of text split on "\n": the lines a count line
// " [×N]" stands for lie between them, with other templates' records among
// them. It mines as log_dedup's first pass does, with its default knobs,
// and is nil for text that is not a log of records. It writes no text, so
// it is for references, not for compaction.
func LogTemplateSpans(text string) map[int]int {
	if strings.IndexByte(text, '\n') < 0 {
		return nil
	}
	lay := AnalyzeLog(text)
	if !lay.Records {
		return nil
	}
	x := newLineIndex(text)
	t := newTemplates(DefaultLogDedupOptions(), lay)
	type event struct{ start, end int }
	var events []event
	var toks []tok
	nl := x.len()
	tail := failingTailLines(x)
	opens := make([]bool, nl)
	for i := range opens {
		opens[i] = lay.opensRecord(x.line(i)) && (tail == nil || !tail[i])
	}
	for i := 0; i < nl; {
		if !opens[i] {
			i++
			continue
		}
		end := i + 1
		for end < nl {
			l := x.line(end)
			if l == "" || opens[end] || IsProtectedLine(l) || (tail != nil && tail[end]) {
				break
			}
			end++
		}
		head, weight := splitCount(x.line(i))
		toks = lay.templateTokens(head, toks[:0])
		cont := uint64(fnvOffset)
		for k := i + 1; k < end; k++ {
			cont = (cont ^ maskedHash(x.line(k))) * fnvPrime
		}
		t.add(toks, cont, len(events), weight, head)
		events = append(events, event{i, end})
		i = end
	}
	t.mergeVariants()
	last := map[int]int{} // root group -> its last event
	for g := range t.groups {
		r := t.find(g)
		if l, ok := last[r]; !ok || t.groups[g].last > l {
			last[r] = t.groups[g].last
		}
	}
	spans := make(map[int]int, len(last))
	for r, l := range last {
		spans[events[t.groups[r].first].start] = events[l].end - 1
	}
	return spans
}
