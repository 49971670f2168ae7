package main

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

// fitBudget applies the token budget to a result of original, after the
// pipeline or the fleet (so fused and split fleets give the same output),
// counting in the references keepOriginal adds.
func (a *app) fitBudget(text *string, rep *pipeline.Report, original string) {
	budget := a.budget()
	if budget <= 0 {
		return
	}
	var b pipeline.BudgetReport
	*text, b = pipeline.FitBudgetRefs(*text, budget, rep.Kind, a.refChars(original))
	rep.Budget, rep.CharsOut = &b, stages.Chars(*text)
}

// refChars estimates the characters one reference into original adds
// (" · ref " PREFIX ":L" FROM "-" TO), 0 with --no-store.
func (a *app) refChars(original string) int {
	if a.o.noStore {
		return 0
	}
	digits := len(strconv.Itoa(strings.Count(original, "\n") + 1))
	return stages.Chars(pipeline.RefSep) + refPrefixMin + len(":L-") + 2*digits
}

// budget is --budget-tokens, else the config's budget_tokens; 0 = none.
func (a *app) budget() int { return cmp.Or(a.o.budgetTokens, a.file.Pipeline.BudgetTokens) }
