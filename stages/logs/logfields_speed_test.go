package logs

import (
	"math/rand/v2"
	"testing"
)

// TestJSONStringEndEightAtATime checks the word-at-a-time string scan
// against a byte-by-byte one, on random texts of quotes, backslashes and
// letters, from every start.
func TestJSONStringEndEightAtATime(t *testing.T) {
	naive := func(s string, i int) int {
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return -1
	}
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 3000; n++ {
		b := make([]byte, r.IntN(60))
		for i := range b {
			b[i] = "ab\"\\\x00\xff\\\""[r.IntN(8)]
			if r.IntN(4) > 0 {
				b[i] = 'x'
			}
		}
		s := string(b)
		for i := 0; i < len(s); i++ {
			if got, want := jsonStringEnd(s, i), naive(s, i); got != want {
				t.Fatalf("jsonStringEnd(%q, %d) = %d, want %d", s, i, got, want)
			}
		}
	}
}
