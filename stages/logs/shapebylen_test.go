package logs

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestShapeIndexByLength: shapes of one length, and of lengths 256
// apart (one byLen entry), in random order and in runs, numbered as a map
// from the shape does, across resets of one index: find never gives a
// line another shape's number, nor one left from before the reset. Runs
// of many shapes of one length let byLen go, and number them as well.
func TestShapeIndexByLength(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 11))
	var x shapeIndex
	for run := range 200 {
		x.reset()
		ref := map[string]int32{}
		lengths := []int{16 + r.IntN(20), 16 + r.IntN(20) + 256, 16 + r.IntN(20) + 512}
		shapes := 1 + r.IntN(12)
		many := run%5 == 0 // shapes of one length, too many for byLen
		if many {
			shapes = 48
		}
		k := 0
		for range 1 + r.IntN(600) {
			if r.IntN(3) != 0 {
				k = r.IntN(shapes) // else the shape before, again
			}
			n := lengths[k%3]
			if many {
				n = lengths[0]
			} else if r.IntN(4) == 0 {
				n = lengths[r.IntN(3)]
			}
			// Shapes of one length differ in a letter (high nibbles
			// apart: they hash apart) or in where a digit stands.
			tag := "AQaq"[k/3%4]
			at := k / 12 % 4
			digits := fmt.Sprintf("%d%d", r.IntN(10), r.IntN(10))
			body := strings.Repeat("x", at) + digits + strings.Repeat("x", 3-at)
			head := fmt.Sprintf("%02d:%02d %c %s ", r.IntN(60), r.IntN(60), tag, body)
			line := head + strings.Repeat(string("-=+"[k%3]), n-len(head))
			checkShapeNumber(t, run, &x, ref, line)
		}
		if many && len(ref) > 40 && x.lenTried() {
			t.Fatalf("run %d: %d shapes of one length, byLen still tried (%d hits in %d)", run, len(ref), x.lenHits, x.lenTries)
		}
	}
}
