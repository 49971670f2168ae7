package stages

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// defaultChain runs every default-on node but the LLM, in pipeline order,
// as the algorithmic pipeline does.
func defaultChain(t testing.TB, text string) string {
	t.Helper()
	kind, original := Detect(text), text
	for _, k := range []Key{KeyStructured, KeyDedup, KeyWhitespace, KeyLogDedup, KeyNearDup,
		KeyNumberNormalize, KeyKeywords, KeyHeadTail} {
		n, err := New(k, DefaultOptions(), Deps{})
		if err != nil {
			t.Fatal(err)
		}
		text = applyNodeAs(t, n, text, kind, original) // the analysis of the original, as the pipeline gives it
	}
	return text
}

// looseText is score.py's loose(): digit runs and placeholders such as
// <N> read as one token, white space runs as one space.
var (
	loosePlaceholder = regexp.MustCompile(`<(?:\*|[A-Za-z_]{1,12})>|\d+`)
	looseSpace       = regexp.MustCompile(`\s+`)
)

func looseText(s string) string {
	return strings.TrimSpace(looseSpace.ReplaceAllString(loosePlaceholder.ReplaceAllString(s, "0"), " "))
}

// keptLoosely reports whether reason survives in out as the scorer reads it.
func keptLoosely(out, reason string) bool {
	return strings.Contains(looseText(out), looseText(reason))
}

const reprosDir = "../../shared/repros/logs"

func readRepro(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(reprosDir, name))
	if err != nil {
		t.Skipf("repro %s absent (../shared not here): %v", name, err)
	}
	return string(b)
}

// Regression tests for the build-output repros: each is a class of lost
// failure, and each is also generated below in other dialects.
func TestBuildRepros(t *testing.T) {
	t.Run("a list under a heading, no failure words", func(t *testing.T) {
		out := defaultChain(t, readRepro(t, "E_reason_no_keywords.log"))
		want := "Needs attention:\n  - 404 https://example.org/gone (in intro.md)\n" +
			"  - 301 https://example.org/old -> https://example.org/new (in setup.md)\n"
		if !strings.Contains(out, want) {
			t.Errorf("the list is lost:\n%s", out)
		}
	})
	t.Run("a formatter diff far above the exit", func(t *testing.T) {
		in := readRepro(t, "E2_diff_reason.log")
		out := defaultChain(t, in)
		start := strings.Index(in, "==== please apply")
		end := strings.LastIndex(in, " #+BEGIN_SRC shell\n") + len(" #+BEGIN_SRC shell\n")
		if start < 0 || end <= start || !strings.Contains(out, in[start:end]) {
			t.Errorf("the diff is not kept whole:\n%s", out)
		}
	})
	t.Run("[-] is no failure mark", func(t *testing.T) {
		out := defaultChain(t, readRepro(t, "F_dash_mark.log"))
		if strings.Contains(out, "[-] reused") {
			t.Errorf("noise kept as a failure:\n%s", out)
		}
	})
}

// The six error lines planted in 50,000 lines of build noise (the
// generator in the repros README).
func TestBuildSixPlantedErrors(t *testing.T) {
	planted := []string{"java.lang.OutOfMemoryError: Java heap space", "ModuleNotFoundError: No module named x",
		"ERROR: 0xC0000005", "Error: deployment was not successful", "health check failed: expected status ok",
		"ERROR db connection lost"}
	lines := make([]string, 0, 50000+len(planted))
	for i := 0; i < 50000; i++ {
		lines = append(lines, fmt.Sprintf("Compiling module_%d (step %d)", i%7, i))
	}
	for k, e := range planted {
		at := 5000 + 8000*k
		lines = append(lines[:at], append([]string{e}, lines[at:]...)...)
	}
	in := strings.Join(lines, "\n") + "\n"
	out := defaultChain(t, in)
	for _, e := range planted {
		if !strings.Contains(out, e+"\n") {
			t.Errorf("planted error lost: %q", e)
		}
	}
	if len(out) > len(in)/20 {
		t.Errorf("noise not folded: %d of %d bytes kept", len(out), len(in))
	}
}

// Failure shapes a build can end in. Each has its reason somewhere other
// words cannot find.
var failureShapes = []struct {
	name   string
	reason func(r *rand.Rand) string
	// after: benign lines the tool prints after the reason; afterLine
	// writes them (artifact uploads when nil).
	after     int
	afterLine func(i int) string
}{
	{"exception", func(r *rand.Rand) string {
		var b strings.Builder
		b.WriteString("Traceback (most recent call last):\n")
		for i := 0; i < 3+r.Intn(20); i++ {
			fmt.Fprintf(&b, "  File \"/srv/app/mod%d.py\", line %d, in step_%d\n    value = step_%d(value)\n", i, 10+r.Intn(400), i, i+1)
		}
		b.WriteString("SystemExit: configuration section 'storage' is empty\n")
		return b.String()
	}, 2, nil},
	{"assertion diff", func(r *rand.Rand) string {
		n := 10 + r.Intn(90)
		return fmt.Sprintf("  ● totals › sums the invoice lines\n\n    expect(received).toEqual(expected) // deep equality\n\n"+
			"    - Expected  - 1\n    + Received  + 1\n\n      Object {\n    -   \"total\": %d,\n    +   \"total\": %d,\n      }\n", n, n+2)
	}, 6, nil},
	{"lint list", func(r *rand.Rand) string {
		var b strings.Builder
		b.WriteString("Found 3 issues:\n")
		for i := 0; i < 3; i++ {
			fmt.Fprintf(&b, "  internal/store/file%d.go:%d:%d: ineffectual assignment to tmp%d (ineffassign)\n", i, 10+r.Intn(300), 1+r.Intn(20), i)
		}
		return b.String()
	}, 3, nil},
	{"formatter diff", func(r *rand.Rand) string {
		return "Run the formatter to apply these changes:\n" +
			"diff --git a/src/lib.rs b/src/lib.rs\n--- a/src/lib.rs\n+++ b/src/lib.rs\n" +
			fmt.Sprintf("@@ -%d,3 +%d,3 @@ impl Store {\n", 10+r.Intn(90), 10+r.Intn(90)) +
			"     fn open(&self) {\n-        let x=1;\n+        let x = 1;\n     }\n"
	}, 4, nil},
	{"exit with the reason 20 lines above", func(r *rand.Rand) string {
		return fmt.Sprintf("deploy: target cluster prod-eu-%d has room for 2 of 3 replicas\n", r.Intn(9))
	}, 20, nil},
	{"test reporter marks", func(r *rand.Rand) string {
		return fmt.Sprintf("  ✓ renders the header (%dms)\n  ✗ renders the footer with the year %d (%dms)\n", r.Intn(40), 2000+r.Intn(30), r.Intn(40))
	}, 300, func(i int) string { return "  ✓ " + testName(i) }},
	{"merge conflict", func(r *rand.Rand) string {
		return fmt.Sprintf("Auto-merging src/store%d.go\nCONFLICT (content): Merge conflict in src/store%d.go\n", r.Intn(9), r.Intn(9))
	}, 150, func(i int) string { return "Removing " + strings.ReplaceAll(testName(i), " ", "_") + ".tmp" }},
	{"compiler code", func(r *rand.Rand) string {
		return fmt.Sprintf("src/app.ts(%d,5): TS2322: Type 'string' is not assignable to type 'number'.\n", 10+r.Intn(200))
	}, 150, func(i int) string { return fmt.Sprintf("Check time (%s): 0.%02ds", testName(i), i%100) }},
	{"timeout", func(r *rand.Rand) string {
		return fmt.Sprintf("Timeout: service db did not become healthy after %ds\n", 60+r.Intn(240))
	}, 3, nil},
}

// testName is the i-th of 400 distinct test names, words rather than
// numbers, so that no template miner folds them together.
func testName(i int) string {
	verbs := strings.Fields("renders parses loads saves sorts merges splits signs checks opens closes sends reads writes maps finds counts hides shows moves")
	nouns := strings.Fields("header footer sidebar invoice ledger cart order token session cookie avatar badge chart table legend tooltip modal banner menu toast")
	return verbs[i%len(verbs)] + " the " + nouns[i/len(verbs)%len(nouns)]
}

// buildDialect writes a build log in one CI system's dialect: steps that
// pass, with their noise, then the failing step.
type buildDialect struct {
	name string
	// step writes one step: its header, its output lines, its exit status.
	step func(b *strings.Builder, name string, out []string, exit int)
	// prefix is what the system writes before every output line.
	prefix string
}

// ghStamp is the time stamp GitHub Actions writes before every line, as
// the scorer reads it (every digit run is one token).
const ghStamp = "2024-05-01T10:00:00.1234567Z "

var buildDialects = []buildDialect{
	{"github actions", func(b *strings.Builder, name string, out []string, exit int) {
		ts := func() string { // the clock moves with the output
			n := b.Len()
			return fmt.Sprintf("2024-05-01T10:%02d:%02d.%07dZ ", n/600000%60, n/10000%60, n%10000000)
		}
		fmt.Fprintf(b, "%s##[group]Run %s\n%s  shell: /usr/bin/bash -e {0}\n%s##[endgroup]\n", ts(), name, ts(), ts())
		for _, l := range out {
			b.WriteString(ts() + l + "\n")
		}
		if exit != 0 {
			fmt.Fprintf(b, "%s##[error]Process completed with exit code %d.\n", ts(), exit)
		}
	}, ghStamp},
	{"gitlab", func(b *strings.Builder, name string, out []string, exit int) {
		fmt.Fprintf(b, "section_start:1714557600:%s\r\x1b[0K\x1b[0;m$ %s\n", strings.ReplaceAll(name, " ", "_"), name)
		for _, l := range out {
			b.WriteString(l + "\n")
		}
		fmt.Fprintf(b, "section_end:1714557660:%s\r\x1b[0K\n", strings.ReplaceAll(name, " ", "_"))
		if exit != 0 {
			fmt.Fprintf(b, "\x1b[31;1mERROR: Job failed: exit code %d\n\x1b[0;m\n", exit)
		}
	}, ""},
	{"travis", func(b *strings.Builder, name string, out []string, exit int) {
		fmt.Fprintf(b, "travis_time:start:0a1b2c3d\r\x1b[0K$ %s\n", name)
		for _, l := range out {
			b.WriteString(l + "\n")
		}
		color := "32"
		if exit != 0 {
			color = "31"
		}
		fmt.Fprintf(b, "travis_time:end:0a1b2c3d:start=1,finish=2,duration=1\r\x1b[0K\x1b[%s;1mThe command \"%s\" exited with %d.\x1b[0m\n", color, name, exit)
	}, ""},
	{"jenkins", func(b *strings.Builder, name string, out []string, exit int) {
		fmt.Fprintf(b, "[Pipeline] stage\n[Pipeline] { (%s)\n[Pipeline] sh\n+ %s\n", name, name)
		for _, l := range out {
			b.WriteString(l + "\n")
		}
		b.WriteString("[Pipeline] }\n[Pipeline] // stage\n")
		if exit != 0 {
			fmt.Fprintf(b, "ERROR: script returned exit code %d\nFinished: FAILURE\n", exit)
		}
	}, ""},
	{"buildkite", func(b *strings.Builder, name string, out []string, exit int) {
		fmt.Fprintf(b, "--- :hammer: %s\n$ %s\n", name, name)
		for _, l := range out {
			b.WriteString(l + "\n")
		}
		if exit != 0 {
			fmt.Fprintf(b, "🚨 Error: The command exited with status %d\n^^^ +++\n", exit)
		}
	}, ""},
	{"plain tools", func(b *strings.Builder, name string, out []string, exit int) {
		// make, go test, pytest, mvn, cargo and npm, run by hand: banners
		// and their own exit reports, no CI markers.
		fmt.Fprintf(b, "make[1]: Entering directory '/src/%s'\n", strings.ReplaceAll(name, " ", "-"))
		for _, l := range out {
			b.WriteString(l + "\n")
		}
		fmt.Fprintf(b, "make[1]: Leaving directory '/src/%s'\n", strings.ReplaceAll(name, " ", "-"))
		if exit != 0 {
			fmt.Fprintf(b, "make: *** [Makefile:12: %s] Error %d\n", strings.Fields(name)[0], exit)
		}
	}, ""},
}

// toolNoise is the output of tools that work: downloads, compiles, passing
// tests, in the forms the common tools print.
func toolNoise(r *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		switch r.Intn(6) {
		case 0:
			out[i] = fmt.Sprintf("Downloading https://repo.example.org/lib%d-%d.%d.jar (%d kB at %d kB/s)", r.Intn(300), r.Intn(9), r.Intn(17), r.Intn(900), r.Intn(5000))
		case 1:
			out[i] = fmt.Sprintf("   Compiling crate_%d v0.%d.%d", r.Intn(200), r.Intn(9), r.Intn(30))
		case 2:
			out[i] = fmt.Sprintf("ok  \tgithub.com/acme/svc/pkg%d\t0.%03ds", r.Intn(90), r.Intn(999))
		case 3:
			out[i] = fmt.Sprintf("tests/test_mod%d.py::test_case_%d PASSED", r.Intn(40), r.Intn(500))
		case 4:
			out[i] = fmt.Sprintf("[INFO] Building module-%d 1.0-SNAPSHOT [%d/40]", r.Intn(40), r.Intn(40))
		default:
			out[i] = fmt.Sprintf("added %d packages from %d contributors in %d.%ds", r.Intn(900), r.Intn(300), r.Intn(60), r.Intn(9))
		}
	}
	return out
}

// generatedBuildLog writes a failed build in a dialect with a failure of a
// shape, and returns it with the reason that must survive.
func generatedBuildLog(d buildDialect, shapeIndex int, seed int64) (log, reason string) {
	r := rand.New(rand.NewSource(seed))
	shape := failureShapes[shapeIndex]
	var b strings.Builder
	for _, s := range []string{"npm ci", "go build ./...", "mvn -q install -DskipTests"} {
		d.step(&b, s, toolNoise(r, 150+r.Intn(150)), 0)
	}
	reason = shape.reason(r)
	out := toolNoise(r, 100+r.Intn(200))
	reasonLines := strings.Split(strings.TrimSuffix(reason, "\n"), "\n")
	out = append(out, reasonLines...)
	for i := range reasonLines {
		reasonLines[i] = d.prefix + reasonLines[i]
	}
	reason = strings.Join(reasonLines, "\n")
	for i := 0; i < shape.after; i++ {
		if shape.afterLine != nil {
			out = append(out, shape.afterLine(i))
		} else {
			out = append(out, fmt.Sprintf("Uploading artifact part %d of %d", i+1, shape.after))
		}
	}
	d.step(&b, "make test", out, 1+r.Intn(3))
	return b.String(), reason
}

// A failed build in each dialect, with each shape of failure: the reason
// is kept, and the passing steps fold.
func TestBuildDialects(t *testing.T) {
	for di, d := range buildDialects {
		for si, shape := range failureShapes {
			t.Run(d.name+"/"+shape.name, func(t *testing.T) {
				for seed := int64(0); seed < 3; seed++ {
					in, reason := generatedBuildLog(d, si, int64(di*100+si*10)+seed)
					out := defaultChain(t, in)
					if !keptLoosely(out, reason) {
						t.Fatalf("seed %d: reason lost:\n%s\n--- output:\n%s", seed, reason, out)
					}
					if len(out) > len(in)/4 {
						t.Errorf("seed %d: %d of %d bytes kept: the passing steps did not fold", seed, len(out), len(in))
					}
				}
			})
		}
	}
}

func TestFindSteps(t *testing.T) {
	for _, d := range buildDialects {
		in, _ := generatedBuildLog(d, 0, 1)
		x := textkit.NewLineIndex(in)
		steps := findSteps(x)
		var passed, failed int
		for _, s := range steps {
			switch {
			case s.failed():
				failed++
			case s.succeeded():
				passed++
			}
		}
		if failed != 1 {
			t.Errorf("%s: %d failing steps, want 1 (%d steps)", d.name, failed, len(steps))
		}
		if d.name == "travis" && passed != 3 {
			t.Errorf("%s: %d passing steps, want 3", d.name, passed)
		}
	}
	for _, tc := range []struct {
		line string
		code int
		ok   bool
	}{
		{"\x1b[31;1mThe command \"npm test\" exited with 1.\x1b[0m", 1, true},
		{"2024-05-01T10:00:00.1234567Z ##[error]Process completed with exit code 2.", 2, true},
		{"ERROR: Job failed: exit code 137", 137, true},
		{"ERROR: script returned exit code 2", 2, true},
		{"🚨 Error: The command exited with status 1", 1, true},
		{"exit status 0", 0, true},
		{"Exiting the loop", 0, false},
		{"Done. Your build exited with 1.", 0, false},
		{"make: *** [Makefile:12: test] Error 2", 2, true},
		{"[INFO] BUILD FAILURE", 1, true},
	} {
		code, ok := exitStatus(tc.line)
		if code != tc.code || ok != tc.ok {
			t.Errorf("exitStatus(%q) = %d, %v; want %d, %v", tc.line, code, ok, tc.code, tc.ok)
		}
	}
	for _, l := range []string{"--- a/src/lib.rs", "+++ b/src/lib.rs", "--- /dev/null", "--- FAIL: TestParse (0.00s)", "----- Captured stdout -----"} {
		if stepHeader(l) {
			t.Errorf("%q read as a step header", l)
		}
	}
	for _, l := range []string{"--- :hammer: Build", "+++ Test", "$ make test", "travis_fold:start:install\r\x1b[0K$ npm ci",
		"2024-05-01T10:00:00.1234567Z ##[group]Run npm test", "section_start:1714557600:step_script\r\x1b[0K", "[Pipeline] { (Build)",
		"make[1]: Entering directory '/src'", "> app@1.0.0 test", "> Task :app:test", "[INFO] --- surefire:3.2.5:test (default-test) @ app ---"} {
		if !stepHeader(l) {
			t.Errorf("%q not read as a step header", l)
		}
	}
}

// ciLabel is one line of the sample CI corpus's labels.jsonl.
type ciLabel struct {
	File   string `json:"file"`
	Reason string `json:"failure_reason"`
}

const ciCorpusDir = "../../shared/corpus/ci_buildlogs_logchunks"

func readCILabels(t testing.TB) []ciLabel {
	f, err := os.Open(filepath.Join(ciCorpusDir, "labels.jsonl"))
	if err != nil {
		t.Skipf("sample CI corpus absent (../shared not here): %v", err)
	}
	defer f.Close()
	var labels []ciLabel
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var l ciLabel
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		labels = append(labels, l)
	}
	return labels
}

// Every labelled failure reason of the sample CI logs survives, read as
// score.py reads it.
func TestCICorpusReasonsKept(t *testing.T) {
	labels := readCILabels(t)
	in, out := 0, 0
	for _, l := range labels {
		b, err := os.ReadFile(filepath.Join(ciCorpusDir, l.File))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ToValidUTF8(string(b), "\uFFFD")
		got := defaultChain(t, text)
		in, out = in+Chars(text), out+Chars(got)
		if !keptLoosely(got, l.Reason) {
			t.Errorf("%s: the labelled reason is lost", l.File)
		}
	}
	t.Logf("%d logs, ratio %.4f", len(labels), float64(out)/float64(max(in, 1)))
}

// Steps that passed fold to their header; a step that passed but printed
// a failure report stays open, and so does prose in a failing build only
// when it reports a failure.
func TestStepsFold(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	noise := func() []string { return toolNoise(r, 40) }
	var b strings.Builder
	travis := buildDialects[2]
	travis.step(&b, "npm ci", noise(), 0)
	travis.step(&b, "npm run lint", append(noise(), "FAILED lint/rules.js: 3 problems", "see above"), 0)
	b.WriteString("$ cat /etc/sudoers.d/notes\n")
	for _, l := range noise() {
		b.WriteString(l + "\n")
	}
	b.WriteString("Allow some information gathering to give useful error messages\n")
	travis.step(&b, "npm test", append(noise(), "the reason, in plain words"), 1)
	out := applyNode(t, NewKeywords(DefaultKeywordsOptions()), b.String(), KindLog)
	for _, want := range []string{"$ npm ci\n[... ", "FAILED lint/rules.js: 3 problems", "$ cat /etc/sudoers.d/notes\n[... ", "the reason, in plain words"} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "useful error messages") {
		t.Errorf("prose mentioning an error held a step open:\n%s", out)
	}
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"CMake Error at CMakeLists.txt:45 (include):", true},
		{"E: Unable to locate package libfoo", true},
		{"npm ERR! Test failed.", true},
		{"java.lang.OutOfMemoryError: Java heap space", true},
		{"  ✗ renders the footer", true},
		{"Allow some information gathering to give useful error messages", false},
		{"checking whether toupper is broken... no", false},
	} {
		if got := lineSignal(tc.line) >= 3 && reportsFailure(tc.line); got != tc.want {
			t.Errorf("reportsFailure(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

// number_normalize leaves the failing step's tail as it is: times, ids and
// counts in a reason are facts.
func TestNumberNormalizeLeavesFailingTail(t *testing.T) {
	const uuid = "3f2a9c1e-7b4d-4e2a-9f1c-5d6e7a8b9c0d"
	in := "2024-05-01T10:00:01.1234567Z ##[group]Run npm ci\n" +
		"2024-05-01T10:00:02.1234567Z added 1234 packages in 56789 ms\n" +
		"2024-05-01T10:00:03.1234567Z The command exited with status 0\n" +
		"2024-05-01T10:00:04.1234567Z ##[group]Run ./deploy\n" +
		"2024-05-01T10:00:05.1234567Z rollout " + uuid + " stalled at 1440 of 2000 pods\n" +
		"2024-05-01T10:00:06.1234567Z ##[error]Process completed with exit code 1.\n"
	out := applyNode(t, NewNumberNormalize(DefaultNumberNormalizeOptions()), in, KindLog)
	if !strings.Contains(out, "rollout "+uuid+" stalled at 1440 of 2000 pods") {
		t.Errorf("the failing step's reason was rewritten:\n%s", out)
	}
}

// Whole regions: a traceback to its final exception line, a Java trace
// through its Caused by: chain, a diff to its last hunk; a region longer
// than the budget folds from its middle and keeps its end.
func TestKeywordsRegions(t *testing.T) {
	node := NewKeywords(DefaultKeywordsOptions())
	noise := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "Downloading package-%d (%d kB)\n", i, i*7)
		}
		return b.String()
	}
	var tb strings.Builder
	tb.WriteString("Traceback (most recent call last):\n")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&tb, "  File \"/srv/m%d.py\", line %d, in f%d\n    f%d()\n", i, i+1, i, i+1)
	}
	tb.WriteString("SystemExit: 2\n")
	java := "java.lang.IllegalStateException: pool closed\n\tat a.B.c(B.java:1)\n\tat a.B.d(B.java:2)\n" +
		"Caused by: java.net.SocketTimeoutException: connect timed out\n\tat x.Y.z(Y.java:3)\n\t... 12 more\n"
	var db strings.Builder
	db.WriteString("Please apply the following changes:\n")
	for f := 0; f < 4; f++ {
		fmt.Fprintf(&db, "diff --git a/f%d.go b/f%d.go\n--- a/f%d.go\n+++ b/f%d.go\n@@ -1,3 +1,3 @@\n context\n-old%d\n+new%d\n", f, f, f, f, f, f)
	}
	for _, tc := range []struct{ name, region string }{
		{"traceback", tb.String()},
		{"java trace", java},
		{"diff", db.String()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := applyNode(t, node, noise(30)+tc.region+noise(30), KindLog)
			if !strings.Contains(out, tc.region) {
				t.Errorf("region not kept whole:\n%s", out)
			}
		})
	}
	t.Run("over budget, folded from the middle", func(t *testing.T) {
		opt := DefaultKeywordsOptions()
		opt.Continuation = 20
		var b strings.Builder
		b.WriteString("AssertionError: trees differ\n")
		for i := 0; i < 200; i++ {
			fmt.Fprintf(&b, "    node %d: {kind: leaf}\n", i)
		}
		b.WriteString("    end of tree\n")
		out := applyNode(t, NewKeywords(opt), noise(30)+b.String()+"plain line one\nplain line two\n"+noise(30), KindLog)
		for _, want := range []string{"AssertionError: trees differ\n", "    node 0: {kind: leaf}\n", "    end of tree\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("lost %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "    node 100: ") {
			t.Errorf("the middle of an over-budget region was kept:\n%s", out)
		}
	})
}

// A long listing after an earlier key line spends that line's budget, not
// the reason's: the list under a problem heading further down survives.
func TestSeparateBudgets(t *testing.T) {
	var b strings.Builder
	b.WriteString("$ ./tools/linkcheck docs/\nwarning: 400 links to check, this may take a while\n")
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&b, "  %d. https://example.org/%s\n", i+1, strings.ReplaceAll(testName(i), " ", "/"))
	}
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "checked batch %d\n", i)
	}
	reason := "Needs attention:\n  - 404 https://example.org/gone (in intro.md)\n  - 301 https://example.org/old (in setup.md)\n"
	b.WriteString(reason)
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "Saved report part %d to linkcheck-%d.json\n", i, i)
	}
	b.WriteString("The command \"./tools/linkcheck docs/\" exited with 1.\n")
	out := applyNode(t, NewKeywords(DefaultKeywordsOptions()), b.String(), KindLog)
	if !strings.Contains(out, reason) {
		t.Errorf("the reason lost behind a long listing:\n%s", out)
	}
	if strings.Contains(out, "Saved report part 20 ") {
		t.Errorf("noise after the reason kept beyond the tail budget:\n%s", out)
	}
}
