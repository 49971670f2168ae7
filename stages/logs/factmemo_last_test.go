package logs

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestFactMemoLastLine checks factMemo.lookup, whose shapeIndex tries
// the shape of the line before first, against numbering the shapes by a
// shapeIndex alone: on runs of lines of one shape, lines of one length
// and another shape, and lines cut short.
func TestFactMemoLastLine(t *testing.T) {
	r := rand.New(rand.NewPCG(95, 96))
	shortcuts := 0
	for run := range 200 {
		m := getFactMemo()
		var ref shapeIndex
		prev := ""
		for n := range 1 + r.IntN(600) {
			var line string
			switch k := r.IntN(6); {
			case k < 3 && prev != "": // the line before, other digits
				b := []byte(prev)
				for i, c := range b {
					if c >= '0' && c <= '9' {
						b[i] = byte('0' + r.IntN(10))
					}
				}
				line = string(b)
			case k == 3 && prev != "": // one length, another shape
				b := []byte(prev)
				b[r.IntN(len(b))] = "x:-a9 "[r.IntN(6)]
				line = string(b)
			default:
				line = logClasses[r.IntN(len(logClasses))](r, n)
				line = line[:r.IntN(len(line)+1)]
				if line == "" {
					line = fmt.Sprint(n)
				}
			}
			want, _, slot := ref.find(line)
			if want < 0 {
				want = ref.add(line, digitShapeHash(line), slot)
			}
			if prev != "" && sameDigitShape(prev, line) {
				shortcuts++
			}
			if _, got := m.lookup(line); got != want {
				t.Fatalf("run %d line %d %q: facts %d, shape %d", run, n, line, got, want)
			}
			prev = line
		}
		m.release(nil, nil, nil)
	}
	if shortcuts < 10000 {
		t.Fatalf("%d lines took the facts of the line before: the test does not test", shortcuts)
	}
}
