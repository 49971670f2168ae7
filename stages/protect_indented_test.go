package stages

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestProtectIndentedTakesMarkdownFences: fences as Markdown renderers read
// them, in every indentation a list item or quote gives, for both fence
// characters and any run length; each block becomes one placeholder line
// and comes back byte for byte.
func TestProtectIndentedTakesMarkdownFences(t *testing.T) {
	for _, indent := range []string{"", " ", "   ", "\t", "    ", "  - "[:2]} {
		for _, closeIndent := range []string{"", "  ", "\t"} {
			for _, fence := range []string{"```", "~~~", "`````", "~~~~"} {
				block := indent + fence + "go\n" + indent + "x := 1\n\n" + indent + "y := 2\n" + closeIndent + fence + "\r"
				text := "1. Step:\n" + block + "\nafter the block"
				out, st := ProtectIndented(text)
				lines := strings.Split(out, "\n")
				if st.Len() != 1 || len(lines) != 3 || !IsProtectedLine(lines[1]) {
					t.Fatalf("indent %q close %q fence %q: %d regions, got %q", indent, closeIndent, fence, st.Len(), out)
				}
				if back, ok := st.Restore(out); !ok || back != text {
					t.Fatalf("indent %q fence %q: restore %v %q", indent, fence, ok, back)
				}
			}
		}
	}
}

// TestProtectIndentedLeavesNonBlocks: an opener without a closer of the same
// character and at least its run, and an opener whose only closer lies past
// a region Protect took, are text.
func TestProtectIndentedLeavesNonBlocks(t *testing.T) {
	for _, text := range []string{
		"  ```go\nno closer here",
		"  ````\ncode\n  ```",            // shorter closer
		"  ```\ncode\n  ~~~",             // other character
		"  ```\ncode ``` \nend",          // closer must be only the run
		"  ```\n```a\ninner\n```\n  ```", // its closer lies past Protect's block
	} {
		out, st := ProtectIndented(text)
		if back, ok := st.Restore(out); !ok || back != text {
			t.Fatalf("%q: restore %v %q", text, ok, back)
		}
		if _, plain := Protect(text); st.Len() != plain.Len() {
			t.Errorf("%q: took %d regions beyond Protect's: %q", text, st.Len()-plain.Len(), out)
		}
	}
}

// TestProtectIndentedRoundTrip: generated documents mixing column-0 fences
// (Protect's), indented fences, unclosed openers, stray reserved runes and
// edit blocks come back byte for byte, and every region beyond Protect's
// runs from a fence to its closer.
func TestProtectIndentedRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	parts := []string{
		"plain prose line", "- bullet", "  ```py\n  print(1)\n  ```", "```\ntop\n```", "   ~~~\n   tilde\n~~~",
		"  ```unclosed", "\ue000 stray placeholder rune", "\ue011 digit rune", "", "    ````\n    ```\n    ````",
		"<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE", "`inline` code",
	}
	for i := range 2000 {
		n := 1 + r.IntN(12)
		doc := make([]string, n)
		for j := range doc {
			doc[j] = parts[r.IntN(len(parts))]
		}
		text := strings.Join(doc, "\n")
		out, st := ProtectIndented(text)
		back, ok := st.Restore(out)
		if !ok || back != text {
			t.Fatalf("doc %d %q: restore %v %q (protected %q)", i, text, ok, back, out)
		}
		_, plain := Protect(text)
		for _, region := range st.regions[plain.Len():] {
			lines := strings.Split(region, "\n")
			fence := indentedFence(lines[0])
			ch, run := closingRun(lines[len(lines)-1])
			if fence == "" || ch != fence[0] || run < len(fence) || len(lines) < 2 {
				t.Fatalf("doc %d: region %q is not a fenced block", i, region)
			}
		}
	}
}

// TestProtectIndentedLinear: many openers without closers, and many openers
// whose closer lies past a protected region, cost in proportion to the text.
func TestProtectIndentedLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing check")
	}
	gen := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "  ```lang%d\nline %d\n", i, i)
		}
		b.WriteString("```\nprotected\n```\n  ```\n")
		return b.String()
	}
	// At 20,000 openers the text (600 KB) still fits a core's cache and
	// 2n does not: 3.2x there, 1.6-2.2x from 40,000 up.
	checkLinear(t, "ProtectIndented", gen, func(s string) { ProtectIndented(s) }, 80000)
}
