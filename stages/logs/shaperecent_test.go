package logs

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestShapeIndexRecentShapes: lines whose shapes come in runs and
// alternate (what find tries before hashing), shapes of one length that
// differ in a letter or in a digit's place, numbered as a map from the
// shape does.
func TestShapeIndexRecentShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 73))
	for run := range 100 {
		var x shapeIndex
		x.reset()
		ref := map[string]int32{}
		shapes := 1 + r.IntN(6)
		k := 0
		for range 500 {
			if r.IntN(3) == 0 {
				k = r.IntN(shapes) // else the shape before, again
			}
			// One length: the shape in a letter, or where a digit stands.
			line := fmt.Sprintf("10:00:%02d job %c done %s", r.IntN(60), 'a'+k%3, strings.Repeat("x", k/3)+"7"+strings.Repeat("x", 2-k/3))
			checkShapeNumber(t, run, &x, ref, line)
		}
	}
}
