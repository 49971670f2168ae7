package transcripts_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/transcripts"
)

func longAnswer(tag string, chars int) string {
	var b strings.Builder
	for i := 0; b.Len() < chars; i++ {
		fmt.Fprintf(&b, "%s line %d: the reasoning goes on about caches and shards.\n", tag, i)
		if i == 30 {
			b.WriteString("```go\nfunc shard(id int) int { return id % 8 }\n```\n")
		}
	}
	return b.String()
}

// When the compressed total still exceeds the window, the long answers
// left are compressed, the third and lower seats first, and the report
// says so.
func TestCompressedTotalOverTheWindow(t *testing.T) {
	d := transcripts.Debate{Question: "q", Mode: transcripts.ModeDebate, Answers: []transcripts.Answer{
		{Model: "a", ReviewScores: []float64{9}, ResponseRaw: longAnswer("a", 56000)},
		{Model: "b", ReviewScores: []float64{8}, ResponseRaw: longAnswer("b", 56000)},
		{Model: "c", ReviewScores: []float64{7}, ResponseRaw: longAnswer("c", 30000)},
		{Model: "d", ReviewScores: []float64{6}, ResponseRaw: longAnswer("d", 30000)},
	}}
	c := transcripts.DefaultDebateConfig()
	out, rep, err := transcripts.CompressDebate(context.Background(), d, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Overflow == "" || !strings.Contains(rep.Overflow, "fits") {
		t.Fatalf("overflow not handled or not reported: %q", rep.Overflow)
	}
	if rep.CharsOut > c.WindowChars {
		t.Errorf("still %d chars over a %d window", rep.CharsOut, c.WindowChars)
	}
	total := 0
	for _, s := range transcripts.ChairmanView(out) {
		total += stages.Chars(s)
	}
	if total != rep.CharsOut {
		t.Errorf("report says %d chars, the chairman reads %d", rep.CharsOut, total)
	}
	// Seat 1 stays verbatim: seat 2 folded was enough.
	if out.Answers[0].ResponseCompressed != "" || out.Answers[1].ResponseCompressed == "" {
		t.Errorf("seat 1 compressed=%v, seat 2 compressed=%v", out.Answers[0].ResponseCompressed != "", out.Answers[1].ResponseCompressed != "")
	}
	for _, a := range out.Answers {
		if !strings.Contains(transcripts.ChairmanText(out), "func shard(id int) int { return id % 8 }") || a.ResponseRaw == "" {
			t.Fatal("code block or raw response lost")
		}
	}
	// Under the window nothing more happens.
	d.Answers[0].ResponseRaw, d.Answers[1].ResponseRaw = longAnswer("a", 40000), longAnswer("b", 40000)
	if _, rep, _ := transcripts.CompressDebate(context.Background(), d, c, nil); rep.Overflow != "" {
		t.Errorf("overflow pass ran under the window: %s", rep.Overflow)
	}
}

func TestChairmanTextIsWhatTheChairmanReads(t *testing.T) {
	d := transcripts.Debate{Question: "How?", Answers: []transcripts.Answer{
		{Model: "a", ResponseRaw: "raw a"}, {Model: "b", ResponseRaw: "raw b", ResponseCompressed: "short b"},
	}}
	got := transcripts.ChairmanText(d)
	for _, want := range []string{"Question: How?", "## Answer 1 (a)\n\nraw a", "## Answer 2 (b)\n\nshort b"} {
		if !strings.Contains(got, want) {
			t.Errorf("chairman text lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "raw b") {
		t.Error("the chairman reads response_raw where response_compressed exists")
	}
}

// Meetings follow their own estimator (design.md, Meetings); the rest of
// jetcompact uses stages.EstimateTokens. Both are pinned here.
func TestBothTokenEstimators(t *testing.T) {
	for _, tc := range []struct {
		text          string
		seed, general int
	}{
		{"", 0, 0},
		{strings.Repeat("abcd", 10), 10, 10},
		{"中文字符测试", 4, 4},                         // U+4E00–U+9FFF: CJK in both
		{"\u3400\u3401\u3402", 2, 2},             // Ext-A: CJK in both
		{"こんにちはカタカナ", 2, 6},                      // kana: CJK only in the general one
		{"안녕하세요", 1, 3},                          // Hangul
		{"\U00020000\U00020001\U00020002", 0, 2}, // Ext-B
		{"⺀⺁⺂⺃", 1, 2},                           // radicals: CJK only in the general one
	} {
		if got := transcripts.MeetingTokens(tc.text); got != tc.seed {
			t.Errorf("MeetingTokens(%q) = %d, want %d", tc.text, got, tc.seed)
		}
		if got := stages.EstimateTokens(tc.text); got != tc.general {
			t.Errorf("stages.EstimateTokens(%q) = %d, want %d", tc.text, got, tc.general)
		}
	}
	// The meeting's background threshold counts with the meeting rule: 4501
	// kana are 1125 tokens for it (kept), 3000 for the general one.
	m, _ := transcripts.NewContextManager(transcripts.DefaultMeetingConfig(), summaryModel("summary"))
	res, err := m.SummarizeBackground(context.Background(), strings.Repeat("か", 4501))
	if err != nil || res.Summary != "" || res.Tokens != 1125 {
		t.Errorf("kana background: %+v %v", res, err)
	}
}
