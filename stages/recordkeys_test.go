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

// TestLogDedupSeedsRecordKeys checks that the record keys log_dedup
// leaves in the run memo for its output lines are the keys a keyer
// computes from those lines, on plain, JSON and two-line records.
func TestLogDedupSeedsRecordKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	render := []func(i, tpl int, user string) string{
		func(i, tpl int, user string) string {
			return fmt.Sprintf("2024-05-01 10:%02d:%02d INFO job %d of kind%d ran for %s {\"user\":\"%s\"}", i/60%60, i%60, r.IntN(900), tpl, user, user)
		},
		func(i, tpl int, user string) string {
			return fmt.Sprintf(`{"ts":"2024-05-01T10:%02d:%02dZ","level":"info","msg":"job of kind%d ran","user":"%s","n":%d}`, i/60%60, i%60, tpl, user, r.IntN(900))
		},
		func(i, tpl int, user string) string {
			return fmt.Sprintf("info: App.Worker%d[0]\n      job ran for %s in %dms", tpl, user, r.IntN(900))
		},
	}
	seeded := make([]int, len(render))
	for round := range 60 {
		var b strings.Builder
		for i := range 30 + r.IntN(300) {
			tpl := min(r.IntN(12), r.IntN(12))
			b.WriteString(render[round%len(render)](i, tpl, fmt.Sprintf("user%c%c", 'a'+r.IntN(26), 'a'+r.IntN(26))))
			b.WriteByte('\n')
		}
		text := b.String()
		lay := logs.Analyze(text)
		ctx := WithRunMemo(context.Background())
		out, err := NewLogDedup(DefaultLogDedupOptions()).Apply(ctx, Input{Text: text, Kind: KindLog, Log: lay})
		if err != nil {
			t.Fatal(err)
		}
		fresh := &recordKeyer{lay: lay}
		for l, got := range runMemoOf(ctx).records.keys {
			if want := fresh.key(l); got != want {
				t.Fatalf("seeded key of %q = %+v, computed %+v", l, got, want)
			}
			seeded[round%len(render)]++
		}
		if out.Skipped && round%len(render) < 2 {
			t.Fatalf("log_dedup left the log as it was: %s", out.Reason)
		}
	}
	// Two-line records are mined by both lines: their keys are not seeded.
	if seeded[0] == 0 || seeded[1] == 0 {
		t.Fatalf("record keys seeded per kind of record: %v, want some for plain and JSON lines", seeded)
	}
}
