package stages

import (
	"context"
	"strings"
)

// HeadTailCut is a text cut into its first lines, its middle and its last
// lines, as headtail and the debate's structural compression fold it: the
// head and the tail are kept whole, the middle is walked by FoldMiddle.
// Each part is its lines joined by their line breaks; a part of zero lines
// is "", as is a part of one empty line, so callers that write it test the
// line count they asked for.
type HeadTailCut struct {
	Head, Middle, Tail string
}

// CutHeadTail cuts text into its first head lines, its last tail lines and
// the middle between them, by byte offset. ok is false when text has no
// middle: head+tail lines or fewer.
func CutHeadTail(text string, head, tail int) (cut HeadTailCut, ok bool) {
	if head < 0 || tail < 0 {
		return HeadTailCut{}, false
	}
	start := 0 // of the middle's first line
	for range head {
		i := strings.IndexByte(text[start:], '\n')
		if i < 0 {
			return HeadTailCut{}, false
		}
		start += i + 1
	}
	end := len(text) // of the middle's last line, before its line break
	for range tail {
		i := strings.LastIndexByte(text[:end], '\n')
		if i < start {
			return HeadTailCut{}, false // no line break between head and tail
		}
		end = i
	}
	cut.Middle = text[start:end]
	if head > 0 {
		cut.Head = text[:start-1]
	}
	if tail > 0 {
		cut.Tail = text[end+1:]
	}
	return cut, true
}

// MiddleFold says what FoldMiddle does with each line of the middle. All
// three are required.
type MiddleFold struct {
	// Keep reports a line to keep; the others are folded.
	Keep func(line string) bool
	// Folded is called with each folded line and returns how many lines
	// it stands for: 1, or more for a fold marker left by a node before.
	Folded func(line string) int
	// Kept is called with each kept line, in order, and the number of
	// lines folded since the previous kept line (or the middle's start).
	Kept func(line string, foldedBefore int)
}

// FoldMiddle walks the middle of c line by line, without splitting it, and
// returns the number of lines folded after the last kept line. Its error
// is ctx's, checked as it goes.
func (c HeadTailCut) FoldMiddle(ctx context.Context, f MiddleFold) (foldedAfter int, err error) {
	cc := canceled{ctx: ctx}
	folded := 0
	for rest, more := c.Middle, true; more; {
		if err := cc.check(); err != nil {
			return 0, err
		}
		var line string
		line, rest, more = strings.Cut(rest, "\n")
		if !f.Keep(line) {
			folded += f.Folded(line)
			continue
		}
		f.Kept(line, folded)
		folded = 0
	}
	return folded, nil
}
