package logs

// summaries and eventSpans as they were first written, over maps: the
// equivalence tests check the slices templates.go uses against them.

// refSummaries returns the summary of every template that stands for more
// than one record, by root group. Merged groups add what they counted,
// and a merged position (one word per group) becomes a slot of its own.
func (t *templates) refSummaries() map[int]*groupSummary {
	kids := map[int][]int{}
	for i := range t.groups {
		if r := t.find(i); r != i {
			kids[r] = append(kids[r], i)
		}
	}
	out := map[int]*groupSummary{}
	for i := range t.groups {
		g := &t.groups[i]
		if g.parent != i || g.toks == nil {
			continue
		}
		k := kids[i]
		if len(k) == 0 {
			if g.summary != nil {
				// newGroupSummary set first, from g.head.
				g.summary.last, _ = clockIn(g.lastHead)
				out[i] = g.summary
			}
			continue
		}
		rootToks := g.firstTokens(nil)
		if len(rootToks) != len(g.toks) {
			continue
		}
		s := newGroupSummary(g.head, rootToks, g.toks, t.lay)
		last, lastHead := g.last, g.lastHead
		var toks []Tok
		for _, j := range append([]int{i}, k...) {
			m := &t.groups[j]
			toks = m.firstTokens(toks[:0])
			if len(toks) != len(g.toks) {
				continue
			}
			if m.summary != nil {
				s.mergeFrom(m.summary)
				s.addWildcards(m.head, toks, g.toks, m.first)
			} else {
				s.add(m.head, toks, m.first)
			}
			if m.last > last {
				last, lastHead = m.last, m.lastHead
			}
		}
		s.last, _ = clockIn(lastHead)
		out[i] = s
	}
	return out
}

// refEventSpans puts each template's span in spans: its first event's
// first line -> its last event's last line.
func (t *templates) refEventSpans(events []logEvent, spans map[int]int) {
	last := map[int]int{} // root group -> its last event
	for g := range t.groups {
		r := t.find(g)
		if l, ok := last[r]; !ok || t.groups[g].last > l {
			last[r] = t.groups[g].last
		}
	}
	for r, l := range last {
		spans[int(events[t.groups[r].first].start)] = int(events[l].end) - 1
	}
}
