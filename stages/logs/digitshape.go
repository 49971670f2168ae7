package logs

import (
	"math/bits"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// A digit shape is a line's bytes but for the values of its digits: two
// lines have one shape when they are the same bytes, or digits in both
// (the same record at another time, for another block or pid). The memos
// of line facts (factMemo) and of tokens (tokenMemo) find a line's shape
// in a shapeIndex.

// shapeIndex numbers the digit shapes of lines, in the order added. A
// line is hashed by digitShapeHash, then compared by sameDigitShape with
// the latest line of each shape under its hash: lines are not copied.
type shapeIndex struct {
	hashTable
	lines []string // the latest line of each shape
	// byLen is 1 + the shape found or added last of each length (mod
	// 256), 0 for none: the lines of a shape have one length, a log's
	// shapes of one length are few, and its records often repeat the
	// shape of the record before.
	byLen [256]int32
	// lenTries and lenHits count the tries of byLen and those that found
	// the shape: where a log's shapes of one length are many, byLen is
	// let go (see lenTried).
	lenTries, lenHits int32
}

// shapeProbes bounds the slots find reads. digitShapeHash reads the high
// nibbles of bytes only: the lines of many shapes that hash alike are
// let go, not searched ever longer.
const shapeProbes = 32

// reset empties x, keeping its room.
func (x *shapeIndex) reset() {
	x.hashTable.reset()
	x.lines = x.lines[:0]
	clear(x.byLen[:])
	x.lenTries, x.lenHits = 0, 0
}

// lenTried reports whether byLen is still worth a try: it found the
// shape once in two tries so far, or has been tried less than
// lenTrials times.
func (x *shapeIndex) lenTried() bool { return 2*x.lenHits+lenTrials >= x.lenTries }

// lenTrials is how many tries byLen may miss before it is let go.
const lenTrials = 32

// forget lets go of the lines, which hold the text alive; x must be reset
// before it is used again.
func (x *shapeIndex) forget() { clear(x.lines) }

// find returns the number of line's shape, or -1, the line's hash and
// the slot where add puts it, -1 for none. The next line of the shape is
// compared with this one: the nearer lines of a log share more digits.
// A shape has one number, so the shape found last of the line's length
// is tried first, with no hash.
func (x *shapeIndex) find(line string) (i int32, h uint64, slot int) {
	byLen := &x.byLen[uint8(len(line))]
	if i = *byLen - 1; i >= 0 && x.lenTried() {
		x.lenTries++
		if sameDigitShape(x.lines[i], line) {
			x.lenHits++
			x.lines[i] = line
			return i, 0, -1
		}
	}
	h = digitShapeHash(line)
	p := x.start(h)
	for range shapeProbes {
		i := x.slots[p] - 1
		if i < 0 {
			return -1, h, p
		}
		if x.hashes[i] == h && sameDigitShape(x.lines[i], line) {
			x.lines[i] = line
			*byLen = i + 1
			return i, h, -1
		}
		p = x.next(p)
	}
	return -1, h, -1
}

// add numbers the shape of line, that find did not find, with its hash h
// and slot.
func (x *shapeIndex) add(line string, h uint64, slot int) int32 {
	x.lines = append(x.lines, line)
	i := x.hashTable.add(h, slot)
	x.byLen[uint8(len(line))] = i + 1
	return i
}

// digitNibbles sets the low nibble of every byte: digits become alike.
const digitNibbles = 0x0F0F0F0F0F0F0F0F

// digitShapeHash hashes s with every digit alike: its bytes' low nibbles
// set, so that only their high nibbles count (digits and ":;<=>?" alike,
// and 'a' to 'o'; sameDigitShape tells them apart), eight bytes a step.
func digitShapeHash(s string) uint64 {
	// The constants are read from a variable, into registers: as
	// constants, the compiler would load them again on every word.
	k := shapeHashKeys
	n := len(s)
	h := uint64(n) * k.mul
	if n < 8 {
		for i := 0; i < n; i++ {
			h = (h ^ uint64(s[i]|0x0F)) * k.mul
		}
	} else {
		// Two words a step, hashed apart: one multiply does not wait on
		// the other.
		g := h
		i := 0
		for ; i < n-15; i += 16 { // not i+16 <= n, which would be checked for overflow
			w := s[i : i+16]
			h = (h ^ (textkit.Load64(w[:8]) | k.nibbles)) * k.mul
			g = (g ^ (textkit.Load64(w[8:]) | k.nibbles)) * k.mul
		}
		if i+8 <= n {
			h = (h ^ (textkit.Load64(s[i:i+8]) | k.nibbles)) * k.mul
			i += 8
		}
		h ^= bits.RotateLeft64(g, 32) // turned: two words swapped hash apart
		if i < n {
			h = (h ^ (textkit.Load64(s[n-8:]) | k.nibbles)) * k.mul // the last word, overlapping
		}
	}
	// A multiply carries a byte's change to the bits above it only: bring
	// the high bits down to those that pick the slot.
	h ^= h >> 32
	h *= k.mul
	return h ^ h>>29
}

// hashKeys are the constants of digitShapeHash.
type hashKeys struct{ mul, nibbles uint64 }

var shapeHashKeys = hashKeys{mul: 0x9E3779B97F4A7C15, nibbles: digitNibbles}

// sameDigitShape reports whether a and b are the same bytes but for the
// values of their digits.
func sameDigitShape(a, b string) bool {
	return len(a) == len(b) && digitShapeWords(a, b) == len(a)
}

// digitShapePrefix returns how many leading bytes a and b hold in the
// same digit shape: the same bytes, or digits in both.
func digitShapePrefix(a, b string) int {
	n := min(len(a), len(b))
	return digitShapeWords(a[:n], b[:n])
}

// digitShapeWords is digitShapePrefix on strings of one length, a word a
// step (a byte a step under 8 bytes). sameDigitShape calls it directly:
// one call a compare.
func digitShapeWords(a, b string) int {
	k := wordDigits // read from a variable, into registers, as digitShapeHash's
	n := len(a)
	b = b[:n]
	if n < 8 {
		for i := 0; i < n; i++ {
			if x, y := a[i], b[i]; x != y && !(textkit.IsDigit(x) && textkit.IsDigit(y)) {
				return i
			}
		}
		return n
	}
	for i := 0; i < n-8; i += 8 {
		if x, y := textkit.Load64(a[i:i+8]), textkit.Load64(b[i:i+8]); x != y {
			if bad := k.badBytes(x, y); bad != 0 {
				return i + bits.TrailingZeros64(bad)/8
			}
		}
	}
	// The last word, overlapping: the bytes before those the loop read
	// are alike, so its first bad byte is one the loop did not read.
	if x, y := textkit.Load64(a[n-8:]), textkit.Load64(b[n-8:]); x != y {
		if bad := k.badBytes(x, y); bad != 0 {
			return n - 8 + bits.TrailingZeros64(bad)/8
		}
	}
	return n
}

// digitMasks are the constants of badBytes, a digit test on words of
// eight bytes.
type digitMasks struct{ lo7, from0, beyond9 uint64 }

var wordDigits = digitMasks{
	lo7:     0x7F7F7F7F7F7F7F7F,
	from0:   0x5050505050505050, // + 0x50 sets bit 7 from '0' up
	beyond9: 0x4646464646464646, // + 0x46 sets bit 7 from ':' up
}

// badBytes marks the high bit of every byte that differs in x and y and
// is not a digit in both. Bytes taken without their high bit add without
// carries; the other bits of both are not read.
func (k *digitMasks) badBytes(x, y uint64) uint64 {
	d := x ^ y
	xl, yl := x&k.lo7, y&k.lo7
	// Bit 7: from '0' up in both, and from ':' up or past 0x7F in neither.
	both := (xl + k.from0) & (yl + k.from0) &^ ((xl + k.beyond9) | (yl + k.beyond9) | x | y)
	// The high bits are those lo7 clears: one register fewer than a
	// mask of its own, and the loop keeps its constants in registers.
	return (d&k.lo7 + k.lo7 | d) &^ (both | k.lo7)
}
