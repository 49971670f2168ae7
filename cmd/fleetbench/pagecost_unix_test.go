//go:build unix

package main

import (
	"testing"
	"time"
)

// TestFreshPageCostTouchesPages: the cost is measured (not 0) and is a
// page fault's, well under a millisecond on any machine.
func TestFreshPageCostTouchesPages(t *testing.T) {
	c := freshPageCost()
	if c <= 0 || c > time.Millisecond {
		t.Fatalf("fresh page cost %v: want a measured cost under 1 ms", c)
	}
}
