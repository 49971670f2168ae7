package stages

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
)

// keepNode gives its input back.
type keepNode struct{}

func (keepNode) Key() Key { return KeyWhitespace }

func (keepNode) Apply(_ context.Context, in Input) (Outcome, error) { return done(in.Text), nil }

// TestLineBreaksOfMatchesCount checks the run memo's count of a text's
// line breaks against strings.Count, after a protected node read the
// text: texts with and without a final line break, CRLF, blank lines,
// fenced code and indented blocks.
func TestLineBreaksOfMatchesCount(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 2))
	pieces := []string{"2024-03-01 10:00:01 INFO job done\n", "\n", "\r\n", "x", "é\n", "   \n", "a b\n", "```\n", "    code\n", "~~~go\n"}
	held := 0
	for run := range 2000 {
		var b strings.Builder
		for range r.IntN(40) {
			if r.IntN(4) > 0 { // mostly long lines: the memo keeps no dense short lines
				b.WriteString(pieces[0])
				continue
			}
			b.WriteString(pieces[r.IntN(len(pieces)-3*(run%2))]) // odd runs: no fence
		}
		text := b.String()
		ctx := WithRunMemo(context.Background())
		if _, err := Protected(keepNode{}).Apply(ctx, Input{Text: text}); err != nil {
			t.Fatal(err)
		}
		n, ok := LineBreaksOf(ctx, text)
		if !ok {
			continue
		}
		held++
		if want := strings.Count(text, "\n"); n != want {
			t.Fatalf("run %d: %d line breaks from the memo, want %d in %q", run, n, want, text)
		}
		if _, ok := LineBreaksOf(ctx, text+"\n"); ok {
			t.Fatalf("run %d: the memo answers for another text", run)
		}
	}
	if held < 200 {
		t.Fatalf("the memo held the lines of only %d texts", held)
	}
}
