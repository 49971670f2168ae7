package logs

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestMemoGroupKeyIsComputedKey: the group key a memo entry keeps for a
// shape is the key computed from the record's own tokens, for records
// of generated shapes with other digits (hex literals whose shape reads
// a digit's value among them), trailing correlation pairs that
// dropCorrelation drops, and continuations that change from record to
// record.
func TestMemoGroupKeyIsComputedKey(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 43))
	var bases []string
	for range 60 {
		line := "2024-03-01 10:00:00,000 INFO"
		for range 1 + r.IntN(4) {
			line += " " + memoLinePieces[r.IntN(len(memoLinePieces))](r)
		}
		if r.IntN(3) == 0 {
			line += fmt.Sprintf(" trace_id=%x span_id=%x", r.Uint64(), r.Uint32())
		}
		bases = append(bases, line)
	}
	conts := []uint64{fnvOffset, 1, 2, 3}
	memo, reused := newTokenMemo(), 0
	var lay Layout // free text: lay.memoRecords()
	for n := range 20000 {
		b := r.IntN(len(bases))
		line := digitVariant(r, bases[b])
		cont := conts[b%len(conts)] // most records of a shape have one continuation
		if r.IntN(8) == 0 {
			cont = conts[r.IntN(len(conts))]
		}
		toks, e, _ := memo.recordTokens(templateHead(line), nil)
		if e >= 0 && memo.entries[e].keyed && memo.entries[e].keyCont == cont {
			reused++
		}
		got := memo.groupKey(e, toks, cont)
		want := groupKey(lay.TemplateTokens(line, nil), cont)
		if got != want {
			t.Fatalf("record %d %q, continuation %d: memo key %x, computed %x", n, line, cont, got, want)
		}
	}
	if reused < 5000 {
		t.Fatalf("%d keys of 20000 reused", reused)
	}
}
