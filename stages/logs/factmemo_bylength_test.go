package logs

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// longLineBytes is a length past most log lines.
const longLineBytes = 1024

// TestFactMemoByLength checks factMemo.lookup, whose shapeIndex tries
// the shape last seen at a line's length before it hashes, against a
// plain key (every digit made '0') and factsOf: on texts one after the
// other from the pool, whose lines share lengths, with lines of one
// length and another shape, and long lines.
func TestFactMemoByLength(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	byTable := 0
	for run := range 300 {
		m := getFactMemo()
		key := map[string]int32{}
		lengths := map[int]string{} // the key last looked up at a length
		for n := range 1 + r.IntN(500) {
			line := logClasses[r.IntN(len(logClasses))](r, n)
			switch r.IntN(8) {
			case 0: // one length, another shape
				b := []byte(line)
				b[r.IntN(len(b))] = "x:-a9 "[r.IntN(6)]
				line = string(b)
			case 1: // long
				line += strings.Repeat(" pad 7", longLineBytes/6+r.IntN(3))
			case 2:
				line = line[:1+r.IntN(len(line))]
			}
			k := digitsAsZero(line)
			if lengths[len(line)] == k && len(line) < longLineBytes {
				byTable++
			}
			lengths[len(line)] = k
			f, fi := m.lookup(line)
			if fi < 0 {
				continue
			}
			checkFactNumber(t, run, m, key, line, f, fi)
			if g := factsOf(line); g.shape != f.shape || g.escape != f.escape || g.continuation != f.continuation || g.stamped != f.stamped || g.fields != f.fields {
				t.Fatalf("run %d: %q has facts %+v, want %+v", run, line, *f, g)
			}
		}
		m.release(nil, nil, nil)
	}
	if byTable < 10000 {
		t.Fatalf("%d lines met the shape last seen at their length: the test does not test", byTable)
	}
}
