package transcripts

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/pipeline"
)

// TestMeetingRefs: at level 1 every entry cut short ends in a reference
// to exactly its lines of ScratchpadText, multi-line entries and repeated
// agents included; at level 2 the summary's header references the
// entries it replaced. No marker carries a count.
func TestMeetingRefs(t *testing.T) {
	var entries []ScratchpadEntry
	for i := range 9 {
		content := strings.Repeat(fmt.Sprintf("point %d holds. ", i), 40+i)
		if i%3 == 1 {
			content += "\nsecond line\n  third line"
		}
		entries = append(entries, ScratchpadEntry{Agent: fmt.Sprintf("a%d", i%2), Content: content})
	}
	original := ScratchpadText(entries)
	ref := func(from, to int) string { return fmt.Sprintf("X:L%d-%d", from, to) }
	cfg := DefaultMeetingConfig()
	cfg.BudgetTokens = 1200
	m, err := NewContextManager(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	wb, err := m.CompactScratchpad(context.Background(), entries)
	if err != nil || wb.Level != 1 {
		t.Fatalf("level %d, %v", wb.Level, err)
	}
	out := MeetingRefs(wb.Text, entries, ref)
	early := len(entries) - cfg.RecentEntries
	if got := strings.Count(out, "…[ref X:L"); got != early {
		t.Fatalf("%d references, want %d:\n%s", got, early, out)
	}
	for i, e := range entries[:early] {
		at := strings.Index(out, "["+e.Agent+"]: "+e.Content[:20])
		var from, to int
		if _, err := fmt.Sscanf(out[strings.Index(out[at:], "…[ref ")+at:], "…[ref X:L%d-%d]…", &from, &to); err != nil {
			t.Fatal(err)
		}
		got, err := pipeline.Lines(original, from, to)
		if want := "[" + e.Agent + "]: " + e.Content + "\n"; err != nil || got != want {
			t.Errorf("entry %d: L%d-%d = %q, want %q", i, from, to, got, want)
		}
	}
	if strings.Contains(out, "lines") || strings.Contains(out, "...") {
		t.Errorf("a count or an unreferenced cut:\n%s", out)
	}

	summary := "[Earlier discussion, summarised]\n- a point\n\n[Recent entries]\n" + formatEntries(entries[early:])
	if got := MeetingRefs(summary, entries, ref); !strings.HasPrefix(got, fmt.Sprintf("[Earlier discussion, summarised · ref X:L1-%d]\n", strings.Count(formatEntries(entries[:early]), "\n")+1)) {
		t.Errorf("level 2 header: %q", got[:60])
	}
}
