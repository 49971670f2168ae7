package stages

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// TestStepFilterOnlyRejectsNonHeaders checks that the first-byte filter
// never turns away a line stepHeader accepts: step openers of every kind,
// with and without time stamps, carriage returns and ANSI colours, and
// random lines built from their pieces.
func TestStepFilterOnlyRejectsNonHeaders(t *testing.T) {
	openers := []string{"$ make test", "##[group]Run npm test", "[Pipeline] { (Build)", "make[1]: Entering directory '/x'",
		"> Task :app:test", "> app@1.0.0 test", "[INFO] --- surefire:3.2:test", "     Running tests/a.rs",
		"Running unittests src/lib.rs", "=== test session starts ===", "--- Build", "+++ Test", "~~~ Setup",
		"travis_fold:start:install", "section_start:1700000000:step_script"}
	prefixes := []string{"", "2024-03-01T10:00:00.1234567Z ", "progress 10%\r", "\x1b[32m", "x ", " "}
	r := rand.New(rand.NewPCG(5, 6))
	var lines []string
	for _, o := range openers {
		for _, p := range prefixes {
			lines = append(lines, p+o)
		}
	}
	for range 5000 {
		a, b := openers[r.IntN(len(openers))], prefixes[r.IntN(len(prefixes))]
		l := b + a
		cut := r.IntN(len(l) + 1)
		lines = append(lines, l[cut:], l[:cut], string(rune(r.IntN(128)))+l[cut:])
	}
	accepted := 0
	for _, l := range lines {
		// The filter is built from the line alone: the hardest case, where
		// the text holds nothing else.
		if stepHeader(l) {
			accepted++
			if !newStepFilter(l).mayOpen(l) {
				t.Fatalf("stepFilter rejects step header %q", l)
			}
		}
	}
	if accepted < len(openers)*2 {
		t.Fatalf("only %d step headers among the generated lines", accepted)
	}
}

// TestHasStepMarker checks the one-pass search against the two plain
// ones, on random texts built of the markers' parts.
func TestHasStepMarker(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	parts := []string{"travis_fold:", "section_", "start:", "sstart:", "travis_", "fold:", "section", "_start:", " ", "x", "\n"}
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := r.IntN(6); k > 0; k-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		want := strings.Contains(s, "travis_fold:start:") || strings.Contains(s, "section_start:")
		if got := hasStepMarker(s); got != want {
			t.Fatalf("hasStepMarker(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestStepMayFailGate checks that failingTails' gate (stepMayFail) changes nothing:
// on random build logs its ranges equal the full step analysis'.
func TestStepMayFailGate(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 56))
	pool := []string{"$ make test", "##[group]Run npm test", "travis_fold:start:install", "ok  pkg 0.1s",
		"make: *** [Makefile:12: test] Error 2", "The command exited with 1.", "The command exited with 0.",
		"BUILD FAILED", "Finished: FAILURE", "Process exited with code 2", "exit status 3", "Exiting normally",
		"Your build exited with 1.", "2024-01-01 10:00:00 INFO started", "plain line", ""}
	failing := 0
	for n := 0; n < 5000; n++ {
		var b strings.Builder
		for k := r.IntN(14); k > 0; k-- {
			b.WriteString(pool[r.IntN(len(pool))])
			b.WriteByte('\n')
		}
		text := b.String()
		got := failingTails(text)
		var want byteRanges
		if strings.Contains(text, "xit") {
			want = failingTailsOf(textkit.NewLineIndex(text))
		}
		if len(got.r) != len(want.r) {
			t.Fatalf("on %q: %v, want %v", text, got.r, want.r)
		}
		for i := range got.r {
			if got.r[i] != want.r[i] {
				t.Fatalf("on %q: %v, want %v", text, got.r, want.r)
			}
		}
		if len(want.r) > 0 {
			failing++
		}
	}
	if failing < 200 {
		t.Fatalf("only %d logs with a failing step: the test does not test", failing)
	}
}
