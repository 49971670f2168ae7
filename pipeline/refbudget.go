package pipeline

import (
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/stages"
)

// AddRefsWithin is AddRefs on a text already fitted to budget tokens:
// references count in the budget. Count lines lose theirs first (the fit
// counted only the markers'), then more is folded by what the markers'
// references overshoot, and at worst the text is folded whole. A budget
// of 0 or less is AddRefs alone.
func AddRefsWithin(original, compacted, idPrefix string, budget int, kind stages.Kind) string {
	return AddRefsWithinSpans(original, compacted, idPrefix, budget, kind, nil)
}

// AddRefsWithinSpans is AddRefsWithin with log_dedup's template spans over
// original's lines (Report.Spans) when the run has them: count lines'
// references then need no second mining of original. nil mines.
func AddRefsWithinSpans(original, compacted, idPrefix string, budget int, kind stages.Kind, spans map[int]int) string {
	withRefs := addRefs(original, compacted, idPrefix, true, spans)
	if budget <= 0 || stages.EstimateTokens(withRefs) <= budget {
		return withRefs
	}
	withRefs = AddMarkerRefs(original, compacted, idPrefix)
	const tries = 8
	for try := 0; try < tries && stages.EstimateTokens(withRefs) > budget; try++ {
		over := stages.EstimateTokens(withRefs) - budget
		target := max(stages.EstimateTokens(withRefs)-over, 1)
		if try == tries-1 {
			compacted, _ = FitBudget(compacted, 1, kind, 0)
		} else {
			compacted, _ = FitBudget(compacted, target, kind, RefChars(original, idPrefix))
		}
		withRefs = AddMarkerRefs(original, compacted, idPrefix)
	}
	return withRefs
}

// RefChars is the characters one reference into original under idPrefix
// adds at most: " · ref " PREFIX ":L" FROM "-" TO.
func RefChars(original, idPrefix string) int {
	digits := len(strconv.Itoa(strings.Count(original, "\n") + 1))
	return stages.Chars(RefSep) + len(idPrefix) + len(":L-") + 2*digits
}
