package stages

import (
	"flag"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite the golden files of dedup, whitespace, number_normalize, stopwords and headtail")

// TestGoldenSimpleNodes runs the golden files of the nodes whose table
// tests live beside them; the other nodes have their own golden tests.
func TestGoldenSimpleNodes(t *testing.T) {
	for dir, node := range map[string]Node{
		"dedup":            NewDedup(DefaultDedupOptions()),
		"whitespace":       NewWhitespace(DefaultWhitespaceOptions()),
		"number_normalize": NewNumberNormalize(DefaultNumberNormalizeOptions()),
		"stopwords":        NewStopwords(DefaultStopwordsOptions()),
		"headtail":         NewHeadTail(DefaultHeadTailOptions()),
	} {
		t.Run(dir, func(t *testing.T) { runGolden(t, node, dir, *updateGolden) })
	}
}
