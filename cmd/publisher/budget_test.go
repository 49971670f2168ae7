package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// budgetLog is a service log of n records that compacts to well over a few
// hundred tokens: many distinct one-off events, one failure in the middle.
func budgetLog(n int) string {
	var b strings.Builder
	for i := range n {
		if i == n/2 {
			fmt.Fprintf(&b, "2026-03-01 10:00:%02d ERROR payment-%d: upstream timed out after 30s\n", i%60, i)
			continue
		}
		fmt.Fprintf(&b, "2026-03-01 10:00:%02d INFO %s %s finished %s job\n", i%60, words[i%len(words)], words[(i*7+3)%len(words)], words[(i*13+5)%len(words)])
	}
	return b.String()
}

var words = strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu")

func TestBudgetTokensLocalAndFleetAgree(t *testing.T) {
	text := budgetLog(3000)
	local, _, err := runPublisher(t, text, "--local", "--budget-tokens", "300", "-")
	if err != nil {
		t.Fatal(err)
	}
	if got := stages.EstimateTokens(local); got > 300 {
		t.Errorf("--local: %d tokens > 300", got)
	}
	if !strings.Contains(local, "ERROR payment-1500: upstream timed out") {
		t.Errorf("--local folded the failure:\n%s", local)
	}
	if !strings.Contains(local, " lines folded") {
		t.Errorf("--local: no budget marker:\n%s", local)
	}
	fleet, _, err := runPublisher(t, text, "--budget-tokens", "300", "-")
	if err != nil {
		t.Fatal(err)
	}
	if fleet != local {
		t.Errorf("embedded fleet and --local differ under a budget:\n%s\n---\n%s", fleet, local)
	}
}

// TestBudgetWithReferencesOnTheSamples: with the store on, the publisher's
// output at 500, 2,000 and 8,000 tokens never exceeds the budget with its
// references counted (a single marker line aside), and every reference in
// it resolves to its original lines. LogHub and CI samples of ../shared
// and generated logs.
func TestBudgetWithReferencesOnTheSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("compacts every sample twice")
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	docs := corpusDocs(t)
	for k, v := range genLogs(3) {
		docs["gen-"+k] = v
	}
	refs := 0
	for name, text := range docs {
		lines := strings.SplitAfter(text, "\n")
		for _, budget := range []string{"500", "2000", "8000"} {
			out, _, err := runPublisher(t, text, "--local", "--budget-tokens", budget, "-")
			if err != nil {
				t.Fatalf("%s at %s: %v", name, budget, err)
			}
			b, _ := strconv.Atoi(budget)
			if got := stages.EstimateTokens(out); got > b && strings.Count(strings.TrimSuffix(out, "\n"), "\n") > 0 {
				t.Errorf("%s at %s: %d tokens", name, budget, got)
			}
			for _, m := range refInOutput.FindAllStringSubmatch(out, -1) {
				got, _, err := runPublisher(t, "", "get", m[1])
				from, _ := strconv.Atoi(m[2])
				to, _ := strconv.Atoi(m[3])
				if err != nil || to > len(lines) || got != strings.Join(lines[from-1:to], "") {
					t.Fatalf("%s at %s: get %s: %v", name, budget, m[1], err)
				}
				refs++
			}
		}
	}
	if refs == 0 {
		t.Fatal("no references under any budget")
	}
	t.Logf("%d documents, %d references resolved", len(docs), refs)
}
