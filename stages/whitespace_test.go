package stages

import (
	"context"
	"math/rand/v2"
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

// whitespaceReference is the whitespace node written the plain way, one
// builder and no shortcuts, to check the node against.
func whitespaceReference(text string, o WhitespaceOptions, kind Kind) string {
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
