package pipeline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// commandTable is a table written as command output writes it: column
// names over columns aligned with blanks, names left-aligned and numbers
// right-aligned (df, ps, kubectl get, docker stats).
type commandTable struct {
	header []string
	rows   [][]string
	gap    int
	rule   bool // a row of dashes under the header (kubectl describe's events)
}

// csv writes the table as CSV, md as a Markdown table.
func (c commandTable) csv() string {
	var b strings.Builder
	b.WriteString(strings.Join(c.header, ",") + "\n")
	for _, r := range c.rows {
		b.WriteString(strings.Join(r, ",") + "\n")
	}
	return b.String()
}

func (c commandTable) md() string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(c.header, " | ") + " |\n|" + strings.Repeat(" --- |", len(c.header)) + "\n")
	for _, r := range c.rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

func (c commandTable) String() string {
	width := make([]int, len(c.header))
	numeric := make([]bool, len(c.header))
	for j, h := range c.header {
		width[j] = len(h)
		numeric[j] = j > 0
	}
	for _, r := range c.rows {
		for j, v := range r {
			width[j] = max(width[j], len(v))
			if v == "" || v[0] < '0' || v[0] > '9' {
				numeric[j] = false
			}
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		var l strings.Builder
		for j, v := range cells {
			if j > 0 {
				l.WriteString(strings.Repeat(" ", c.gap))
			}
			switch {
			case numeric[j]:
				fmt.Fprintf(&l, "%*s", width[j], v)
			case j < len(cells)-1:
				fmt.Fprintf(&l, "%-*s", width[j], v)
			default:
				l.WriteString(v)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	line(c.header)
	if c.rule {
		dashes := make([]string, len(c.header))
		for j, h := range c.header {
			dashes[j] = strings.Repeat("-", len(h))
		}
		line(dashes)
	}
	for _, r := range c.rows {
		line(r)
	}
	return b.String()
}

// randomCommandTable builds a table of n rows, row i named
// "<prefix>-<i>" in its first column, with numeric columns drawn evenly
// or normally, and the rows in spikes far above the others in column
// spikeCol (0 for none).
func randomCommandTable(r *rand.Rand, n int, spikes map[int]bool, spikeCol int) commandTable {
	names := []string{"Size", "Used", "Avail", "Use%", "%CPU", "%MEM", "RSS", "RESTARTS", "AGE", "CONNS", "QPS", "LAG", "P99"}
	r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	cols := 2 + r.IntN(4)
	header := []string{[]string{"NAME", "Filesystem", "POD", "SERVICE"}[r.IntN(4)]}
	header = append(header, names[:cols]...)
	header = append(header, []string{"Mounted on", "STATUS", "NODE", "COMMAND"}[r.IntN(4)])
	units := make([]string, cols)
	normal := make([]bool, cols) // else even; a long tail has spikes of its own
	for k := range cols {
		units[k] = []string{"", "", "G", "%", "ms", "d"}[r.IntN(6)]
		normal[k] = r.IntN(2) == 0
	}
	prefix := []string{"api", "vol", "worker", "db", "café", "naïve…"}[r.IntN(6)] // a character past ASCII is one column
	t := commandTable{header: header, gap: 2 + r.IntN(2), rule: r.IntN(3) == 0}
	for i := range n {
		row := []string{fmt.Sprintf("%s-%d", prefix, i)}
		for k := range cols {
			v := 10 + r.Float64()*50
			if normal[k] {
				v = math.Max(1, 40+r.NormFloat64()*8)
			}
			if k+1 == spikeCol && spikes[i] {
				v = 300 + r.Float64()*200
			}
			row = append(row, fmt.Sprintf("%d%s", int(v), units[k]))
		}
		row = append(row, []string{"/mnt/data", "Running", "node-a", "nginx: worker"}[r.IntN(4)])
		t.rows = append(t.rows, row)
	}
	return t
}

// TestAlignedTableSpikesShown: a table folds to its edges, and the rows
// far above the others in a numeric column (a disk at 100%, a process at
// 98% of a CPU) stay, for any column names, units, widths and places, as
// a command's aligned output (df, ps, kubectl), or CSV or Markdown in a
// reply. Before, the layout read an aligned table's numeric columns as a
// log's header and folded every row into one template, and CSV and
// Markdown tables kept only their edges.
func TestAlignedTableSpikesShown(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for doc := range 60 {
		n := 20 + r.IntN(400)
		spikes := map[int]bool{}
		for range 1 + r.IntN(3) {
			spikes[4+r.IntN(n-8)] = true
		}
		tbl := randomCommandTable(r, n, spikes, 1+r.IntN(2))
		// A document of CSV or Markdown rows is a log's events as often
		// (log_dedup keeps each kind of row); in prose, structured folds
		// them as tables.
		text, out, ratio := tbl.String(), "", 0.0
		switch doc % 3 {
		case 0:
			if doc%2 == 0 {
				// A command's own lines first, a clock among them (top).
				text = "top - 10:01:02 up 12 days,  3:04,  1 user,  load average: 3.10, 2.90, 2.50\nTasks: 212 total,   2 running\n\n" + text
			}
			out, ratio = compactLog(t, text)
		case 1:
			text, out, ratio = foldProseTable(t, tbl.csv())
		default:
			text, out, ratio = foldProseTable(t, tbl.md())
		}
		for i := range spikes {
			if name := tbl.rows[i][0]; !containsWord(out, name) {
				t.Errorf("doc %d: the spike in row %s is gone:\n%s\n%s", doc, name, out, text[:min(len(text), 600)])
			}
		}
		if n > 100 && ratio > 0.3 {
			t.Errorf("doc %d: %d rows, ratio %.3f", doc, n, ratio)
		}
	}
}

// TestAlignedTableWithoutSpikes: columns drawn evenly or normally show
// no row between the table's edges but the first of each value of its
// category column (the last one: four values), and a line after the
// table counts those values.
func TestAlignedTableWithoutSpikes(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	for doc := range 30 {
		n := 30 + r.IntN(400)
		tbl := randomCommandTable(r, n, nil, 0)
		out, _ := compactLog(t, tbl.String())
		counts := map[string]int{}
		for i, row := range tbl.rows {
			v := row[len(row)-1]
			first := counts[v] == 0
			counts[v]++
			if i < 3 || i >= n-3 {
				continue
			}
			if shown := containsWord(out, row[0]); shown != first {
				t.Errorf("doc %d: row %s (%q, the first of its value: %v) shown: %v:\n%s", doc, row[0], v, first, shown, out)
			}
		}
		for v, c := range counts {
			if !strings.Contains(out, fmt.Sprintf("%s ×%d", v, c)) {
				t.Errorf("doc %d: the count of %q (%d) is not said:\n%s", doc, v, c, out)
			}
		}
		if strings.Contains(out, "- ×") {
			t.Errorf("doc %d: the header's rule counted as a row:\n%s", doc, out)
		}
	}
}

// foldProseTable runs structured on table within prose.
func foldProseTable(t *testing.T, table string) (text, out string, ratio float64) {
	t.Helper()
	text = "Here is the current state of the fleet, as the tool returned it.\n\n" + table +
		"\nLet me know which of these you want me to look into first.\n"
	o, err := stages.NewStructured(stages.DefaultStructuredOptions()).Apply(context.Background(), stages.Input{Text: text, Kind: stages.KindProse})
	if err != nil {
		t.Fatal(err)
	}
	return text, o.Text, float64(len(o.Text)) / float64(len(text))
}

// containsWord reports whether w occurs in s, not inside a longer word.
func containsWord(s, w string) bool {
	for off := 0; ; {
		k := strings.Index(s[off:], w)
		if k < 0 {
			return false
		}
		k += off
		end := k + len(w)
		if (k == 0 || !isWordByte(s[k-1])) && (end == len(s) || !isWordByte(s[end])) {
			return true
		}
		off = k + 1
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
