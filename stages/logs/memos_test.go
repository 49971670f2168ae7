package logs

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// TestMemosAcrossPasses: a second pass that mines the text the first
// wrote through the first pass's memos writes what it writes with memos
// of its own, and finds every record's shape in them: the first records
// of the templates are the first pass's lines, count suffixes aside.
func TestMemosAcrossPasses(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 67))
	for n := range 20 {
		doc := mineLoopDoc(r)
		lay := Analyze(doc)
		memos := NewMemos()
		first, err := MineWith(context.Background(), textkit.NewLineIndex(doc), lay, 3, nil, &memos)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := first.Write(textkit.NewLineIndex(doc))
		first.Release()
		entries := len(memos.records.entries)
		if entries == 0 {
			t.Fatalf("document %d: the first pass kept no shapes in the memos", n)
		}

		x := textkit.NewLineIndex(text)
		got, err := MineWith(context.Background(), x, lay, 3, nil, &memos)
		if err != nil {
			t.Fatal(err)
		}
		gotText, _ := got.Write(x)
		got.Release()
		if memos.records.off {
			t.Fatalf("document %d: the memo went off", n)
		}
		if added := len(memos.records.entries) - entries; added > 0 {
			t.Fatalf("document %d: the second pass added %d shapes: it did not read the first's", n, added)
		}
		memos.Release()

		want, err := Mine(context.Background(), x, lay, 3, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantText, _ := want.Write(x)
		want.Release()
		if gotText != wantText {
			t.Fatalf("document %d: the second pass writes another text through the first's memos", n)
		}
	}
}
