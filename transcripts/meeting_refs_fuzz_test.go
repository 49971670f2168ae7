package transcripts

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/pipeline"
)

// fuzzMeetingRef matches what the fuzz ref function writes, in both
// marker shapes, for stripping them back out.
var fuzzMeetingRef = regexp.MustCompile(`…\[ref Z:L(\d+)-(\d+)\]…| · ref Z:L(\d+)-(\d+)\]`)

// FuzzMeetingRefs: entries from fuzzed agents and contents, the context
// cut by CompactScratchpad (level 1) or written as a level-2 summary.
// Every reference names lines that exist in ScratchpadText, and taking
// the references out gives back the text as it was ("...", "]").
func FuzzMeetingRefs(f *testing.F) {
	f.Add("alice", strings.Repeat("we should ship on friday. ", 30), "bob", "agreed\nwith one caveat", uint8(5), false)
	f.Add("a", strings.Repeat("x", 500)+"\n", "a", strings.Repeat("y", 500)+"\n", uint8(3), true)
	f.Add("]: ", "...", "[a]", "[a]: ...", uint8(2), false)
	f.Add("a", "x", "b", "y\n", uint8(0x81), true)
	cfg := DefaultMeetingConfig()
	cfg.BudgetTokens = 200
	cfg.RecentEntries = 1
	m, err := NewContextManager(cfg, nil)
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, a1, c1, a2, c2 string, n uint8, summary bool) {
		var entries []ScratchpadEntry
		for i := range int(n%8) + 1 {
			if i%2 == 0 {
				entries = append(entries, ScratchpadEntry{Agent: a1, Content: c1})
			} else {
				entries = append(entries, ScratchpadEntry{Agent: a2, Content: c2})
			}
		}
		var text string
		if summary {
			text = "[Earlier discussion, summarised]\n- a point\n"
			if n&0x80 == 0 {
				text += "\n[Recent entries]\n" + formatEntries(entries[len(entries)-1:])
			}
		} else {
			wb, err := m.CompactScratchpad(ctx, entries)
			if err != nil {
				t.Fatal(err)
			}
			text = wb.Text
		}
		original := ScratchpadText(entries)
		lines := strings.Count(original, "\n") + 1
		out := MeetingRefs(text, entries, func(from, to int) string {
			if from < 1 || to < from || to > lines {
				t.Fatalf("ref L%d-%d of %d lines", from, to, lines)
			}
			return fmt.Sprintf("Z:L%d-%d", from, to)
		})
		if strings.Contains(text, "ref Z:") {
			return
		}
		back := fuzzMeetingRef.ReplaceAllStringFunc(out, func(m string) string {
			if strings.HasPrefix(m, "…") {
				return "..."
			}
			return "]"
		})
		if back != text {
			t.Fatalf("references did more than annotate:\n in %q\nout %q", text, out)
		}
		for _, m := range fuzzMeetingRef.FindAllStringSubmatch(out, -1) {
			a, b := m[1]+m[3], m[2]+m[4]
			var from, to int
			fmt.Sscan(a, &from)
			fmt.Sscan(b, &to)
			if _, err := pipeline.Lines(original, from, to); err != nil {
				t.Fatalf("ref L%d-%d does not resolve: %v", from, to, err)
			}
		}
	})
}

// A summary standing for every entry, the last ending in a newline,
// referenced one line past the end of ScratchpadText.
func TestMeetingRefsLastEntryNewline(t *testing.T) {
	entries := []ScratchpadEntry{{Agent: "a", Content: "x"}, {Agent: "b", Content: "y\n"}}
	var got string
	MeetingRefs("[Discussion, summarised]\n- a point\n", entries, func(from, to int) string {
		got, _ = pipeline.Lines(ScratchpadText(entries), from, to)
		return "Z"
	})
	if got != "[a]: x\n[b]: y\n" {
		t.Fatalf("the summary's reference reads %q", got)
	}
}
