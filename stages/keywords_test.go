package stages

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

func TestKeywordsGolden(t *testing.T) {
	runGolden(t, NewKeywords(DefaultKeywordsOptions()), "keywords", *update)
}

func TestLineSignal(t *testing.T) {
	for _, tc := range []struct {
		line string
		want int
	}{
		{"error: linker command failed with exit code 1", 3},
		{"\x1b[1;31mERROR\x1b[0m: build failed", 3},
		{"java.lang.AssertionError: expected 3 but was 4", 3},
		{"RuntimeException: Undefined property: CI_DB_driver::$x", 3},
		{"make: *** [all] Error 2", 3},
		{"npm ERR! Test failed.", 3},
		{"ls: cannot access 'x': No such file or directory", 3},
		{"fatal: Remote branch x not found in upstream origin", 3},
		{"The command \"npm test\" exited with 1.", 3},
		{"not ok 3 - handles quotes", 3},
		{"\x1b[31m✖\x1b[0m 2 problems", 3},
		{"[-] Runs all files -> Expected and actual values differ!", 3},
		{"Expected: 3, Received: 4", 3},
		{"expected status ok", 0},
		{"[cache] [-] reused src/lambda.o", 0},
		{"java.lang.OutOfMemoryError: Java heap space", 3},
		{"ModuleNotFoundError: No module named x", 3},
		{"ZeroDivisionError: division by zero", 3},
		{"ERROR: 0xC0000005", 3},
		{"Error: deployment was not successful", 3},
		{"health check failed: expected status ok", 3},
		{"error[E0308]: mismatched types", 3},
		{"src/app.ts(3,7): TS2322: Type 'string' is not assignable", 3},
		{"Needs attention:", 3},
		{"==== please apply the changes below ====", 3},
		{"Saved report to linkcheck.json", 0},
		{"Build successful", 0},
		{"In 2019 we moved to C1234 and back", 0},
		{"io.reactivex.SafeObserverTest > onErrorFailureWithUnsubscribeFailure SKIPPED", 0},
		{"rm -rf test87.failed test.ok", 0},
		{"=== RUN   TestHandlesFailure", 0},
		{"Tests run: 50, Failures: 0, Errors: 0, Skipped: 2", 1},
		{"0 errors, 0 warnings", 0},
		{"compiled without errors", 0},
		{"\x1b[32m[ RUN ]\x1b[0m parser rejects invalid input: \x1b[2m3.01 ms\x1b[0m \x1b[1m\x1b[32mOK\x1b[0m", 0},
		{"ok 12 - error messages are translated", 0},
		{"test_error_handling PASSED", 0},
		{"    \x1b[32m✓\x1b[0m reports syntax errors with positions", 0},
		{"$ make test", 1},
		{"1) DB_test::test_db_valid", 2},
		{"warning: unused variable 'x'", 2},
		{"Setting up libfoo (1.2.0) ...", 0},
		{"error_reporting = E_ALL", 0},
		{"Compiling crate_1 v0.1.1", 0},
	} {
		if got := lineSignal(tc.line); got != tc.want {
			t.Errorf("lineSignal(%q) = %d, want %d", tc.line, got, tc.want)
		}
	}
}

func TestKeywords(t *testing.T) {
	node := NewKeywords(DefaultKeywordsOptions())
	noise := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "Downloading package-%d (%d kB)\n", i, i*7)
		}
		return b.String()
	}
	reason := "Traceback (most recent call last):\n" +
		"  File \"app/main.py\", line 12, in <module>\n" +
		"    run()\n" +
		"  File \"app/main.py\", line 9, in run\n" +
		"    raise ValueError(\"bad config\")\n" +
		"ValueError: bad config\n"
	for _, tc := range []struct {
		name    string
		kind    Kind
		in      string
		keep    []string // must appear, contiguously
		drop    []string // must not appear
		markers int      // fold markers expected (-1: do not check)
		same    bool     // output equals input
	}{
		{
			name:    "a multi-line reason survives whole, the noise folds",
			kind:    KindLog,
			in:      noise(40) + "$ python app/main.py\n" + reason + noise(200) + "Done. Your build exited with 1.\n",
			keep:    []string{"$ python app/main.py\n" + reason, "Done. Your build exited with 1."},
			drop:    []string{"package-10 ", "package-30 "},
			markers: 2,
		},
		{
			name:    "short runs between key lines stay",
			kind:    KindLog,
			in:      noise(20) + "error: first\nplain one\nplain two\nerror: second\n" + noise(20),
			keep:    []string{"error: first\nplain one\nplain two\nerror: second\n"},
			markers: 2,
		},
		{
			name:    "an indented block after a failure is kept to its end",
			kind:    KindLog,
			in:      noise(20) + "AssertionError: trees differ\n" + strings.Repeat("      loc: {\n        line: 1,\n      },\n", 30) + "}\n" + noise(20),
			keep:    []string{"AssertionError: trees differ\n" + strings.Repeat("      loc: {\n        line: 1,\n      },\n", 30) + "}\n"},
			markers: 2,
		},
		{
			name:    "a very long line is no context",
			kind:    KindLog,
			in:      noise(20) + strings.Repeat("\x1b[32m.\x1b[0m", 500) + "\nerror: boom\n" + noise(20),
			keep:    []string{"error: boom"},
			drop:    []string{strings.Repeat("\x1b[32m.\x1b[0m", 10)},
			markers: -1,
		},
		{
			name:    "folded counts add up when run again",
			kind:    KindLog,
			in:      "[... 7 lines folded by keywords ...]\n" + noise(10) + "error: boom\n",
			keep:    []string{foldMarker(7+10-DefaultKeywordsOptions().Before, keywordsFolded), "error: boom"},
			markers: 1,
		},
		{
			name: "logs of records keep every rare template",
			kind: KindLog,
			in: "2024-01-01 10:00:00 INFO a started [×3]\n2024-01-01 10:00:01 INFO b connected\n" +
				"2024-01-01 10:00:02 INFO c ready\n2024-01-01 10:00:03 INFO d idle\n2024-01-01 10:00:04 INFO e done\n" +
				"2024-01-01 10:00:05 INFO f stopped\n",
			same: true,
		},
		{
			name: "prose passes",
			kind: KindProse,
			in:   noise(50),
			same: true,
		},
		{
			name: "transcripts pass",
			kind: KindTranscript,
			in:   strings.Repeat("Alice: fine.\nBob: fine too.\n", 30),
			same: true,
		},
		{
			name: "json is left to structured",
			kind: KindJSON,
			in:   "[\n" + strings.Repeat("  {\"a\": 1},\n", 30) + "  {\"a\": 2}\n]",
			same: true,
		},
		{
			name:    "protected lines are never folded",
			kind:    KindLog,
			in:      noise(20) + "```\nnothing important\n```\n" + noise(20),
			keep:    []string{"```\nnothing important\n```"},
			markers: 2,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := applyNode(t, node, tc.in, tc.kind)
			if tc.same && got != tc.in {
				t.Fatalf("changed:\n%s", got)
			}
			for _, k := range tc.keep {
				if !strings.Contains(got, k) {
					t.Errorf("lost %q in:\n%s", k, got)
				}
			}
			for _, d := range tc.drop {
				if strings.Contains(got, d) {
					t.Errorf("kept %q in:\n%s", d, got)
				}
			}
			if m := strings.Count(got, "folded by keywords"); tc.markers >= 0 && !tc.same && m != tc.markers {
				t.Errorf("%d fold markers, want %d:\n%s", m, tc.markers, got)
			}
			if again := applyNode(t, node, got, tc.kind); again != got {
				t.Errorf("not idempotent:\n%s", firstDiff(again, got))
			}
		})
	}
}

func TestKeywordsOptionsValidate(t *testing.T) {
	if err := DefaultKeywordsOptions().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, o := range []KeywordsOptions{
		{Before: -1, After: 6, Continuation: 10, MinFold: 4},
		{Before: 3, After: -1, Continuation: 10, MinFold: 4},
		{Before: 3, After: 6, Continuation: -1, MinFold: 4},
		{Before: 3, After: 6, Continuation: 10, MinFold: 1},
		{Before: 3, After: 6, Continuation: 10, MinFold: 4, RareMax: -1},
	} {
		if o.Validate() == nil {
			t.Errorf("%+v: want an error", o)
		}
	}
}

func TestKeywordsConformance(t *testing.T) {
	checkConformance(t, NewKeywords(DefaultKeywordsOptions()), logInputs())
}

func BenchmarkKeywords(b *testing.B) {
	text := syntheticBuildLog(4 << 20)
	node := NewKeywords(DefaultKeywordsOptions())
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := node.Apply(context.Background(), Input{Text: text, Kind: KindLog}); err != nil {
			b.Fatal(err)
		}
	}
}

// syntheticBuildLog builds about size bytes of CI output: compile steps,
// downloads, passing tests and, now and then, a failure with a trace.
func syntheticBuildLog(size int) string {
	var b strings.Builder
	b.Grow(size + 512)
	for i := 0; b.Len() < size; i++ {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "\x1b[32m[%d/9000]\x1b[0m Building C object src/module%d/file%d.c.o\n", i%9000, i%40, i)
		case 1:
			fmt.Fprintf(&b, "Downloading https://repo.example.org/lib%d-%d.%d.jar (%d kB at %d kB/s)\n", i%300, i%9, i%17, i%900, i%5000)
		case 2:
			fmt.Fprintf(&b, "    \x1b[32m✓\x1b[0m handles case %d without errors (%dms)\n", i, i%40)
		case 3:
			if i%2000 == 3 {
				fmt.Fprintf(&b, "src/module%d/file%d.c:%d:5: error: 'x' undeclared\n    x = 1;\n    ^\nmake: *** [all] Error 1\n", i%40, i, i%300)
				continue
			}
			fmt.Fprintf(&b, "remote: Counting objects: %d%% (%d/%d)\n", i%100, i%4000, 4000)
		default:
			fmt.Fprintf(&b, "Setting up package-%d (%d.%d) ...\n", i%700, i%9, i%13)
		}
	}
	return b.String()
}

// signalWordReference and signalPairReference look words and phrases up
// in signalClasses directly, to check the tables and their filters against.
func signalWordReference(w string) int8 { return classScore(w) }

func signalPairReference(p string) int8 { return classScore(p) }

func classScore(w string) int8 {
	for _, c := range signalClasses {
		for _, e := range c.words {
			if e == w && !signalsOff[c.name] && !signalsOff[e] {
				return c.score
			}
		}
	}
	return 0
}

func FuzzSignalWord(f *testing.F) {
	for _, s := range []string{"error", "errorx", "not found", "couldn t", "exit status", "warn_", "zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// Words as rawSignal cuts them: lower-case letters and underscores,
		// starting with a letter, at most 15 bytes.
		w := []byte(strings.Map(func(r rune) rune {
			if r == ' ' || r == '_' || (r >= 'a' && r <= 'z') {
				return r
			}
			return -1
		}, strings.ToLower(s)))
		a, b, pair := bytes.Cut(w, []byte(" "))
		if len(a) == 0 || a[0] == '_' || len(a) > 15 || len(b) > 15 || (pair && (len(b) == 0 || b[0] == '_' || bytes.IndexByte(b, ' ') >= 0)) {
			return
		}
		if pair {
			if got, want := pairScore(w, a, b), signalPairReference(string(w)); got != want {
				t.Fatalf("signalPair(%q) = %d, want %d", w, got, want)
			}
			return
		}
		if got, want := tableScore(signalWords, w), signalWordReference(string(w)); got != want {
			t.Fatalf("signalWord(%q) = %d, want %d", w, got, want)
		}
	})
}

func TestSignalTables(t *testing.T) {
	for _, tab := range []*scoreTable{signalWords, signalPairs} {
		for w, score := range tab.scores {
			a, b, pair := strings.Cut(w, " ")
			if pair {
				if got := pairScore([]byte(w), []byte(a), []byte(b)); got != score || signalPairReference(w) != score {
					t.Errorf("signalPair(%q) = %d, reference %d, want %d", w, got, signalPairReference(w), score)
				}
			} else if got := tableScore(signalWords, []byte(w)); got != score || signalWordReference(w) != score {
				t.Errorf("signalWord(%q) = %d, reference %d, want %d", w, got, signalWordReference(w), score)
			}
		}
	}
}

// tableScore and pairScore look words and phrases up through the filters.
func tableScore(t *scoreTable, w []byte) int8 {
	if len(w) == 0 || !t.mayHold(len(w), w[0], w[len(w)-1]) {
		return 0
	}
	return t.scores[string(w)]
}

func pairScore(p, a, b []byte) int8 {
	if !signalPairs.mayHold(len(a), a[0], a[len(a)-1]) || !signalPairs.maySecond(len(b), b[0]) {
		return 0
	}
	return signalPairs.scores[string(p)]
}

// rawSignalReference is rawSignal as first written: every word lower-cased
// into a buffer and looked up in the switches.
func rawSignalReference(line string) int {
	best := 0
	start := textkit.SkipANSI(line, 0)
	head := lineHead(line)
	if strings.HasPrefix(head, "$ ") {
		best = 1 // a command: a landmark, kept without context
	}
	if numberedItem(head) {
		best = 2
	}
	if best == 0 {
		// A diagnostic location first (src/a.c:12:5: note: ...): a file and
		// a line someone will open.
		end := strings.IndexAny(head, " \t")
		if end < 0 {
			end = len(head)
		}
		if hasFileLine(head[:end]) {
			best = 1
		}
	}
	var buf [32]byte // previous word, a space, this word
	var expect expectation
	prevLen := 0
	prevZero := false // the previous token was the number 0
	marks := false    // the line holds a byte that may start a mark
	for i := start; i < len(line); {
		c := line[i]
		if !isLetter(c) {
			switch {
			case c == 0x1b:
				i = textkit.SkipANSI(line, i)
				continue
			case textkit.IsDigit(c):
				e := textkit.DigitRun(line, i)
				if compilerCode(line, i, e) {
					return 3
				}
				prevZero = e-i == 1 && c == '0' && (e == len(line) || !isLetter(line[e]))
				i = e
				prevLen = 0
				continue
			case c >= 0x80 || c == '*' || c == '!' || c == '-':
				marks = true
			}
			if c != ' ' {
				// "0 errors" counts, "Errors: 0, Skipped: 2" does not carry over.
				prevZero = false
			}
			i++
			continue
		}
		e := i
		for e < len(line) && (isLetter(line[e]) || line[e] == '_') {
			e++
		}
		n := e - i
		if n > 15 {
			n = 15
		}
		long := e-i > 15 && !inPath(line, i, e) && errorTypeName(line[i:e])
		if prevLen > 16 {
			prevLen = 0
		}
		w := buf[prevLen+1 : prevLen+1+n]
		for k := range w {
			w[k] = lower(line[i+k])
		}
		s := int8(0)
		if e-i <= 15 && !inPath(line, i, e) {
			s = wordSignalReference(w, line[i:e])
		} else if inPath(line, i, e) && i > 0 && line[i-1] == '.' && errorTypeName(line[i:e]) {
			s = 3
		}
		if long {
			s = 3
		}
		if s == 0 && prevLen > 0 {
			buf[prevLen] = ' '
			s = signalPairReference(string(buf[:prevLen+1+n]))
		}
		if s > 0 && (prevZero || zeroAfter(line, e) || noBefore(buf[:prevLen])) {
			s = 0
		}
		if int(s) > best {
			best = int(s)
			if best == 3 {
				return 3
			}
		}
		expect.see(line[i:min(e, i+15)])
		copy(buf[:], w)
		prevLen = n
		prevZero = false
		i = e
	}
	if expect.both() {
		return 3
	}
	if marks && signalOn(signalFailMark) {
		for _, m := range signalMarks {
			if strings.Contains(line, m) {
				return 3
			}
		}
	}
	if best < 3 && problemHeading(head) {
		return 3
	}
	return best
}

func wordSignalReference(w []byte, orig string) int8 {
	if s := signalWordReference(string(w)); s > 0 {
		return s
	}
	if len(w) > 5 && typeNameShape(orig) && len(orig) == len(w) && signalOn(signalErrorType) {
		for _, suf := range [...]string{"error", "exception", "failure", "failed"} {
			k := len(w) - len(suf)
			if k > 0 && string(w[k:]) == suf && orig[k] >= 'A' && orig[k] <= 'Z' {
				return 3
			}
		}
	}
	return 0
}

func FuzzRawSignal(f *testing.F) {
	for _, s := range []string{
		"2024-01-01 ERROR could not open file: no such file", "got 0 errors, failures: 0", "x AssertionError y",
		"pkg/errors -timeout", "without error", "Not Found", "exit  code 3", "$ make all", "1) Foo::bar",
		"src/a.c:12:5: note: x", "✖ failed", "a_error TestFailure RuntimeException", "WARN: couldn't connect; can't",
		"PacketResponder 1 for block blk_38865049064139660 terminating", "abcdefghijklmnopqrstuvwxyz error",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if got, want := rawSignal(line), rawSignalReference(line); got != want {
			t.Fatalf("rawSignal(%q) = %d, want %d", line, got, want)
		}
	})
}

// TestAppendWarningTemplate checks the run-copying template against the
// byte-at-a-time statement of the rule, on generated warning lines.
func TestAppendWarningTemplate(t *testing.T) {
	plain := func(line string) string {
		var b []byte
		quote := byte(0)
		for i := 0; i < len(line); i++ {
			switch c := line[i]; {
			case quote != 0:
				if c == quote {
					quote = 0
					b = append(b, c)
				}
			case c == '\'' || c == '`' || c == '"':
				quote = c
				b = append(b, c)
			case c >= '0' && c <= '9':
				if len(b) == 0 || b[len(b)-1] != '0' {
					b = append(b, '0')
				}
			default:
				b = append(b, c)
			}
		}
		return string(b)
	}
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 5000; n++ {
		b := make([]byte, r.IntN(60))
		for i := range b {
			b[i] = "ab 0912'`\"x:\xff"[r.IntN(13)]
		}
		if got, want := string(appendWarningTemplate(nil, string(b))), plain(string(b)); got != want {
			t.Fatalf("appendWarningTemplate(%q) = %q, want %q", b, got, want)
		}
	}
	if got := string(appendWarningTemplate(nil, "main.c:12:5: warning: unused variable 'tmp' [-Wunused]")); got != "main.c:0:0: warning: unused variable '' [-Wunused]" {
		t.Errorf("compiler warning template = %q", got)
	}
}

// TestKeywordsRareFailureKeepsContext: a rare record that reports a
// failure keeps its context, as any failure does; its signal is read even
// though rarity alone keeps the line (keywords defers that read until a
// fold is possible).
func TestKeywordsRareFailureKeepsContext(t *testing.T) {
	var b strings.Builder
	failures := map[int]bool{20: true, 45: true}
	for i := 0; i < 70; i++ {
		if failures[i] {
			fmt.Fprintf(&b, "2024-03-01 10:%02d:%02d ERROR disk sdb failed: I/O error\n", i/60, i%60)
			continue
		}
		fmt.Fprintf(&b, "2024-03-01 10:%02d:%02d INFO heartbeat ok seq=%d\n", i/60, i%60, 1000+i)
	}
	in := b.String()
	out, err := NewKeywords(DefaultKeywordsOptions()).Apply(context.Background(), Input{Text: in, Kind: KindLog})
	if err != nil {
		t.Fatal(err)
	}
	if out.Skipped || out.Text == in {
		t.Fatalf("nothing folded: %q", out.Text)
	}
	for i := range failures {
		// The line before each failure, and the one after.
		for _, at := range []int{i - 1, i + 1} {
			want := fmt.Sprintf("seq=%d\n", 1000+at)
			if !strings.Contains(out.Text, want) {
				t.Errorf("context line %d of the failure at %d folded:\n%s", at, i, out.Text)
			}
		}
	}
	if strings.Contains(out.Text, "seq=1005\n") {
		t.Errorf("a heartbeat far from any failure was kept:\n%s", out.Text)
	}
}

// TestQuietOutputKeepsItsEnds: output in which no line says anything
// (a clean build's progress, a listing, a package install) keeps its
// first and last lines around one marker, whatever its dialect and
// length, rather than a marker for the whole text.
func TestQuietOutputKeepsItsEnds(t *testing.T) {
	dialects := map[string]func(i int) string{
		"compile": func(i int) string { return fmt.Sprintf("  CC      drivers/net/eth%d.o", i) },
		"listing": func(i int) string {
			return fmt.Sprintf("-rw-r--r-- 1 app app %6d Mar %2d 10:%02d report-%04d.csv", 1000+i*37, 1+i%28, i%60, i)
		},
		"install": func(i int) string { return fmt.Sprintf("Setting up libpkg%d (1.%d.%d-1) ...", i, i%7, i%3) },
		"sync":    func(i int) string { return fmt.Sprintf("assets/img/photo_%05d.jpg", i*13) },
	}
	opt := DefaultKeywordsOptions()
	for name, line := range dialects {
		for _, n := range []int{30, 300, 3000} {
			lines := make([]string, n)
			for i := range lines {
				lines[i] = line(i)
			}
			in := strings.Join(lines, "\n") + "\n"
			out := applyNodeAs(t, NewKeywords(opt), in, KindLog, in)
			want := strings.Join(lines[:opt.Before], "\n") + "\n" + foldMarker(n-opt.Before-opt.After, keywordsFolded) + "\n" +
				strings.Join(lines[n-opt.After:], "\n") + "\n"
			if out != want {
				t.Errorf("%s, %d lines: want its ends around one marker, got:\n%.600s", name, n, out)
			}
		}
	}
}
