package stages

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Helpers shared by the tests of the log-oriented nodes, and the tests of
// textutil.go itself.

// applyNode runs node the way the pipeline does: fenced code is stashed
// into placeholder lines first and restored after.
func applyNode(t testing.TB, node Node, text string, kind Kind) string {
	t.Helper()
	return applyNodeAs(t, node, text, kind, text)
}

// applyNodeAs is applyNode with the log analysis of original, as the
// pipeline hands a node the analysis of the document it came from: an
// idempotence check runs a node again on its output with the analysis of
// its input.
func applyNodeAs(t testing.TB, node Node, text string, kind Kind, original string) string {
	t.Helper()
	masked, stash := Protect(text)
	in := Input{Text: masked, Kind: kind, Mode: ModeAlgorithmic, Log: logs.Analyze(original)}
	out, err := node.Apply(context.Background(), in)
	if err != nil {
		t.Fatalf("%s: %v", node.Key(), err)
	}
	restored, ok := stash.Restore(out.Text)
	if !ok {
		t.Fatalf("%s lost or repeated a protected region", node.Key())
	}
	return restored
}

// kindOf reads a kind from a golden file name (name.transcript.input) and
// detects it otherwise.
func kindOf(name, text string) Kind {
	base := strings.TrimSuffix(filepath.Base(name), ".input")
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		if k := ParseKind(base[i+1:]); k != "" {
			return k
		}
	}
	return Detect(text)
}

// runGolden checks every testdata/<dir>/*.input against its .golden, and
// that the node run again on the golden changes nothing (idempotence).
func runGolden(t *testing.T, node Node, dir string, update bool) {
	t.Helper()
	inputs, err := filepath.Glob(filepath.Join("testdata", dir, "*.input"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) == 0 {
		t.Fatalf("no golden inputs in testdata/%s", dir)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			kind := kindOf(in, text)
			got := applyNode(t, node, text, kind)
			golden := strings.TrimSuffix(in, ".input") + ".golden"
			if update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with the update flag)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s:\n%s", golden, firstDiff(got, string(want)))
			}
			if again := applyNodeAs(t, node, got, kind, text); again != got {
				t.Errorf("not idempotent on %s:\n%s", golden, firstDiff(again, got))
			}
			for _, block := range fencedBlocks(text) {
				if !strings.Contains(got, block) {
					t.Errorf("fenced block lost:\n%s", block)
				}
			}
		})
	}
}

// firstDiff shows the first differing line of got and want.
func firstDiff(got, want string) string {
	g, w := splitLines(got), splitLines(want)
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return "(equal)"
}

// fencedBlocks returns the complete ``` blocks of text.
func fencedBlocks(text string) []string {
	var blocks []string
	lines := splitLines(text)
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == "```" {
				blocks = append(blocks, joinLines(lines[i:j+1]))
				i = j
				break
			}
		}
	}
	return blocks
}

// checkConformance runs the invariants every node owes on inputs: valid
// UTF-8 out, idempotence, fenced code kept, input returned when the node
// skips, safety for concurrent use, and cancellation honoured.
func checkConformance(t *testing.T, node Node, inputs map[string]string) {
	t.Helper()
	for name, text := range inputs {
		t.Run(name, func(t *testing.T) {
			kind := kindOf(name+".input", text)
			once := applyNode(t, node, text, kind)
			if !utf8.ValidString(once) {
				t.Fatal("invalid UTF-8 out")
			}
			if twice := applyNodeAs(t, node, once, kind, text); twice != once {
				t.Fatalf("not idempotent:\n%s", firstDiff(twice, once))
			}
			for _, block := range fencedBlocks(text) {
				if !strings.Contains(once, block) {
					t.Fatalf("fenced block lost:\n%s", block)
				}
			}
			out, err := node.Apply(context.Background(), Input{Text: text, Kind: kind})
			if err != nil {
				t.Fatal(err)
			}
			if out.Skipped && out.Text != text {
				t.Fatal("skipped but changed the text")
			}
			// Concurrent runs agree with each other.
			var wg sync.WaitGroup
			results := make([]string, 4)
			for i := range results {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					o, _ := node.Apply(context.Background(), Input{Text: text, Kind: kind})
					results[i] = o.Text
				}(i)
			}
			wg.Wait()
			for _, r := range results {
				if r != out.Text {
					t.Fatal("concurrent runs disagree")
				}
			}
		})
	}
	t.Run("canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for name, text := range inputs {
			out, err := node.Apply(ctx, Input{Text: text, Kind: kindOf(name+".input", text)})
			if err == nil && out.Text != text {
				t.Errorf("%s: worked on a canceled context", name)
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("%s: error %v does not wrap context.Canceled", name, err)
			}
		}
	})
}

func TestIsLogRecord(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"2015-10-18 18:01:47,978 INFO [main] started", true},
		{"081109 203615 148 INFO dfs.DataNode: done", true},
		{"17/06/09 20:10:40 INFO spark.SecurityManager: ok", true},
		{"Jun 14 15:16:01 combo sshd(pam_unix)[19939]: failure", true},
		{"Jul  8 04:04:19 combo su(pam_unix)[14943]: session opened", true},
		{"[Sun Dec 04 04:47:44 2005] [notice] workerEnv.init() ok", true},
		{"- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 RAS KERNEL INFO ok", true},
		{"APPREAD 1117869872 2005.06.04 R04-M1-N4 RAS APP FATAL ciod", true},
		{"[10.30 16:49:06] chrome.exe - proxy.example:5070 open", true},
		{"I0607 12:34:56.789012 1 main.go:12] started", true},
		{"ERROR: something broke", true},
		{"[warn] deprecated flag", true},
		{"\x1b[0m[\x1b[0m\x1b[31merror\x1b[0m] compile failed", true},
		{"<N> <N> 148 INFO dfs.DataNode: done", true},
		{"IE 9.0.0 (Windows 7.0.0): Executed 50 of 220", false},
		{"Boost version: 1.54.0", false},
		{"    at org.example.Main.run(Main.java:12)", false},
		{"The quick brown fox.", false},
		{"error: linker failed", false},
		{"", false},
	} {
		if got := textkit.IsLogRecord(tc.line); got != tc.want {
			t.Errorf("IsLogRecord(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

func TestCountSuffix(t *testing.T) {
	for _, tc := range []struct {
		line string
		head string
		n    int
	}{
		{"a b [×57]", "a b", 57},
		{"a b", "a b", 1},
		{"a b [×1]", "a b [×1]", 1},
		{"a b [×x]", "a b [×x]", 1},
		{"[×3]", "[×3]", 1},
		{" [×3]", "", 3},
	} {
		head, n := logs.SplitCount(tc.line)
		if head != tc.head || n != tc.n {
			t.Errorf("SplitCount(%q) = %q, %d; want %q, %d", tc.line, head, n, tc.head, tc.n)
		}
	}
	if got := logs.WithCount("x", 12); got != "x [×12]" {
		t.Errorf("WithCount = %q", got)
	}
	if got := logs.WithCount("x", 1); got != "x" {
		t.Errorf("WithCount(1) = %q", got)
	}
}

func TestParseFoldMarker(t *testing.T) {
	for _, tc := range []struct {
		line string
		n    int
	}{
		{foldMarker(1, "folded"), 1},
		{foldMarker(42, "folded by keywords"), 42},
		{"[... many lines ...]", 0},
		{"text", 0},
	} {
		if got := textkit.ParseFoldMarker(tc.line); got != tc.n {
			t.Errorf("ParseFoldMarker(%q) = %d, want %d", tc.line, got, tc.n)
		}
	}
}

func TestStripANSI(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[1;31merror\x1b[0m: x": "error: x",
		"plain":                     "plain",
		"\x1b[0K$ make":             "$ make",
		"a\x1b[":                    "a",
	} {
		if got := stripANSI(in); got != want {
			t.Errorf("stripANSI(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzLogNodes: the log-oriented nodes never panic, emit valid UTF-8, keep
// fenced code, never grow a text by more than their counts and markers,
// and are idempotent.
func FuzzLogNodes(f *testing.F) {
	for _, s := range logInputs() {
		if len(s) > 4096 {
			s = s[:4096]
		}
		f.Add(s)
	}
	f.Add("2024-01-01 10:00:00 INFO a [×3]\n2024-01-01 10:00:01 INFO a [×x]\n[... 2 lines folded ...]\n")
	f.Add("\x1b[31merror\x1b[0m: x\n    at y (z.js:1:2)\n\n\x1b[")
	nodes := []Node{
		NewLogDedup(DefaultLogDedupOptions()),
		NewNearDup(DefaultNearDupOptions()),
		NewKeywords(DefaultKeywordsOptions()),
		NewNumberNormalize(DefaultNumberNormalizeOptions()),
		NewHeadTail(HeadTailOptions{MinLines: 20, HeadLines: 3, TailLines: 5, MiddleSignals: 2, Kinds: []Kind{KindLog}}),
	}
	f.Fuzz(func(t *testing.T, text string) {
		text = strings.ToValidUTF8(text, "\uFFFD")
		for _, kind := range []Kind{KindLog, KindProse, KindTranscript, Detect(text)} {
			for _, node := range nodes {
				once := applyNode(t, node, text, kind)
				if !utf8.ValidString(once) {
					t.Fatalf("%s: invalid UTF-8", node.Key())
				}
				if twice := applyNodeAs(t, node, once, kind, text); twice != once {
					t.Fatalf("%s/%s not idempotent on %q:\n%s", node.Key(), kind, text, firstDiff(twice, once))
				}
				for _, block := range fencedBlocks(text) {
					if !strings.Contains(once, block) {
						t.Fatalf("%s: fenced block lost", node.Key())
					}
				}
			}
		}
	})
}
