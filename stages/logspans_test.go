package stages

import (
	"fmt"
	"strings"
	"testing"
)

// TestLogTemplateSpans: each template's first record maps to its last
// record's line, whatever lies between; text that is no log of records
// has no spans.
func TestLogTemplateSpans(t *testing.T) {
	var b strings.Builder
	last := map[string]int{}
	first := map[string]int{}
	for i := range 300 {
		what := []string{"accepted connection from 10.0.0.%d", "cache evicted %d keys", "job %d finished"}[i*7%3]
		line := fmt.Sprintf("2026-03-01T10:%02d:%02dZ INFO "+what, i/60, i%60, i)
		b.WriteString(line + "\n")
		key := strings.Fields(what)[0]
		if _, ok := first[key]; !ok {
			first[key] = i
		}
		last[key] = i
	}
	spans := LogTemplateSpans(b.String())
	for key, f := range first {
		if got, ok := spans[f]; !ok || got != last[key] {
			t.Errorf("%s: span from line %d ends at %d (found %v), want %d", key, f, got, ok, last[key])
		}
	}
	if s := LogTemplateSpans("just a sentence\nand another one, no records here\n"); len(s) != 0 {
		t.Errorf("prose has spans: %v", s)
	}
}
