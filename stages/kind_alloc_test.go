//go:build !race

package stages

import (
	"strings"
	"testing"
)

// TestDetectSampleOnStack checks that detection keeps its sample of
// lines off the heap: a short log is told a log without allocating.
func TestDetectSampleOnStack(t *testing.T) {
	text := strings.Repeat("2024-03-01 10:00:01 INFO worker 3: job done in 4ms\n", 30)
	var k Kind
	allocs := testing.AllocsPerRun(20, func() { k, _ = DetectLayout(text) })
	if k != KindLog {
		t.Fatalf("kind %s, want log", k)
	}
	if allocs != 0 {
		t.Fatalf("DetectLayout allocated %v times a call, want 0", allocs)
	}
}
