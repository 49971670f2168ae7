package logs

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// refHeaderEnd is HeaderEnd testing each byte against ' ', '\t' and '|'.
func refHeaderEnd(line string, n int) int {
	if n == 0 {
		return 0
	}
	s := line[textkit.SkipANSI(line, 0):]
	off := len(line) - len(s)
	c := 0
	for i := 0; i < len(s); {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '|') {
			i++
		}
		if i >= len(s) {
			break
		}
		for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '|' {
			i++
		}
		if c++; c == n {
			return off + i
		}
	}
	return len(line)
}

// TestHeaderEndMatchesReference checks HeaderEnd on random lines of
// columns, separators and the bytes beside them, ANSI escapes and UTF-8
// text, for every header width.
func TestHeaderEndMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(68, 69))
	parts := []string{" ", "  ", "\t", "|", " | ", "\x1b[31m", "\r", "\n", "\x0b", "\x00", "\xa0", "é", "{", "}", "|x|", "2024-01-01", "INFO", "[main]", "0", "a"}
	for range 20000 {
		var b strings.Builder
		for k := r.IntN(14); k > 0; k-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		line := b.String()
		for n := 0; n <= 9; n++ {
			if got, want := HeaderEnd(line, n), refHeaderEnd(line, n); got != want {
				t.Fatalf("HeaderEnd(%q, %d) = %d, want %d", line, n, got, want)
			}
		}
	}
	for c := range 256 { // every byte, as a separator or not
		line := "ab" + string(rune(c)) + "cd"
		if c >= 0x80 {
			line = "ab" + string([]byte{byte(c)}) + "cd"
		}
		if got, want := HeaderEnd(line, 1), refHeaderEnd(line, 1); got != want {
			t.Fatalf("HeaderEnd(%q, 1) = %d, want %d", line, got, want)
		}
	}
}
