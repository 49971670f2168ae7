package transcripts

import "strings"

// ScratchpadText is a scratchpad as the whiteboard writes it, one
// "[agent]: content" per entry: the original a meeting's references
// point into.
func ScratchpadText(entries []ScratchpadEntry) string { return formatEntries(entries) }

// MeetingRefs gives the cuts of a meeting context (text) a reference into
// ScratchpadText(entries): an entry cut short at level 1 ("[agent]: its
// head...") ends in "…[ref R]…" instead of "...", R naming its lines;
// level 2's "[Earlier discussion, summarised]" and "[Discussion,
// summarised]" headers carry " · ref R" for the entries they stand for.
// ref(from, to) writes R for 1-based inclusive lines. No counts: a
// transcript's markers carry none (design.md, Meetings). Entries kept whole are
// untouched.
func MeetingRefs(text string, entries []ScratchpadEntry, ref func(from, to int) string) string {
	if len(entries) == 0 {
		return text
	}
	first := make([]int, len(entries)+1) // first[i]: entry i's first line; first[n]: one past the last
	first[0] = 1
	for i, e := range entries {
		first[i+1] = first[i] + strings.Count(e.Content, "\n") + 1
	}
	// The empty line after a final newline is no line (pipeline.Lines).
	lastLine := first[len(entries)] - 1
	if strings.HasSuffix(entries[len(entries)-1].Content, "\n") {
		lastLine--
	}
	through := func(from, to int) string { return ref(from, min(to, lastLine)) }
	var b strings.Builder
	at := 0
	for i, e := range entries {
		head := "[" + e.Agent + "]: "
		for p := at; ; {
			j := strings.Index(text[p:], head)
			if j < 0 {
				break
			}
			start := p + j + len(head)
			k := commonPrefix(text[start:], e.Content)
			cut := start + k
			if k > 0 && k < len(e.Content) && strings.HasPrefix(text[cut:], "...") {
				b.WriteString(text[at:cut])
				b.WriteString("…[ref " + through(first[i], first[i+1]-1) + "]…")
				at = cut + len("...")
				break
			}
			p = start
		}
	}
	b.WriteString(text[at:])
	out := b.String()
	for _, h := range []string{"[Earlier discussion, summarised]", "[Discussion, summarised]"} {
		i := strings.Index(out, h)
		if i < 0 {
			continue
		}
		early := len(entries) // entries the summary stands for: all but those shown whole after it
		if r := strings.Index(out[i:], "[Recent entries]\n"); r >= 0 {
			recent := out[i+r:]
			for early > 0 && strings.Contains(recent, formatEntries(entries[early-1:early])) {
				early--
			}
		}
		if early > 0 {
			out = out[:i+len(h)-1] + " · ref " + through(1, first[early]-1) + "]" + out[i+len(h):]
		}
	}
	return out
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
