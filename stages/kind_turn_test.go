package stages

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// mayStartTurnReference is mayStartTurn testing each byte of the label
// by comparisons.
func mayStartTurnReference(s string) bool {
	s, ok := skipTurnHeading(s)
	if !ok {
		return false
	}
	s = strings.TrimPrefix(s, "**")
	s = strings.TrimPrefix(s, "[")
	if s == "" || !turnLabelFirst(s[0]) {
		return false
	}
	for k := 1; k <= 31 && k < len(s); k++ {
		switch c := s[k]; {
		case c == ']' || c == '*':
			return true
		case c == ':':
			return k+1 < len(s) && (s[k+1] == ' ' || s[k+1] == '*')
		case c == ' ' && k+1 < len(s) && s[k+1] == '(':
			return true
		case !isWordByte(c) && c != ' ' && c != '.' && c != '\'' && c != '-':
			return false
		}
	}
	return false
}

// TestMayStartTurnMatchesReference checks mayStartTurn, which classes
// the label's bytes by a table, against comparing them, on labels built
// of every kind of byte, and on every byte after a label's first.
func TestMayStartTurnMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(99, 100))
	parts := []string{"## ", "**", "[", "User", "assistant", "Jun 14", " ", "15", ":", ": ", ":*", "]", "*", " (", "(x)", ".", "'", "-", "_", "é", "\t", "=", "/", "tool"}
	yes := 0
	check := func(s string) {
		t.Helper()
		if got, want := mayStartTurn(s), mayStartTurnReference(s); got != want {
			t.Fatalf("mayStartTurn(%q) = %v, want %v", s, got, want)
		}
		if mayStartTurn(s) {
			yes++
		}
	}
	for range 100000 {
		var b strings.Builder
		for k := 1 + r.IntN(8); k > 0; k-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		check(b.String())
	}
	for c := range 256 {
		for _, f := range []string{"A%s: hi", "Bob%s(x): hi", "u%s", "T%s%s: x"} {
			check(strings.ReplaceAll(f, "%s", string([]byte{byte(c)})))
		}
	}
	if yes < 3000 {
		t.Fatalf("%d turn starts: the test does not test", yes)
	}
}
