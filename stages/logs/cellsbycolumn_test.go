package logs

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// refCellsByColumn is cellsByColumn as first written: a map from column
// to its index, each column's cells appended.
func refCellsByColumn(cols []uint64, cells [][]cell) [][]groupCell {
	at := make(map[uint64]int, len(cols))
	for k, col := range cols {
		at[col] = k
	}
	by := make([][]groupCell, len(cols))
	for i, cs := range cells {
		for _, c := range cs {
			if k, ok := at[c.col]; ok {
				by[k] = append(by[k], groupCell{group: i, cell: c})
			}
		}
	}
	return by
}

// TestCellsByColumnMatchesReference: on generated groups' cells, among
// columns that are candidates and columns that are not (header indexes
// and pair keys), each column gets the cells the reference gives it, in
// its order.
func TestCellsByColumnMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 73))
	for n := range 500 {
		keys := []uint64{0, 1, 2, 3, 4, r.Uint64(), r.Uint64() ^ pairColumn, r.Uint64()}
		var cols []uint64
		for _, k := range keys {
			if r.IntN(2) == 0 {
				cols = append(cols, k)
			}
		}
		slices.Sort(cols)
		cols = slices.Compact(cols)
		cells := make([][]cell, r.IntN(40))
		for i := range cells {
			for range r.IntN(6) {
				cells[i] = append(cells[i], cell{col: keys[r.IntN(len(keys))], pos: r.IntN(20), name: r.IntN(2) == 0})
			}
		}
		got, want := cellsByColumn(cols, cells), refCellsByColumn(cols, cells)
		if len(got) != len(want) {
			t.Fatalf("case %d: %d columns, want %d", n, len(got), len(want))
		}
		for k := range want {
			if len(got[k]) != len(want[k]) || len(want[k]) > 0 && !reflect.DeepEqual(got[k], want[k]) {
				t.Fatalf("case %d: column %d: %v, want %v", n, cols[k], got[k], want[k])
			}
		}
	}
}
