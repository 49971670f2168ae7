package pipeline

import (
	"context"
	"testing"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages"
)

// FuzzPipeline: no panic, valid UTF-8 out unless binary input passed
// through, never more characters than the input, and never more bytes
// unless invalid bytes became U+FFFD (see Decode).
func FuzzPipeline(f *testing.F) {
	for _, s := range conformanceInputs() {
		f.Add(s)
	}
	f.Add("")
	f.Add("```\nunclosed")
	f.Add("{\"a\":[1,2,{\"b\":null}]}")
	f.Add("<html><h1>x</h1></html>")
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		res, err := p.Compact(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != text && !utf8.ValidString(res.Text) {
			t.Fatal("invalid UTF-8 out")
		}
		if stages.Chars(res.Text) > stages.Chars(text) || (len(res.Text) > len(text) && res.Report.Replaced == 0) {
			t.Fatalf("output longer than input: %d > %d", len(res.Text), len(text))
		}
	})
}
