package stages

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// checkKindScan runs scan and scanReference over s and compares the
// samples and every count.
func checkKindScan(t *testing.T, s string, max int) {
	t.Helper()
	got := kindStats{speakers: map[string]int{}}
	want := kindStats{speakers: map[string]int{}}
	got.sample = got.scan(s, max, got.sample)
	want.scanReference(s, max)
	for _, line := range want.sample {
		if mayBeCueTiming(line) {
			want.cueLike++
		}
	}
	if !slices.Equal(got.sample, want.sample) || got.lines != want.lines || got.records != want.records ||
		got.console != want.console || got.escapes != want.escapes || got.prose != want.prose ||
		got.turns != want.turns || got.cueLike != want.cueLike || !maps.Equal(got.speakers, want.speakers) {
		t.Fatalf("scan(%.200q, %d):\n got %+v\nwant %+v", s, max, got, want)
	}
}

// TestKindScanLineEndings checks scan's cut at "\n" against the
// reference on texts of every class with "\n", "\r\n" and lone "\r"
// line endings, and with a lone "\r" before, inside and after the lines
// read.
func TestKindScanLineEndings(t *testing.T) {
	var texts []string
	for _, text := range classTexts(37) {
		texts = append(texts, text, strings.ReplaceAll(text, "\n", "\r\n"), strings.ReplaceAll(text, "\n", "\r"))
		crlf := strings.ReplaceAll(text, "\n", "\r\n")
		for _, at := range []int{0, len(crlf) / 3, max(len(crlf)-1, 0)} {
			texts = append(texts, crlf[:at]+"\r"+crlf[at:], crlf[:at]+"\rx"+crlf[at:])
		}
	}
	texts = append(texts, "a\r", "a\r\r\nb", "\r\n\r\nx\r\n", "```\r\ncode\r\n```\r\n> quoted\r\nafter\r", "x\n\ry\r\n")
	for _, text := range texts {
		for _, max := range []int{1, 3, 450} {
			checkKindScan(t, text, max)
		}
	}
}

// FuzzKindScanCounts checks scan's counts and sample against
// scanReference on any text.
func FuzzKindScanCounts(f *testing.F) {
	for _, s := range []string{"a\r\nb\r\n\r\nc", "x\ry\n\rz", "a\r\r\nb\r\n", "2024-01-01 INFO a\r\n\r\nb\r", "User: fix it now please\r\nAssistant: on it right now\r\n"} {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, max uint8) { checkKindScan(t, s, int(max)) })
}
