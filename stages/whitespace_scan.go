package stages

import "math/bits"

// doubleBlankAt returns the index of the first double space in s at or
// after from, or len(s). It reads 32 bytes a step, four words of eight
// tested for a space beside a space at once; a test may pass falsely (a
// '!' after a space), and a step that passes is searched byte by byte.
// (strings.Index with "  " compares one byte pair at a time.)
func doubleBlankAt(s string, from int) int {
	i := from
	for ; i+33 <= len(s); i += 32 {
		step := s[i : i+33]
		a, b := mayBeSpace(loadWord(step[0:8])), mayBeSpace(loadWord(step[8:16]))
		c, d := mayBeSpace(loadWord(step[16:24])), mayBeSpace(loadWord(step[24:32]))
		// Pairs within each word, then across the words.
		pairs := (a&(a>>8) | b&(b>>8) | c&(c>>8) | d&(d>>8) | a>>56&b | b>>56&c | c>>56&d) & wordHighs
		if pairs == 0 && (d>>63 == 0 || step[32] != ' ') {
			continue
		}
		if k := firstPair(step, [5]uint64{a, b, c, d}); k >= 0 {
			return i + k
		}
	}
	for ; i+1 < len(s); i++ {
		if s[i] == ' ' && s[i+1] == ' ' {
			return i
		}
	}
	return len(s)
}

// firstPair returns the first double space that starts in step[:32],
// or -1, given the words' mayBeSpace tests (the fifth word left zero).
func firstPair(step string, words [5]uint64) int {
	if step[32] == ' ' {
		words[4] = 0x80 // the byte after the step, as the next word's first
	}
	for j := range 4 {
		for m := words[j] & (words[j]>>8 | words[j+1]<<56) & wordHighs; m != 0; m &= m - 1 {
			if k := 8*j + bits.TrailingZeros64(m)/8; step[k] == ' ' && step[k+1] == ' ' {
				return k
			}
		}
	}
	return -1
}

const (
	wordLows  = 0x0101010101010101
	wordHighs = 0x8080808080808080
)

// mayBeSpace sets the high bit of every byte of w that is a space, and
// of no other byte but a '!' right above a space; the low bits are left
// to mask.
func mayBeSpace(w uint64) uint64 {
	x := w ^ wordLows*' '
	return (x - wordLows) &^ x
}

// loadWord reads the eight bytes of b as a little-endian word.
func loadWord(b string) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}
