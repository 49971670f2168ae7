package stages

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzStructuredNode is the structured node with small thresholds, so
// short fuzz inputs reach its folds.
func fuzzStructuredNode() Node {
	opt := DefaultStructuredOptions()
	opt.MinChars = 16
	return NewStructured(opt)
}

// checkStructuredShrinks runs node on text as the pipeline does: a skip
// leaves the text as it was, a fold makes it shorter.
func checkStructuredShrinks(t *testing.T, node Node, text string, kind Kind) string {
	t.Helper()
	out, restored := runStructured(t, node, text, kind)
	// Shorter in characters, the product's measure (a fold may write "…",
	// three bytes for one character).
	if !out.Skipped && Chars(restored) >= Chars(text) {
		t.Fatalf("%s: folded but not shorter (%d >= %d characters) on %q", kind, Chars(restored), Chars(text), text)
	}
	return restored
}

// FuzzRenderNotebook: any text; when it renders as a notebook, every cell's
// source (trimmed at its end) is in the Markdown, and the structured node
// skips or shortens it.
func FuzzRenderNotebook(f *testing.F) {
	f.Add(`{"nbformat": 4, "cells": [{"cell_type": "code", "source": ["import os\n", "print(1)"], "outputs": [{"output_type": "stream", "text": "1\n"}]}], "metadata": {"kernelspec": {"language": "python"}}}`)
	f.Add(`{"nbformat": 4, "cells": [{"cell_type": "markdown", "source": "# T\n"}, {"cell_type": "code", "source": "x = '` + "```" + `'", "outputs": [{"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["\u001b[31mTrace\n"]}, {"output_type": "display_data", "data": {"image/png": "AAAA", "text/plain": ["<Figure>"]}}]}]}`)
	f.Add(`{"nbformat": 3, "cells": []}`)
	f.Add(`{"cells": [{"cell_type": "code", "source": 5}], "nbformat": 4}`)
	node := fuzzStructuredNode()
	f.Fuzz(func(t *testing.T, text string) {
		out, ok := renderNotebook(text)
		if !ok {
			return
		}
		var nb struct {
			Cells []struct {
				Source nbText `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal([]byte(text), &nb); err != nil {
			t.Fatalf("rendered a notebook that does not decode: %v", err)
		}
		for i, c := range nb.Cells {
			if src := strings.TrimRight(string(c.Source), " \t\r\n"); !strings.Contains(out, src) {
				t.Fatalf("cell %d source %q missing from %q", i, src, out)
			}
		}
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of %q", text)
		}
		if utf8.ValidString(text) {
			checkStructuredShrinks(t, node, text, KindJSON)
		}
	})
}

// FuzzNotebookCells builds a notebook around fuzzed cell sources and
// outputs, so every input reaches the renderer: each source is in the
// Markdown byte for byte (json.Marshal makes invalid UTF-8 U+FFFD, as
// the decoder does), fenced so that it cannot close its fence early.
func FuzzNotebookCells(f *testing.F) {
	f.Add("import numpy as np\nnp.zeros(3)", "# Title\nSome *prose*.", "array([0., 0., 0.])\n", uint8(0))
	f.Add("s = '```'\n````", "", "\x1b[1;31mValueError\x1b[0m", uint8(1))
	f.Add("  \n\t", "raw", strings.Repeat("ok\n", 200), uint8(2))
	node := fuzzStructuredNode()
	f.Fuzz(func(t *testing.T, code, md, output string, shape uint8) {
		code, md, output = strings.ToValidUTF8(code, "\uFFFD"), strings.ToValidUTF8(md, "\uFFFD"), strings.ToValidUTF8(output, "\uFFFD")
		var outs []map[string]any
		switch shape % 4 {
		case 0:
			outs = append(outs, map[string]any{"output_type": "stream", "text": output})
		case 1:
			outs = append(outs, map[string]any{"output_type": "error", "ename": "E", "evalue": output, "traceback": strings.SplitAfter(output, "\n")})
		case 2:
			outs = append(outs, map[string]any{"output_type": "execute_result", "data": map[string]any{"text/plain": output, "text/html": "<b>x</b>"}})
		}
		doc := map[string]any{
			"nbformat": 4,
			"metadata": map[string]any{"language_info": map[string]any{"name": "python"}},
			"cells": []map[string]any{
				{"cell_type": "markdown", "source": md},
				{"cell_type": "code", "source": strings.SplitAfter(code, "\n"), "outputs": outs},
			},
		}
		raw, err := json.MarshalIndent(doc, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		out, ok := renderNotebook(text)
		if !ok {
			t.Fatalf("a generated notebook did not render: %s", text)
		}
		for _, src := range []string{code, md} {
			if src = strings.TrimRight(src, " \t\r\n"); !strings.Contains(out, src) {
				t.Fatalf("source %q missing from %q", src, out)
			}
		}
		if src := strings.TrimRight(code, " \t\r\n"); src != "" {
			// The code cell comes right after the markdown one, in a fence
			// longer than any backtick run in it.
			rest := out
			if m := strings.TrimRight(md, " \t\r\n"); m != "" {
				rest = strings.TrimPrefix(out, m+"\n\n")
			}
			fence := rest[:len(rest)-len(strings.TrimLeft(rest, "`"))]
			if !strings.HasPrefix(rest, fence+"python\n"+src+"\n"+fence+"\n") || len(fence) <= longestRun(src, '`') {
				t.Fatalf("code %q not fenced whole in %q", src, out)
			}
		}
		checkStructuredShrinks(t, node, text, KindJSON)
	})
}

func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// A lone ESC before a multi-byte rune (an error output's evalue) once lost
// the rune's first byte, leaving invalid UTF-8 in the Markdown.
func TestStripANSIKeepsRuneAfterLoneEscape(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b\uFFFD0":     "\uFFFD0",
		"a\x1bé\x1b[31mb": "aéb",
		"\x1bMx":          "x",
	} {
		if got := stripANSI(in); got != want || !utf8.ValidString(got) {
			t.Errorf("stripANSI(%q) = %q, want %q", in, got, want)
		}
	}
	out, ok := renderNotebook(`{"nbformat": 4, "cells": [{"cell_type": "code", "source": "0", "outputs": [{"output_type": "error", "ename": "E", "evalue": "x", "traceback": ["\u001b\ufffd0"]}]}]}`)
	if !ok || !utf8.ValidString(out) || !strings.Contains(out, "\uFFFD0") {
		t.Fatalf("renderNotebook = %q, %v", out, ok)
	}
}

// FuzzHasNbformatKey: the search from the key's 'b' finds what
// strings.Contains finds.
func FuzzHasNbformatKey(f *testing.F) {
	for _, s := range []string{`{"nbformat": 4}`, `"nbformat"`, `nbformat"`, `"n"nbformat"`, `{"bformat": "nb", "xnbformat"}`, `""nbformat""`, `{"a":"b"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := hasNbformatKey(s), strings.Contains(s, `"nbformat"`); got != want {
			t.Fatalf("hasNbformatKey(%q) = %v, strings.Contains says %v", s, got, want)
		}
	})
}
