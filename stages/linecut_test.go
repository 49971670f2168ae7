package stages

import (
	"slices"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// nextLineCuts is the lines nextLine cuts from text, as [start, end, next].
func nextLineCuts(text string, cr bool) [][3]int {
	var cuts [][3]int
	for pos := 0; ; {
		line, rest, more := nextLine(text[pos:], cr)
		next := len(text) - len(rest)
		cuts = append(cuts, [3]int{pos, pos + len(line), next})
		if !more {
			return cuts
		}
		pos = next
	}
}

// checkLineCutter fails t when lineCutter cuts text otherwise than nextLine.
func checkLineCutter(t *testing.T, text string) {
	t.Helper()
	for _, cr := range []bool{true, false} {
		if !cr && strings.IndexByte(text, '\r') >= 0 {
			continue // nextLine without cr is for texts without \r
		}
		want := nextLineCuts(text, cr)
		c := newLineCutter(text, cr)
		pos := 0
		for i, w := range want {
			end, next, more := c.cut(pos)
			if got := [3]int{pos, end, next}; got != w || more != (i < len(want)-1) {
				t.Fatalf("cr %v, line %d of %.60q...: cut %v more %v, nextLine %v", cr, i, text, got, more, w)
			}
			pos = next
		}
	}
}

// TestLineCutterIsNextLine compares lineCutter with nextLine on texts of
// every class and line ending.
func TestLineCutterIsNextLine(t *testing.T) {
	for _, s := range []string{"", "\r", "\n", "\r\n", "a\r", "a\rb", "\r\r\n\n\r", strings.Repeat("x\r\n", 64) + "y\rz", strings.Repeat("x\r\n", 128) + "\r"} {
		checkLineCutter(t, s)
	}
	for _, s := range classTexts(1) {
		checkLineCutter(t, s)
	}
}

func FuzzLineCutter(f *testing.F) {
	for _, s := range classTexts(2)[:60] {
		f.Add(s)
	}
	f.Fuzz(checkLineCutter)
}

// TestDetectScanClasses checks that scan, cutting lines with lineCutter,
// samples the lines the reference does on texts of every class.
func TestDetectScanClasses(t *testing.T) {
	for _, s := range classTexts(3) {
		for _, max := range []int{5, 450} {
			got := kindStats{speakers: map[string]int{}}
			want := kindStats{speakers: map[string]int{}}
			got.sample = got.scan(s, max, got.sample)
			want.scanReference(s, max)
			if !slices.Equal(got.sample, want.sample) || got.kind() != want.kind() {
				t.Fatalf("scan(%.60q..., %d) sampled %d lines, want %d", s, max, len(got.sample), len(want.sample))
			}
		}
	}
}

// TestFenceOpeningClasses compares fenceOpening with FenceMarker of the
// line without its leading spaces, on every line of texts of every class.
func TestFenceOpeningClasses(t *testing.T) {
	lines := []string{"", " ", "```", "  ~~~go", "`` `", " \t```", "~~", "    ````x"}
	for _, s := range classTexts(9) {
		lines = append(lines, strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })...)
	}
	for _, line := range lines {
		if got, want := fenceOpening(line), textkit.FenceMarker(strings.TrimLeft(line, " ")); got != want {
			t.Fatalf("fenceOpening(%q) = %q, want %q", line, got, want)
		}
	}
}
