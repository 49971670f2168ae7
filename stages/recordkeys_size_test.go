package stages

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/logs"
)

// TestSeedRecordKeysSizesMemo checks that seedRecordKeys makes the run
// memo it creates room for its heads at once: the map does not grow
// while it remembers a line per head.
func TestSeedRecordKeysSizesMemo(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "2024-05-01 10:%02d:%02d INFO job%d ran\n", i/60%60, i%60, i)
	}
	text := strings.TrimSuffix(b.String(), "\n")
	lay := logs.Analyze(text)
	heads := map[string]uint64{}
	for l := range strings.SplitSeq(text, "\n") {
		head, _ := logs.SplitCount(l)
		heads[head] = uint64(len(heads))
	}
	var remembered int
	allocs := testing.AllocsPerRun(5, func() {
		ctx := WithRunMemo(context.Background())
		seedRecordKeys(ctx, lay, text, heads)
		remembered = len(runMemoOf(ctx).records.keys)
	})
	if remembered != len(heads) {
		t.Fatalf("remembered %d lines, want %d", remembered, len(heads))
	}
	// Sized at once the map takes 13 allocations here (its tables), grown
	// line by line 35.
	if allocs > 20 {
		t.Fatalf("seedRecordKeys made %v allocations for %d lines: the memo grew", allocs, remembered)
	}
}
