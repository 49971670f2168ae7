package main

import (
	"cmp"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

// fitBudget applies the token budget to a fleet's result when the fleet
// did not (workers from before the budget travelled in the envelope).
// keepOriginal then counts the references in (pipeline.AddRefsWithin).
func (a *app) fitBudget(text *string, rep *pipeline.Report) {
	budget := a.budget()
	if budget <= 0 || rep.Budget != nil {
		return
	}
	var b pipeline.BudgetReport
	*text, b = pipeline.FitBudget(*text, budget, rep.Kind, 0)
	rep.Budget, rep.CharsOut = &b, stages.Chars(*text)
}

// budget is --budget-tokens, else the config's budget_tokens; 0 = none.
func (a *app) budget() int { return cmp.Or(a.o.budgetTokens, a.file.Pipeline.BudgetTokens) }
