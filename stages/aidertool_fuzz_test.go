package stages

import (
	"context"
	"strings"
	"testing"
)

// aiderFuzzHeader opens an aider chat history.
const aiderFuzzHeader = "# aider chat started at 2026-03-01 10:00:00\n\n"

// aiderFuzzFiller is lines no fold touches (indented code), long enough
// to push what comes before it out of the recent prose window.
var aiderFuzzFiller = strings.Repeat("    return compute(x, y) + offset  # unchanged code\n", recentProseBytes/50+1)

// nonQuoted is the lines of text that are not tool output, in order.
func nonQuoted(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if !isQuotedLine(l) {
			out = append(out, l)
		}
	}
	return out
}

// withoutBlank is lines without the blank ones.
func withoutBlank(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// isSubsequence reports whether want appears in order within have.
func isSubsequence(want, have []string) bool {
	j := 0
	for _, h := range have {
		if j < len(want) && h == want[j] {
			j++
		}
	}
	return j == len(want)
}

// FuzzAiderHistory: an aider history around fuzzed older and recent
// parts. foldToolRuns changes only quoted runs; foldOlderProse keeps the
// last recentProseBytes whole and every line that is neither prose nor
// blank (blank lines inside a folded stretch go with it); the
// structured node (KindTranscript) skips or shortens.
func FuzzAiderHistory(f *testing.F) {
	f.Add("#### fix the test\n\nI changed the loop so that it stops at the end of the slice. Then the test passes because the index no longer overflows.\n\n> Tokens: 2.1k sent, 340 received. Cost: $0.01 message, $0.12 session.\n> Applied edit to main.go\n", "> You can use /undo to undo and discard each aider commit.\n> Run tests? (Y)es/(N)o [Yes]: y\n")
	f.Add("> <<<<<<< SEARCH\n> old\n> =======\n> new\n> >>>>>>> REPLACE\n> The SEARCH section must exactly match an existing block of lines\n", "\x00\nlast words")
	f.Add(strings.Repeat("> ok   pkg/a 0.01s\n", 40)+"> FAIL pkg/b\n", "- item one is long enough to be a sentence. And a second sentence follows it here.\n")
	node := fuzzStructuredNode()
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, older, recent string) {
		// The pipeline hands nodes valid UTF-8.
		older, recent = strings.ToValidUTF8(older, "\uFFFD"), strings.ToValidUTF8(recent, "\uFFFD")
		text := aiderFuzzHeader + older + "\n" + aiderFuzzFiller + recent
		tools := foldToolRuns(ctx, text)
		if got, want := nonQuoted(tools), nonQuoted(text); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("foldToolRuns changed lines outside tool output:\n got %q\nwant %q", got, want)
		}
		prose := foldOlderProse(text)
		if tail := text[len(text)-recentProseBytes:]; !strings.HasSuffix(prose, tail) {
			t.Fatalf("foldOlderProse changed the recent part %q", recent)
		}
		var kept []string
		for _, l := range strings.Split(text, "\n") {
			if !isAssistantProse(l) && strings.TrimSpace(l) != "" {
				kept = append(kept, l)
			}
		}
		if !isSubsequence(kept, withoutBlank(strings.Split(prose, "\n"))) {
			t.Fatalf("foldOlderProse lost a line that is not prose from %q", older)
		}
		if len(prose) > len(text) {
			t.Fatalf("foldOlderProse grew the text")
		}
		checkStructuredShrinks(t, node, text, KindTranscript)
		checkStructuredShrinks(t, node, older+"\n"+recent, KindTranscript)
	})
}

// A line that was a lone NUL byte served foldOlderProse as its mark for
// dropped lines, so such a line anywhere in a history that folded was lost.
func TestFoldOlderProseKeepsNULLine(t *testing.T) {
	text := aiderFuzzHeader + "I changed the loop so that it stops at the end of the slice. Then the test passes because the index no longer overflows.\n" + aiderFuzzFiller + "\x00\nend"
	out := foldOlderProse(text)
	if out == text {
		t.Fatal("the older prose was not folded")
	}
	if !strings.HasSuffix(out, "\n\x00\nend") {
		t.Fatalf("the NUL line was lost: %q", out[len(out)-min(len(out), 80):])
	}
}
