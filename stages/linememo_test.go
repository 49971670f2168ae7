package stages

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

// checkLineMemo checks the run's line index (lineMemo) on text: the scan
// that fills it answers as hasOpenerLine and, when it reads every line,
// gives textkit.NewLineIndex's starts; a line cutter reading them cuts as
// nextLine does; the whitespace node keeps its output's line starts,
// those NewLineIndex gives, when no line opens like a region, and only
// then; and nodes that take lines from the memo give what they give
// without it, also when the memo holds another text's lines.
func checkLineMemo(t *testing.T, text string) {
	t.Helper()
	want := textkit.NewLineIndex(text).Starts
	for _, capacity := range []int{len(want), len(want) - 1, lineStartsCap(text)} {
		opener, starts := openerLineStarts(text, make([]int32, 0, max(capacity, 1)))
		if opener != hasOpenerLine(text) {
			t.Fatalf("openerLineStarts(%.60q...) = %v, hasOpenerLine %v", text, opener, !opener)
		}
		if fits := len(want) <= capacity; !opener && fits && !slices.Equal(starts, want) || (opener || !fits) && starts != nil {
			t.Fatalf("openerLineStarts(%.60q..., capacity %d) starts %v, want %v", text, capacity, starts, want)
		}
	}
	for _, cr := range []bool{true, false} {
		if !cr && strings.IndexByte(text, '\r') >= 0 {
			continue
		}
		cuts := nextLineCuts(text, cr)
		c := newIndexedLineCutter(text, cr, want)
		pos := 0
		for i, w := range cuts {
			end, next, more := c.cut(pos)
			if got := [3]int{pos, end, next}; got != w || more != (i < len(cuts)-1) {
				t.Fatalf("indexed cutter, cr %v, line %d of %.60q...: cut %v more %v, nextLine %v", cr, i, text, got, more, w)
			}
			pos = next
		}
	}
	for _, o := range []WhitespaceOptions{DefaultWhitespaceOptions(), {MaxBlankLines: 2}, {MaxBlankLines: 0, CollapseInnerSpaces: true}} {
		ctx := WithRunMemo(context.Background())
		out, err := NewWhitespace(o).Apply(ctx, Input{Text: text, Kind: KindLog})
		if err != nil {
			t.Fatal(err)
		}
		m := runMemoOf(ctx).lines
		kept := m.starts != nil && m.text == out.Text
		want := textkit.NewLineIndex(out.Text).Starts
		if fits := len(want) <= lineStartsCap(text); out.Text != text && kept != (fits && !hasOpenerLine(out.Text)) {
			t.Fatalf("whitespace %+v on %.60q...: output's lines kept %v, fit %v, opener line %v", o, text, kept, fits, hasOpenerLine(out.Text))
		}
		if kept && !slices.Equal(m.starts, want) {
			t.Fatalf("whitespace %+v on %.60q...: output's line starts %v, want %v", o, text, m.starts, want)
		}
	}
	nodes := []Node{NewWhitespace(DefaultWhitespaceOptions()), NewStructured(DefaultStructuredOptions()),
		NewNearDup(DefaultNearDupOptions()), NewKeywords(DefaultKeywordsOptions())}
	other := text[len(text)/3:] + text[:len(text)/3] // same length, other lines
	for _, kind := range []Kind{KindLog, KindProse} {
		in := Input{Text: text, Kind: kind}
		if kind == KindLog {
			in.Log = logs.Analyze(text)
		}
		for _, n := range nodes {
			plain, err := Protected(n).Apply(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			memo, err := Protected(n).Apply(WithRunMemo(context.Background()), in)
			if err != nil {
				t.Fatal(err)
			}
			stale := WithRunMemo(context.Background())
			runMemoOf(stale).lines = lineMemo{text: other, starts: textkit.NewLineIndex(other).Starts}
			if memo.Text != plain.Text {
				t.Fatalf("%s (%s) on %.80q...: with the line memo %.120q, without %.120q", n.Key(), kind, text, memo.Text, plain.Text)
			}
			// Unprotected, so that the memo is not filled again.
			bare, err := n.Apply(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			wrong, err := n.Apply(stale, in)
			if err != nil {
				t.Fatal(err)
			}
			stale = WithRunMemo(context.Background())
			runMemoOf(stale).lines = lineMemo{text: other, starts: textkit.NewLineIndex(other).Starts}
			if wrong, err := Protected(n).Apply(stale, in); err != nil || wrong.Text != plain.Text {
				t.Fatalf("%s (%s) on %.80q...: protected, with another text's line memo %.120q (%v), without %.120q", n.Key(), kind, text, wrong.Text, err, plain.Text)
			}
			if wrong.Text != bare.Text {
				t.Fatalf("%s (%s) on %.80q...: with another text's line memo %.120q, without %.120q", n.Key(), kind, text, wrong.Text, bare.Text)
			}
		}
	}
}

// TestLineMemoClasses runs checkLineMemo on texts of every class and
// line ending.
func TestLineMemoClasses(t *testing.T) {
	for _, s := range []string{"", "\n", "a", "a\n", "\r\n\r\n", "x\r\ny\rz\n", "d\ndiff --git a b\n"} {
		checkLineMemo(t, s)
	}
	for _, s := range classTexts(11) {
		checkLineMemo(t, s)
	}
}

func FuzzLineMemo(f *testing.F) {
	for _, s := range classTexts(12)[:60] {
		f.Add(s)
	}
	f.Fuzz(checkLineMemo)
}
