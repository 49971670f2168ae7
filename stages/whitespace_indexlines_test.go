package stages

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// checkWhitespaceIndexed runs whitespace with the run's line index
// holding text's lines, so that it reads them from the index (or, with
// a lone "\r", cuts them), and compares the output with the reference
// (whitespaceReference), in each option set and kind.
func checkWhitespaceIndexed(t *testing.T, text string) {
	t.Helper()
	for _, o := range []WhitespaceOptions{DefaultWhitespaceOptions(), {MaxBlankLines: 0}, {MaxBlankLines: 2, CollapseInnerSpaces: true}} {
		for _, kind := range []Kind{KindLog, KindJSON, KindProse} {
			ctx := WithRunMemo(context.Background())
			runMemoOf(ctx).lines = lineMemo{text: text, starts: textkit.NewLineIndex(text).Starts}
			out, err := NewWhitespace(o).Apply(ctx, Input{Text: text, Kind: kind})
			if err != nil {
				t.Fatal(err)
			}
			want := whitespaceReference(text, o, kind)
			if kind == KindProse && o.CollapseInnerSpaces && sourceCodeText(text) {
				// Source code keeps its quoted blanks: the reference does not.
				plain, err := NewWhitespace(o).Apply(context.Background(), Input{Text: text, Kind: kind})
				if err != nil {
					t.Fatal(err)
				}
				want = plain.Text
			}
			if out.Text != want {
				t.Fatalf("%+v %s on %q:\n got %q\nwant %q", o, kind, text, out.Text, want)
			}
		}
	}
}

// TestWhitespaceIndexedLines: texts of blanks, tabs, words and every line
// break, lone carriage returns among them, and texts of each class.
func TestWhitespaceIndexedLines(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	pieces := []string{"ab", "x y", "  ", "\t", " ", "\n", "\r\n", "\r\n", "word  ", "    ", "\r", "\n\n", "é"}
	for n := 0; n < 3000; n++ {
		var b strings.Builder
		for range r.IntN(60) {
			p := pieces[r.IntN(len(pieces))]
			if p == "\r" && r.IntN(4) > 0 {
				p = "\r\n" // lone ones are rarer
			}
			b.WriteString(p)
		}
		checkWhitespaceIndexed(t, b.String())
	}
	for _, s := range []string{"", "\r", "a\r", "a\r\n", "  a\r\n  b\r\n", "a  b\r\n\r\n\r\nc \r\n", "\r\n\r\nx\r\n\r\n", "a\r\rb\r\n"} {
		checkWhitespaceIndexed(t, s)
	}
	for _, s := range classTexts(21) {
		checkWhitespaceIndexed(t, s)
	}
}

func FuzzWhitespaceIndexedLines(f *testing.F) {
	for _, s := range []string{"a  b\t c\r\n\r\n\r\n  d \r\n", "   x\r\n   y\r\n", "a\rb\r\n\r\nc", "x \r\n y\n", "z\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkWhitespaceIndexed(t, text)
	})
}
