package pipeline

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages"
)

// FuzzFitBudgetAndRefs: no panic; the budget holds unless the output costs
// no more than one marker line; every reference names lines the original has.
func FuzzFitBudgetAndRefs(f *testing.F) {
	for _, s := range conformanceInputs() {
		f.Add(s, 40)
	}
	f.Add("a\n\nb\r\nc\rd\n", 1)
	f.Add("```\nx\n```\n[... 3 lines folded ...]\n", 2)
	f.Add(strings.Repeat("2026-03-01T10:00:01Z INFO job 7 done\n2026-03-01T10:00:02Z WARN disk 93% full\n", 40)+"| a | b |\n|---|---|\n"+strings.Repeat("| 1 | 2 |\n", 30), 30)
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string, budget int) {
		budget = budget%5000 + 1
		if budget < 1 {
			budget = -budget + 1
		}
		res, err := p.Run(context.Background(), Request{Text: text, BudgetTokens: budget})
		if err != nil {
			t.Fatal(err)
		}
		// Binary input passes through byte for byte (issue 15): no budget applies.
		binary := strings.HasPrefix(res.Report.Guard, PassBinary)
		// The one excess allowed: what a whole-text fold marker costs (a
		// run that costs no more than its marker stays as text).
		lines := strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1
		allowed := max(budget, stages.EstimateTokens("[... "+strconv.Itoa(lines)+" lines folded]"))
		if !binary && strings.Contains(strings.TrimSuffix(res.Text, "\n"), "\n") && stages.EstimateTokens(res.Text) > allowed {
			t.Fatalf("%d tokens > %d", stages.EstimateTokens(res.Text), budget)
		}
		if !utf8.ValidString(text) {
			return
		}
		out := AddRefs(text, res.Text, "deadbeef")
		n := strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1
		for _, m := range refRe.FindAllStringSubmatch(out, -1) {
			a, _ := strconv.Atoi(m[2])
			b, _ := strconv.Atoi(m[3])
			if a < 1 || b < a || b > n {
				t.Fatalf("ref L%d-%d of %d lines", a, b, n)
			}
			if _, err := Lines(text, a, b); err != nil {
				t.Fatalf("ref L%d-%d: %v", a, b, err)
			}
		}
	})
}

func TestParseRefAndLines(t *testing.T) {
	for in, want := range map[string]Ref{
		"3f9a1c2b":        {ID: "3f9a1c2b"},
		"3f9a1c2b:L12-40": {ID: "3f9a1c2b", From: 12, To: 40},
		" 3f9a1c2b:L7 ":   {ID: "3f9a1c2b", From: 7, To: 7},
	} {
		if got, err := ParseRef(in); err != nil || got != want {
			t.Errorf("ParseRef(%q) = %+v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", ":L1-2", "x:12-40", "x:L0-3", "x:L5-2", "x:Lfoo"} {
		if _, err := ParseRef(bad); err == nil {
			t.Errorf("ParseRef(%q) accepted", bad)
		}
	}
	text := "a\nb\nc"
	for _, c := range []struct {
		from, to int
		want     string
	}{{1, 1, "a\n"}, {2, 3, "b\nc"}, {1, 3, text}} {
		if got, err := Lines(text, c.from, c.to); err != nil || got != c.want {
			t.Errorf("Lines(%d,%d) = %q, %v", c.from, c.to, got, err)
		}
	}
	for _, r := range [][2]int{{4, 4}, {3, 4}} {
		if _, err := Lines(text, r[0], r[1]); err == nil {
			t.Errorf("Lines%v past the end accepted", r)
		}
	}
	if _, err := Lines("a\n", 2, 2); err == nil {
		t.Error("the empty line after a final newline counted as a line")
	}
}
