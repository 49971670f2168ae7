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

type fenceMemoKey struct{}

// WithFenceMemo returns ctx carrying a memo for one run of nodes over one
// document (see fenceMemo); Protected nodes use it when it is there. The
// answer never changes: the memo holds a text, compared by its bytes.
func WithFenceMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, fenceMemoKey{}, &fenceMemo{})
}

func (p protectedNode) Key() Key { return p.node.Key() }

func (p protectedNode) Apply(ctx context.Context, in Input) (out Outcome, err error) {
	orig := in.Text
	var stash *Stash
	memo, _ := ctx.Value(fenceMemoKey{}).(*fenceMemo)
	if memo != nil && memo.known && memo.free == orig {
		stash = &Stash{} // nothing to protect: an earlier node's input, unchanged
	} else {
		in.Text, stash = Protect(in.Text)
		if memo != nil && in.Text == orig && len(stash.regions) == 0 && !stash.escaped {
			memo.free, memo.known = orig, true
		}
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
