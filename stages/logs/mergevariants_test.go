package logs

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// refMergeVariants is mergeVariants listing each position's buckets
// even where too many keys leave none of minV groups.
func (t *templates) refMergeVariants() (merged bool) {
	minV := int32(t.minVariants)
	order := t.sweepOrder(minV)
	slices.SortStableFunc(order, func(a, b int) int { return len(t.groups[b].toks) - len(t.groups[a].toks) })
	key := func(g *tgroup, p int) uint64 {
		return (g.sum - mix(p, g.toks[p])) ^ (g.cont^uint64(len(g.toks)))*fnvPrime
	}
	sizes := map[uint64]int32{}
	buckets := map[uint64][]int{}
	for p := 0; len(order) > 0; p++ {
		for len(order) > 0 && len(t.groups[order[len(order)-1]].toks) <= p {
			order = order[:len(order)-1]
		}
		clear(sizes)
		for _, i := range order {
			if g := &t.groups[i]; g.parent == i && g.toks[p] > varToken {
				sizes[key(g, p)]++
			}
		}
		clear(buckets)
		for _, i := range order {
			if g := &t.groups[i]; g.parent == i && g.toks[p] > varToken {
				if k := key(g, p); sizes[k] >= minV {
					buckets[k] = append(buckets[k], i)
				}
			}
		}
		for _, b := range buckets {
			if distinctAt(t.groups, b, p) < t.minVariants || !t.variesWidely(b, p) {
				continue
			}
			if b = t.withoutRecurring(b, p); len(b) < 2 {
				continue
			}
			root := b[0]
			for _, i := range b {
				if t.groups[i].first < t.groups[root].first {
					root = i
				}
			}
			merged = true
			r := &t.groups[root]
			r.sum -= mix(p, r.toks[p])
			r.toks[p] = wildcard
			r.sum += mix(p, wildcard)
			for _, i := range b {
				if i != root {
					t.groups[i].parent = root
					r.count += t.groups[i].count
				}
			}
		}
	}
	return merged
}

// variantTemplates mines lines of a few words, some varying in one
// place, into groups (no merge yet).
func variantTemplates(r *rand.Rand, minV int) *templates {
	t := &templates{minVariants: minV, groups: make([]tgroup, 0, 64)}
	verbs := []string{"started", "stopped", "failed", "queued", "done"}
	names := []string{"alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "zeta"}
	for ev := range 40 + r.Intn(200) {
		line := fmt.Sprintf("job %s %s on node", names[r.Intn(len(names))], verbs[r.Intn(len(verbs))])
		if r.Intn(3) == 0 {
			line = fmt.Sprintf("worker %s %s", verbs[r.Intn(len(verbs))], names[r.Intn(len(names))])
		}
		if r.Intn(5) == 0 {
			line += " " + names[r.Intn(len(names))] + fmt.Sprint(r.Intn(1000))
		}
		t.add(tokenize(line, nil), 0, ev, 1+r.Intn(12), line)
	}
	return t
}

// TestMergeVariantsMatchesReference: the same groups merge, into the
// same templates, with and without the skip of crowded positions.
func TestMergeVariantsMatchesReference(t *testing.T) {
	mergedAny := 0
	for round := range 300 {
		minV := 2 + round%4
		got, want := variantTemplates(rand.New(rand.NewSource(int64(round))), minV), variantTemplates(rand.New(rand.NewSource(int64(round))), minV)
		gm, wm := got.mergeVariants(), want.refMergeVariants()
		if gm != wm {
			t.Fatalf("round %d: merged %v, want %v", round, gm, wm)
		}
		if gm {
			mergedAny++
		}
		for i := range got.groups {
			g, w := &got.groups[i], &want.groups[i]
			if g.parent != w.parent || g.count != w.count || g.sum != w.sum || !slices.Equal(g.toks, w.toks) {
				t.Fatalf("round %d: group %d = %+v, want %+v", round, i, *g, *w)
			}
		}
	}
	if mergedAny < 30 {
		t.Fatalf("only %d rounds merged", mergedAny)
	}
}
