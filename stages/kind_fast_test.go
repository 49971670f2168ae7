package stages

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// addReference is kindStats.add as written before it ruled out a turn by
// the first byte of the line: the straightforward computation.
func (st *kindStats) addReference(line string) {
	st.lines++
	if strings.IndexByte(line, 0x1b) >= 0 {
		st.escapes++
	}
	console := false
	stamped, level := textkit.RecordStart(line)
	record := stamped || level
	switch {
	case record:
		st.records++
	case isConsoleLine(line):
		st.console++
		console = true
	case isProseLine(line):
		st.prose++
	}
	body := line
	if line[0] == '[' && record {
		if i := strings.IndexByte(line, ']'); i > 0 && i+2 < len(line) {
			body = line[i+2:]
		}
	}
	if m := turnStart.FindStringSubmatchIndex(body); m != nil && !console && !level && !textkit.UpperLevelAt(body[m[2]:m[3]]) && saysSomething(body[m[1]:]) {
		st.turns++
		st.speakers[strings.ToLower(body[m[2]:m[3]])]++
	}
}

// checkKindAdd adds the non-blank lines of text to a kindStats by add and
// to another by addReference, and compares the counts.
func checkKindAdd(t *testing.T, text string) {
	t.Helper()
	got := kindStats{speakers: map[string]int{}}
	want := kindStats{speakers: map[string]int{}}
	for line := range strings.FieldsFuncSeq(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if textkit.IsBlank(line) {
			continue
		}
		if mayStartTurn(line) && !turnOpener[line[0]] {
			t.Fatalf("mayStartTurn(%q) but turnOpener[%q] is false", line, line[0])
		}
		got.add(line)
		want.addReference(line)
	}
	got.sample, want.sample, got.noEscapes = nil, nil, false
	if got.lines != want.lines || got.records != want.records || got.console != want.console ||
		got.escapes != want.escapes || got.prose != want.prose || got.turns != want.turns || !maps.Equal(got.speakers, want.speakers) {
		t.Fatalf("add over %.200q: %+v, want %+v", text, got, want)
	}
}

// TestKindAddMatchesReference checks add's shortcut (no turn where the
// first byte cannot open one) against the straightforward computation, on
// generated texts of every class and line ending, and on transcripts
// written as logs.
func TestKindAddMatchesReference(t *testing.T) {
	for _, text := range classTexts(23) {
		checkKindAdd(t, text)
	}
	checkKindAdd(t, strings.Repeat("[2023-08-22 14:46 INFO] User: please fix the tests now\n[2023-08-22 14:47 INFO] Assistant: I will run them first\n", 3))
	checkKindAdd(t, "#### Alice: we should ship it now\n**Bob**: I think we can wait\nuser: tell me more please\n[tool] ran the tests again\n")
}

// TestTurnOpenerCoversMayStartTurn checks that every line mayStartTurn
// lets through opens with a byte turnOpener marks.
func TestTurnOpenerCoversMayStartTurn(t *testing.T) {
	for c := range 256 {
		for _, rest := range []string{"", "ser: hello there you", "## User: hi", "* Bob: hi all", "ob]: a b c", " Alice: hi"} {
			if s := string(rune(c)) + rest; c < 0x80 && mayStartTurn(s) && !turnOpener[c] {
				t.Fatalf("mayStartTurn(%q) but turnOpener[%q] is false", s, byte(c))
			}
		}
	}
}

// FuzzKindAddReference checks add against addReference on any text.
func FuzzKindAddReference(f *testing.F) {
	for _, s := range []string{"User: fix the build please now\nAssistant: running the tests\n", "[2023-08-22 14:46 INFO] User: a b c d\n", "081109 203615 148 INFO dfs.DataNode: ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkKindAdd(t, s) })
}

// TestDetectScanPlainOpeners checks scan, its shortcut for lines that open
// with a plain byte included, against scanReference on texts of every
// class and line ending, with quoted replies and indented fences among
// their lines.
func TestDetectScanPlainOpeners(t *testing.T) {
	texts := classTexts(31)
	texts = append(texts, "> > quoted reply here\n>\n  ```\ncode in a fence\n  ```\n~~~\nx\n~~~\n \t \nplain line\n")
	for _, text := range texts {
		for _, max := range []int{3, 450} {
			got := kindStats{speakers: map[string]int{}}
			want := kindStats{speakers: map[string]int{}}
			got.sample = got.scan(text, max, got.sample)
			want.scanReference(text, max)
			if !slices.Equal(got.sample, want.sample) || got.kind() != want.kind() || got.lines != want.lines {
				t.Fatalf("scan(%.200q, %d) sampled %q, want %q", text, max, got.sample, want.sample)
			}
		}
	}
}
