package stages

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/logs"
)

// memoLog is a generated service log, mined by log_dedup like the
// pipeline does, so that its lines carry counts: 49 templates of Zipf-like
// frequencies, numbers in every message, the rare ones seen once.
func memoLog(r *rand.Rand) (string, logs.Layout) {
	verbs := []string{"opened", "closed", "flushed", "rotated", "scanned", "evicted", "pinned"}
	nouns := []string{"segment", "cursor", "channel", "lease", "snapshot", "socket", "journal"}
	var b strings.Builder
	n := 20 + r.IntN(400)
	for i := range n {
		// Zipf-like: low template numbers are frequent, high ones rare.
		t := min(r.IntN(len(verbs)*len(nouns)), r.IntN(len(verbs)*len(nouns)), r.IntN(len(verbs)*len(nouns)))
		fmt.Fprintf(&b, "2024-05-01 10:%02d:%02d.%03d INFO [main] ", i/60%60, i%60, r.IntN(1000))
		fmt.Fprintf(&b, "%s %s %d in %dms", nouns[t%len(nouns)], verbs[t/len(nouns)], r.IntN(300), r.IntN(90))
		if t%5 == 0 {
			fmt.Fprintf(&b, " for user%d", r.IntN(40))
		}
		b.WriteByte('\n')
	}
	text := b.String()
	lay := logs.Analyze(text)
	out, err := NewLogDedup(DefaultLogDedupOptions()).Apply(context.Background(), Input{Text: text, Kind: KindLog, Log: lay})
	if err != nil {
		panic(err)
	}
	return out.Text, lay
}

// TestRecordMemoSameOutcomes checks that number_normalize and keywords
// give the same texts with a run memo as without, and that the memo is
// used: keywords finds the keys number_normalize counted.
func TestRecordMemoSameOutcomes(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	nodes := []Node{
		Protected(NewNumberNormalize(DefaultNumberNormalizeOptions())),
		Protected(NewKeywords(DefaultKeywordsOptions())),
	}
	remembered := 0
	for range 200 {
		text, lay := memoLog(r)
		run := func(ctx context.Context) []string {
			var outs []string
			in := Input{Text: text, Kind: KindLog, Log: lay}
			for _, n := range nodes {
				out, err := n.Apply(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				outs = append(outs, out.Text)
				in.Text = out.Text
			}
			return outs
		}
		ctx := WithRunMemo(context.Background())
		with, without := run(ctx), run(context.Background())
		for i := range with {
			if with[i] != without[i] {
				t.Fatalf("node %d on\n%s\ngave with the memo\n%s\nand without\n%s", i, text, with[i], without[i])
			}
		}
		remembered += len(runMemoOf(ctx).records.keys)
	}
	if remembered == 0 {
		t.Fatal("no record key was remembered")
	}
}

// TestRecordKeyerLayouts checks that a memo filled under one layout is
// not read under another: the same line may open a record under one and
// not the other.
func TestRecordKeyerLayouts(t *testing.T) {
	ctx := WithRunMemo(context.Background())
	line := "2024-05-01 10:00:00 INFO started worker 7"
	stamped := logs.Analyze(strings.Repeat(line+"\n", 20))
	if k := newRecordKeyer(ctx, stamped).key(line); !k.record {
		t.Fatalf("%q opens no record under its own layout", line)
	}
	other := logs.Layout{Analyzed: true, Records: true, Openers: []string{"no-such-shape"}}
	keyer := newRecordKeyer(ctx, other)
	if keyer.memo != nil {
		t.Fatal("a keyer for another layout reads the memo")
	}
	if got, want := keyer.key(line), (&recordKeyer{lay: other}).key(line); got != want {
		t.Fatalf("key under another layout = %+v, want %+v", got, want)
	}
}
