package jsonfold

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestStringSpecialFirstMark checks that the lowest mark of stringSpecial
// is the first byte a JSON string's scan must look at, on random words
// of plain, control, quote, backslash and high bytes.
func TestStringSpecialFirstMark(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	pool := []byte{'a', ' ', '~', 0x1f, 0x00, 0x20, '"', '\\', 0x7f, 0x80, 0xff, 0x21, 0x1}
	for n := 0; n < 200000; n++ {
		var b [8]byte
		for i := range b {
			b[i] = pool[r.IntN(len(pool))]
			if r.IntN(2) == 0 {
				b[i] = 'x'
			}
		}
		want := 8
		for i, c := range b {
			if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
				want = i
				break
			}
		}
		var w uint64 // b as a little-endian word
		for i, c := range b {
			w |= uint64(c) << (8 * i)
		}
		got := 8
		if m := stringSpecial(w); m != 0 {
			got = bits.TrailingZeros64(m) / 8
		}
		if got != want {
			t.Fatalf("stringSpecial(%q): first mark at %d, want %d", b[:], got, want)
		}
	}
}
