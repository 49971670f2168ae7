package stages

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestSlotStatRepeatIsNoOp checks that skipping a value equal to the last
// one added leaves a slot as adding it again would: random runs of
// numbers with units, words and empty values, with the skip and without.
func TestSlotStatRepeatIsNoOp(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	values := []string{"", "12", "12ms", "4.5MB", "-3", "7", "host-a", "98%", "0", "1e3", "x1"}
	for n := 0; n < 500; n++ {
		fast := slotStat{distinct: map[uint64]struct{}{}, numeric: true}
		slow := slotStat{distinct: map[uint64]struct{}{}, numeric: true}
		for k := r.IntN(40); k > 0; k-- {
			v := values[r.IntN(len(values))]
			for rep := r.IntN(3) + 1; rep > 0; rep-- {
				fast.add(v)
				slow.hasLast = false // every value counted again
				slow.add(v)
			}
		}
		fast.last, fast.hasLast, slow.last, slow.hasLast = "", false, "", false
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("run %d: with the skip %+v, without %+v", n, fast, slow)
		}
	}
}
