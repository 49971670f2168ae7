package logs

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// continuationFormReference is continuationForm trying every prefix.
func continuationFormReference(line string) bool {
	c := line[0]
	if c == ' ' || c == '\t' || c == '}' || c == ']' || c == ')' {
		return true
	}
	s := line
	if c == 0x1b {
		s = line[textkit.SkipANSI(line, 0):]
		if s == "" || s[0] == ' ' || s[0] == '\t' {
			return true
		}
	}
	for _, p := range continuationPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return strings.HasPrefix(s, "... ") && strings.HasSuffix(trimLineEnd(s), " more")
}

func checkContinuationForm(t *testing.T, line string) {
	t.Helper()
	if line == "" {
		return
	}
	if got, want := continuationForm(line), continuationFormReference(line); got != want {
		t.Fatalf("continuationForm(%q) = %v, want %v", line, got, want)
	}
}

// TestContinuationFormMatchesReference checks continuationForm, which
// picks the prefixes to try by the first byte, against trying them all:
// on lines made of the prefixes, their cut and changed forms, escapes,
// blanks and brackets, and every first byte.
func TestContinuationFormMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	parts := []string{"\x1b[31m", "\x1b[0m", " ", "\t", "}", "]", ")", "... ", " more", " more \r", "12", ".", "x", "at", "Thread"}
	parts = append(parts, continuationPrefixes[:]...)
	yes := 0
	for range 100000 {
		var b strings.Builder
		for k := 1 + r.IntN(4); k > 0; k-- {
			p := parts[r.IntN(len(parts))]
			if r.IntN(4) == 0 {
				p = p[:r.IntN(len(p)+1)]
			}
			b.WriteString(p)
		}
		line := b.String()
		checkContinuationForm(t, line)
		if line != "" && continuationForm(line) {
			yes++
		}
	}
	for c := range 256 {
		checkContinuationForm(t, string([]byte{byte(c)})+"at x")
		checkContinuationForm(t, "\x1b[1m"+string([]byte{byte(c)})+"uppressed: x")
	}
	if yes < 20000 {
		t.Fatalf("%d continuation forms: the test does not test", yes)
	}
}

// FuzzContinuationForm checks continuationForm against
// continuationFormReference.
func FuzzContinuationForm(f *testing.F) {
	f.Add("Caused by: java.io.IOException")
	f.Add("\x1b[31m\tat x")
	f.Add("... 12 more\r")
	f.Fuzz(func(t *testing.T, line string) { checkContinuationForm(t, line) })
}
