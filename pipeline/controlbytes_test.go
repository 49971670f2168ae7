package pipeline

import (
	"math/rand/v2"
	"testing"
)

// TestControlBytesMatchesByteLoop checks the word-at-a-time count against
// a byte loop, on texts of every length around two words, on random bytes
// biased to controls, tabs and newlines, and on letters with a rare one.
func TestControlBytesMatchesByteLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	alphabet := []byte{0, 1, '\t', '\n', '\v', '\f', '\r', 0x1b, 0x1f, ' ', 'a', 0x7f, 0x80, 0xff}
	for n := 0; n < 2000; n++ {
		b := make([]byte, n%67+n/40)
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
		want, wantASCII := 0, true
		for _, c := range b {
			if oddControl[c] {
				want++
			}
			wantASCII = wantASCII && c < 0x80
		}
		if got, ascii := controlBytes(string(b)); got != want || ascii != wantASCII {
			t.Fatalf("controlBytes(%q) = %d, %v; want %d, %v", b, got, ascii, want, wantASCII)
		}
	}
}
