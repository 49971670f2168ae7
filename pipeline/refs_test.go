package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

var refRe = regexp.MustCompile(` · ref ([0-9a-f]+):L(\d+)-(\d+)(?:\]| \|)`)

// markerCount is the N a marker states ("[... N lines folded…"), or 0.
var markerCountRe = regexp.MustCompile(`^\[\.\.\. (\d+) (?:lines?|rows?) `)

// TestAddRefsTilesTheOriginal: with only FitBudget folding, kept lines and
// referenced ranges tile the original exactly, in order.
func TestAddRefsTilesTheOriginal(t *testing.T) {
	for seed := range uint64(5) {
		text, _ := genServiceLog(seed, 1500)
		for _, budget := range []int{100, 700, 3000} {
			folded, _ := FitBudget(text, budget, stages.KindLog, 0)
			out := AddRefs(text, folded, "abcd1234")
			orig := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
			next := 0
			for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if m := refRe.FindStringSubmatch(l); m != nil {
					a, _ := strconv.Atoi(m[2])
					b, _ := strconv.Atoi(m[3])
					if a != next+1 {
						t.Fatalf("seed %d budget %d: ref starts at L%d, want L%d: %q", seed, budget, a, next+1, l)
					}
					if c := markerCountRe.FindStringSubmatch(l); c != nil {
						if n, _ := strconv.Atoi(c[1]); n != b-a+1 {
							t.Fatalf("seed %d budget %d: marker says %d lines, ref covers %d: %q", seed, budget, n, b-a+1, l)
						}
					}
					next = b
					continue
				}
				if strings.HasPrefix(l, "[... ") {
					t.Fatalf("seed %d budget %d: marker without a ref: %q", seed, budget, l)
				}
				if next >= len(orig) || orig[next] != l {
					t.Fatalf("seed %d budget %d: kept line %q is not original line %d", seed, budget, l, next+1)
				}
				next++
			}
			if next != len(orig) {
				t.Fatalf("seed %d budget %d: tiled %d of %d lines", seed, budget, next, len(orig))
			}
		}
	}
}

// genBuildLog is build output: many passing steps, a failure somewhere,
// which keywords and headtail fold around.
func genBuildLog(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 11))
	var b strings.Builder
	fail := r.IntN(n)
	for i := range n {
		switch {
		case i == fail:
			fmt.Fprintf(&b, "FAIL: TestThing%d (0.%02ds)\n    thing_test.go:%d: expected %d, got %d\n", i, r.IntN(99), r.IntN(500), r.IntN(9), r.IntN(9))
		case r.IntN(5) == 0:
			fmt.Fprintf(&b, "=== RUN   TestStep%d\n", i)
		default:
			fmt.Fprintf(&b, "compiling module/pkg%d/file%d.go (%d bytes)\n", r.IntN(50), i, r.IntN(90000))
		}
	}
	return b.String()
}

// TestAddRefsAfterThePipeline: every marker the nodes and the budget
// leave gets a ref, and a marker that states a count of lines covers that
// many original lines. Generated logs, and the CI logs of ../shared when
// present.
func TestAddRefsAfterThePipeline(t *testing.T) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for seed := range uint64(4) {
		s, _ := genServiceLog(seed, 3000)
		docs = append(docs, genBuildLog(seed, 3000), s)
	}
	ci, _ := filepath.Glob("../../shared/corpus/ci_buildlogs_logchunks/logs/*.log")
	for _, f := range ci {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(raw))
	}
	if len(ci) == 0 {
		t.Log("../shared CI logs absent: generated logs only")
	}
	refs := 0
	for d, text := range docs {
		for _, budget := range []int{0, 400} {
			res, err := p.Run(context.Background(), Request{Text: text, BudgetTokens: budget})
			if err != nil {
				t.Fatal(err)
			}
			out := AddRefs(text, res.Text, "ff00ff00")
			nOrig := strings.Count(strings.TrimSuffix(text, "\n"), "\n") + 1
			for _, l := range strings.Split(out, "\n") {
				m := refRe.FindStringSubmatch(l)
				if m == nil {
					if foldMarkerLine(l) {
						t.Errorf("doc %d budget %d: marker without a ref: %q", d, budget, l)
					}
					continue
				}
				refs++
				a, _ := strconv.Atoi(m[2])
				b, _ := strconv.Atoi(m[3])
				if a < 1 || b < a || b > nOrig {
					t.Errorf("doc %d budget %d: bad range in %q (%d lines)", d, budget, l, nOrig)
				}
				// A count is of its node's input, after earlier nodes
				// removed lines: the original range is at least as long.
				if c := markerCountRe.FindStringSubmatch(l); c != nil && !strings.Contains(text, "\r") {
					if n, _ := strconv.Atoi(c[1]); n > b-a+1 {
						t.Errorf("doc %d budget %d: marker says %d lines, ref covers %d: %q", d, budget, n, b-a+1, l)
					}
				}
			}
		}
	}
	if refs == 0 {
		t.Fatal("no marker got a ref: nothing folded")
	}
}

func TestAddRefsOffWithoutID(t *testing.T) {
	text, _ := genServiceLog(1, 500)
	folded, _ := FitBudget(text, 100, stages.KindLog, 0)
	if AddRefs(text, folded, "") != folded {
		t.Error("refs added without an id")
	}
}

func TestAlignKeyMasksWhatNumberNormalizeRewrites(t *testing.T) {
	pairs := [][2]string{
		{"core.12345 at 0x1438f9e0", "core.<N> at 0x<N>"},
		{"took 1.5s  to load", "took 1.5s to load [×12; took: 1–9]"},
	}
	for _, p := range pairs {
		if alignKey(p[0]) != alignKey(p[1]) {
			t.Errorf("%q and %q differ: %q vs %q", p[0], p[1], alignKey(p[0]), alignKey(p[1]))
		}
	}
}

// genTemplatedLog is a log of records in one of several layouts, each
// record of one of a few templates named by a word only it holds.
func genTemplatedLog(seed uint64, n int, layout int) (string, []string) {
	r := rand.New(rand.NewPCG(seed, 23))
	words := []string{"accepted", "heartbeat", "evicted", "rotated"}
	var b strings.Builder
	for i := range n {
		w := words[r.IntN(len(words))]
		if r.IntN(9) == 0 {
			w = words[0]
		}
		msg := fmt.Sprintf("%s session %d for user%d from 10.0.%d.%d", w, r.IntN(99999), r.IntN(50), r.IntN(9), r.IntN(250))
		switch layout {
		case 0:
			fmt.Fprintf(&b, "2026-03-01T10:%02d:%02d.%03dZ INFO %s\n", i/60%60, i%60, r.IntN(1000), msg)
		case 1:
			fmt.Fprintf(&b, "Mar  1 10:%02d:%02d host%d sshd[%d]: %s\n", i/60%60, i%60, r.IntN(3), r.IntN(9000), msg)
		case 2:
			fmt.Fprintf(&b, "{\"ts\":%d,\"level\":\"info\",\"msg\":%q}\n", 1700000000+i, msg)
		default:
			fmt.Fprintf(&b, "%d %s [worker-%d] %s\n", 1700000000000+i*37, "INFO", r.IntN(4), msg)
		}
	}
	return b.String(), words
}

// TestCountLineRefsCoverTheirTemplate: every count line " [×N…]" carries
// a ref that starts at its head's record and ends at a record of the same
// template, and the count lines and kept
// lines of a template together cover every original record of it.
func TestCountLineRefsCoverTheirTemplate(t *testing.T) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	countRef := regexp.MustCompile(` \[×\d+[^\]]* · ref ([0-9a-f]+):L(\d+)-(\d+)\]$`)
	for layout := range 4 {
		for seed := range uint64(3) {
			text, words := genTemplatedLog(seed, 1200, layout)
			res, err := p.Run(context.Background(), Request{Text: text})
			if err != nil {
				t.Fatal(err)
			}
			out := AddRefs(text, res.Text, "0a0b0c0d")
			orig := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
			covered := map[string][]bool{}
			for _, w := range words {
				covered[w] = make([]bool, len(orig))
			}
			counts := 0
			for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				w := ""
				for _, x := range words {
					if strings.Contains(l, x) {
						w = x
					}
				}
				if strings.Contains(l, " [×") {
					m := countRef.FindStringSubmatch(l)
					if m == nil {
						t.Fatalf("layout %d seed %d: count line without a ref: %q", layout, seed, l)
					}
					counts++
					a, _ := strconv.Atoi(m[2])
					b, _ := strconv.Atoi(m[3])
					if a < 1 || b < a || b > len(orig) {
						t.Fatalf("layout %d seed %d: bad range in %q", layout, seed, l)
					}
					if w == "" || !strings.Contains(orig[a-1], w) || !strings.Contains(orig[b-1], w) {
						t.Fatalf("layout %d seed %d: ref spans %q..%q, not records of %q", layout, seed, orig[a-1], orig[b-1], l)
					}
					for k := a - 1; k < b; k++ {
						covered[w][k] = true
					}
					continue
				}
				if w != "" {
					for k, o := range orig {
						if o == l {
							covered[w][k] = true
						}
					}
				}
			}
			if counts == 0 {
				t.Fatalf("layout %d seed %d: no count lines:\n%s", layout, seed, out)
			}
			for k, o := range orig {
				for _, w := range words {
					if strings.Contains(o, w+" ") && !covered[w][k] {
						t.Fatalf("layout %d seed %d: line %d %q is in no ref of its template", layout, seed, k+1, o)
					}
				}
			}
		}
	}
}

// TestTableMarkerRefs: a Markdown table's "| ... N rows folded ... |"
// carries a ref to exactly the N rows it stands for.
func TestTableMarkerRefs(t *testing.T) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 5))
	for _, rows := range []int{60, 400} {
		var b strings.Builder
		b.WriteString("The nodes, as the scheduler saw them this morning, in one table:\n\n| node | load | state |\n|---|---|---|\n")
		for i := range rows {
			fmt.Fprintf(&b, "| node-%c%c | %d.%d%% | %s |\n", 'a'+rune(i%26), 'a'+rune(i/26%26), r.IntN(99), r.IntN(9), []string{"ok", "degraded", "draining"}[r.IntN(3)])
		}
		b.WriteString("\nThat is all the scheduler reported before it went quiet again.\n")
		text := b.String()
		res, err := p.Run(context.Background(), Request{Text: text, Kind: stages.KindProse})
		if err != nil {
			t.Fatal(err)
		}
		out := AddRefs(text, res.Text, "1234abcd")
		m := regexp.MustCompile(`\| \.\.\. (\d+) rows folded · ref 1234abcd:L(\d+)-(\d+) \|`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("%d rows: no table marker with a ref:\n%s", rows, out)
		}
		n, _ := strconv.Atoi(m[1])
		a, _ := strconv.Atoi(m[2])
		z, _ := strconv.Atoi(m[3])
		folded, err := Lines(text, a, z)
		if err != nil || z-a+1 != n {
			t.Fatalf("%d rows: ref L%d-%d for %d rows: %v", rows, a, z, n, err)
		}
		for _, row := range strings.Split(strings.TrimSuffix(folded, "\n"), "\n") {
			if !strings.HasPrefix(row, "| node-") || strings.Contains(out, row) {
				t.Fatalf("%d rows: the ref covers %q, not a folded row", rows, row)
			}
		}
	}
}

// TestTableMarkerRefsAcrossLookalikeRows: a table's kept row that differs
// from its neighbours only in its numbers (the spike of a numeric column)
// and in its blanks (whitespace collapsed the alignment) aligns at the
// row the marker before it counts to, so that both markers get the rows
// they stand for.
func TestTableMarkerRefsAcrossLookalikeRows(t *testing.T) {
	var orig strings.Builder
	orig.WriteString("USER   PID  %CPU\n")
	for i := range 40 {
		cpu := "0.5"
		if i == 20 {
			cpu = "98.7"
		}
		fmt.Fprintf(&orig, "www   %d  %4s\n", 1000+i, cpu)
	}
	compacted := "USER PID %CPU\nwww 1000 0.5\n[... 19 rows folded ...]\nwww 1020 98.7\n[... 18 rows folded ...]\nwww 1039 0.5\n"
	got := AddRefs(orig.String(), compacted, "abc")
	for _, want := range []string{"[... 19 rows folded · ref abc:L3-21]", "[... 18 rows folded · ref abc:L23-40]"} {
		if !strings.Contains(got, want) {
			t.Errorf("want %q in:\n%s", want, got)
		}
	}
}
