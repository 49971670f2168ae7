package htmlreport

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCountLineListsTheLinesOfItsTemplate: a log_dedup count line with a
// reference opens onto the lines of its range that share its template
// (numbers, hex, placeholders and slot values differ), not the others.
func TestCountLineListsTheLinesOfItsTemplate(t *testing.T) {
	templates := []func(r *rand.Rand) string{
		func(r *rand.Rand) string { return fmt.Sprintf("worker %d done in %dms", r.IntN(99), r.IntN(999)) },
		func(r *rand.Rand) string {
			return fmt.Sprintf("CE sym %d, at 0x%08x, mask 0x%02x", r.IntN(9), r.Uint32(), r.IntN(255))
		},
		func(r *rand.Rand) string {
			return fmt.Sprintf("Error loading %s: no such file", []string{"/p/gb/a", "./runtime", "/home/x/y"}[r.IntN(3)])
		},
		func(r *rand.Rand) string {
			return fmt.Sprintf("connection from 10.0.%d.%d closed", r.IntN(255), r.IntN(255))
		},
	}
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 7))
		var lines []string
		var which []int
		for range 300 {
			k := r.IntN(len(templates))
			lines = append(lines, templates[k](r))
			which = append(which, k)
		}
		for k := range templates {
			first := -1
			var want []int
			for i, w := range which {
				if w == k {
					if first < 0 {
						first = i
					}
					want = append(want, i+1)
				}
			}
			kept := lines[first]
			// The kept line as number_normalize may leave it.
			kept = strings.Replace(kept, "0x", "0x<N>", 1)
			if len(kept) > 0 && strings.Contains(kept, "0x<N>") {
				kept = kept[:strings.Index(kept, "0x<N>")+5] + kept[strings.Index(kept, "0x<N>")+5+8:]
			}
			count := fmt.Sprintf(" [×%d; loading: 3 distinct (/p/gb/a, ./runtime, …) · ref 0123abcd:L%d-300]", len(want), first+1)
			f, ok := parseFold(kept+count, "0123abcd99", newOriginal(lines, []string{kept + count}))
			if !ok || !f.Template {
				t.Fatalf("seed %d: %q not read as a count line", seed, kept+count)
			}
			var got []int
			for _, rg := range f.Lines {
				for n := rg[0]; n <= rg[1]; n++ {
					got = append(got, n)
				}
			}
			if f.Matched != len(want) || fmt.Sprint(got) != fmt.Sprint(want[:min(len(want), maxTemplateLines)]) {
				t.Fatalf("seed %d template %d (%q): matched %d lines %v, want %v", seed, k, kept, f.Matched, got, want)
			}
		}
	}
}

func TestCountLineListIsCapped(t *testing.T) {
	var lines []string
	for i := range 1000 {
		lines = append(lines, fmt.Sprintf("tick %d", i))
	}
	f, ok := parseFold("tick 0 [×1000 · ref abcdef12:L1-1000]", "abcdef1234", newOriginal(lines, nil))
	if !ok || f.Matched != 1000 || f.Count() != maxTemplateLines || f.More() != 1000-maxTemplateLines {
		t.Fatalf("matched %d, listed %d, more %d", f.Matched, f.Count(), f.More())
	}
}

func TestForeignOrOutOfRangeReferencesDoNotOpen(t *testing.T) {
	lines := strings.Split("a\nb\nc", "\n")
	for _, l := range []string{
		"[... 2 lines folded · ref ffffffff:L1-2]", // another document
		"[... 9 lines folded · ref 0123abcd:L1-9]", // past the end
		"[... 0 lines folded · ref 0123abcd:L0-1]", // line 0
		"[... 2 lines folded · ref 0123abcd:L3-2]", // backwards
	} {
		if _, ok := parseFold(l, "0123abcd5678", newOriginal(lines, nil)); ok {
			t.Errorf("%q opens", l)
		}
	}
	f, ok := parseFold("[... 2 lines folded · ref 0123abcd:L2-3]", "0123abcd5678", newOriginal(lines, nil))
	if !ok || f.Spec() != "2-3" || f.Template {
		t.Errorf("a good reference: %+v %v", f, ok)
	}
}

func TestEmbedPlanKeepsTheLinesNearestKeptLines(t *testing.T) {
	var lines []string
	for i := range 10000 {
		lines = append(lines, fmt.Sprintf("line %05d", i+1)) // 11 bytes each with "\n"
	}
	folds := []*fold{{Lines: [][2]int{{2, 4999}}}, {Lines: [][2]int{{5001, 5010}}}, {Lines: [][2]int{{5012, 10000}}}}
	covered, depth, capped := embedPlan(lines, folds, 110000, 11*400)
	if !capped || depth == 0 {
		t.Fatalf("capped %v depth %d", capped, depth)
	}
	size := 0
	for _, r := range covered {
		size += (r[1] - r[0] + 1) * 11
	}
	if size > 11*400 {
		t.Errorf("%d bytes over the cap", size)
	}
	if !coveredAll(folds[1], covered) {
		t.Error("the small fold between kept lines is not whole")
	}
	for _, n := range []int{2, 4999, 5012, 10000} {
		if !coveredAll(&fold{Lines: [][2]int{{n, n}}}, covered) {
			t.Errorf("line %d, next to a kept line, is not embedded", n)
		}
	}
	if coveredAll(folds[0], covered) {
		t.Error("a fold larger than the cap is whole")
	}
	if c, _, capped := embedPlan(lines, folds, 110000, 1<<20); capped || len(c) != 1 || c[0] != [2]int{1, 10000} {
		t.Errorf("under the cap: %v %v", c, capped)
	}
}

// TestCountLineTellsLikeLinesApart: where a token with a digit as a whole
// value makes two templates one (a query with a number in it, a versioned
// path), the count's N picks the finer match, which lists only the lines
// of the count line's own template.
func TestCountLineTellsLikeLinesApart(t *testing.T) {
	var lines []string
	want := 0
	for i := range 400 {
		if i%9 == 4 {
			lines = append(lines, fmt.Sprintf(`10.0.0.%d - "GET /search?q=<script>alert(%d)</script> HTTP/1.1" 400 [req-%04x]`, i%250, i%7, i))
			want++
			continue
		}
		lines = append(lines, fmt.Sprintf(`10.0.0.%d - "GET /api/v1/users/%d HTTP/1.1" 200 [req-%04x]`, i%250, i, i))
	}
	kept := `10.0.0.4 - "GET /search?q=<script>alert(4)</script> HTTP/<N>" <N> [req-0004]`
	count := fmt.Sprintf(" [×%d; 10.0.0.4–10.0.0.247 · ref 0123abcd:L5-400]", want)
	f, ok := parseFold(kept+count, "0123abcd99", newOriginal(lines, []string{kept + count}))
	if !ok || !f.Template {
		t.Fatal("not read as a count line")
	}
	if f.Guess || f.Matched != want || f.Stated != want {
		t.Fatalf("matched %d of %d stated (guess %v)", f.Matched, f.Stated, f.Guess)
	}
	for _, r := range f.Lines {
		for n := r[0]; n <= r[1]; n++ {
			if !strings.Contains(lines[n-1], "/search?q=") {
				t.Fatalf("line %d listed: %q", n, lines[n-1])
			}
		}
	}
}

// TestCountLineNoMatchFindsIsAGuess: when no way of matching finds the N
// the count line states, the fold says it is a guess.
func TestCountLineNoMatchFindsIsAGuess(t *testing.T) {
	lines := []string{"worker 1 done", "worker 2 done", "cache miss", "worker 3 done"}
	f, ok := parseFold("worker 1 done [×9 · ref 0123abcd:L1-4]", "0123abcd99", newOriginal(lines, nil))
	if !ok || !f.Guess || f.Stated != 9 || f.Matched != 3 || f.Spec() != "1-2,4" {
		t.Fatalf("%+v %v", f, ok)
	}
	f, ok = parseFold("worker 1 done [×3 · ref 0123abcd:L1-4]", "0123abcd99", newOriginal(lines, nil))
	if !ok || f.Guess || f.Matched != 3 {
		t.Fatalf("an exact count is a guess: %+v %v", f, ok)
	}
}

// TestEmbedPlanKeepsACountLinesFirstRecords: under the cap a count line's
// scattered lines are cut to its first and last ones, not dropped whole.
func TestEmbedPlanKeepsACountLinesFirstRecords(t *testing.T) {
	var lines []string
	for i := range 1000 {
		lines = append(lines, fmt.Sprintf("line %05d", i+1)) // 11 bytes with "\n"
	}
	var scattered [][2]int
	for n := 1; n <= 1000; n += 10 {
		scattered = append(scattered, [2]int{n, n}) // 100 lines, one in ten
	}
	folds := []*fold{{Lines: scattered, Template: true}, {Lines: [][2]int{{2, 9}}}}
	covered, depth, capped := embedPlan(lines, folds, 11000, 11*20)
	if !capped || depth < 4 {
		t.Fatalf("capped %v depth %d", capped, depth)
	}
	for _, n := range []int{1, 11, 21, 31, 991, 2, 9} {
		if !coveredAll(&fold{Lines: [][2]int{{n, n}}}, covered) {
			t.Errorf("line %d is not embedded (depth %d, %v)", n, depth, covered)
		}
	}
	if coveredAll(&fold{Lines: [][2]int{{501, 501}}}, covered) {
		t.Error("a middle record is embedded over the cap")
	}
	got := appendEnds(nil, [][2]int{{1, 1}, {5, 5}, {9, 12}, {20, 20}}, 2)
	if fmt.Sprint(mergeRanges(got)) != "[[1 1] [5 5] [12 12] [20 20]]" {
		t.Errorf("ends: %v", got)
	}
}

// TestCountLineListsTheRecordsLogDedupCounted: in a log of records, a
// count line of merged variants (app names the page cannot tell apart
// from other words) lists exactly the records log_dedup counted, by its
// reference's first line, or, when that line is another template's, by
// the first template in the range that reads as the kept line.
func TestCountLineListsTheRecordsLogDedupCounted(t *testing.T) {
	var lines []string
	var want []int // 1-based lines of the variant template
	for i := range 60 {
		at := fmt.Sprintf("[11.30 10:%02d:%02d]", i/60, i%60)
		if i%3 == 0 {
			lines = append(lines, fmt.Sprintf("%s INFO job %d finished in %dms", at, i, i*7))
			continue
		}
		lines = append(lines, fmt.Sprintf("%s %c%c.exe - proxy.example.org:80 open through proxy HTTPS", at, 'a'+i%26, 'a'+i/26))
		want = append(want, len(lines))
	}
	kept := strings.Replace(lines[want[0]-1], ":80 ", ":<N> ", 1)
	for _, from := range []int{want[0], 1} {
		count := fmt.Sprintf(" [×%d; 40 distinct (ba.exe, ca.exe, …) · ref 0123abcd:L%d-60]", len(want), from)
		f, ok := parseFold(kept+count, "0123abcd99", newOriginal(lines, []string{kept + count}))
		if !ok || f.Guess || f.Matched != len(want) || f.Count() != len(want) {
			t.Fatalf("ref from line %d: %+v %v", from, f, ok)
		}
		var got []int
		for _, r := range f.Lines {
			for n := r[0]; n <= r[1]; n++ {
				got = append(got, n)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("ref from line %d lists %v, want %v", from, got, want)
		}
	}
}
