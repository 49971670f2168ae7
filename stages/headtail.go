package stages

import (
	"context"
)

// HeadTailOptions are the head/tail node's knobs.
type HeadTailOptions struct {
	// MinLines: texts with fewer lines are left alone ("only very long text").
	MinLines int `yaml:"min_lines"`
	// HeadLines and TailLines are kept; the middle is folded.
	HeadLines int `yaml:"head_lines"`
	TailLines int `yaml:"tail_lines"`
}

// DefaultHeadTailOptions returns the shipped defaults.
func DefaultHeadTailOptions() HeadTailOptions {
	return HeadTailOptions{MinLines: 2000, HeadLines: 300, TailLines: 700}
}

// Validate reports a knob that is out of range.
func (o HeadTailOptions) Validate() error {
	if err := mustBePositive("min_lines", o.MinLines); err != nil {
		return err
	}
	if err := mustBeNonNegative("head_lines", o.HeadLines); err != nil {
		return err
	}
	if err := mustBeNonNegative("tail_lines", o.TailLines); err != nil {
		return err
	}
	if o.HeadLines+o.TailLines >= o.MinLines {
		return &fieldError{"head_lines", "head_lines + tail_lines must be below min_lines"}
	}
	return nil
}

type headTailNode struct{ opt HeadTailOptions }

// NewHeadTail builds the node that, for very long text, keeps the head and
// the tail and folds the middle into a marker that counts the folded lines.
// Protected placeholder lines in the middle are kept.
func NewHeadTail(o HeadTailOptions) Node { return headTailNode{o} }

func (headTailNode) Key() Key { return KeyHeadTail }

func (n headTailNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	lines := splitLines(in.Text)
	if len(lines) < n.opt.MinLines {
		return skip(in, "shorter than min_lines"), nil
	}
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	head := lines[:n.opt.HeadLines]
	middle := lines[n.opt.HeadLines : len(lines)-n.opt.TailLines]
	tail := lines[len(lines)-n.opt.TailLines:]
	out := make([]string, 0, len(head)+len(tail)+8)
	out = append(out, head...)
	folded := 0
	for _, l := range middle {
		if IsProtectedLine(l) {
			if folded > 0 {
				out = append(out, foldMarker(folded, "folded by headtail"))
				folded = 0
			}
			out = append(out, l)
			continue
		}
		folded++
	}
	if folded > 0 {
		out = append(out, foldMarker(folded, "folded by headtail"))
	}
	out = append(out, tail...)
	return done(joinLines(out)), nil
}
