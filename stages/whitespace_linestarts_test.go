package stages

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// checkWhitespaceLineStarts runs whitespace with the run's line index
// holding text's lines, as the protected node leaves it, so that the
// output's line starts are sized from text's line count: they must be
// NewLineIndex's for the output, kept when they fit lineStartsCap and
// no line opens like a region, also when lone carriage returns make
// more lines than text has.
func checkWhitespaceLineStarts(t *testing.T, text string) {
	t.Helper()
	for _, o := range []WhitespaceOptions{DefaultWhitespaceOptions(), {MaxBlankLines: 2}} {
		ctx := WithRunMemo(context.Background())
		runMemoOf(ctx).lines = lineMemo{text: text, starts: textkit.NewLineIndex(text).Starts}
		out, err := NewWhitespace(o).Apply(ctx, Input{Text: text, Kind: KindLog})
		if err != nil {
			t.Fatal(err)
		}
		if out.Text == text {
			continue
		}
		m := runMemoOf(ctx).lines
		kept := m.starts != nil && m.text == out.Text
		want := textkit.NewLineIndex(out.Text).Starts
		if fits := len(want) <= lineStartsCap(text); kept != (fits && !hasOpenerLine(out.Text)) {
			t.Fatalf("whitespace %+v on %.60q...: output's lines kept %v, fit %v (%d of %d)", o, text, kept, fits, len(want), lineStartsCap(text))
		}
		if kept && !slices.Equal(m.starts, want) {
			t.Fatalf("whitespace %+v on %.60q...: output's line starts %v, want %v", o, text, m.starts, want)
		}
	}
}

func TestWhitespaceLineStartsFromIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"ab", "x y", "\r", "\r\n", "\n", "  ", "\t", "word ", "12:00"}
	for n := 0; n < 3000; n++ {
		var b strings.Builder
		for range r.IntN(120) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		checkWhitespaceLineStarts(t, b.String())
	}
	// Lone carriage returns: many more lines than line feeds, past the
	// starts' first size and around lineStartsCap.
	for _, k := range []int{1, 10, 40, 70, 200} {
		checkWhitespaceLineStarts(t, strings.Repeat("abc\r", k)+strings.Repeat("a line of text here\n", 3))
		checkWhitespaceLineStarts(t, strings.Repeat("a\r", k)+"\n")
	}
	for _, s := range classTexts(13) {
		checkWhitespaceLineStarts(t, s)
	}
}
