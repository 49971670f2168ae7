package stages

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// doubleBlankAtPlain is what doubleBlankAt computes.
func doubleBlankAtPlain(s string, from int) int {
	if i := strings.Index(s[from:], "  "); i >= 0 {
		return from + i
	}
	return len(s)
}

func checkDoubleBlankAt(t *testing.T, s string) {
	t.Helper()
	for from := 0; from <= len(s); from++ {
		if got, want := doubleBlankAt(s, from), doubleBlankAtPlain(s, from); got != want {
			t.Fatalf("doubleBlankAt(%q, %d) = %d, want %d", s, from, got, want)
		}
	}
}

// TestDoubleBlankAtSteps: blanks, '!' (the word test's false hit) and other
// bytes at every offset of the 64- and 32-byte steps.
func TestDoubleBlankAtSteps(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{' ', ' ', '!', '\t', 'a', '\n', 0xa0, 0x00, 0x21, 0x20}
	for n := 0; n < 4000; n++ {
		b := make([]byte, r.IntN(200))
		for i := range b {
			b[i] = 'x'
			if r.IntN(3) == 0 {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
		checkDoubleBlankAt(t, string(b))
	}
}

func FuzzDoubleBlankAt(f *testing.F) {
	f.Add(strings.Repeat("word ", 8) + " !" + strings.Repeat("x", 40) + "  ")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 300 {
			s = s[:300]
		}
		checkDoubleBlankAt(t, s)
	})
}
