package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/pipeline"
	"golang.org/x/net/html"
)

// reportTables reads --report's per-node rows from stderr: file -> rows of
// "node in out".
func reportTables(stderr string) map[string][]string {
	tables := map[string][]string{}
	file := ""
	for _, l := range strings.Split(stderr, "\n") {
		if name, ok := strings.CutPrefix(l, "== "); ok {
			file = name
			continue
		}
		f := strings.Fields(l)
		if file == "" || len(f) < 3 || f[0] == "node" || f[0] == "guard" || f[0] == "kind" || f[0] == "budget" || f[0] == "doc" {
			continue
		}
		tables[file] = append(tables[file], strings.Join(f[:3], " "))
	}
	return tables
}

// TestHTMLReportMatchesTheReportTable: --html-report's chart has one bar
// per node with the figures --report prints, on --local and on the
// embedded fleet; the folds carry the references of the printed text.
func TestHTMLReportMatchesTheReportTable(t *testing.T) {
	dir := t.TempDir()
	build, app := filepath.Join(dir, "build.log"), filepath.Join(dir, "app.log")
	if err := os.WriteFile(build, []byte(roundTripLog()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(app, []byte(sampleLog(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range [][]string{{"--local"}, nil} {
		t.Setenv("XDG_STATE_HOME", t.TempDir())
		page := filepath.Join(t.TempDir(), "report.html")
		args := append(append([]string{}, mode...), "--report", "--quiet", "--html-report", page, build, app)
		stdout, stderr, err := runPublisher(t, "", args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		f, err := os.Open(page)
		if err != nil {
			t.Fatal(err)
		}
		root, err := html.Parse(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		tables := reportTables(stderr)
		var summaries []string
		for _, sec := range findAll(root, func(n *html.Node) bool { return n.Data == "section" }) {
			name := textOf(findAll(sec, func(n *html.Node) bool { return n.Data == "h2" })[0])
			var bars []string
			for _, g := range findAll(sec, func(n *html.Node) bool { return n.Data == "g" && strings.Contains(attrOf(n, "class"), "bar") }) {
				bars = append(bars, attrOf(g, "data-node")+" "+attrOf(g, "data-in")+" "+attrOf(g, "data-out"))
			}
			if len(bars) == 0 || strings.Join(bars, "\n") != strings.Join(tables[name], "\n") {
				t.Errorf("%v %s: chart\n%s\n--report\n%s", mode, name, strings.Join(bars, "\n"), strings.Join(tables[name], "\n"))
			}
			for _, s := range findAll(sec, func(n *html.Node) bool { return n.Data == "summary" }) {
				summaries = append(summaries, textOf(s))
			}
		}
		if len(tables) != 2 {
			t.Errorf("%v: --report printed %d tables", mode, len(tables))
		}
		var markers []string
		for _, l := range strings.Split(stdout, "\n") {
			if refInOutput.MatchString(l) {
				markers = append(markers, l)
			}
		}
		if len(markers) == 0 || strings.Join(summaries, "\n") != strings.Join(markers, "\n") {
			t.Errorf("%v: folds %q, printed markers %q", mode, summaries, markers)
		}
	}
}

func findAll(root *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return out
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(textOf(c))
	}
	return b.String()
}

// TestHTMLReportWithoutStore: with --no-store the printed markers carry no
// reference, yet the report's folds still open (it has the original).
func TestHTMLReportWithoutStore(t *testing.T) {
	page := filepath.Join(t.TempDir(), "report.html")
	stdout, stderr, err := runPublisher(t, roundTripLog(), "--local", "--no-store", "--html-report", page, "-")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if strings.Contains(stdout, " · ref ") {
		t.Fatal("--no-store printed references")
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	root, err := html.Parse(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// One fold per reference the page adds to its own copy: every fold
	// marker and every count line whose template it can place.
	folds := findAll(root, func(n *html.Node) bool { return n.Data == "details" })
	markers := strings.Count(stdout, "lines folded")
	refs := strings.Count(pipeline.AddRefs(roundTripLog(), stdout, "abcdef12"), pipeline.RefSep)
	if markers == 0 || refs < markers || len(folds) != refs {
		t.Errorf("%d folds for %d references (%d printed fold markers)", len(folds), refs, markers)
	}
}
