package stages

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// scalingRatio times run on the input make(n) and on make(8n) and returns
// how much longer the larger took. Linear work gives about 8; quadratic
// work gives about 64. Inputs are built before timing, each is run once to
// warm up, and the best of up to five more runs damps a busy machine.
func scalingRatio[T any](t *testing.T, n int, make func(n int) T, run func(T)) float64 {
	t.Helper()
	if raceDetector {
		t.Skip("timings under -race say nothing about the code; .ci/run runs this without it")
	}
	best := func(n int) time.Duration {
		in := make(n)
		runtime.GC()
		start := time.Now()
		run(in)
		b := time.Since(start)
		// A run of seconds says enough: stop before a quadratic one drags on.
		for r := 0; r < 5 && b < time.Second; r++ {
			runtime.GC()
			start := time.Now()
			run(in)
			b = min(b, time.Since(start))
		}
		return b
	}
	small, large := best(n), best(8*n)
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
	// Quadratic work grows 64x per 8x input; allow noise well above 8x.
	if r := scalingRatio(t, 20000, input, run); r > 24 {
		t.Errorf("8x the short key lines took %.1fx the time: not linear", r)
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
	if r := scalingRatio(t, 20000, input, run); r > 24 {
		t.Errorf("8x the \"1:\" took %.1fx the time: not linear", r)
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
