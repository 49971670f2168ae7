package pipeline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// boxTableText writes rows as a database shell does: psql (a header, a
// rule of '-' and '+', a row count) or MySQL (borders of '+' and '-').
func boxTableText(header []string, rows [][]string, mysql bool) string {
	width := make([]int, len(header))
	for j, h := range header {
		width[j] = len(h)
	}
	for _, r := range rows {
		for j, v := range r {
			width[j] = max(width[j], len(v))
		}
	}
	cells := func(r []string) string {
		parts := make([]string, len(r))
		for j, v := range r {
			parts[j] = " " + v + strings.Repeat(" ", width[j]-len(v)) + " "
		}
		if mysql {
			return "|" + strings.Join(parts, "|") + "|"
		}
		return strings.Join(parts, "|")
	}
	dashes := make([]string, len(header))
	for j := range header {
		dashes[j] = strings.Repeat("-", width[j]+2)
	}
	var b strings.Builder
	if mysql {
		border := "+" + strings.Join(dashes, "+") + "+"
		b.WriteString(border + "\n" + cells(header) + "\n" + border + "\n")
		for _, r := range rows {
			b.WriteString(cells(r) + "\n")
		}
		fmt.Fprintf(&b, "%s\n%d rows in set (0.02 sec)\n", border, len(rows))
		return b.String()
	}
	b.WriteString(cells(header) + "\n" + strings.Join(dashes, "+") + "\n")
	for _, r := range rows {
		b.WriteString(cells(r) + "\n")
	}
	fmt.Fprintf(&b, "(%d rows)\n", len(rows))
	return b.String()
}

// TestBoxTableKeepsOutliers: a query result as psql or MySQL prints it,
// alone or in a reply, folds to its edges and keeps the row of a spike
// and the first row of each rare status; alone it is no log (whose
// templates merged the rows and the spike with them).
func TestBoxTableKeepsOutliers(t *testing.T) {
	r := rand.New(rand.NewPCG(101, 102))
	for doc := range 40 {
		n := 40 + r.IntN(300)
		header := []string{"id", []string{"name", "login", "host"}[r.IntN(3)], "state", []string{"balance", "latency_ms", "bytes"}[r.IntN(3)]}
		spike := 5 + r.IntN(n-10)
		rare := map[string]int{}
		var rows [][]string
		for i := range n {
			state := "active"
			if r.IntN(25) == 0 {
				state = []string{"locked", "suspended"}[r.IntN(2)]
				if _, ok := rare[state]; !ok {
					rare[state] = i
				}
			}
			v := fmt.Sprintf("%.2f", 10+r.Float64()*90)
			if i == spike {
				v = fmt.Sprintf("%.2f", 50000+r.Float64()*9000)
			}
			rows = append(rows, []string{fmt.Sprint(1000 + i), fmt.Sprintf("u%04d", r.IntN(10000)), state, v})
		}
		table := boxTableText(header, rows, doc%2 == 1)
		text := table
		if doc%4 >= 2 {
			text = "Here is what the query returned.\n\n" + table + "\nShould I look into any of these accounts?\n"
		} else if k := stages.Detect(text); k != stages.KindProse {
			t.Errorf("doc %d: a query result read as %s", doc, k)
		}
		out, _ := compactLog(t, text)
		keep := []int{spike}
		for _, i := range rare {
			keep = append(keep, i)
		}
		for _, i := range keep {
			if !containsWord(out, rows[i][0]) {
				t.Errorf("doc %d: row %s (%s, %s) is gone:\n%s", doc, rows[i][0], rows[i][2], rows[i][3], out)
			}
		}
		if !strings.Contains(out, header[3]) {
			t.Errorf("doc %d: the header is gone:\n%s", doc, out)
		}
		if n > 100 && len(out)*4 > len(text) {
			t.Errorf("doc %d: %d rows kept %d of %d bytes", doc, n, len(out), len(text))
		}
	}
}
