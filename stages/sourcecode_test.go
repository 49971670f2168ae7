package stages

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// genSource writes a source file in one of six languages, made of the
// repetitive shapes that read as a log's repeats: a table of constants,
// a map literal, cases, decorated tests.
func genSource(r *rand.Rand, lang string, n int) string {
	var b strings.Builder
	name := func(i int) string { return fmt.Sprintf("%s%d", []string{"Code", "Item", "Kind"}[r.IntN(3)], i) }
	switch lang {
	case "go":
		b.WriteString("package codes\n\nconst (\n")
		for i := range n {
			fmt.Fprintf(&b, "\t%s = %d\n", name(i), 100+i)
		}
		b.WriteString(")\n\nfunc Name(c int) string {\n\tswitch c {\n")
		for i := range n {
			fmt.Fprintf(&b, "\tcase %d:\n\t\treturn \"%s\"\n", 100+i, name(i))
		}
		b.WriteString("\t}\n\treturn \"unknown\"\n}\n")
	case "python":
		b.WriteString("import pytest\nfrom app import compute\n\n")
		for i := range n {
			fmt.Fprintf(&b, "@pytest.mark.slow\ndef test_case_%d():\n    assert compute(%d) == %d\n\n", i, i, 2*i)
		}
	case "java":
		b.WriteString("package app;\n\npublic class Codes {\n")
		for i := range n {
			fmt.Fprintf(&b, "    public static final int %s = %d;\n", strings.ToUpper(name(i)), 100+i)
		}
		b.WriteString("}\n")
	case "js":
		b.WriteString("export const routes = [\n")
		for i := range n {
			fmt.Fprintf(&b, "  { path: '/r%d', handler: handle%d },\n", i, i)
		}
		b.WriteString("];\n")
	case "c":
		b.WriteString("#include <stdio.h>\n\n")
		for i := range n {
			fmt.Fprintf(&b, "#define %s %d\n", strings.ToUpper(name(i)), 100+i)
		}
		b.WriteString("int main(void) {\n    return 0;\n}\n")
	case "rust":
		b.WriteString("use std::fmt;\n\npub enum Code {\n")
		for i := range n {
			fmt.Fprintf(&b, "    %s = %d,\n", name(i), 100+i)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// TestSourceCodeIsNoLog: source files of six languages are read as
// prose, and dedup keeps every line of them; build output and traces
// that quote code stay logs.
func TestSourceCodeIsNoLog(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	node := NewDedup(DefaultDedupOptions())
	for doc := range 36 {
		lang := []string{"go", "python", "java", "js", "c", "rust"}[doc%6]
		src := genSource(r, lang, 8+r.IntN(60))
		if k := Detect(src); k != KindProse {
			t.Errorf("doc %d (%s) read as %s", doc, lang, k)
		}
		if got := applyNode(t, node, src, KindProse); got != src {
			t.Errorf("doc %d (%s): dedup changed the code:\n%s", doc, lang, got)
		}
	}
	var goTest, javaTrace, pyTrace strings.Builder
	for i := range 60 {
		fmt.Fprintf(&goTest, "=== RUN   TestCase%d\n    case_test.go:%d: got %d, want %d\n--- FAIL: TestCase%d (0.00s)\n", i, 10+i, i, i+1, i)
		fmt.Fprintf(&javaTrace, "java.lang.IllegalStateException: bad state %d\n\tat app.Service.run(Service.java:%d)\n\tat app.Main.main(Main.java:%d)\n", i, 10+i, 3)
		fmt.Fprintf(&pyTrace, "Traceback (most recent call last):\n  File \"app.py\", line %d, in <module>\n    return compute(%d)\nValueError: bad value %d\n", 10+i, i, i)
	}
	for name, text := range map[string]string{"go test": goTest.String(), "java trace": javaTrace.String(), "python trace": pyTrace.String()} {
		if k := Detect(text); k != KindLog {
			t.Errorf("%s read as %s", name, k)
		}
	}
}
