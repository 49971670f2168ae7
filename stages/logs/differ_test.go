package logs

import (
	"math/rand/v2"
	"testing"
)

// TestDifferIsNotEqual checks differ, which compares last bytes first,
// against != on tokens of times and counters that differ in one byte
// anywhere, or not at all.
func TestDifferIsNotEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(97, 98))
	for range 100000 {
		a := []byte("2024-03-01T10:00:00.123"[:r.IntN(24)])
		b := append([]byte(nil), a...)
		if len(b) > 0 && r.IntN(3) > 0 {
			b[r.IntN(len(b))] = byte('0' + r.IntN(10))
		}
		if r.IntN(10) == 0 {
			b = b[:r.IntN(len(b)+1)]
		}
		if got, want := differ(string(a), string(b)), string(a) != string(b); got != want {
			t.Fatalf("differ(%q, %q) = %v", a, b, got)
		}
	}
}
