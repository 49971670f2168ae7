package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// TestPrepareHandsTheJSONTape: prepare gives the structured node Detect's
// tape of a JSON document, one that fits the text the node folds; none
// when the node is off, when the request names the kind, or for other
// texts. The node reads it once, to the output it gives without it.
func TestPrepareHandsTheJSONTape(t *testing.T) {
	text := " \n" + smallJSONDoc() + "\n"
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	in, reason := p.Prepare(Request{Text: text})
	if reason != "" || in.Kind != stages.KindJSON || in.JSON == nil {
		t.Fatalf("kind %s, tape %v, reason %q; want json with a tape", in.Kind, in.JSON != nil, reason)
	}
	if !in.JSON.Fits(strings.TrimSpace(in.Text)) {
		t.Fatal("the tape does not fit the text the node folds")
	}
	taped, _, err := p.RunSegment(context.Background(), AllKeys(), in)
	if err != nil {
		t.Fatal(err)
	}
	if n := in.JSON.Reads(); n != 1 {
		t.Fatalf("the nodes read the tape %d times, want 1", n)
	}
	untaped := in
	untaped.JSON = nil
	plain, _, err := p.RunSegment(context.Background(), AllKeys(), untaped)
	if err != nil {
		t.Fatal(err)
	}
	if taped != plain || taped == in.Text {
		t.Fatalf("output with the tape differs from output without:\n%s\n---\n%s", clip(taped), clip(plain))
	}
	if in, _ := p.Prepare(Request{Text: text, Kind: stages.KindJSON}); in.JSON != nil {
		t.Error("a tape when the request named the kind: Detect did not run")
	}
	if in, _ := p.Prepare(Request{Text: "just some prose\nof two lines\n"}); in.JSON != nil {
		t.Error("a tape for prose")
	}
	cfg := DefaultConfig()
	cfg.SetNode(stages.KeyStructured, false)
	off, err := New(cfg, stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if in, _ := off.Prepare(Request{Text: text}); in.Kind != stages.KindJSON || in.JSON != nil {
		t.Errorf("structured off: kind %s, tape %v; want json, no tape", in.Kind, in.JSON != nil)
	}
}

// smallJSONDoc is a JSON document of records, long enough to fold.
func smallJSONDoc() string {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := range 400 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"id":` + strings.Repeat("7", 1+i%5) + `,"name":"n","ok":true}`)
	}
	b.WriteString(`]}`)
	return b.String()
}
