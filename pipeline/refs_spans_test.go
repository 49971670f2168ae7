package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// TestRunSpansGiveTheSameRefs: a log run in process reports log_dedup's
// template spans over the original's lines, and references made from them
// are the ones made by mining the original again.
func TestRunSpansGiveTheSameRefs(t *testing.T) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(4) {
		text, _ := genServiceLog(seed, 4000)
		res, err := p.Run(context.Background(), Request{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Report.Spans) == 0 {
			t.Fatalf("seed %d: no spans reported", seed)
		}
		mined := AddRefsWithin(text, res.Text, "abcd1234", 0, res.Report.Kind)
		given := AddRefsWithinSpans(text, res.Text, "abcd1234", 0, res.Report.Kind, res.Report.Spans)
		if given != mined {
			t.Errorf("seed %d: references from the run's spans differ from mined ones:\n%s\n---\n%s", seed, given, mined)
		}
		if !strings.Contains(given, RefSep) {
			t.Errorf("seed %d: no references", seed)
		}
	}
	// Lines the nodes moved (blank runs folded by whitespace) leave no spans:
	// references then mine the original.
	text, _ := genServiceLog(9, 2000)
	text = strings.ReplaceAll(text, "\n", "\n\n\n\n")
	res, err := p.Run(context.Background(), Request{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Spans != nil {
		t.Error("spans reported over lines the whitespace node moved")
	}
}

func BenchmarkAddRefs(b *testing.B) {
	text, _ := genServiceLog(1, 100000)
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		b.Fatal(err)
	}
	res, err := p.Run(context.Background(), Request{Text: text})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.Run("mined", func(b *testing.B) {
		for b.Loop() {
			AddRefsWithin(text, res.Text, "abcd1234", 0, res.Report.Kind)
		}
	})
	b.Run("spans", func(b *testing.B) {
		for b.Loop() {
			AddRefsWithinSpans(text, res.Text, "abcd1234", 0, res.Report.Kind, res.Report.Spans)
		}
	})
}
