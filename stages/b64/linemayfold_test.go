package b64

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// lineMayFoldReference is LineMayFold as it was before its blank test
// eight bytes at a time: the rule written out byte by byte.
func lineMayFoldReference(line string, minChars int) bool {
	longRun := max(1, min(minWrapWidth, minChars-2), minChars-2)
	if len(line) >= minWrapWidth && !strings.ContainsFunc(line[:minWrapWidth], func(r rune) bool {
		return r >= 0x80 || !b64Alphabet[r]
	}) {
		return true
	}
	for i := 0; i+longRun <= len(line); i++ {
		n := 0
		for n < longRun && b64Alphabet[line[i+n]] {
			n++
		}
		if n == longRun {
			return true
		}
	}
	return false
}

func checkLineMayFold(t *testing.T, line string, minChars int) {
	t.Helper()
	if got, want := LineMayFold(line, minChars), lineMayFoldReference(line, minChars); got != want {
		t.Fatalf("LineMayFold(%q, %d) = %v, want %v", line, minChars, got, want)
	}
}

// TestLineMayFoldReference compares LineMayFold with the rule written out
// on lines of alphabet runs broken by single bytes from all over the
// byte range (blanks, punctuation, bytes above 0x80), near the widths
// that decide.
func TestLineMayFoldReference(t *testing.T) {
	breaks := []byte{' ', '\t', '\r', '!', '*', '+', ',', '.', ':', '=', '@', '[', '~', 0x7f, 0x80, 0xab, 0xff, 0}
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 50000; n++ {
		var b []byte
		for k := r.IntN(6); k >= 0; k-- {
			for w := []int{1, 7, 8, 9, 39, 40, 41, 60, 200}[r.IntN(9)] - r.IntN(2); w > 0; w-- {
				b = append(b, "Az09+/-_"[r.IntN(8)])
			}
			if r.IntN(4) > 0 {
				b = append(b, breaks[r.IntN(len(breaks))])
			}
		}
		for _, minChars := range []int{0, 3, 32, 42, 43, 60, 200} {
			checkLineMayFold(t, string(b), minChars)
		}
	}
}

func FuzzLineMayFoldReference(f *testing.F) {
	f.Add("2024-03-01 00:00:01 INFO [w-1] served /api/v1/items/12 in 5ms", uint8(200))
	f.Add(strings.Repeat("QUJD", 10)+" x", uint8(200))
	f.Add(strings.Repeat("QUJD", 9)+"QU\xabD", uint8(40))
	f.Fuzz(func(t *testing.T, line string, minChars uint8) {
		checkLineMayFold(t, line, int(minChars))
	})
}
