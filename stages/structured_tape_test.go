package stages

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/jsonfold"
)

// tapeRecords is a token-dense JSON document of n records.
func tapeRecords(n int) string {
	var b strings.Builder
	b.WriteString(`{"data":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"login":"user%d","score":%d.5,"tags":["a","b"],"ok":%v}`, i, i, i%100, i%17 != 3)
	}
	b.WriteString(`],"total":1}`)
	return b.String()
}

// TestDetectTapeServesTheFold: Detect's tape of a JSON document is the
// tape of the text the structured node folds (leading and trailing space
// included), the node folds to the same output with it, without it and
// with a tape of another document; other texts get no tape.
func TestDetectTapeServesTheFold(t *testing.T) {
	node := NewStructured(DefaultStructuredOptions())
	docs := []string{tapeRecords(300), " \n\t" + tapeRecords(200) + "\n  \n", "[" + tapeRecords(50) + ",\n  " + tapeRecords(60) + "]"}
	other := tapeRecords(301)
	_, _, otherTape := DetectTape(other)
	for i, text := range docs {
		kind, lay, tape := DetectTape(text)
		if k, l := DetectLayout(text); k != kind || l.Analyzed != lay.Analyzed {
			t.Fatalf("doc %d: DetectTape says %s, DetectLayout %s", i, kind, k)
		}
		if kind != KindJSON || tape == nil {
			t.Fatalf("doc %d: kind %s, tape %v; want json and a tape", i, kind, tape != nil)
		}
		if !tape.Fits(strings.TrimSpace(text)) {
			t.Fatalf("doc %d: the tape does not fit the text the node folds", i)
		}
		var outs []string
		for _, tp := range []*jsonfold.Tape{tape, nil, otherTape} {
			out, err := node.Apply(context.Background(), Input{Text: text, Kind: KindJSON, JSON: tp})
			if err != nil || out.Skipped {
				t.Fatalf("doc %d: %v %q", i, err, out.Reason)
			}
			outs = append(outs, out.Text)
		}
		if n := tape.Reads(); n != 1 {
			t.Fatalf("doc %d: the node read the tape %d times, want 1", i, n)
		}
		if n := otherTape.Reads(); n != 0 {
			t.Fatalf("doc %d: the node read another document's tape", i)
		}
		if outs[0] != outs[1] || outs[2] != outs[1] {
			t.Fatalf("doc %d: the tape changed the output:\nwith:\n%s\nwithout:\n%s\nanother's:\n%s", i, outs[0], outs[1], outs[2])
		}
	}
	for _, text := range []string{
		"plain prose, not JSON at all\n",
		`{"level":"info","msg":"a"}` + "\n" + `{"level":"warn","msg":"b"}` + "\n", // JSON lines: a log
		"\ufeff" + tapeRecords(3),                                                 // BOM: Detect reads JSON, the node sees no JSON
		tapeRecords(20)[:300],                                                     // cut: not valid
		"[1, 2, 3] trailing words",
	} {
		kind, _, tape := DetectTape(text)
		if tape != nil && (kind != KindJSON || tape.Fits(strings.TrimSpace(text))) {
			t.Errorf("%.40q: kind %s with a tape that fits the node's text", text, kind)
		}
	}
}
