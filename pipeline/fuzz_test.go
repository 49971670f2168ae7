package pipeline

import (
	"context"
	"testing"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages"
)

// FuzzPipeline: no panic, valid UTF-8 out for valid UTF-8 in, and never
// longer than the input.
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
		if utf8.ValidString(text) && !utf8.ValidString(res.Text) {
			t.Fatal("invalid UTF-8 out")
		}
		if stages.Chars(res.Text) > stages.Chars(text) || len(res.Text) > len(text) {
			t.Fatalf("output longer than input: %d > %d", len(res.Text), len(text))
		}
	})
}
