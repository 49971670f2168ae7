package stages

import (
	"fmt"
	"strings"
	"testing"
)

// noise appends n lines that report nothing.
func noise(lines []string, n int) []string {
	for i := range n {
		lines = append(lines, fmt.Sprintf("compiling module %d", i))
	}
	return lines
}

// TestHeadTailMiddle pins what headtail makes of a 5000-line log's middle:
// fold markers there add their count, protected lines and failures up to
// middle_signals are kept, and each run of folded lines becomes one marker
// before the next kept line, or after the last.
func TestHeadTailMiddle(t *testing.T) {
	lines := []string{"step 0", "step 1", "step 2", "[... 7 lines folded by dedup ...]"}
	lines = noise(lines, 100)
	lines = append(lines, "```\nfirst block\n```", "error: disk full")
	lines = noise(lines, 1000)
	lines = append(lines, "[... 1 line folded by headtail ...]")
	lines = noise(lines, 1000)
	lines = append(lines, "FAILED test_alpha", "[... 5 lines folded by keywords ...]", "```\nsecond block\n```",
		"FAILED test_beta", "```\nthird block\n```")
	lines = noise(lines, 2877)
	lines = append(lines, "[... 40 lines folded by logdedup ...]", "tail 0", "tail 1", "tail 2", "tail 3")
	in := strings.Join(lines, "\n")
	if n := strings.Count(in, "\n") + 1; n != 5000 {
		t.Fatalf("the log has %d lines, want 5000", n)
	}
	want := strings.Join([]string{
		"step 0", "step 1", "step 2",
		"[... 107 lines folded by headtail ...]",
		"```\nfirst block\n```",
		"error: disk full",
		"[... 2001 lines folded by headtail ...]",
		"FAILED test_alpha",
		"[... 5 lines folded by headtail ...]",
		"```\nsecond block\n```",
		"[... 1 line folded by headtail ...]", // test_beta: over middle_signals
		"```\nthird block\n```",
		"[... 2917 lines folded by headtail ...]",
		"tail 0", "tail 1", "tail 2", "tail 3",
	}, "\n")
	node := NewHeadTail(HeadTailOptions{MinLines: 2000, HeadLines: 3, TailLines: 4, MiddleSignals: 2, Kinds: []Kind{KindLog}})
	got := applyNode(t, node, in, KindLog)
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestHeadTailAllMiddle: no head and no tail, the middle ending on a kept
// line: no marker after it.
func TestHeadTailAllMiddle(t *testing.T) {
	lines := noise([]string{"error: boom"}, 2500)
	lines = append(lines, "FAILED x")
	lines = noise(lines, 2497)
	lines = append(lines, "```\nlast\n```")
	node := NewHeadTail(HeadTailOptions{MinLines: 2000, MiddleSignals: 1, Kinds: []Kind{KindLog}})
	got := applyNode(t, node, strings.Join(lines, "\n"), KindLog)
	if want := "error: boom\n[... 4998 lines folded by headtail ...]\n```\nlast\n```"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
