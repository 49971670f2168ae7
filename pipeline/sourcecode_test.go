package pipeline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// similarCode writes a source file of n classes or types alike: each
// with the same methods, a format string with double blanks and a table
// aligned with blanks, in Python, Java or Go.
func similarCode(r *rand.Rand, lang, n int) string {
	var b strings.Builder
	for i := range n {
		w := 2 + r.IntN(6)
		switch lang {
		case 0:
			fmt.Fprintf(&b, "class Widget%d:\n    SIZES = {\n        \"small\":   %d,\n        \"large\":   %d,\n    }\n\n", i, w, 10*w)
			fmt.Fprintf(&b, "    def label(self, name):\n        return \"%%-10s  %%5d\" %% (name, self.size)\n\n")
			fmt.Fprintf(&b, "    def area(self):\n        return self.size * self.size\n\n\n")
		case 1:
			fmt.Fprintf(&b, "public class Widget%d {\n    private static final int SMALL  = %d;\n    private static final int LARGE  = %d;\n\n", i, w, 10*w)
			fmt.Fprintf(&b, "    String label(String name) {\n        return String.format(\"%%-10s  %%5d\", name, SMALL);\n    }\n\n")
			fmt.Fprintf(&b, "    int area() {\n        return SMALL * SMALL;\n    }\n}\n\n")
		default:
			fmt.Fprintf(&b, "type Widget%d struct {\n\tsmall  int\n\tlarge  int\n}\n\n", i)
			fmt.Fprintf(&b, "func (w Widget%d) Label(name string) string {\n\treturn fmt.Sprintf(\"%%-10s  %%5d\", name, w.small+%d)\n}\n\n", i, w)
			fmt.Fprintf(&b, "func (w Widget%d) Area() int {\n\treturn w.small * w.small\n}\n\n", i)
		}
	}
	return b.String()
}

// TestSimilarCodeKeepsEveryLine: a source file of classes alike comes
// out with every line it had, its blanks aside, and every string literal
// byte for byte: a method like the one in the class before is another
// method (near_dup dropped it), and a format string's double blank is
// part of the program (whitespace folded it). Alignment outside quotes
// and indentation aside, blanks may fold.
func TestSimilarCodeKeepsEveryLine(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	fold := func(l string) string { return strings.Join(strings.Fields(l), " ") }
	for doc := range 18 {
		lang := doc % 3
		classes := 6 + r.IntN(30)
		text := similarCode(r, lang, classes)
		out, _ := compactLog(t, text)
		kept := map[string]int{}
		for _, l := range strings.Split(out, "\n") {
			kept[fold(l)]++
		}
		for _, l := range strings.Split(text, "\n") {
			if l = fold(l); l == "" {
				continue
			}
			if kept[l] == 0 {
				t.Errorf("doc %d (lang %d): line %q is gone or changed:\n%.1500s", doc, lang, l, out)
				break
			}
			kept[l]--
		}
		if got := strings.Count(out, `"%-10s  %5d"`); got != classes {
			t.Errorf("doc %d (lang %d): the format string is whole %d times of %d:\n%.1500s", doc, lang, got, classes, out)
		}
		for _, l := range strings.Split(text, "\n") {
			if indent := len(l) - len(strings.TrimLeft(l, " \t")); indent > 0 && strings.TrimSpace(l) != "" && !strings.Contains(out, l[:indent]+strings.TrimSpace(l)[:1]) {
				t.Errorf("doc %d (lang %d): the indentation of %q is gone", doc, lang, l)
				break
			}
		}
	}
}
