package logs

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// TestSlotStatRepeatIsNoOp checks that skipping a value equal to the last
// one added leaves a slot as adding it again would: random runs of
// numbers with units, words and empty values, with the skip and without.
func TestSlotStatRepeatIsNoOp(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	values := []string{"", "12", "12ms", "4.5MB", "-3", "7", "host-a", "98%", "0", "1e3", "x1"}
	for n := 0; n < 500; n++ {
		fast := slotStat{numeric: true}
		slow := slotStat{numeric: true}
		for k := r.IntN(40); k > 0; k-- {
			v := values[r.IntN(len(values))]
			for rep := r.IntN(3) + 1; rep > 0; rep-- {
				fast.add(v, -1, true)
				slow.hasLast = false // every value counted again
				slow.add(v, -1, true)
			}
		}
		if f, s := fast.view(), slow.view(); !reflect.DeepEqual(f, s) {
			t.Fatalf("run %d: with the skip %+v, without %+v", n, f, s)
		}
	}
}

// slotView is what a summary reads of a slot.
type slotView struct {
	distinct   int
	ex         [2]string
	numeric    bool
	unit       string
	minS, maxS string
	hasRange   bool
}

func (sl *slotStat) view() slotView {
	return slotView{sl.distinctCount(), sl.ex, sl.numeric, sl.unit, sl.minS, sl.maxS, sl.hasRange()}
}

// TestSlotStatCountsLikeAMap checks a slot against plain bookkeeping:
// random values (numbers that turn to words at a random record, numbers
// only, words only), long runs past the pending bound, the distinct
// count capped at summaryDistinct and the first two distinct values as
// examples.
func TestSlotStatCountsLikeAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for n := 0; n < 300; n++ {
		var sl slotStat
		sl.numeric = true
		seen := map[string]bool{}
		var first []string
		records := r.IntN(3 * pendingMax)
		wordsFrom := r.IntN(records + 2)
		spread := 1 + r.IntN(3000)
		for k := 0; k < records; k++ {
			v := strconv.Itoa(r.IntN(spread))
			if k >= wordsFrom {
				v = "w" + v
			}
			sl.add(v, -1, true)
			if !seen[v] {
				seen[v] = true
				if len(first) < 2 {
					first = append(first, v)
				}
			}
		}
		want := min(len(seen), summaryDistinct)
		if got := sl.distinctCount(); got != want {
			t.Fatalf("run %d: %d distinct, want %d", n, got, want)
		}
		for i, v := range first {
			if sl.ex[i] != v {
				t.Fatalf("run %d: examples %q, want %q", n, sl.ex, first)
			}
		}
		if wantNumeric := wordsFrom >= records; sl.numeric != wantNumeric && records > 0 {
			t.Fatalf("run %d: numeric %v, want %v", n, sl.numeric, wantNumeric)
		}
	}
}

// TestHashSetMatchesMap checks the slot's hash set against a map: random
// hashes drawn from small and wide ranges (0 and repeats included), every
// add's answer, the length and the members.
func TestHashSetMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for n := 0; n < 200; n++ {
		var s hashSet
		m := map[uint64]bool{}
		span := uint64(1) << r.IntN(64)
		for k := r.IntN(3000); k > 0; k-- {
			h := r.Uint64N(span)
			if r.IntN(4) == 0 {
				h = wordHash(values(r))
			}
			if got, want := s.add(h), !m[h]; got != want {
				t.Fatalf("run %d: add(%#x) = %v, want %v", n, h, got, want)
			}
			m[h] = true
		}
		if s.len() != len(m) {
			t.Fatalf("run %d: len %d, want %d", n, s.len(), len(m))
		}
		seen := map[uint64]bool{}
		s.each(func(h uint64) {
			if !m[h] || seen[h] {
				t.Fatalf("run %d: each gave %#x (member %v, twice %v)", n, h, m[h], seen[h])
			}
			seen[h] = true
		})
		if len(seen) != len(m) {
			t.Fatalf("run %d: each gave %d hashes, want %d", n, len(seen), len(m))
		}
	}
}

func values(r *rand.Rand) string {
	b := make([]byte, r.IntN(12))
	for i := range b {
		b[i] = byte('a' + r.IntN(4))
	}
	return string(b)
}
