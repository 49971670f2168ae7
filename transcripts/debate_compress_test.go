package transcripts_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/transcripts"
)

// numbered returns n lines "what 1" to "what n".
func numbered(what string, n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("%s %d", what, i+1)
	}
	return lines
}

// TestStructuralMiddleWithCode pins the whole output when code blocks sit
// in the middle: the head, one marker counting every folded line with the
// first key points, the middle's code blocks in their order, the tail.
func TestStructuralMiddleWithCode(t *testing.T) {
	head, tail := numbered("head", 15), numbered("tail", 10)
	middle := []string{
		"## Plan",
		"```go\nx := 1\n```",
		"some prose that goes on for a while about the design of the queue",
		"- first bullet",
		"**Bold claim** here",
		"1. numbered item, past the three key points",
		"```\nsecond\n```",
		"closing prose that also goes on for a while about the workers",
	}
	raw := strings.Join(append(append(append([]string{}, head...), middle...), tail...), "\n")
	res := transcripts.CompressStructural(raw, transcripts.DefaultDebateConfig())
	if !res.Changed {
		t.Fatalf("not compressed: %s", res.Reason)
	}
	want := strings.Join(head, "\n") + "\n" +
		"[... 6 lines compressed. Key points: Plan; first bullet; Bold claim here ...]\n" +
		"```go\nx := 1\n```\n```\nsecond\n```\n" +
		strings.Join(tail, "\n")
	if res.Text != want {
		t.Errorf("got\n%s\nwant\n%s", res.Text, want)
	}
	if res.FoldedLines != 6 || res.CodeBlocks != 2 || len(res.KeyPoints) != 3 {
		t.Errorf("folded %d, code blocks %d, key points %q: want 6, 2, 3", res.FoldedLines, res.CodeBlocks, res.KeyPoints)
	}
}

// TestStructuralMiddleOnlyCode: a middle of code blocks alone is not folded.
func TestStructuralMiddleOnlyCode(t *testing.T) {
	lines := append(numbered("head", 15), "```\none\n```", "```\ntwo\n```")
	raw := strings.Join(append(lines, numbered("tail", 10)...), "\n")
	res := transcripts.CompressStructural(raw, transcripts.DefaultDebateConfig())
	if res.Changed || res.Text != raw || res.Reason != "the middle holds only code blocks" {
		t.Errorf("changed %v, reason %q", res.Changed, res.Reason)
	}
}

// TestStructuralNoHeadNoTail: with no head and no tail the marker opens the
// answer and its code blocks follow.
func TestStructuralNoHeadNoTail(t *testing.T) {
	c := transcripts.DefaultDebateConfig()
	c.HeadLines, c.TailLines = 0, 0
	raw := "# Title\nprose that is long enough to be worth folding away\n```\ncode\n```\nmore prose, long enough as well"
	res := transcripts.CompressStructural(raw, c)
	want := "[... 3 lines compressed. Key points: Title ...]\n```\ncode\n```"
	if res.Text != want {
		t.Errorf("got\n%s\nwant\n%s", res.Text, want)
	}
}
