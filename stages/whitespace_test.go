package stages

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestWhitespace(t *testing.T) {
	node := NewWhitespace(DefaultWhitespaceOptions())
	for _, tc := range []struct {
		name string
		kind Kind
		in   string
		want string
	}{
		{"crlf, lone cr, trailing spaces", KindLog, "a  \r\nb\rc\t\n", "a\nb\nc\n"},
		{"blank runs", KindProse, "\n\n\na\n\n\n\nb\n\n\n", "a\n\nb\n"},
		{"common indent and inner spaces", KindProse, "    x   =  1\n      y\t= 2\n", "x = 1\n  y = 2\n"},
		{"json keeps its spacing", KindJSON, "  {\"a\":   1}\n", "  {\"a\":   1}\n"},
		{"nothing to do", KindProse, "a\nb", "a\nb"},
		{"only blanks", KindProse, "\n\n  \n", ""},
		{"fence stays byte for byte", KindProse, "text  here\n```\n  code   with  spaces\n```\n", "text here\n```\n  code   with  spaces\n```\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := applyNode(t, node, tc.in, tc.kind)
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if again := applyNode(t, node, got, tc.kind); again != got {
				t.Errorf("not idempotent: %q", again)
			}
		})
	}
}

func TestWhitespaceConformance(t *testing.T) {
	checkConformance(t, NewWhitespace(DefaultWhitespaceOptions()), logInputs())
}

// sourceGutter is the lead of a line of a compiler's source excerpt: its
// blanks, a line number, a blank, the bar and the blanks after it.
var sourceGutter = regexp.MustCompile(`^[ \t]*[0-9]* +\|[ \t]*`)

// whitespaceReference is the whitespace node written the plain way, one
// builder and no shortcuts, to check the node against.
func whitespaceReference(text string, o WhitespaceOptions, kind Kind) string {
	if kind != KindJSON && tabSeparated(text) {
		return text // a table's tabs are its cells' bounds
	}
	cr := strings.ContainsRune(text, '\r')
	indent := 0
	if o.Dedent && kind != KindJSON {
		indent = commonIndent(text, cr)
	}
	var b strings.Builder
	blanks, started := 0, false
	for rest := text; ; {
		line, next, more := nextLine(rest, cr)
		line = strings.TrimRight(line, " \t\f\v")
		if line == "" {
			blanks++
		} else {
			if started {
				b.WriteString(strings.Repeat("\n", 1+min(blanks, o.MaxBlankLines)))
			}
			blanks, started = 0, true
			line = line[indent:]
			if o.CollapseInnerSpaces && kind != KindJSON {
				lead := len(line) - len(strings.TrimLeft(line, " \t"))
				if m := sourceGutter.FindString(line); m != "" {
					lead = len(m) // a compiler's source excerpt keeps its columns
				}
				b.WriteString(line[:lead])
				b.WriteString(strings.Join(strings.FieldsFunc(line[lead:], func(r rune) bool { return r == ' ' || r == '\t' }), " "))
			} else {
				b.WriteString(line)
			}
		}
		if !more {
			break
		}
		rest = next
	}
	if started && blanks > 0 && o.MaxBlankLines > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

func FuzzWhitespaceReference(f *testing.F) {
	for _, s := range []string{"a  b\t c\n\n\n  d \r\n", "   x\n   y\n", "\n\nlead\ntrail   \n\n", "same\ntext\n", "a\rb\r\n\r\nc"} {
		f.Add(s, uint8(2), true, true)
	}
	f.Fuzz(func(t *testing.T, text string, maxBlank uint8, collapse, dedent bool) {
		o := WhitespaceOptions{MaxBlankLines: int(maxBlank % 4), CollapseInnerSpaces: collapse, Dedent: dedent}
		for _, kind := range []Kind{KindLog, KindJSON} {
			out, err := NewWhitespace(o).Apply(context.Background(), Input{Text: text, Kind: kind})
			if err != nil {
				t.Fatal(err)
			}
			if want := whitespaceReference(text, o, kind); out.Text != want {
				t.Fatalf("%+v %s on %q:\n got %q\nwant %q", o, kind, text, out.Text, want)
			}
		}
	})
}

func FuzzBlankRunIndex(f *testing.F) {
	for _, s := range []string{"a b c d e f g h", "abcdefg  h", "abcdefgh\tij", "a b c d  ", "1234567 89 0123456 ", "       x", strings.Repeat("x", 62) + "  y", strings.Repeat("x", 63) + "  y", strings.Repeat("x ", 70) + "\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := -1
		for _, run := range []string{"  ", " \t", "\t"} {
			if i := strings.Index(s, run); i >= 0 && (want < 0 || i < want) {
				want = i
			}
		}
		if got := blankRunIndex(s); got != want {
			t.Fatalf("blankRunIndex(%q) = %d, want %d", s, got, want)
		}
		if got, want := trimBlanksRight(s), strings.TrimRight(s, " \t\f\v"); got != want {
			t.Fatalf("trimBlanksRight(%q) = %q", s, got)
		}
	})
}

// TestDoubleBlankAt checks the block search against a byte by byte one,
// on random texts of blanks, tabs and letters, from every start.
func TestDoubleBlankAt(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	naive := func(s string, from int) int {
		for i := from; i < len(s); i++ {
			if strings.HasPrefix(s[i:], "  ") {
				return i
			}
		}
		return len(s)
	}
	for n := 0; n < 2000; n++ {
		b := make([]byte, r.IntN(200))
		for i := range b {
			b[i] = "ab  \t\n\x00\xff"[r.IntN(8)]
			if r.IntN(3) > 0 {
				b[i] = 'x'
			}
		}
		s := string(b)
		for from := 0; from <= len(s); from++ {
			if got, want := doubleBlankAt(s, from), naive(s, from); got != want {
				t.Fatalf("doubleBlankAt(%q, %d) = %d, want %d", s, from, got, want)
			}
		}
	}
}

// TestWhitespaceKeepsSourceExcerptColumns: a compiler's source excerpt
// (gcc's and clang's "   12 |     code" and "      |     ^", rustc's
// "2 |" and "  |") keeps its gutter and the blanks after the bar, so the
// code and the caret under it stay in their columns, at any width, line
// number and indentation, between lines whose runs still fold. A table
// row that opens with the bar keeps folding.
func TestWhitespaceKeepsSourceExcerptColumns(t *testing.T) {
	node := NewWhitespace(DefaultWhitespaceOptions())
	r := rand.New(rand.NewPCG(4, 12))
	for n := 0; n < 200; n++ {
		lineNo := 1 + r.IntN(99999)
		width := len(strconv.Itoa(lineNo)) + r.IntN(3)
		gutter := strings.Repeat(" ", 1+r.IntN(3))
		code := strings.Repeat(" ", r.IntN(12)) + "total  =  price * qty"
		caret := strings.Repeat(" ", 1+r.IntN(len(code))) + "^~~~"
		numbered := fmt.Sprintf("%s%*d |%s", gutter, width, lineNo, code)
		bare := fmt.Sprintf("%s%*s |%s", gutter, width, "", caret)
		if r.IntN(2) == 0 { // rustc: no blank before the number
			numbered = fmt.Sprintf("%d |%s", lineNo, code)
			bare = fmt.Sprintf("%*s |%s", len(strconv.Itoa(lineNo)), "", caret)
		}
		kind := []Kind{KindLog, KindProse}[r.IntN(2)]
		in := "src/billing/ledger.c:12:15:   error:  expected ';'\n" + numbered + "\n" + bare + "\n| name   | qty   |\nbuild   failed\n"
		got := strings.Split(applyNode(t, node, in, kind), "\n")
		wantGutter := func(s string) string { return s[:strings.IndexByte(s, '|')+1] }
		if !strings.HasPrefix(got[1], wantGutter(numbered)+strings.Repeat(" ", len(code)-len(strings.TrimLeft(code, " ")))+"total") {
			t.Fatalf("code line %q became %q", numbered, got[1])
		}
		if got[2] != bare {
			t.Fatalf("caret line %q became %q", bare, got[2])
		}
		if got[0] != "src/billing/ledger.c:12:15: error: expected ';'" || got[3] != "| name | qty |" || got[4] != "build failed" {
			t.Fatalf("the other lines did not fold: %q", got)
		}
	}
}

// TestWhitespaceKeepsTabSeparatedCells: a tab-separated table (random
// columns, cells with inner blanks and double spaces, empty cells in any
// column, the last included) passes byte for byte, so no value moves into
// another column. Controls: a Java stack trace whose tabs only indent,
// and a log with one stray tab, still fold their runs.
func TestWhitespaceKeepsTabSeparatedCells(t *testing.T) {
	node := NewWhitespace(DefaultWhitespaceOptions())
	r := rand.New(rand.NewPCG(5, 21))
	cells := []string{"", "Oslo", "New York", "a  b", "42", "u1@x.io", "São Paulo"}
	for n := 0; n < 100; n++ {
		cols := 2 + r.IntN(7)
		var b strings.Builder
		for c := range cols {
			if c > 0 {
				b.WriteByte('\t')
			}
			fmt.Fprintf(&b, "col%d", c)
		}
		for range 3 + r.IntN(40) {
			b.WriteByte('\n')
			b.WriteString(fmt.Sprint(r.IntN(1000)))
			for range cols - 1 {
				b.WriteByte('\t')
				b.WriteString(cells[r.IntN(len(cells))])
			}
		}
		in := b.String() + "\n"
		for _, kind := range []Kind{KindProse, KindLog} {
			if got := applyNode(t, node, in, kind); got != in {
				t.Fatalf("%s table changed:\n%q\n%q", kind, in, got)
			}
		}
	}
	for _, in := range []string{
		"java.lang.IllegalStateException:  boom\n\tat a.B.c(B.java:1)\n\tat a.B.d(B.java:2)\n\tat a.B.e(B.java:3)\n",
		"10:00:01 INFO  started\n10:00:02 INFO  ready\ttrue\n10:00:03 WARN  slow   disk\n10:00:04 INFO  done\n",
	} {
		if got := applyNode(t, node, in, KindLog); got == in || strings.Contains(got, "  ") {
			t.Errorf("runs not folded: %q", got)
		}
	}
}
