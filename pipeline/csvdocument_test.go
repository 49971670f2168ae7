package pipeline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// TestDelimitedDocumentIsTable: a CSV or TSV file of data, sent alone,
// is a table, whatever opens its rows (an id, a number, a name): it folds
// to its edges and keeps the rows with a spike in a numeric column. Read
// as a log, its rows merged into templates and the spikes went with them.
func TestDelimitedDocumentIsTable(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	for doc := range 40 {
		n := 30 + r.IntN(400)
		spikes := map[int]bool{}
		for range 1 + r.IntN(3) {
			spikes[4+r.IntN(n-8)] = true
		}
		tbl := randomCommandTable(r, n, spikes, 1+r.IntN(2))
		if doc%3 == 0 {
			for i := range tbl.rows {
				tbl.rows[i][0] = fmt.Sprint(100000 + i) // an id first, as a number
			}
		}
		text := tbl.csv()
		if doc%2 == 1 {
			text = strings.ReplaceAll(text, ",", "\t")
		}
		if k := stages.Detect(text); k != stages.KindProse {
			t.Errorf("doc %d: read as %s", doc, k)
		}
		out, ratio := compactLog(t, text)
		for i := range spikes {
			if name := tbl.rows[i][0]; !containsWord(out, name) {
				t.Errorf("doc %d: the spike in row %s is gone:\n%s", doc, name, out)
			}
		}
		if n > 100 && ratio > 0.3 {
			t.Errorf("doc %d: %d rows, ratio %.3f", doc, n, ratio)
		}
	}
}

// TestLogExportedAsCSVStaysLog: a log exported as CSV, a message column
// among its fields, is events: log_dedup groups them by what they say.
func TestLogExportedAsCSVStaysLog(t *testing.T) {
	var b strings.Builder
	b.WriteString("LineId,Date,Time,Level,Component,Content\n")
	msgs := []string{"Receiving block blk_%d src: /10.0.0.%d:50010", "PacketResponder %d for block blk_%d terminating", "Verification succeeded for blk_%d on node %d"}
	for i := range 200 {
		fmt.Fprintf(&b, "%d,081109,2036%02d,INFO,dfs.DataNode,"+msgs[i%3]+"\n", i+1, i%60, 1000+i*7, i%9)
	}
	if k := stages.Detect(b.String()); k != stages.KindLog {
		t.Errorf("read as %s", k)
	}
}
