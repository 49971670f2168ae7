package stages

import "math/bits"

// doubleBlankAt returns the index of the first double space in s at or
// after from, or len(s). It reads 32 bytes a step as four words of eight,
// each or-ed with the word one byte on, both xor-ed with spaces: byte k of
// such a word is zero where bytes k and k+1 of the step are both spaces.
// One borrow test on the four finds no zero byte in most steps; it may
// pass falsely on bytes above 0x7f, so a step it passes is checked
// exactly. (strings.Index with "  " compares one byte pair at a time.)
func doubleBlankAt(s string, from int) int {
	i := from
	// Two steps at a time while they fit: the loop's own cost is paid
	// once for 64 bytes.
	for ; i+65 <= len(s); i += 64 {
		step := s[i : i+65]
		a := (loadWord(step[0:8]) ^ wordSpaces) | (loadWord(step[1:9]) ^ wordSpaces)
		b := (loadWord(step[8:16]) ^ wordSpaces) | (loadWord(step[9:17]) ^ wordSpaces)
		c := (loadWord(step[16:24]) ^ wordSpaces) | (loadWord(step[17:25]) ^ wordSpaces)
		d := (loadWord(step[24:32]) ^ wordSpaces) | (loadWord(step[25:33]) ^ wordSpaces)
		e := (loadWord(step[32:40]) ^ wordSpaces) | (loadWord(step[33:41]) ^ wordSpaces)
		f := (loadWord(step[40:48]) ^ wordSpaces) | (loadWord(step[41:49]) ^ wordSpaces)
		g := (loadWord(step[48:56]) ^ wordSpaces) | (loadWord(step[49:57]) ^ wordSpaces)
		h := (loadWord(step[56:64]) ^ wordSpaces) | (loadWord(step[57:65]) ^ wordSpaces)
		if ((a-wordLows)|(b-wordLows)|(c-wordLows)|(d-wordLows)|(e-wordLows)|(f-wordLows)|(g-wordLows)|(h-wordLows))&wordHighs == 0 {
			continue
		}
		if k := firstZeroByte([4]uint64{a, b, c, d}); k >= 0 {
			return i + k
		}
		if k := firstZeroByte([4]uint64{e, f, g, h}); k >= 0 {
			return i + 32 + k
		}
	}
	for ; i+33 <= len(s); i += 32 {
		step := s[i : i+33]
		a := (loadWord(step[0:8]) ^ wordSpaces) | (loadWord(step[1:9]) ^ wordSpaces)
		b := (loadWord(step[8:16]) ^ wordSpaces) | (loadWord(step[9:17]) ^ wordSpaces)
		c := (loadWord(step[16:24]) ^ wordSpaces) | (loadWord(step[17:25]) ^ wordSpaces)
		d := (loadWord(step[24:32]) ^ wordSpaces) | (loadWord(step[25:33]) ^ wordSpaces)
		if ((a-wordLows)|(b-wordLows)|(c-wordLows)|(d-wordLows))&wordHighs == 0 {
			continue
		}
		if k := firstZeroByte([4]uint64{a, b, c, d}); k >= 0 {
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

// firstZeroByte returns the index of the first zero byte of the four
// words read as 32 bytes, or -1.
func firstZeroByte(words [4]uint64) int {
	for j, w := range words {
		// The lowest bit set marks a zero byte: a borrow only sets bits
		// above one.
		if m := zeroBytes(w) & wordHighs; m != 0 {
			return 8*j + bits.TrailingZeros64(m)/8
		}
	}
	return -1
}

const (
	wordLows   = 0x0101010101010101
	wordHighs  = 0x8080808080808080
	wordSpaces = wordLows * ' '
)

// zeroBytes sets the high bit of each zero byte of w, and no high bit
// when w has no zero byte; above a zero byte a borrow may set more.
func zeroBytes(w uint64) uint64 { return (w - wordLows) &^ w }

// loadWord reads the eight bytes of b as a little-endian word.
func loadWord(b string) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}
