package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

func TestGuard(t *testing.T) {
	cases := []struct {
		orig, res, want string
		kept            bool
	}{
		{"hello world", "hello", "hello", true},
		{"hello", "hello", "hello", false},
		{"short", "much longer text", "short", false},
		{"ééé", "éé", "éé", true},
		// Fewer runes but more bytes: keep the original.
		{"abc", "\uFFFD\uFFFD", "abc", false},
	}
	for _, c := range cases {
		got, why := Guard(c.orig, c.res)
		if got != c.want || (why == "kept result") != c.kept {
			t.Errorf("Guard(%q,%q) = %q, %q", c.orig, c.res, got, why)
		}
	}
}

// growNode makes text longer, as number normalization can.
type growNode struct{ key stages.Key }

func (g growNode) Key() stages.Key { return g.key }
func (g growNode) Apply(_ context.Context, in stages.Input) (stages.Outcome, error) {
	return stages.Outcome{Text: in.Text + " <N> <N> <N>"}, nil
}

func TestPipelineGuardKeepsOriginalWhenNotShorter(t *testing.T) {
	cfg := DefaultConfig()
	p, err := New(cfg, stages.Deps{}, WithDecorator(func(n stages.Node) stages.Node { return growNode{n.Key()} }))
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Compact(context.Background(), "some text")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "some text" || !strings.HasPrefix(res.Report.Guard, "kept original") {
		t.Errorf("got %q (%s)", res.Text, res.Report.Guard)
	}
}

func TestPassthroughCases(t *testing.T) {
	ctx := context.Background()
	p, _ := New(DefaultConfig(), stages.Deps{})
	if res, _ := p.Compact(ctx, ""); res.Text != "" || !strings.Contains(res.Report.Guard, "empty") {
		t.Errorf("empty: %+v", res.Report)
	}
	off := DefaultConfig()
	off.Enabled = false
	p, _ = New(off, stages.Deps{})
	text := strings.Repeat("dup line here\n", 50)
	if res, _ := p.Compact(ctx, text); res.Text != text || !strings.Contains(res.Report.Guard, "disabled") {
		t.Errorf("disabled: %+v", res.Report)
	}
	none := DefaultConfig()
	for _, n := range none.Nodes {
		none.SetNode(n.Key, false)
	}
	p, _ = New(none, stages.Deps{})
	if res, _ := p.Compact(ctx, text); res.Text != text || !strings.Contains(res.Report.Guard, "no enabled nodes") {
		t.Errorf("no nodes: %+v", res.Report)
	}
}

// panicNode proves a broken node cannot crash a worker or lose a document.
type panicNode struct{ key stages.Key }

func (p panicNode) Key() stages.Key { return p.key }
func (p panicNode) Apply(context.Context, stages.Input) (stages.Outcome, error) {
	panic("boom")
}

func TestPanickingNodeIsUndone(t *testing.T) {
	p, _ := New(DefaultConfig(), stages.Deps{}, WithDecorator(func(n stages.Node) stages.Node { return panicNode{n.Key()} }))
	res, err := p.Compact(context.Background(), "text text text")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "text text text" {
		t.Errorf("text changed: %q", res.Text)
	}
	for _, n := range res.Report.Nodes {
		if !n.Skipped {
			t.Errorf("%s not reported skipped", n.Key)
		}
	}
}

func TestReportCountsRunes(t *testing.T) {
	p, _ := New(DefaultConfig(), stages.Deps{})
	text := strings.Repeat("héllo wörld  \n\n\n\n", 3)
	res, err := p.Compact(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.CharsIn != stages.Chars(text) || res.Report.CharsOut != stages.Chars(res.Text) {
		t.Errorf("report %d/%d", res.Report.CharsIn, res.Report.CharsOut)
	}
	prev := res.Report.CharsIn
	for _, n := range res.Report.Nodes {
		if n.CharsIn != prev {
			t.Errorf("%s chars in %d, previous out %d", n.Key, n.CharsIn, prev)
		}
		prev = n.CharsOut
	}
	if len(res.Report.Nodes) != len(stages.Specs()) {
		t.Errorf("report has %d nodes", len(res.Report.Nodes))
	}
}
