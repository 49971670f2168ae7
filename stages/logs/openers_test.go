package logs

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// openersReference is (*logAnalysis).openers head by head: the heads of
// a shape in keys, and the facts of the first maxHeaderHeads of them.
func openersReference(a *logAnalysis, keys []shapeKey) (openers []string, facts []int32) {
	for i, h := range a.heads {
		fi := a.headFacts[i]
		var k shapeKey
		if fi >= 0 {
			k = a.memo.facts[fi].shape
		} else {
			k = a.freshShapes[-1-fi]
		}
		if slices.Contains(keys, k) {
			openers = append(openers, h)
			if len(facts) < maxHeaderHeads {
				facts = append(facts, fi)
			}
		}
	}
	return openers, facts
}

// TestOpenersMatchesReference checks openers, which hands back the heads
// as they are when every one opens a record, against openersReference on
// generated logs (the memo on and off), with every shape an opener and
// with some left out.
func TestOpenersMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	whole, part := 0, 0
	for run := range 400 {
		text := genLog(r, 1+r.IntN(900))
		if run%4 == 0 {
			text = genLogOf(r, 150+r.IntN(200), len(logClasses)-1) + text // memo off
		}
		var a logAnalysis
		a.headed = map[shapeKey]int{}
		a.memo = getFactMemo()
		a.heads, a.freshShapes, a.headFacts = a.memo.heads[:0], a.memo.freshShapes[:0], a.memo.headFacts[:0]
		a.scan(text, analysisLines)
		var shapes []shapeKey
		for i, fi := range a.headFacts {
			k := shapeOf(a.heads[i])
			if fi >= 0 {
				k = a.memo.facts[fi].shape
			}
			if !slices.Contains(shapes, k) {
				shapes = append(shapes, k)
			}
		}
		keys := shapes
		switch {
		case run%4 == 1 && len(shapes) > 1: // some shapes
			keys = nil
			for _, k := range shapes {
				if r.IntN(2) == 0 {
					keys = append(keys, k)
				}
			}
		case run%4 == 0: // every shape the memo holds, some fresh ones
			keys = nil
			for _, k := range shapes {
				held := slices.ContainsFunc(a.memo.facts, func(f lineFacts) bool { return f.shape == k })
				if held || r.IntN(2) == 0 {
					keys = append(keys, k)
				}
			}
		}
		wantOpeners, wantFacts := openersReference(&a, keys)
		gotOpeners, gotFacts := a.openers(keys)
		if !slices.Equal(gotOpeners, wantOpeners) || !slices.Equal(gotFacts, wantFacts) {
			t.Fatalf("run %d: openers %d heads, facts %v; reference %d heads, facts %v", run, len(gotOpeners), gotFacts, len(wantOpeners), wantFacts)
		}
		if len(wantOpeners) == len(a.heads) {
			whole++
		} else {
			part++
		}
		a.memo.release(a.heads, a.freshShapes, a.headFacts)
	}
	if whole < 50 || part < 50 {
		t.Fatalf("%d runs with every head an opener, %d with some not: the test does not test", whole, part)
	}
}
