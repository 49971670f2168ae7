package stages

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// minDuration is the fastest of runs of f, each after a collection: a
// robust cost estimate on a shared machine.
func minDuration(runs int, f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range runs {
		runtime.GC()
		start := time.Now()
		f()
		best = min(best, time.Since(start))
	}
	return best
}

// checkLinear fails when doubling the input costs more than 2.5x, as a
// quadratic walk would (4x). Times are the best of several runs, and the
// comparison gets five tries, so a busy machine does not fail it while
// a quadratic walk fails every try.
func checkLinear(t *testing.T, name string, gen func(n int) string, run func(string), n int) {
	t.Helper()
	if raceDetector {
		t.Skip("timings under -race say nothing about the code; .ci/run runs this without it")
	}
	small, large := gen(n), gen(2*n)
	run(small) // warm up
	ratio := 0.0
	for range 5 {
		a := minDuration(7, func() { run(small) })
		b := minDuration(7, func() { run(large) })
		if a < 200*time.Microsecond {
			t.Fatalf("%s: input too small to measure (%v)", name, a)
		}
		if ratio = float64(b) / float64(a); ratio <= 2.5 {
			return
		}
	}
	t.Errorf("%s: 2n costs %.1fx n", name, ratio)
}

// unclosedFences is the hostile input of issue 15: openers that no line closes.
func unclosedFences(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "```a%d\nline %d\n", i, i)
	}
	return b.String()
}

// TestProtectUnclosedFencesLinear: unclosed openers cost linear time.
func TestProtectUnclosedFencesLinear(t *testing.T) {
	text := unclosedFences(10000)
	out, st := Protect(text)
	if out != text || st.Len() != 0 {
		t.Fatalf("unclosed fences protected: %d regions", st.Len())
	}
	checkLinear(t, "Protect", unclosedFences, func(s string) { Protect(s) }, 20000)
}

// TestProtectHonoursContext: a cancelled context stops Protect.
func TestProtectHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	text := strings.Repeat("```\ncode\n```\n", 20000)
	out, st, err := ProtectContext(ctx, text)
	if err == nil || out != text || st.Len() != 0 {
		t.Fatalf("err %v, %d regions", err, st.Len())
	}
}

// TestProtectReservedRunes: a private-use character in the text does not
// switch protection off, and comes back as it was.
func TestProtectReservedRunes(t *testing.T) {
	for _, r := range []rune{protectOpen, protectClose, protectEscape, protectDigit, protectEscLo} {
		text := "icon " + string(r) + "\n```\nkeep  two  spaces\ndup!!\ndup!!\n```\n" + string(r) + " line starts with it\ntail"
		masked, st := Protect(text)
		if st.Len() != 1 {
			t.Fatalf("%U: %d regions, want 1", r, st.Len())
		}
		for _, line := range strings.Split(masked, "\n") {
			if IsProtectedLine(line) != (line == placeholder(0)) {
				t.Errorf("%U: line %q taken for a placeholder", r, line)
			}
		}
		got, ok := st.Restore(masked)
		if !ok || got != text {
			t.Fatalf("%U: restore gave %q, %v", r, got, ok)
		}
		// A node that changes the text elsewhere still gets it all back.
		got, ok = st.Restore(strings.Replace(masked, "tail", "end", 1))
		if !ok || got != strings.Replace(text, "tail", "end", 1) {
			t.Fatalf("%U: restore after a change gave %q, %v", r, got, ok)
		}
	}
}

// TestProtectTwice: a protected text protected again keeps the outer
// placeholders for the outer stash.
func TestProtectTwice(t *testing.T) {
	text := "a\n```\nx\n```\nb\n~~~\ny\n~~~\nc"
	outer, st1 := Protect(text)
	inner, st2 := Protect(outer + "\n```\nz\n```")
	if st2.Len() != 1 {
		t.Fatalf("inner stash %d regions", st2.Len())
	}
	back, ok := st2.Restore(inner)
	if !ok || back != outer+"\n```\nz\n```" {
		t.Fatalf("inner restore %q", back)
	}
	if got, ok := st1.Restore(outer); !ok || got != text {
		t.Fatalf("outer restore %q", got)
	}
}

// TestProtectEditBlocks: an edit block is one unit with its file-name
// line, in each of the formats agents write.
func TestProtectEditBlocks(t *testing.T) {
	blocks := []string{
		"src/app.py\n```python\n<<<<<<< SEARCH\nold()\n=======\nnew()\n>>>>>>> REPLACE\n```",
		"lib/util.go\n~~~go\nfunc f() {}\n~~~",
		"web/index.html\n<source>html\n<p>hi</p>\n</source>",
		"<<<<<<< SEARCH\n    indented = 1\n=======\n    indented = 2\n>>>>>>> REPLACE",
		"*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch",
		"diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b",
		"**`docs/README.md`**\n```\ntext\n```",
	}
	for _, blk := range blocks {
		text := "Here is the change:\n" + blk + "\nDone, as asked."
		masked, st := Protect(text)
		if st.Len() != 1 || st.regions[0] != blk {
			t.Errorf("block not one unit:\n%s\nregions %q", blk, st.regions)
			continue
		}
		if masked != "Here is the change:\n"+placeholder(0)+"\nDone, as asked." {
			t.Errorf("masked %q", masked)
		}
	}
	// A sentence is not a file name.
	_, st := Protect("Run this.\n```\nls\n```")
	if st.regions[0] != "```\nls\n```" {
		t.Errorf("took %q", st.regions[0])
	}
}

// loneBraces is the hostile input of issue 15: lines of a single "{".
func loneBraces(n int) string {
	return "notes\n" + strings.Repeat("{\n", n) + "}\n"
}

// TestStructuredLoneBracesLinear: lines of a lone bracket cost linear time
// in the embedded-JSON search, and pass through.
func TestStructuredLoneBracesLinear(t *testing.T) {
	node := NewStructured(DefaultStructuredOptions())
	run := func(s string) {
		out, err := node.Apply(context.Background(), Input{Text: s, Kind: KindProse})
		if err != nil || out.Text != s {
			t.Fatalf("changed or failed: %v", err)
		}
	}
	checkLinear(t, "embeddedJSON", loneBraces, run, 20000)
}

// TestDedupKeepsFenceWithReservedRune: with a private-use character in the
// text, a fenced block still reaches dedup protected.
func TestDedupKeepsFenceWithReservedRune(t *testing.T) {
	text := "icon \ue000\n```\nkeep  two  spaces\nduplicate line!!\nduplicate line!!\n```\n" + strings.Repeat("the same sentence again.\n", 100)
	masked, st := Protect(text)
	for _, node := range []Node{NewDedup(DefaultDedupOptions()), NewWhitespace(DefaultWhitespaceOptions())} {
		out, err := node.Apply(context.Background(), Input{Text: masked, Kind: KindProse})
		if err != nil {
			t.Fatal(err)
		}
		got, ok := st.Restore(out.Text)
		if !ok || !strings.Contains(got, "```\nkeep  two  spaces\nduplicate line!!\nduplicate line!!\n```") || !strings.HasPrefix(got, "icon \ue000\n") {
			t.Errorf("%s: fence or icon lost:\n%s", node.Key(), got)
		}
	}
}

// FuzzProtect: Restore undoes Protect byte for byte, whatever the text.
func FuzzProtect(f *testing.F) {
	f.Add("a\n```\nx\n```\nb")
	f.Add("icon \ue000\n~~~\n\ue001y\n~~~\n#### ask\nsrc/a.go\n<source>go\nz\n</source>")
	f.Add("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\ndiff --git a b\n+x\n*** Begin Patch\n*** End Patch\n## User\nhi\n## Assistant\nok")
	f.Fuzz(func(t *testing.T, text string) {
		masked, st := Protect(text)
		got, ok := st.Restore(masked)
		if !ok || got != text {
			t.Fatalf("round trip: ok %v\n%q\n%q", ok, text, got)
		}
	})
}

// TestMayHaveFenceLineStarts: a text whose lines never start like a
// region's first line holds no region, wherever its markers stand inside
// lines, so the line-start shortcut changes no Protect output. Texts are
// generated from region lines, their closers and log lines, each perhaps
// shifted off the line start.
func TestMayHaveFenceLineStarts(t *testing.T) {
	parts := []string{
		"```", "```go", "~~~", "~~~~ py", "<source lang=go>", "</source>", "<<<<<<< SEARCH", "=======",
		">>>>>>> REPLACE", "*** Begin Patch", "*** End Patch", "diff --git a/x.go b/x.go", "+added", "-gone",
		"#### fix the parser", "## User", "# USER", "## Assistant", "main.go", "2024-01-01 10:00:00 INFO ok",
		"debug: cache miss", "", "\t```",
	}
	shifts := []string{"", "", " ", "x ", "\t", "1 | "}
	seed := uint64(1)
	next := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	checked, withRegions := 0, 0
	for range 20000 {
		var b strings.Builder
		for range 1 + next(8) {
			b.WriteString(shifts[next(len(shifts))])
			b.WriteString(parts[next(len(parts))])
			b.WriteByte('\n')
		}
		text := b.String()
		if next(2) == 0 {
			text = strings.TrimSuffix(text, "\n")
		}
		out, st, err := protectRegions(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		if st.Len() > 0 {
			withRegions++
		}
		if hasOpenerLine(text) {
			continue
		}
		checked++
		if st.Len() != 0 || out != text {
			t.Fatalf("no line opens a region, yet Protect found %d in %q", st.Len(), text)
		}
	}
	if checked < 1000 || withRegions < 1000 {
		t.Fatalf("generator too narrow: %d texts without opener lines, %d with regions", checked, withRegions)
	}
}
