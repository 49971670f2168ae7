package stages

import (
	"strings"
	"testing"
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
