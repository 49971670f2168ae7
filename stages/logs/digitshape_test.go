package logs

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// refDigitShapePrefix is digitShapePrefix a byte a step.
func refDigitShapePrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if x, y := a[i], b[i]; x != y && !('0' <= x && x <= '9' && '0' <= y && y <= '9') {
			return i
		}
	}
	return n
}

// digitShapeBytes are the bytes of the lines the tests make: digits and
// the bytes beside them in value or nibbles, blanks, letters, and the
// bytes of UTF-8 text.
var digitShapeBytes = []byte("0123456789/:;?@ aA\x00\x10\x20\x29\x3a\x3f\x40\x7f\x80\xb0\xb9\xc3\xa9\xe7\x94\xa8\xf0\xff")

// randDigitShapeLine makes a line of n bytes of digitShapeBytes, some of
// it UTF-8 text.
func randDigitShapeLine(r *rand.Rand, n int) []byte {
	b := make([]byte, 0, n+4)
	for len(b) < n {
		if r.IntN(8) == 0 {
			b = append(b, []string{"é", "用"}[r.IntN(2)]...)
			continue
		}
		b = append(b, digitShapeBytes[r.IntN(len(digitShapeBytes))])
	}
	return b[:n]
}

// digitsChanged returns s with each digit, each at random, another digit.
func digitsChanged(r *rand.Rand, s []byte) []byte {
	o := []byte(string(s))
	for i, c := range o {
		if '0' <= c && c <= '9' && r.IntN(2) == 0 {
			o[i] = byte('0' + r.IntN(10))
		}
	}
	return o
}

// checkDigitShape checks sameDigitShape and digitShapePrefix on a and b
// against the byte-by-byte rule, and that one shape hashes alike.
func checkDigitShape(t *testing.T, a, b string) {
	t.Helper()
	want := refDigitShapePrefix(a, b)
	if got := digitShapePrefix(a, b); got != want {
		t.Fatalf("digitShapePrefix(%q, %q) = %d, want %d", a, b, got, want)
	}
	if len(a) == len(b) {
		// sameDigitShape's path: one call, short lines included.
		if got := digitShapeWords(a, b); got != want {
			t.Fatalf("digitShapeWords(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
	same := len(a) == len(b) && want == len(a)
	if got := sameDigitShape(a, b); got != same {
		t.Fatalf("sameDigitShape(%q, %q) = %v, want %v", a, b, got, same)
	}
	if same && digitShapeHash(a) != digitShapeHash(b) {
		t.Fatalf("%q and %q: one shape, hashes %x and %x", a, b, digitShapeHash(a), digitShapeHash(b))
	}
}

// TestDigitShapeAtEveryPosition: for every length across the word
// boundaries, a digit at every position, against another digit (one
// shape) and against another byte (the shapes part there), and a byte's
// high nibble changed at every position changes the hash: no byte is
// left out.
func TestDigitShapeAtEveryPosition(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for n := 0; n <= 40; n++ {
		for p := 0; p < n; p++ {
			a := randDigitShapeLine(r, n)
			a[p] = byte('0' + r.IntN(10))
			b := digitsChanged(r, a)
			b[p] = byte('0' + r.IntN(10))
			checkDigitShape(t, string(a), string(b))
			// Another byte at p: the shapes part at p, or at a byte before.
			b[p] = ":;?/@ a\x80é"[r.IntN(10)]
			checkDigitShape(t, string(a), string(b))
			checkDigitShape(t, string(b), string(a))
			if refDigitShapePrefix(string(a), string(b)) == n {
				t.Fatalf("%q and %q: the test made one shape", a, b)
			}
			// Another high nibble: another hash.
			c := []byte(string(a))
			c[p] ^= byte(1+r.IntN(15)) << 4
			if digitShapeHash(string(a)) == digitShapeHash(string(c)) {
				t.Fatalf("%q and %q hash alike", a, c)
			}
			// Prefixes and a longer line: the prefix is over the shorter.
			checkDigitShape(t, string(a[:p]), string(b))
			checkDigitShape(t, string(a), string(b[:p]))
		}
	}
}

// TestDigitShapeRandomPairs checks random pairs of lines, of one length
// or two, and digit variants, against the byte-by-byte rule; and that
// lines hash apart unless their lengths and high nibbles are alike.
func TestDigitShapeRandomPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	hashes := map[uint64]string{}
	for range 50000 {
		a := randDigitShapeLine(r, r.IntN(41))
		b := digitsChanged(r, a)
		checkDigitShape(t, string(a), string(b))
		if len(b) > 0 && r.IntN(2) == 0 {
			b[r.IntN(len(b))] = digitShapeBytes[r.IntN(len(digitShapeBytes))]
		}
		if r.IntN(4) == 0 {
			b = randDigitShapeLine(r, r.IntN(41))
		}
		checkDigitShape(t, string(a), string(b))
		// Distinct hashes for distinct high nibbles.
		k := []byte(string(a))
		for i := range k {
			k[i] |= 0x0F
		}
		h := digitShapeHash(string(a))
		if o, ok := hashes[h]; ok && o != string(k) {
			t.Fatalf("%q and %q hash alike", o, k)
		}
		hashes[h] = string(k)
	}
}

// FuzzDigitShape checks the digit-shape functions on a pair of lines and
// on a line with its digits changed, against the byte-by-byte rule.
func FuzzDigitShape(f *testing.F) {
	f.Add("2024-01-02 10:00:01 INFO blk_-123", "2024-01-02 10:00:01 INFO blk_-123", uint64(1))
	f.Add("read 0x1f bytes 用户u1", "read 0x2f bytes 用户u9", uint64(2))
	f.Add("12:30", "12030", uint64(3))
	f.Fuzz(func(t *testing.T, a, b string, seed uint64) {
		checkDigitShape(t, a, b)
		checkDigitShape(t, a, string(digitsChanged(rand.New(rand.NewPCG(seed, 65)), []byte(a))))
	})
}

// TestShapeIndexNumbersShapes checks shapeIndex against a map from the
// shape (digits as '0') to its number, on lines of few shapes, many
// (the slots grow) and many that hash alike (the same high nibbles): it
// never gives a line another shape's number, and gives up on a line only
// when shapeProbes slots are taken.
func TestShapeIndexNumbersShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(66, 67))
	for run := range 300 {
		var x shapeIndex
		if run%3 == 0 {
			x.slots = make([]int32, 4) // as left by a smaller log
		}
		x.reset()
		ref := map[string]int32{}
		shapes := 1 + r.IntN(300)
		alike := run%4 == 0 // shapes of one length and high nibbles
		gaveUp := 0
		for range 1 + r.IntN(2000) {
			k := r.IntN(shapes)
			var line []byte
			if alike {
				// Letters of one high nibble, the shape numbered k in
				// their low nibbles, and digits.
				line = []byte(fmt.Sprintf("job %c%c%c 00 done", 'a'+k%15, 'a'+k/15%15, 'a'+k/225))
			} else {
				// The shape numbered k in its length.
				line = []byte("shape 1 " + strings.Repeat("x", k) + " 12:00")
			}
			line = digitsChanged(r, line)
			shape := digitsAsZero(string(line))
			want, known := ref[shape]
			i, h, slot := x.find(string(line))
			switch {
			case i >= 0:
				if !known || i != want {
					t.Fatalf("run %d: %q numbered %d, want %d (known %v)", run, line, i, want, known)
				}
			case slot >= 0:
				if known {
					t.Fatalf("run %d: %q not found, numbered %d", run, line, want)
				}
				ref[shape] = x.add(string(line), h, slot)
				if ref[shape] != int32(len(ref)-1) {
					t.Fatalf("run %d: %q numbered %d, want %d", run, line, ref[shape], len(ref)-1)
				}
			default:
				gaveUp++
				if !alike {
					t.Fatalf("run %d: gave up on %q among shapes that hash apart", run, line)
				}
			}
			if 2*len(x.lines) > len(x.slots) {
				t.Fatalf("run %d: %d shapes in %d slots", run, len(x.lines), len(x.slots))
			}
		}
		if alike && shapes > 2*shapeProbes && len(ref) > 2*shapeProbes && gaveUp == 0 {
			t.Fatalf("run %d: %d shapes that hash alike, none given up", run, len(ref))
		}
	}
}
