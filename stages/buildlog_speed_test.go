package stages

import (
	"math/rand/v2"
	"strings"
	"testing"
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
