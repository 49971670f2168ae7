package stages

import (
	"context"
	"strings"
	"testing"
	"time"
)

// scalingRatio times run on the input make(n) and on make(4n) and returns
// how much longer the larger took. Linear work gives about 4; quadratic
// work gives about 16. Inputs are built before timing, each is run once to
// warm up, and the best of three runs damps a busy machine.
func scalingRatio[T any](n int, make func(n int) T, run func(T)) float64 {
	best := func(n int) time.Duration {
		in := make(n)
		run(in)
		b := time.Duration(1 << 62)
		for r := 0; r < 3; r++ {
			start := time.Now()
			run(in)
			b = min(b, time.Since(start))
		}
		return b
	}
	small, large := best(n), best(4*n)
	return float64(large) / float64(max(small, time.Microsecond))
}

// A class of hostile input: many short key lines ("err" in colour). The
// context walk must not go back over all of them for each one.
func TestKeywordsShortKeyLinesScale(t *testing.T) {
	node := NewKeywords(DefaultKeywordsOptions())
	input := func(n int) string { return strings.Repeat("\x1b[31merr\x1b[0m\n", n) }
	run := func(text string) {
		if _, err := node.Apply(context.Background(), Input{Text: text, Kind: KindLog}); err != nil {
			t.Fatal(err)
		}
	}
	// Quadratic work grows 16x per 4x input; allow noise well above 4x.
	if r := scalingRatio(10000, input, run); r > 10 {
		t.Errorf("4x the short key lines took %.1fx the time: not linear", r)
	}
}

// A class of hostile input: one token of "1:" repeated, searched for a
// file:line location.
func TestHasFileLineScale(t *testing.T) {
	input := func(n int) string { return strings.Repeat("1:", n) }
	run := func(s string) {
		if hasFileLine(s) {
			t.Fatal(`"1:1:..." read as a file:line`)
		}
		lineSignal(s)
	}
	if r := scalingRatio(100000, input, run); r > 10 {
		t.Errorf("4x the \"1:\" took %.1fx the time: not linear", r)
	}
	if !hasFileLine("src/a.c:12") || !hasFileLine("x.rb:5:in") || hasFileLine("10.0.0.1:8080") {
		t.Error("hasFileLine misreads the plain cases")
	}
}

func BenchmarkKeywordsShortKeyLines(b *testing.B) {
	text := strings.Repeat("\x1b[31merr\x1b[0m\n", 40000)
	node := NewKeywords(DefaultKeywordsOptions())
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		if _, err := node.Apply(context.Background(), Input{Text: text, Kind: KindLog}); err != nil {
			b.Fatal(err)
		}
	}
}
