package stages

import (
	"context"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Protected wraps a node so that it runs with fenced code stashed (see
// Protect) and restored after. A node that loses a stashed region or
// returns invalid UTF-8 is undone: its input comes out unchanged, skipped
// with the reason. A changed text comes out counted (Outcome.Chars). The
// pipeline runs every node but redact this way; call a node on its own
// through Protected to keep the same guarantees.
func Protected(n Node) Node {
	if _, ok := n.(protectedNode); ok {
		return n
	}
	return protectedNode{n}
}

type protectedNode struct{ node Node }

// fenceMemo holds the last text of a run found to hold no protected
// region: the next node gets it back when a node leaves it unchanged,
// and need not look for regions again.
type fenceMemo struct {
	free  string
	known bool
}

// runMemo is what the nodes of one run over one document remember of the
// texts they read, for the nodes after them. Every answer is a function
// of the bytes it is keyed by, so a run with the memo gives what a run
// without it does.
type runMemo struct {
	fence   fenceMemo
	records recordMemo
	lines   lineMemo
}

// lineMemo holds the line starts (as textkit.LineIndex has them) of the
// last text a protected node read every line start of, looking for a
// region's first line and finding none, or that the whitespace node
// wrote and none of whose lines opens like a region: the nodes that
// split that text into lines take them from here, and a protected node
// has no region to look for in it.
type lineMemo struct {
	text   string
	starts []int32
}

// lineIndexOf returns text's line index from ctx's run memo, when the
// memo holds it.
func lineIndexOf(ctx context.Context, text string) (textkit.LineIndex, bool) {
	if m := runMemoOf(ctx); m != nil && m.lines.starts != nil && m.lines.text == text {
		return textkit.LineIndex{Text: text, Starts: m.lines.starts}, true
	}
	return textkit.LineIndex{}, false
}

// LineBreaksOf returns the number of line breaks in text from ctx's run
// memo, when the memo holds text's lines.
func LineBreaksOf(ctx context.Context, text string) (int, bool) {
	x, ok := lineIndexOf(ctx, text)
	return x.Len() - 1, ok
}

// lineIndex returns text's line index from ctx's run memo, or makes it.
func lineIndex(ctx context.Context, text string) textkit.LineIndex {
	if x, ok := lineIndexOf(ctx, text); ok {
		return x
	}
	return textkit.NewLineIndex(text)
}

// noteLines keeps starts, text's line starts (as textkit.LineIndex has
// them), as the memo's when no line of text opens like a region.
func (m *runMemo) noteLines(text string, starts []int32) {
	for _, s := range starts[:len(starts)-1] {
		if int(s) < len(text) && openerFirst[text[s]] && opensLikeRegion(text[s:]) {
			return
		}
	}
	m.lines.text, m.lines.starts = text, starts
}

// protect is Protect that keeps text's line starts in m when it reads
// them all, and reads none of a text whose starts it holds.
func (m *runMemo) protect(text string) (string, *Stash) {
	if m.lines.starts != nil && m.lines.text == text {
		return text, &Stash{} // no line opens like a region (see lineMemo)
	}
	opener, starts := openerLineStarts(text, make([]int32, 0, lineStartsCap(text)))
	if !opener {
		if starts != nil {
			m.lines.text, m.lines.starts = text, starts
		}
		return text, &Stash{}
	}
	if !mayHoldOpener(text) {
		return text, &Stash{}
	}
	out, st, _ := protectRegions(context.Background(), text)
	return out, st
}

type runMemoKey struct{}

// WithRunMemo returns ctx carrying a memo for one run of nodes over one
// document (see runMemo). Protected nodes, the nodes that count
// templates and those that split lines use it when it is there.
func WithRunMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, runMemoKey{}, &runMemo{})
}

// runMemoOf returns ctx's run memo, or nil.
func runMemoOf(ctx context.Context) *runMemo {
	m, _ := ctx.Value(runMemoKey{}).(*runMemo)
	return m
}

func (p protectedNode) Key() Key { return p.node.Key() }

func (p protectedNode) Apply(ctx context.Context, in Input) (out Outcome, err error) {
	orig := in.Text
	var stash *Stash
	var memo *fenceMemo
	m := runMemoOf(ctx)
	if m != nil {
		memo = &m.fence
	}
	switch {
	case memo != nil && memo.known && memo.free == orig:
		stash = &Stash{} // nothing to protect: an earlier node's input, unchanged
	case m != nil:
		in.Text, stash = m.protect(in.Text)
		if in.Text == orig && len(stash.regions) == 0 && !stash.escaped {
			memo.free, memo.known = orig, true
		}
	default:
		in.Text, stash = Protect(in.Text)
	}
	out, err = p.node.Apply(ctx, in)
	if err != nil {
		return Outcome{}, err
	}
	if in.Text != orig {
		out.Spans = nil // lines of the stashed text, not of the node's input
	}
	if out.Text == in.Text {
		out.Text, out.Chars = orig, 0
		return out, nil
	}
	restored, ok := stash.Restore(out.Text)
	if !ok {
		return Outcome{Text: orig, Skipped: true, Reason: "node lost a protected region; undone"}, nil
	}
	chars, valid := textkit.CharsValid(restored)
	if !valid {
		return Outcome{Text: orig, Skipped: true, Reason: "node produced invalid UTF-8; undone"}, nil
	}
	out.Text, out.Chars = restored, chars
	return out, nil
}
