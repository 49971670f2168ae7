package logs

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// TestMayBeLevelNeverHidesLevel: mark skips UpperLevelAt where
// mayBeLevel is false, so no level may be there.
func TestMayBeLevelNeverHidesLevel(t *testing.T) {
	parts := []string{"", "[", "<", "]", ">", "INFO", "info", "Warn", "error", "ERR", "ınfo", "ſevere",
		"\x1b[31m", "\x1b", "é", "1", "-", ":", " ", "x", "DEBUG", "crit", "0x", "\xff", "fine", "[ınfo]"}
	rng := rand.New(rand.NewSource(1))
	levels := 0
	for range 200000 {
		v := ""
		for n := rng.Intn(4); n >= 0; n-- {
			v += parts[rng.Intn(len(parts))]
		}
		level := textkit.UpperLevelAt(v)
		if level {
			levels++
		}
		if level && !mayBeLevel(v) {
			t.Fatalf("mayBeLevel(%q) = false, but UpperLevelAt says a level", v)
		}
	}
	for _, v := range []string{"ınfo", "[ınfo]", "ſevere", "\x1b[31mERROR", "<warn>", "INFO"} {
		if !textkit.UpperLevelAt(v) || !mayBeLevel(v) {
			t.Errorf("%q: UpperLevelAt %v, mayBeLevel %v; want both", v, textkit.UpperLevelAt(v), mayBeLevel(v))
		}
	}
	if levels < 1000 {
		t.Fatalf("only %d levels generated", levels)
	}
}

// refTokenHalves is tokenHalves in one loop.
func refTokenHalves(g *tgroup) (uint64, uint64) {
	a := (g.cont ^ uint64(len(g.toks))) * fnvPrime
	b := a ^ 0x9E3779B97F4A7C15
	for i, x := range g.toks {
		if i < len(g.toks)/2 {
			a += mix(i, x)
		} else {
			b += mix(i, x)
		}
	}
	return a, b
}

// refSweepOrder is sweepOrder hashing each group's halves twice.
func (t *templates) refSweepOrder(minV int32) []int {
	countA, countB := map[uint64]int32{}, map[uint64]int32{}
	for i := range t.groups {
		if len(t.groups[i].toks) > 1 {
			a, b := refTokenHalves(&t.groups[i])
			countA[a]++
			countB[b]++
		}
	}
	var order []int
	for i := range t.groups {
		if len(t.groups[i].toks) > 1 {
			if a, b := refTokenHalves(&t.groups[i]); countA[a] >= minV || countB[b] >= minV {
				order = append(order, i)
			}
		}
	}
	return order
}

// TestSweepOrderMatchesReference: groups sharing halves, of every
// length, in and out of the sweep.
func TestSweepOrderMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	in := 0
	for round := range 300 {
		tp := &templates{}
		for range rng.Intn(60) {
			n := rng.Intn(9)
			toks := make([]uint64, n)
			for p := range toks {
				toks[p] = uint64(rng.Intn(3)) // few ids: halves repeat
			}
			g := tgroup{toks: toks, cont: uint64(rng.Intn(2))}
			if a, b := tokenHalves(&g); true {
				if ra, rb := refTokenHalves(&g); a != ra || b != rb {
					t.Fatalf("tokenHalves(%v) = %x %x, want %x %x", toks, a, b, ra, rb)
				}
			}
			tp.groups = append(tp.groups, g)
		}
		minV := int32(1 + round%4)
		got, want := tp.sweepOrder(minV), tp.refSweepOrder(minV)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: sweepOrder = %v, want %v", round, got, want)
		}
		in += len(got)
	}
	if in == 0 {
		t.Fatal("no group was swept")
	}
}
