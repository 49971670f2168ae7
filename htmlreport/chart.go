package htmlreport

import (
	"fmt"

	"github.com/jetcompact/jetcompact/pipeline"
)

// Chart geometry, in SVG user units.
const (
	chartLabelW = 150
	chartBarW   = 460
	chartValueW = 170
	chartRowH   = 22
)

// chart is the per-node waterfall: one row per node of the report, in
// order, its kept characters solid and the ones it removed hatched.
type chart struct {
	Width, Height int
	Bars          []bar
	AxisX         int
	Total         string
}

type bar struct {
	Node     string
	CharsIn  int
	CharsOut int
	Skipped  bool
	Title    string // shown on hover: the node's reason
	Y, TextY int
	KeptW    int // width of the kept part
	CutX     int
	CutW     int // width of what the node removed
	GrewW    int // width of what the node added
	Value    string
}

func newChart(r pipeline.Report) chart {
	scaleMax := max(r.CharsIn, 1)
	for _, n := range r.Nodes {
		scaleMax = max(scaleMax, n.CharsIn, n.CharsOut)
	}
	w := func(chars int) int {
		if chars <= 0 {
			return 0
		}
		return max(1, chars*chartBarW/scaleMax)
	}
	c := chart{Width: chartLabelW + chartBarW + chartValueW, AxisX: chartLabelW}
	for i, n := range r.Nodes {
		b := bar{
			Node: string(n.Key), CharsIn: n.CharsIn, CharsOut: n.CharsOut, Skipped: n.Skipped,
			Y: i * chartRowH, TextY: i*chartRowH + 15,
			Value: fmt.Sprintf("%d → %d", n.CharsIn, n.CharsOut),
		}
		b.Title = fmt.Sprintf("%s: %d → %d chars", n.Key, n.CharsIn, n.CharsOut)
		if n.Skipped {
			b.Title = fmt.Sprintf("%s skipped: %s", n.Key, n.Reason)
			b.Value = "skipped"
		} else if n.Reason != "" {
			b.Title += " (" + n.Reason + ")"
		}
		kept := min(n.CharsIn, n.CharsOut)
		b.KeptW = w(kept)
		b.CutX = chartLabelW + b.KeptW
		if n.CharsIn > n.CharsOut {
			b.CutW = max(w(n.CharsIn)-b.KeptW, 1)
		} else if n.CharsOut > n.CharsIn {
			b.GrewW = max(w(n.CharsOut)-b.KeptW, 1)
		}
		c.Bars = append(c.Bars, b)
	}
	c.Height = max(len(r.Nodes), 1)*chartRowH + 4
	c.Total = fmt.Sprintf("%d → %d chars, ratio %.4f (%s)", r.CharsIn, r.CharsOut, r.Ratio(), r.Guard)
	return c
}
