package stages

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// genTable writes a table of n body rows in one of three dialects, with a
// status column among plain ones (or none), and plants the given rows.
// It returns the text, its body rows, and the kind to fold it as.
type tableGen struct {
	dialect string // csv, tsv, markdown
	status  string // the status column's name, "" for none
	common  []string
	planted map[int]string // body row -> its status (or verdict) cell
	n       int
}

func (g tableGen) render(r *rand.Rand) (text string, body []string, kind Kind) {
	names := []string{"id", "host", "region", "latency_ms"}
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	col := r.IntN(len(names) + 1) // where the status (or verdict) cell goes
	header := slices.Insert(slices.Clone(names), col, g.status)
	if g.status == "" {
		header[col] = "note"
	}
	row := func(i int) []string {
		cells := make([]string, len(names))
		for k, name := range names {
			switch name {
			case "id":
				cells[k] = strconv.Itoa(i)
			case "host":
				cells[k] = fmt.Sprintf("web-%d", r.IntN(9))
			case "region":
				cells[k] = []string{"eu", "us", "ap"}[r.IntN(3)]
			default:
				cells[k] = strconv.Itoa(1 + r.IntN(900))
			}
		}
		v := g.common[r.IntN(len(g.common))]
		if p, ok := g.planted[i]; ok {
			v = p
		}
		return slices.Insert(cells, col, v)
	}
	join := func(cells []string) string {
		switch g.dialect {
		case "tsv":
			return strings.Join(cells, "\t")
		case "markdown":
			return "| " + strings.Join(cells, " | ") + " |"
		}
		return strings.Join(cells, ",")
	}
	var b strings.Builder
	b.WriteString(join(header) + "\n")
	if g.dialect == "markdown" {
		b.WriteString(strings.Repeat("|---", len(header)) + "|\n")
	}
	for i := range g.n {
		body = append(body, join(row(i)))
		b.WriteString(body[i] + "\n")
	}
	b.WriteString("\nThe table above lists what the job saw.\n")
	kind = KindProse
	if g.dialect == "markdown" && r.IntN(2) == 0 {
		kind = KindLog // in a log only a Markdown table with a leading pipe folds
	}
	return b.String(), body, kind
}

var foldedRows = regexp.MustCompile(`^(?:\[\.\.\.|\| \.\.\.) (\d+) rows folded \.\.\.(?:\]| \|)$`)

// checkTableFold checks that out keeps body's rows in order, that every
// row of want is among them, and that the markers count the rest. It
// returns the rows shown.
func checkTableFold(t *testing.T, label, out string, body []string, want []int) []int {
	t.Helper()
	lines := strings.Split(out, "\n")
	at, kept, folded := 0, 0, 0
	var shown []int
	for _, l := range lines {
		if m := foldedRows.FindStringSubmatch(l); m != nil {
			k, _ := strconv.Atoi(m[1])
			folded += k
			at += k
			continue
		}
		if at < len(body) && l == body[at] {
			shown = append(shown, at)
			at++
			kept++
		}
	}
	if kept+folded != len(body) || at != len(body) {
		t.Fatalf("%s: %d rows kept and %d folded, in order, of %d:\n%s", label, kept, folded, len(body), out)
	}
	for _, i := range want {
		if !slices.Contains(shown, i) {
			t.Errorf("%s: row %d (%q) is not shown:\n%s", label, i, body[i], out)
		}
	}
	return shown
}

// TestTableOutliersShown: a folded table shows the rows a rare status
// value or a failure verdict sets apart, whatever the dialect, the
// column's place and name, and the table's length; a table without such
// rows shows between its edges only the first row of a category's value.
func TestTableOutliersShown(t *testing.T) {
	node := NewStructured(DefaultStructuredOptions())
	edge := DefaultStructuredOptions().TableEdgeRows
	r := rand.New(rand.NewPCG(41, 42))
	statusNames := []string{"status", "State", "result", "outcome", "level", "conclusion"}
	for doc := range 60 {
		dialect := []string{"csv", "tsv", "markdown"}[doc%3]
		n := 40 + r.IntN(1500) // a text of 1000 bytes at least (min_chars)
		g := tableGen{dialect: dialect, n: n, planted: map[int]string{}}
		var want []int
		plant := func(k int, v string) {
			for len(want) < k {
				if i := edge + r.IntN(n-2*edge); g.planted[i] == "" {
					g.planted[i] = v
					want = append(want, i)
				}
			}
		}
		switch doc % 4 {
		case 0, 1:
			// A status column: a rare value that need not say "failed".
			g.status = statusNames[r.IntN(len(statusNames))]
			g.common = []string{"ok"}
			k := 1 + r.IntN(4)
			if n < 50*k {
				plant(min(k, n/10), "FAILED") // short: only a verdict stands apart
			} else {
				plant(k, []string{"cancelled", "FAILED", "WARN", "skipped"}[r.IntN(4)])
			}
		case 2:
			// No status column: a verdict cell in a column of notes.
			g.common = []string{"-", "retried once", "cache warm"}
			plant(1+r.IntN(min(4, n/10)), []string{"FAILED", "error", "timeout"}[r.IntN(3)])
		case 3:
			// Nothing stands apart: notes that name an error in prose, a
			// status spread evenly.
			g.status = "status"
			g.common = []string{"ok", "queued", "running", "error in upstream - retried"}
		}
		text, body, kind := g.render(r)
		_, out := runStructured(t, node, text, kind)
		label := fmt.Sprintf("doc %d (%s, %d rows, status %q)", doc, dialect, n, g.status)
		shown := checkTableFold(t, label, out, body, want)
		if doc%4 == 3 {
			// Only the first row of a column's value, its category's.
			cells := map[string]func(string) []string{"csv": csvCells, "tsv": tsvCells, "markdown": markdownCells}[dialect]
			seen := map[string]bool{}
			for i, row := range body {
				first := false
				for j, c := range cells(row) {
					if k := fmt.Sprint(j, "=", strings.TrimSpace(c)); !seen[k] {
						seen[k], first = true, true
					}
				}
				if i >= edge && i < n-edge && slices.Contains(shown, i) && !first {
					t.Errorf("%s: nothing stands apart, yet row %d is shown:\n%s", label, i, out)
				}
			}
		}
		checkIdempotent(t, node, out, kind)
	}
}

// TestTableRarestOutliers: with more odd rows than a fold shows, the
// rarest are shown: the one row with its value before rows that share
// theirs with eight others.
func TestTableRarestOutliers(t *testing.T) {
	node := NewStructured(DefaultStructuredOptions())
	r := rand.New(rand.NewPCG(43, 44))
	for doc := range 20 {
		n := 1000 + r.IntN(2000)
		g := tableGen{dialect: []string{"csv", "tsv", "markdown"}[doc%3], n: n, status: "status", common: []string{"ok"}, planted: map[int]string{}}
		for len(g.planted) < 9 {
			g.planted[3+r.IntN(n/2)] = "skipped" // nine, early
		}
		lone := n/2 + r.IntN(n/2-3)
		g.planted[lone] = "cancelled" // one, late
		text, body, kind := g.render(r)
		_, out := runStructured(t, node, text, kind)
		shown := checkTableFold(t, fmt.Sprintf("doc %d", doc), out, body, []int{lone})
		got := 0
		for _, i := range shown {
			if g.planted[i] == "skipped" {
				got++
			}
		}
		if got != maxTableOutliers-1 {
			t.Errorf("doc %d: %d of the nine shown, want %d", doc, got, maxTableOutliers-1)
		}
	}
}
