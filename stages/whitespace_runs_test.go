package stages

import (
	"context"
	"strings"
	"testing"
)

// TestWhitespaceClasses compares the whitespace node with its reference
// (whitespaceReference: nextLine, strings.TrimRight, strings.FieldsFunc)
// on generated texts of every class and line ending, in each option set.
func TestWhitespaceClasses(t *testing.T) {
	for _, text := range classTexts(8) {
		for _, o := range []WhitespaceOptions{DefaultWhitespaceOptions(), {MaxBlankLines: 0}, {MaxBlankLines: 2, CollapseInnerSpaces: true}} {
			for _, kind := range []Kind{KindLog, KindJSON} {
				out, err := NewWhitespace(o).Apply(context.Background(), Input{Text: text, Kind: kind})
				if err != nil {
					t.Fatal(err)
				}
				if want := whitespaceReference(text, o, kind); out.Text != want {
					t.Fatalf("%+v %s on %.80q...:\n got %.200q\nwant %.200q", o, kind, text, out.Text, want)
				}
			}
		}
	}
}

// blankRunIndex is how writeCollapsed found each run before it asked
// nextRuns.first; FuzzBlankRunIndex checks it. It returns the index of the first tab, or of the first
// space followed by a space or a tab, in s, or -1: where collapsing
// starts to change s. That is the start of the first run of blanks with
// a tab or two blanks in it: the first double space, or the first tab
// with the spaces before it. s is searched 64 bytes at a time (one
// overlapping), where strings.Index compares whole blocks, and no further
// than the first run, so that collapsing a line stays linear.
func blankRunIndex(s string) int {
	for off := 0; off < len(s); off += 63 {
		block := s[off:min(off+64, len(s))]
		i := strings.Index(block, "  ")
		if t := strings.IndexByte(block, '\t'); t >= 0 && (i < 0 || t < i) {
			i = t
			for off+i > 0 && s[off+i-1] == ' ' {
				i--
			}
		}
		if i >= 0 {
			return off + i
		}
	}
	return -1
}
