package logs

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFactMemoNumbersShapesOnce checks that factMemo.lookup gives every
// digit shape one number, the same for all its lines, without a
// shapeIndex to compare with: the shapes are told by a plain key, every
// digit made '0'.
func TestFactMemoNumbersShapesOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	numbered := 0
	for run := range 300 {
		m := getFactMemo()
		key := map[string]int32{}
		for _, line := range strings.Split(genLog(r, 1+r.IntN(600)), "\n") {
			if line == "" {
				continue
			}
			f, fi := m.lookup(line)
			if fi < 0 {
				continue
			}
			checkFactNumber(t, run, m, key, line, f, fi)
			numbered++
		}
		m.release(nil, nil, nil)
	}
	if numbered < 20000 {
		t.Fatalf("%d lines numbered: the test does not test", numbered)
	}
}
