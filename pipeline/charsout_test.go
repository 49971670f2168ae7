package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// TestReportCharsOutCounted checks the report's count out, which Run
// takes from the guard's count of the result unless the guard kept the
// original or the budget folded it, against a count of the text given
// back: on logs, prose and short texts, in several scripts, with and
// without a budget.
func TestReportCharsOutCounted(t *testing.T) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(31, 32))
	words := []string{"alpha", "βήτα", "гамма", "δ", "日本語", "x", "404", "ERROR", "é", "\t"}
	guards := map[string]int{}
	budgets := 0
	for run := range 300 {
		var b strings.Builder
		switch run % 3 {
		case 0: // a log, mostly shortened
			for i := range 20 + r.IntN(300) {
				fmt.Fprintf(&b, "2024-03-01 10:%02d:%02d INFO worker %d: %s done\n", i/60%60, i%60, r.IntN(4), words[r.IntN(len(words))])
			}
		case 1: // one line of words, kept
			for k := range 1 + r.IntN(12) {
				if k > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[r.IntN(len(words)-2)])
			}
		default: // repeated lines of multi-byte text
			line := strings.Repeat(words[r.IntN(len(words))]+" ", 1+r.IntN(9))
			for range 2 + r.IntN(30) {
				b.WriteString(line + "\n")
			}
		}
		req := Request{Text: b.String()}
		if run%4 == 0 {
			req.BudgetTokens = 20 + r.IntN(200)
			budgets++
		}
		res, err := p.Run(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Report.CharsOut, stages.Chars(res.Text); got != want {
			t.Fatalf("run %d: chars out %d, the text has %d (guard %q)", run, got, want, res.Report.Guard)
		}
		guards[res.Report.Guard]++
	}
	if guards[GuardKeptResult] < 30 || guards[GuardKeptOriginal] < 30 || budgets < 30 {
		t.Fatalf("guards %v, %d budgets: the test does not test", guards, budgets)
	}
}
