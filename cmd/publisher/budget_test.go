package main

import (
	"fmt"
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
