package stages_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

var budgetLoose = regexp.MustCompile(`<(?:\*|[A-Za-z_]{1,12})>|\d+`)

func budgetLooseText(s string) string {
	return strings.Join(strings.Fields(budgetLoose.ReplaceAllString(s, "0")), " ")
}

// Under a 2000-token budget (--budget-tokens 2000) every zoo failure's
// reasons are still kept.
func TestBuildZooBudget(t *testing.T) {
	p, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	stages.BuildZooLogs(func(name, in string, reasons []string) {
		if !strings.HasSuffix(name, "/0") {
			return // one seed each keeps this test cheap
		}
		res, err := p.CompactAlgorithmic(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := pipeline.FitBudget(res.Text, 2000, stages.KindLog, 0)
		if stages.EstimateTokens(out) > 2000 {
			t.Errorf("%s: %d tokens over a budget of 2000", name, stages.EstimateTokens(out))
		}
		if gap := stages.BuildZooKnownGap(name); gap != "" {
			return // unfolded noise: the budget cuts blind (see zooKnownGaps)
		}
		lo := budgetLooseText(out)
		for _, rs := range reasons {
			if !strings.Contains(lo, budgetLooseText(rs)) {
				t.Errorf("%s: reason lost under the budget: %q", name, rs)
			}
		}
	})
}
