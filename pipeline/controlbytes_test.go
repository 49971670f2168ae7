package pipeline

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestControlBytesMatchesByteLoop checks the word-at-a-time count against
// a byte loop, on texts of every length around two words, on random bytes
// biased to controls, tabs and newlines, and on letters with a rare one.
func TestControlBytesMatchesByteLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	alphabet := []byte{0, 1, '\t', '\n', '\v', '\f', '\r', 0x1b, 0x1f, ' ', 'a', 0x7f, 0x80, 0xff}
	for n := 0; n < 2000; n++ {
		// Lengths past several 32-byte steps.
		b := make([]byte, n%67+n/10)
		sparse := n%2 == 1 // mostly letters: most words hold no control
		for i := range b {
			switch {
			case sparse && r.IntN(40) != 0:
				b[i] = 'a' + byte(r.IntN(26))
			case sparse || r.IntN(3) == 0:
				b[i] = alphabet[r.IntN(len(alphabet))]
			default:
				b[i] = byte(r.IntN(256))
			}
		}
		checkControlBytes(t, string(b))
	}
}

// checkControlBytes compares controlBytes(s) with a byte loop.
func checkControlBytes(t *testing.T, s string) {
	t.Helper()
	want, wantASCII := 0, true
	for i := 0; i < len(s); i++ {
		if oddControl[s[i]] {
			want++
		}
		wantASCII = wantASCII && s[i] < 0x80
	}
	if got, ascii := controlBytes(s); got != want || ascii != wantASCII {
		t.Fatalf("controlBytes(%q) = %d, %v; want %d, %v", s, got, ascii, want, wantASCII)
	}
}

// FuzzControlBytes checks controlBytes against a byte loop on any input,
// from each offset of a word.
func FuzzControlBytes(f *testing.F) {
	f.Add("2024-01-01 10:00:00 INFO ok\r\n\x00\x01\t\x1b[0m\r\n\xff")
	f.Add(strings.Repeat("line\x0b\x0c\x1f\x7f\x80 ", 40))
	f.Fuzz(func(t *testing.T, s string) {
		for k := 0; k < 8 && k <= len(s); k++ {
			checkControlBytes(t, s[k:])
		}
	})
}

// TestControlNotSpaceExact checks controlNotSpace against a byte-by-byte
// reading of its contract: every byte value at every position, beside
// neighbours that borrow or carry.
func TestControlNotSpaceExact(t *testing.T) {
	want := func(w uint64) uint64 {
		var m uint64
		for i := range 8 {
			if c := byte(w >> (8 * i)); c < 0x20 && (c < '\t' || c > '\r') {
				m |= 0x80 << (8 * i)
			}
		}
		return m
	}
	neighbours := []byte{0x00, 0x01, 0x09, 0x0a, 0x0d, 0x1f, 0x20, 0x41, 0x7f, 0x80, 0x89, 0x8a, 0xa0, 0xff}
	for c := range 256 {
		for _, nb := range neighbours {
			for pos := range 8 {
				w := uint64(nb) * byteLows
				w = w&^(0xff<<(8*pos)) | uint64(c)<<(8*pos)
				if got := controlNotSpace(w); got != want(w) {
					t.Fatalf("controlNotSpace(%#016x) = %#016x, want %#016x", w, got, want(w))
				}
			}
		}
	}
}
