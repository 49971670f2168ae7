package stages

import (
	"flag"
	"testing"
)

// update rewrites every golden file of the package: go test ./stages ./transcripts -update.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

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
		t.Run(dir, func(t *testing.T) { runGolden(t, node, dir, *update) })
	}
}
