package textkit

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLineIndexMatchesSplit checks NewLineIndex, Len, Line and Span
// against strings.Split, on texts of short, empty and long lines, with
// and without a final line break.
func TestLineIndexMatchesSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(103, 104))
	parts := []string{"", "a", "\n", "\n\n", "2024-03-01 INFO ok", "\r\n", strings.Repeat("x", 300)}
	for range 3000 {
		var b strings.Builder
		for k := r.IntN(40); k > 0; k-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		text := b.String()
		want := strings.Split(text, "\n")
		x := NewLineIndex(text)
		if x.Len() != len(want) {
			t.Fatalf("%q: %d lines, want %d", text, x.Len(), len(want))
		}
		for i, line := range want {
			if got := x.Line(i); got != line {
				t.Fatalf("%q: line %d is %q, want %q", text, i, got, line)
			}
		}
		i := r.IntN(len(want))
		j := i + r.IntN(len(want)-i+1)
		if got, span := x.Span(i, j), strings.Join(want[i:j], "\n"); got != span {
			t.Fatalf("%q: span %d-%d is %q, want %q", text, i, j, got, span)
		}
	}
}
