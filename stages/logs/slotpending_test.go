package logs

import (
	"strings"
	"testing"
)

// TestFirstNumberOutOfPending holds the slot whose first value, a
// number, stays out of pending (ex0Pending) to the reference: one value,
// a number then words, repeats, empty values, and merges of such slots.
func TestFirstNumberOutOfPending(t *testing.T) {
	seqs := [][]string{
		{"5"}, {"5", "5"}, {"5", "x"}, {"5", "6"}, {"5", "6", "x", "5"}, {"5", "5", "6", "x", "5", "y"},
		{"x", "5"}, {"", "5"}, {"5", ""}, {"5ms", "6s"}, {"-1", "1", "-1"}, {"0.5", "05"}, {"5", "6", "5", "7", "5"},
	}
	fill := func(vals []string) (slotStat, refSlotStat) {
		a := slotStat{numeric: true, maxEv: -1}
		b := refSlotStat{numeric: true, maxEv: -1}
		for ev, v := range vals {
			a.add(v, ev, true)
			b.add(v, ev, true)
		}
		return a, b
	}
	for _, x := range seqs {
		a, b := fill(x)
		compareSummaries(t, strings.Join(x, ","), &groupSummary{slots: []slotStat{a}}, &refGroupSummary{slots: []refSlotStat{b}})
		for _, y := range seqs {
			a, b := fill(x)
			c, d := fill(y)
			s := &groupSummary{slots: []slotStat{a}}
			ref := &refGroupSummary{slots: []refSlotStat{b}}
			s.mergeFrom(&groupSummary{slots: []slotStat{c}})
			ref.mergeFrom(&refGroupSummary{slots: []refSlotStat{d}})
			compareSummaries(t, strings.Join(x, ",")+" + "+strings.Join(y, ","), s, ref)
		}
	}
}
