package stages

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// HeadTailOptions are the head/tail node's knobs.
type HeadTailOptions struct {
	// MinLines: texts with fewer lines are left alone ("only very long text").
	MinLines int `yaml:"min_lines"`
	// HeadLines and TailLines are kept; the middle is folded. Builds fail at
	// the end, so the tail is the larger part.
	HeadLines int `yaml:"head_lines"`
	TailLines int `yaml:"tail_lines"`
	// MiddleSignals: up to this many lines of the middle that report a
	// failure (errors, exceptions, failed tests) are kept between the
	// markers, so a failure halfway through a long build still shows.
	MiddleSignals int `yaml:"middle_signals"`
	// Kinds the node applies to. Prose and transcripts carry meaning in
	// every part; folding their middle blind would drop it, so by default
	// only logs (build output, long tool output) are cut.
	Kinds []Kind `yaml:"kinds"`
}

// DefaultHeadTailOptions returns the shipped defaults.
func DefaultHeadTailOptions() HeadTailOptions {
	return HeadTailOptions{MinLines: 2000, HeadLines: 300, TailLines: 700, MiddleSignals: 200, Kinds: []Kind{KindLog}}
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
	if err := mustBeNonNegative("middle_signals", o.MiddleSignals); err != nil {
		return err
	}
	// What is kept must stay below min_lines, or a second run would cut again.
	if o.HeadLines+o.TailLines+2*o.MiddleSignals+1 >= o.MinLines {
		return &fieldError{"head_lines", fmt.Sprintf("head_lines + tail_lines + 2*middle_signals must be below min_lines - 1, got %d >= %d",
			o.HeadLines+o.TailLines+2*o.MiddleSignals, o.MinLines-1)}
	}
	return validKinds("kinds", o.Kinds)
}

type headTailNode struct{ opt HeadTailOptions }

// NewHeadTail builds the node that, for very long text, keeps the head and
// the tail and folds the middle into markers that count the folded lines.
// Protected placeholder lines in the middle are kept, and so are up to
// MiddleSignals lines that report a failure.
func NewHeadTail(o HeadTailOptions) Node { return headTailNode{o} }

func (headTailNode) Key() Key { return KeyHeadTail }

const headTailFolded = "folded by headtail"

func (n headTailNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	if !slices.Contains(n.opt.Kinds, in.Kind) {
		return skip(in, "kind "+string(in.Kind)+" is not cut"), nil
	}
	if strings.Count(in.Text, "\n")+1 < n.opt.MinLines {
		return skip(in, "shorter than min_lines"), nil
	}
	x := newLineIndex(in.Text)
	nl := x.len()
	headEnd, tailStart := n.opt.HeadLines, nl-n.opt.TailLines
	w := newLineWriter(len(in.Text) / 2)
	if headEnd > 0 {
		w.add(x.span(0, headEnd))
	}
	folded, signals := 0, 0
	cc := canceled{ctx: ctx}
	for i := headEnd; i < tailStart; i++ {
		if err := cc.check(); err != nil {
			return Outcome{}, err
		}
		l := x.line(i)
		keep := IsProtectedLine(l)
		if !keep && signals < n.opt.MiddleSignals && lineSignal(l) >= 3 {
			keep = true
			signals++
		}
		if !keep {
			if m := parseFoldMarker(l); m > 0 {
				folded += m
			} else {
				folded++
			}
			continue
		}
		if folded > 0 {
			w.add(foldMarker(folded, headTailFolded))
			folded = 0
		}
		w.add(l)
	}
	if folded > 0 {
		w.add(foldMarker(folded, headTailFolded))
	}
	if tailStart < nl {
		w.add(x.span(tailStart, nl))
	}
	return done(w.String()), nil
}
