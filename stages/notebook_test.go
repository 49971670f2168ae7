package stages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

type generatedNotebook struct {
	raw        string
	prose      []string // markdown cells
	code       []string // code cell sources
	errorLines []string // the last traceback line of each error output
	images     int
}

// genNotebook writes an nbformat 4 notebook: markdown and code cells,
// sources as line lists or as one string (both are nbformat), stream,
// result and error outputs, base64 images, ANSI-coloured tracebacks and
// code that itself holds a backtick fence.
func genNotebook(seed uint64, cells int) generatedNotebook {
	r := rand.New(rand.NewPCG(seed, 7))
	var g generatedNotebook
	lines := func(s string) any {
		if r.IntN(2) == 0 {
			return s
		}
		parts := strings.SplitAfter(s, "\n")
		return parts
	}
	var out []map[string]any
	for i := range cells {
		prose := fmt.Sprintf("## Part %d\n\nWe load shard %d of the %s data set and check its %s.", i, r.IntN(900), []string{"sales", "sensor", "churn"}[r.IntN(3)], []string{"schema", "outliers", "nulls"}[r.IntN(3)])
		g.prose = append(g.prose, prose)
		out = append(out, map[string]any{"cell_type": "markdown", "metadata": map[string]any{}, "source": lines(prose)})
		code := fmt.Sprintf("df_%d = load_shard(%d)\nfor col in df_%d.columns:\n    print(col, df_%d[col].mean())", i, i, i, i)
		if i%7 == 3 {
			code += "\ndoc = \"\"\"\n```\nnot a fence end\n```\n\"\"\""
		}
		g.code = append(g.code, code)
		var outputs []any
		var stream strings.Builder
		for k := range 40 + r.IntN(80) {
			fmt.Fprintf(&stream, "col_%d %.5f\n", k, r.Float64())
		}
		outputs = append(outputs, map[string]any{"output_type": "stream", "name": "stdout", "text": lines(stream.String())})
		if i%5 == 2 {
			last := fmt.Sprintf("KeyError: 'shard_%d'", i)
			g.errorLines = append(g.errorLines, last)
			outputs = append(outputs, map[string]any{"output_type": "error", "ename": "KeyError", "evalue": fmt.Sprintf("'shard_%d'", i),
				"traceback": []string{"\x1b[0;31m---------------------------------------------------------------------------\x1b[0m", "\x1b[0;31mKeyError\x1b[0m Traceback (most recent call last)", fmt.Sprintf("Cell \x1b[0;32mIn[%d], line 2\x1b[0m", i), "\x1b[0;31m" + last + "\x1b[0m"}})
		}
		if i%3 == 0 {
			g.images++
			outputs = append(outputs, map[string]any{"output_type": "display_data", "metadata": map[string]any{},
				"data": map[string]any{"image/png": strings.Repeat("iVBORw0KGgoAAAANSUhEUg", 200), "text/plain": []string{"<Figure size 640x480 with 1 Axes>"}}})
		}
		out = append(out, map[string]any{"cell_type": "code", "execution_count": i + 1, "metadata": map[string]any{}, "source": lines(code), "outputs": outputs})
	}
	doc := map[string]any{"cells": out, "nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{"kernelspec": map[string]any{"name": "python3", "language": "python"}, "language_info": map[string]any{"name": "python"}}}
	raw, _ := json.MarshalIndent(doc, "", " ")
	g.raw = string(raw)
	return g
}

// TestNotebookKeepsCellsAndFailures: over generated notebooks, every
// markdown cell and every code cell source survives byte for byte, every
// error keeps its last traceback line without colour codes, images become
// markers, and the notebook shrinks.
func TestNotebookKeepsCellsAndFailures(t *testing.T) {
	for seed := range uint64(4) {
		g := genNotebook(seed, 12+int(seed)*9)
		out, _ := compactAll(t, g.raw)
		for _, p := range g.prose {
			if !strings.Contains(out, p) {
				t.Errorf("seed %d: markdown cell lost: %q", seed, p)
			}
		}
		for _, c := range g.code {
			if !strings.Contains(out, "python\n"+c+"\n") {
				t.Errorf("seed %d: code cell not kept whole in a python fence: %q", seed, c)
			}
		}
		for _, e := range g.errorLines {
			if !strings.Contains(out, "\n"+e+"\n") {
				t.Errorf("seed %d: error lost: %q", seed, e)
			}
		}
		if strings.Contains(out, "\x1b[") || strings.Contains(out, "iVBORw0KGgo") {
			t.Errorf("seed %d: colour codes or image data left in the output", seed)
		}
		if got := strings.Count(out, "[output: image/png]"); got != g.images {
			t.Errorf("seed %d: %d image markers, want %d", seed, got, g.images)
		}
		if r := float64(stages.Chars(out)) / float64(stages.Chars(g.raw)); r > 0.35 {
			t.Errorf("seed %d: ratio %.3f > 0.35", seed, r)
		}
	}
}

// TestNotebookLookalikesStayJSON: JSON that names cells or nbformat but is
// not a notebook (no cells, an older nbformat, malformed) is folded or
// passed through as JSON, never rendered as a notebook.
func TestNotebookLookalikesStayJSON(t *testing.T) {
	var rows []string
	for i := range 300 {
		rows = append(rows, fmt.Sprintf(`{"row": %d, "cells": ["a%d", "b"], "nbformat": "csv"}`, i, i))
	}
	for name, doc := range map[string]string{
		"spreadsheet":  `{"sheet": "s1", "rows": [` + strings.Join(rows, ", ") + `]}`,
		"nbformat 3":   `{"nbformat": 3, "worksheets": [], "cells": [{"cell_type": "code", "source": "x = 1"}], "pad": "` + strings.Repeat("p ", 900) + `"}`,
		"malformed":    `{"nbformat": 4, "cells": [{"cell_type": "code", "source": ` + strings.Repeat("x", 3000) + `}]}`,
		"cells absent": `{"nbformat": 4, "metadata": {"note": "` + strings.Repeat("cells ", 500) + `"}}`,
	} {
		out, _ := compactAll(t, doc)
		if strings.Contains(out, "```") {
			t.Errorf("%s: rendered as a notebook:\n%.300s", name, out)
		}
	}
}

// TestNotebookIdempotent: the structured node, given the notebook it
// rendered, changes nothing.
func TestNotebookIdempotent(t *testing.T) {
	node := stages.NewStructured(stages.DefaultStructuredOptions())
	raw := genNotebook(9, 20).raw
	first, err := node.Apply(context.Background(), stages.Input{Text: raw, Kind: stages.Detect(raw)})
	if err != nil || first.Skipped {
		t.Fatalf("notebook not rendered: %v %s", err, first.Reason)
	}
	again, err := node.Apply(context.Background(), stages.Input{Text: first.Text, Kind: stages.Detect(first.Text)})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Skipped && again.Text != first.Text {
		t.Errorf("second pass changed the rendered notebook: %d -> %d chars", len(first.Text), len(again.Text))
	}
}
