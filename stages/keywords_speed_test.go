package stages

import (
	"slices"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// TestExpectationSeesItsWords checks that the first-letter filter of
// expectation.see lets every word it looks for through, in any case.
func TestExpectationSeesItsWords(t *testing.T) {
	for _, w := range []string{"expected", "expecting", "expect", "actual", "got", "received", "differ", "differs", "but"} {
		for _, v := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:]} {
			var e expectation
			e.see(v)
			if !e.expected && !e.instead {
				t.Errorf("see(%q) noticed nothing", v)
			}
		}
	}
}

// TestSignalMarksOpenWithE2 checks what hasFailMark's filter assumes:
// every failure mark is UTF-8 that opens with the byte 0xE2.
func TestSignalMarksOpenWithE2(t *testing.T) {
	for _, m := range signalMarks {
		if len(m) == 0 || m[0] != 0xE2 {
			t.Errorf("mark %q does not open with 0xE2", m)
		}
	}
}

// TestStepsWithoutExitChangeNothing checks what keywords relies on when it
// does not look for steps: in a text without exitMarks every step has no
// exit status, and markSteps leaves scores and kept lines as they are.
func TestStepsWithoutExitChangeNothing(t *testing.T) {
	headers := []string{"$ make test", "##[group]Run npm test", "> Task :test", "--- Build", "[Pipeline] { (Build)",
		"section_start:1700000000:step_script", "make[1]: Entering directory '/src'", "=== test session starts ==="}
	bodies := []string{"compiling a.c", "error: undefined reference to `f'", "warning: unused variable 'x'",
		"ok 1 - parses", "PASS: TestX", "Done in 3s", "", "  at f (a.js:1:2)", "[ERROR] Failed to execute goal"}
	n := keywordsNode{DefaultKeywordsOptions()}
	found := 0
	for seed := range 200 {
		var b strings.Builder
		for k := 0; k < 3+seed%5; k++ {
			b.WriteString(headers[(seed+k)%len(headers)] + "\n")
			for j := 0; j < 2+(seed*7+k)%9; j++ {
				b.WriteString(bodies[(seed*3+j*5+k)%len(bodies)] + "\n")
			}
		}
		text := b.String()
		if mayReportExit(text) {
			t.Fatalf("seed %d: generated text holds an exit mark", seed)
		}
		x := textkit.NewLineIndex(text)
		steps := findSteps(x)
		found += len(steps)
		score := make([]int8, x.Len())
		keep := make([]bool, x.Len())
		for i := range score {
			score[i] = int8(lineSignal(x.Line(i)))
			keep[i] = i%3 == 0
		}
		score0, keep0 := slices.Clone(score), slices.Clone(keep)
		n.markSteps(x, steps, score, keep)
		for _, s := range steps {
			if s.exit >= 0 {
				t.Fatalf("seed %d: step at line %d has exit %d", seed, s.start, s.exit)
			}
		}
		if !slices.Equal(score, score0) || !slices.Equal(keep, keep0) {
			t.Fatalf("seed %d: markSteps changed scores or kept lines of %q", seed, text)
		}
	}
	if found == 0 {
		t.Fatal("no generated text had a step")
	}
}
