package stages

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
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
	cut, ok := CutHeadTail(in.Text, n.opt.HeadLines, n.opt.TailLines)
	if !ok {
		return skip(in, "no middle between head_lines and tail_lines"), nil
	}
	w := newLineWriter(len(in.Text) / 2)
	if n.opt.HeadLines > 0 {
		w.Add(cut.Head)
	}
	signals := 0
	foldedAfter, err := cut.FoldMiddle(ctx, MiddleFold{
		Keep: func(l string) bool {
			if IsProtectedLine(l) {
				return true
			}
			if signals < n.opt.MiddleSignals && lineSignal(l) >= 3 {
				signals++
				return true
			}
			return false
		},
		Folded: foldedLines,
		Kept: func(l string, foldedBefore int) {
			if foldedBefore > 0 {
				w.Add(foldMarker(foldedBefore, headTailFolded))
			}
			w.Add(l)
		},
	})
	if err != nil {
		return Outcome{}, err
	}
	if foldedAfter > 0 {
		w.Add(foldMarker(foldedAfter, headTailFolded))
	}
	if n.opt.TailLines > 0 {
		w.Add(cut.Tail)
	}
	return done(w.String()), nil
}

// foldedLines is how many lines a folded line stands for: a fold marker's
// count, or 1.
func foldedLines(line string) int {
	if m := textkit.ParseFoldMarker(line); m > 0 {
		return m
	}
	return 1
}
