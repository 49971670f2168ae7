package stages

import "math/bits"

// doubleBlankAt returns the index of the first double space in s at or
// after from, or len(s). It reads 32 bytes a step as four words of eight:
// in each, a byte is made zero where it and the byte after it (the next
// word's first, for the last) are both spaces, and one zero-byte test on
// the four tells whether the step holds a double space at all.
// (strings.Index with "  " compares one byte pair at a time.)
func doubleBlankAt(s string, from int) int {
	i := from
	for ; i+33 <= len(s); i += 32 {
		step := s[i : i+33]
		a, b := loadWord(step[0:8])^wordSpaces, loadWord(step[8:16])^wordSpaces
		c, d := loadWord(step[16:24])^wordSpaces, loadWord(step[24:32])^wordSpaces
		e := uint64(step[32] ^ ' ')
		a, b, c, d = a|a>>8|b<<56, b|b>>8|c<<56, c|c>>8|d<<56, d|d>>8|e<<56
		if (zeroBytes(a)|zeroBytes(b)|zeroBytes(c)|zeroBytes(d))&wordHighs == 0 {
			continue
		}
		return i + firstZeroByte([4]uint64{a, b, c, d})
	}
	for ; i+1 < len(s); i++ {
		if s[i] == ' ' && s[i+1] == ' ' {
			return i
		}
	}
	return len(s)
}

// firstZeroByte returns the index of the first zero byte of the four
// words read as 32 bytes; one of them has one.
func firstZeroByte(words [4]uint64) int {
	for j, w := range words {
		// The lowest bit set marks a zero byte: a borrow only sets bits
		// above one.
		if m := zeroBytes(w) & wordHighs; m != 0 {
			return 8*j + bits.TrailingZeros64(m)/8
		}
	}
	return 32
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
