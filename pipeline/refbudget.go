package pipeline

import "github.com/jetcompact/jetcompact/stages"

// AddRefsWithin is AddRefs on a text FitBudget fitted to budget tokens:
// references count in the budget, so it folds more by what they
// overshoot, and at worst folds the text whole. A budget of 0 or less is
// AddRefs alone.
func AddRefsWithin(original, compacted, idPrefix string, budget int, kind stages.Kind) string {
	withRefs := AddRefs(original, compacted, idPrefix)
	if budget <= 0 {
		return withRefs
	}
	const tries = 8
	for try := 0; try < tries && stages.EstimateTokens(withRefs) > budget; try++ {
		over := stages.EstimateTokens(withRefs) - budget
		target := max(stages.EstimateTokens(compacted)-over, 1)
		if try == tries-1 {
			target = 1
		}
		compacted, _ = FitBudget(compacted, target, kind)
		withRefs = AddRefs(original, compacted, idPrefix)
	}
	return withRefs
}
