package stages

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// scriptedNode returns its input or an edit of it, as its script says,
// and records the text it was given.
type scriptedNode struct {
	edits []func(string) string
	step  *int
	seen  *[]string
}

func (scriptedNode) Key() Key { return KeyDedup }

func (n scriptedNode) Apply(_ context.Context, in Input) (Outcome, error) {
	*n.seen = append(*n.seen, in.Text)
	e := n.edits[*n.step]
	*n.step++
	if e == nil {
		return skip(in, "unchanged"), nil
	}
	return done(e(in.Text)), nil
}

// TestFenceMemoSameOutcomes checks that the fence memo changes nothing:
// random chains of nodes that keep their input, drop a line, add a fenced
// block, a placeholder-like rune or plain lines give the same texts seen
// and the same outcomes with the memo and without.
func TestFenceMemoSameOutcomes(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	lines := []string{"2024-01-01 INFO started", "```go", "x := 1", "```", "#### fix it", "plain", "\ue000", "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", ""}
	text := func() string {
		var b strings.Builder
		for k := r.IntN(12); k > 0; k-- {
			b.WriteString(lines[r.IntN(len(lines))] + "\n")
		}
		return b.String()
	}
	editsPool := []func(string) string{
		nil, nil, nil,
		func(s string) string { return s + "plain\n" },
		func(s string) string { return s + "```\nfenced\n```\n" },
		func(s string) string { _, after, _ := strings.Cut(s, "\n"); return after },
		func(s string) string { return strings.ReplaceAll(s, "INFO", "WARN") },
		func(s string) string { return "\ue001\n" + s },
	}
	for n := 0; n < 3000; n++ {
		in := text()
		edits := make([]func(string) string, 1+r.IntN(6))
		for i := range edits {
			edits[i] = editsPool[r.IntN(len(editsPool))]
		}
		run := func(ctx context.Context) ([]string, []Outcome) {
			var seen []string
			var outs []Outcome
			step := 0
			node := Protected(scriptedNode{edits: edits, step: &step, seen: &seen})
			cur := in
			for range edits {
				out, err := node.Apply(ctx, Input{Text: cur})
				if err != nil {
					t.Fatal(err)
				}
				outs = append(outs, out)
				cur = out.Text
			}
			return seen, outs
		}
		seenA, outsA := run(WithRunMemo(context.Background()))
		seenB, outsB := run(context.Background())
		if !reflect.DeepEqual(seenA, seenB) || !reflect.DeepEqual(outsA, outsB) {
			t.Fatalf("input %q: with the memo the nodes saw %q and gave %+v; without, %q and %+v", in, seenA, outsA, seenB, outsB)
		}
	}
}
