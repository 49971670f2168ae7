package logs

import (
	"math/rand"
	"strings"
	"testing"
)

// TestLastCountOpenIsLastIndex: the shortcut finds what a plain backward
// search finds, on lines built from the bytes that matter to it.
func TestLastCountOpenIsLastIndex(t *testing.T) {
	parts := []string{" [×", "[", "]", "×", " ", "a", "7", ";", "é"}
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.Intn(8); k >= 0; k-- {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		line := b.String()
		if got, want := lastCountOpen(line), strings.LastIndex(line, CountOpen); got != want {
			t.Fatalf("lastCountOpen(%q) = %d, want %d", line, got, want)
		}
	}
}
