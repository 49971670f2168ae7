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

var refRe = regexp.MustCompile(` · ref ([0-9a-f]+):L(\d+)-(\d+)\]`)

// markerCount is the N a marker states ("[... N lines folded…"), or 0.
var markerCountRe = regexp.MustCompile(`^\[\.\.\. (\d+) (?:lines?|rows?) `)

// TestAddRefsTilesTheOriginal: with only FitBudget folding, kept lines and
// referenced ranges tile the original exactly, in order.
func TestAddRefsTilesTheOriginal(t *testing.T) {
	for seed := range uint64(5) {
		text, _ := genServiceLog(seed, 1500)
		for _, budget := range []int{100, 700, 3000} {
			folded, _ := FitBudget(text, budget, stages.KindLog)
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
	folded, _ := FitBudget(text, 100, stages.KindLog)
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
