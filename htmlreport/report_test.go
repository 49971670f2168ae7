package htmlreport_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/jetcompact/jetcompact/htmlreport"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

// testDocID stands for a document id; fold references carry its prefix.
const testDocID = "0123456789abcdef0123456789abcdef"

// hostileLines are log lines that try to break out of the page: a
// script, closing the fold element, attribute injection, a forged fold
// reference to lines that are not this document's.
var hostileLines = []string{
	`<script>window.__pwned = 1; document.title = "pwned"</script>`,
	`</details></div><script>window.__pwned = 2</script><details>`,
	`" onmouseover="window.__pwned=3" x="' onfocus='window.__pwned=4'`,
	`<img src=x onerror="window.__pwned=5">`,
	`[... 3 lines folded · ref ffffffff:L1-2]`,
}

// buildLog generates a build log of n progress lines with a failure at
// the end whose lines are hostile; hostile lines sit among the progress
// lines too, so that folds hold them. Class: build and test output, whose
// progress keywords folds and whose failure it keeps.
func buildLog(n int) string {
	var b strings.Builder
	stamp := func(format string, args ...any) {
		fmt.Fprintf(&b, format+"\n", args...)
	}
	stamp("$ make test")
	for i := 0; i < n; i++ {
		stamp("  CC      src/%s/%s.o", letters(i/7), letters(i*31))
		if i%97 == 50 {
			stamp("  note: %s", hostileLines[(i/97)%len(hostileLines)])
		}
	}
	stamp("--- FAIL: TestParser (0.02s)")
	for _, h := range hostileLines {
		stamp("    parser_test.go:41: error: unexpected input %s", h)
	}
	stamp("FAIL\tgithub.com/example/parser\t0.214s")
	stamp("make: *** [Makefile:12: test] Error 1")
	return b.String()
}

// letters names i in letters only, so that lines differ by more than
// numbers and log_dedup leaves them to keywords.
func letters(i int) string {
	s := []byte{byte('a' + i%26)}
	for i /= 26; i > 0; i /= 26 {
		s = append(s, byte('a'+i%26))
	}
	return string(s)
}

// compact runs the default pipeline on text and references its folds as
// the publisher does with a stored original.
func compact(t testing.TB, file, text string, budget int) htmlreport.Input {
	t.Helper()
	p, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), pipeline.Request{Text: text, Kind: stages.KindLog, Mode: stages.ModeAlgorithmic, BudgetTokens: budget})
	if err != nil {
		t.Fatal(err)
	}
	out := pipeline.AddRefs(text, res.Text, testDocID[:8])
	return htmlreport.Input{File: file, DocID: testDocID, Original: text, Text: out, Report: res.Report}
}

func render(t testing.TB, inputs []htmlreport.Input, opt htmlreport.Options) (string, *html.Node) {
	t.Helper()
	var b strings.Builder
	if err := htmlreport.Write(&b, inputs, opt); err != nil {
		t.Fatal(err)
	}
	root, err := html.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("report does not parse: %v", err)
	}
	return b.String(), root
}

func walk(n *html.Node, visit func(*html.Node)) {
	visit(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, visit)
	}
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasClass(n *html.Node, class string) bool {
	v, _ := attr(n, "class")
	return n.Type == html.ElementNode && strings.Contains(" "+v+" ", " "+class+" ")
}

func elements(root *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	walk(root, func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
	})
	return out
}

func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	})
	return b.String()
}

var refRE = regexp.MustCompile(` · ref ([0-9a-f]+):L(\d+)-(\d+)`)

// embeddedLines decodes a document's embedded original independently of
// the page's script: line number -> text.
func embeddedLines(t *testing.T, root *html.Node, doc string) map[int]string {
	t.Helper()
	els := elements(root, func(n *html.Node) bool { id, _ := attr(n, "id"); return n.Data == "script" && id == "orig-"+doc })
	if len(els) != 1 {
		t.Fatalf("document %s: %d embedded originals, want 1", doc, len(els))
	}
	var b64 string
	if err := json.Unmarshal([]byte(textOf(els[0])), &b64); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	if enc, _ := attr(els[0], "data-enc"); enc == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	var segs [][2]json.RawMessage
	if err := json.Unmarshal(raw, &segs); err != nil {
		t.Fatal(err)
	}
	lines := map[int]string{}
	for _, s := range segs {
		var from int
		var body string
		if json.Unmarshal(s[0], &from) != nil || json.Unmarshal(s[1], &body) != nil {
			t.Fatalf("bad segment %s", s)
		}
		for i, l := range strings.Split(body, "\n") {
			lines[from+i] = l
		}
	}
	return lines
}

func TestHostileLogStaysText(t *testing.T) {
	in := compact(t, `"><script>window.__pwned=6</script>.log`, buildLog(600), 0)
	page, root := render(t, []htmlreport.Input{in}, htmlreport.Options{Title: `</title><script>window.__pwned=7</script>`})
	scripts := elements(root, func(n *html.Node) bool { return n.Data == "script" })
	code := 0
	for _, s := range scripts {
		if typ, _ := attr(s, "type"); typ != "application/json" {
			code++
			if strings.Contains(textOf(s), "__pwned") {
				t.Errorf("a script element holds the log's text: %.120q", textOf(s))
			}
		}
	}
	if code != 1 {
		t.Errorf("%d executable script elements, want the page's one", code)
	}
	walk(root, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		if n.Data == "img" {
			t.Errorf("an <img> element came from the log")
		}
		// Self-contained: nothing is fetched, every link is in the page.
		for _, key := range []string{"src", "href"} {
			if v, ok := attr(n, key); ok && !strings.HasPrefix(v, "#") {
				t.Errorf("<%s %s=%q> points outside the page", n.Data, key, v)
			}
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s %s=%q>: an event attribute came from the log", n.Data, a.Key, a.Val)
			}
		}
	})
	// The hostile lines the pipeline kept are on the page as text.
	body := textOf(root)
	for _, h := range hostileLines {
		if !strings.Contains(in.Text, h) {
			continue
		}
		if !strings.Contains(body, h) {
			t.Errorf("kept line %q is not shown as text", h)
		}
	}
	if strings.Contains(page, "<script>window.__pwned") {
		t.Error("a raw hostile script tag is in the page source")
	}
}

func TestEveryFoldOpensOntoItsOriginalLines(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lines  int
		budget int
	}{
		{"small", 600, 0},
		{"gzipped", 6000, 0}, // payload above the gzip threshold
		{"budget", 600, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := compact(t, "build.log", buildLog(tc.lines), tc.budget)
			_, root := render(t, []htmlreport.Input{in}, htmlreport.Options{})
			orig := embeddedLines(t, root, "0")
			var markers []string
			for _, l := range strings.Split(in.Text, "\n") {
				if m := refRE.FindStringSubmatch(l); m != nil && strings.HasPrefix(testDocID, m[1]) {
					markers = append(markers, l)
				}
			}
			folds := elements(root, func(n *html.Node) bool { return n.Data == "details" && hasClass(n, "fold") })
			if len(markers) == 0 || len(folds) != len(markers) {
				t.Fatalf("%d fold markers with a reference, %d <details>", len(markers), len(folds))
			}
			for i, d := range folds {
				summary := elements(d, func(n *html.Node) bool { return n.Data == "summary" })
				if len(summary) != 1 || textOf(summary[0]) != markers[i] {
					t.Fatalf("fold %d: summary %q, want the marker %q", i, textOf(summary[0]), markers[i])
				}
				m := refRE.FindStringSubmatch(markers[i])
				from, _ := strconv.Atoi(m[2])
				to, _ := strconv.Atoi(m[3])
				if spec, _ := attr(d, "data-lines"); spec != fmt.Sprintf("%d-%d", from, to) {
					t.Fatalf("fold %d: data-lines %q for ref L%d-%d", i, spec, from, to)
				}
				want, err := pipeline.Lines(in.Original, from, to)
				if err != nil {
					t.Fatal(err)
				}
				var got strings.Builder
				for n := from; n <= to; n++ {
					l, ok := orig[n]
					if !ok {
						t.Fatalf("fold %d: line %d not embedded", i, n)
					}
					got.WriteString(l + "\n")
				}
				if got.String() != want {
					t.Fatalf("fold %d: embedded lines %q, want %q", i, got.String(), want)
				}
			}
		})
	}
}

func TestChartHasOneBarPerNode(t *testing.T) {
	in := compact(t, "build.log", buildLog(600), 0)
	_, root := render(t, []htmlreport.Input{in}, htmlreport.Options{})
	bars := elements(root, func(n *html.Node) bool { return n.Data == "g" && hasClass(n, "bar") })
	nodes := in.Report.Nodes
	if len(bars) != len(nodes) || len(nodes) == 0 {
		t.Fatalf("%d bars for %d nodes", len(bars), len(nodes))
	}
	for i, b := range bars {
		n := nodes[i]
		key, _ := attr(b, "data-node")
		cin, _ := attr(b, "data-in")
		cout, _ := attr(b, "data-out")
		if key != string(n.Key) || cin != strconv.Itoa(n.CharsIn) || cout != strconv.Itoa(n.CharsOut) {
			t.Errorf("bar %d: %s %s→%s, report %s %d→%d", i, key, cin, cout, n.Key, n.CharsIn, n.CharsOut)
		}
		if hasClass(b, "skipped") != n.Skipped {
			t.Errorf("bar %s: skipped %v, report %v", key, hasClass(b, "skipped"), n.Skipped)
		}
		title := elements(b, func(n *html.Node) bool { return n.Data == "title" })
		if n.Skipped && (len(title) != 1 || !strings.Contains(textOf(title[0]), n.Reason)) {
			t.Errorf("bar %s: the hover title does not give the skip reason %q", key, n.Reason)
		}
	}
}

func TestSeveralInputsGetATableOfContents(t *testing.T) {
	a := compact(t, "a.log", buildLog(300), 0)
	b := compact(t, "b.log", buildLog(400), 500)
	_, root := render(t, []htmlreport.Input{a, b}, htmlreport.Options{})
	links := elements(root, func(n *html.Node) bool {
		href, _ := attr(n, "href")
		return n.Data == "a" && strings.HasPrefix(href, "#doc-")
	})
	if len(links) != 2 || textOf(links[0]) != "a.log" || textOf(links[1]) != "b.log" {
		t.Fatalf("table of contents: %d links", len(links))
	}
	for _, l := range links {
		href, _ := attr(l, "href")
		if len(elements(root, func(n *html.Node) bool { id, _ := attr(n, "id"); return id == href[1:] })) != 1 {
			t.Errorf("%s points nowhere", href)
		}
	}
	budget := elements(root, func(n *html.Node) bool { return hasClass(n, "budget") })
	if len(budget) != 1 || !strings.Contains(textOf(budget[0]), "budget 500 tokens") {
		t.Errorf("want one budget line, for b.log: %d", len(budget))
	}
}

func TestFailuresAreListedWithJumpLinks(t *testing.T) {
	in := compact(t, "build.log", buildLog(600), 0)
	_, root := render(t, []htmlreport.Input{in}, htmlreport.Options{})
	navs := elements(root, func(n *html.Node) bool { return n.Data == "nav" && hasClass(n, "alerts") })
	if len(navs) != 1 {
		t.Fatalf("%d alert lists", len(navs))
	}
	links := elements(navs[0], func(n *html.Node) bool { return n.Data == "a" })
	if len(links) == 0 {
		t.Fatal("no kept failure listed")
	}
	for _, l := range links {
		href, _ := attr(l, "href")
		target := elements(root, func(n *html.Node) bool { id, _ := attr(n, "id"); return "#"+id == href })
		if len(target) != 1 || !hasClass(target[0], "fail") {
			t.Errorf("%s: not one highlighted failure line", href)
		}
	}
	if !strings.Contains(textOf(navs[0]), "FAIL: TestParser") {
		t.Errorf("the failing test is not in the list: %q", textOf(navs[0]))
	}
}

func TestOverTheCapOnlyNearestLinesAreEmbedded(t *testing.T) {
	in := compact(t, "build.log", buildLog(6000), 0)
	_, root := render(t, []htmlreport.Input{in}, htmlreport.Options{MaxOriginal: 20000})
	orig := embeddedLines(t, root, "0")
	size := 0
	for _, l := range orig {
		size += len(l) + 1
	}
	if size > 20000 {
		t.Errorf("%d bytes embedded over a 20000-byte cap", size)
	}
	notes := elements(root, func(n *html.Node) bool { return hasClass(n, "cap") })
	if len(notes) != 1 || !strings.Contains(textOf(notes[0]), "cap") {
		t.Fatal("the report does not say the original was capped")
	}
	partial := 0
	for _, d := range elements(root, func(n *html.Node) bool { return n.Data == "details" && hasClass(n, "fold") }) {
		spec, _ := attr(d, "data-lines")
		a, b, _ := strings.Cut(spec, "-")
		from, _ := strconv.Atoi(a)
		to, _ := strconv.Atoi(b)
		// The lines next to the kept lines either side are there.
		if _, ok := orig[from]; !ok {
			t.Errorf("fold %s: its first line is not embedded", spec)
		}
		if _, ok := orig[to]; !ok {
			t.Errorf("fold %s: its last line is not embedded", spec)
		}
		if hasClass(d, "partial") {
			partial++
		}
	}
	if partial == 0 {
		t.Error("no fold is marked partial under the cap")
	}
}

func TestWithoutOriginalFoldsStayText(t *testing.T) {
	in := compact(t, "build.log", buildLog(300), 0)
	in.Original = ""
	_, root := render(t, []htmlreport.Input{in}, htmlreport.Options{})
	if n := len(elements(root, func(n *html.Node) bool { return n.Data == "details" })); n != 0 {
		t.Errorf("%d folds open onto an original the report does not have", n)
	}
	if n := len(elements(root, func(n *html.Node) bool { return hasClass(n, "original") })); n != 0 {
		t.Error("an original is embedded")
	}
}

// BenchmarkWrite: a report of a 60,000-line build log (about 2.5 MB).
func BenchmarkWrite(b *testing.B) {
	in := compact(b, "build.log", buildLog(60000), 0)
	b.SetBytes(int64(len(in.Original)))
	for b.Loop() {
		if err := htmlreport.Write(io.Discard, []htmlreport.Input{in}, htmlreport.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCountLineGuessIsShown: a count line whose lines the page cannot
// place exactly says so, with the count it states and the reference.
func TestCountLineGuessIsShown(t *testing.T) {
	original := "worker 1 done\nworker 2 done\ncache miss\nworker 3 done\n"
	text := "worker 1 done [×9 · ref " + testDocID[:8] + ":L1-4]\ncache miss\n"
	in := htmlreport.Input{File: "w.log", DocID: testDocID, Original: original, Text: text,
		Report: pipeline.Report{Kind: "log", Mode: "algorithmic", CharsIn: len(original), CharsOut: len(text)}}
	_, root := render(t, []htmlreport.Input{in}, htmlreport.Options{})
	guess := elements(root, func(n *html.Node) bool { return n.Data == "p" && hasClass(n, "guess") })
	if len(guess) != 1 || !strings.Contains(textOf(guess[0]), "the count says 9, but 3 lines") || !strings.Contains(textOf(guess[0]), testDocID[:8]+":L1-4") {
		t.Fatalf("no guess note: %d", len(guess))
	}
}

// serviceLog is n records of a few templates (log_dedup counts them) with
// an error now and then.
func serviceLog(n int) string {
	var b strings.Builder
	for i := range n {
		at := fmt.Sprintf("2026-11-30T10:%02d:%02d.%03dZ", i/60%60, i%60, i%1000)
		switch {
		case i%250 == 125:
			fmt.Fprintf(&b, "%s ERROR [req-%06x] handler failed: <script>window.__pwned=9</script>\n", at, i)
		case i%3 == 0:
			fmt.Fprintf(&b, "%s INFO  [worker-%d] processed job %d in %dms\n", at, i%7, i*7919%100000, i%900)
		case i%3 == 1:
			fmt.Fprintf(&b, "%s DEBUG cache miss key=user:%d ttl=%d\n", at, i*31%5000, i%3600)
		default:
			fmt.Fprintf(&b, "10.0.%d.%d - - \"GET /api/v1/users/%d HTTP/1.1\" 200 %d\n", i%250, i*7%250, i, i*13%9999)
		}
	}
	return b.String()
}

// TestCountLinesWithoutReferenceOpen: under a budget the publisher gives
// count lines no reference (AddRefsWithin); the page references them
// itself, so they open onto their lines, and shows them as emitted.
func TestCountLinesWithoutReferenceOpen(t *testing.T) {
	text := serviceLog(3000)
	p, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), pipeline.Request{Text: text, Kind: stages.KindLog, Mode: stages.ModeAlgorithmic, BudgetTokens: 120})
	if err != nil {
		t.Fatal(err)
	}
	out := pipeline.AddRefsWithin(text, res.Text, testDocID[:8], 120, stages.KindLog)
	var bare []string // count lines the run left without a reference
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, " [×") && !strings.Contains(l, pipeline.RefSep) {
			bare = append(bare, l)
		}
	}
	if len(bare) == 0 {
		t.Fatalf("no count line without a reference: the test proves nothing\n%s", out)
	}
	in := htmlreport.Input{File: "svc.log", DocID: testDocID, Original: text, Text: out, Report: res.Report}
	_, root := render(t, []htmlreport.Input{in}, htmlreport.Options{})
	orig := embeddedLines(t, root, "0")
	summaries := map[string]*html.Node{}
	for _, d := range elements(root, func(n *html.Node) bool { return n.Data == "details" }) {
		summaries[textOf(elements(d, func(n *html.Node) bool { return n.Data == "summary" })[0])] = d
	}
	for _, l := range bare {
		d, ok := summaries[l]
		if !ok {
			t.Errorf("count line %q does not open (or is not shown as emitted)", l)
			continue
		}
		spec, _ := attr(d, "data-lines")
		head := strings.Fields(l)[1] // the level: INFO, DEBUG, ERROR
		for _, r := range strings.Split(spec, ",") {
			a, z, _ := strings.Cut(r, "-")
			from, _ := strconv.Atoi(a)
			to := from
			if z != "" {
				to, _ = strconv.Atoi(z)
			}
			for n := from; n <= to; n++ {
				if !strings.Contains(orig[n], " "+head+" ") {
					t.Errorf("%q lists line %d: %q", l, n, orig[n])
				}
			}
		}
	}
}

// TestCapNoteSaysWhatIsEmbedded: over the cap, when every fold's lines
// fit, the note says only those lines are embedded (no depth).
func TestCapNoteSaysWhatIsEmbedded(t *testing.T) {
	text := serviceLog(3000)
	in := compact(t, "svc.log", text, 0)
	_, root := render(t, []htmlreport.Input{in}, htmlreport.Options{MaxOriginal: len(text) / 2})
	folds := elements(root, func(n *html.Node) bool { return n.Data == "details" })
	if len(folds) == 0 {
		t.Fatal("no folds")
	}
	for _, d := range folds {
		if hasClass(d, "partial") {
			t.Fatalf("fold %s is partial: the test needs folds that fit", textOf(d))
		}
	}
	notes := elements(root, func(n *html.Node) bool { return hasClass(n, "cap") })
	if len(notes) != 1 || !strings.Contains(textOf(notes[0]), "only the original lines the folds show are embedded") {
		t.Fatalf("cap note: %d", len(notes))
	}
}

// TestHeaderGivesTheRunsFigures: file, kind, mode, chars and estimated
// tokens in and out, ratio and time head each input.
func TestHeaderGivesTheRunsFigures(t *testing.T) {
	in := compact(t, "build.log", buildLog(300), 0)
	in.Took = 1234 * time.Millisecond
	_, root := render(t, []htmlreport.Input{in}, htmlreport.Options{})
	stats := elements(root, func(n *html.Node) bool { return n.Data == "table" && hasClass(n, "stats") })
	if len(stats) != 1 {
		t.Fatalf("%d header tables", len(stats))
	}
	cells := map[string]string{}
	for _, th := range elements(stats[0], func(n *html.Node) bool { return n.Data == "th" }) {
		td := th.NextSibling
		for td != nil && td.Type != html.ElementNode {
			td = td.NextSibling
		}
		cells[textOf(th)] = textOf(td)
	}
	r := in.Report
	for key, want := range map[string]string{
		"kind":        string(r.Kind),
		"mode":        string(r.Mode),
		"chars":       fmt.Sprintf("%d → %d", r.CharsIn, r.CharsOut),
		"est. tokens": fmt.Sprintf("%d → %d", stages.EstimateTokens(in.Original), stages.EstimateTokens(in.Text)),
		"ratio":       fmt.Sprintf("%.4f", r.Ratio()),
		"time":        "1.234s",
	} {
		if cells[key] != want {
			t.Errorf("header %s: %q, want %q", key, cells[key], want)
		}
	}
	if h2 := elements(root, func(n *html.Node) bool { return n.Data == "h2" }); len(h2) != 1 || textOf(h2[0]) != "build.log" {
		t.Error("the file does not head its section")
	}
}

// mixedLog is n records of interleaved templates, with the template of
// each line: a login whose user name log_dedup merges as a variant (the
// page cannot tell it by its words), two "job" lines of one shape but
// other words, a warning with continuation lines.
func mixedLog(n int) (string, []string) {
	var b strings.Builder
	var kinds []string
	for i := range n {
		at := fmt.Sprintf("[11.30 10:%02d:%02d]", i/60%60, i%60)
		var rec []string
		kind := []string{"login", "done", "login", "late", "retry", "login", "done"}[i%7]
		switch kind {
		case "login":
			rec = []string{fmt.Sprintf("%s %s.exe - proxy.example.org:%d open through proxy HTTPS", at, letters(i*7+100), 1000+i%9)}
		case "done":
			rec = []string{fmt.Sprintf("%s INFO job %d finished in %dms", at, i, i*3%997)}
		case "late":
			rec = []string{fmt.Sprintf("%s INFO job %d finished late", at, i)}
		case "retry":
			rec = []string{fmt.Sprintf("%s WARN retry %d of request", at, i%5), "    at handler.go:42", "    at server.go:17"}
		}
		for j, l := range rec {
			b.WriteString(l + "\n")
			if j == 0 {
				kinds = append(kinds, kind)
			} else {
				kinds = append(kinds, "")
			}
		}
	}
	return b.String(), kinds
}

// TestCountLinesListTheirRecords: every count line of a log of records
// lists exactly the records log_dedup counted, N of them, all of its
// template, none a guess, even a template of merged variants.
func TestCountLinesListTheirRecords(t *testing.T) {
	text, kinds := mixedLog(700)
	in := compact(t, "mixed.log", text, 0)
	_, root := render(t, []htmlreport.Input{in}, htmlreport.Options{})
	folds := elements(root, func(n *html.Node) bool { return n.Data == "details" && hasClass(n, "template") })
	if len(folds) < 4 {
		t.Fatalf("%d count lines, want one per template", len(folds))
	}
	for _, d := range folds {
		summary := textOf(elements(d, func(n *html.Node) bool { return n.Data == "summary" })[0])
		if g := elements(d, func(n *html.Node) bool { return hasClass(n, "guess") }); len(g) > 0 {
			t.Errorf("%q: %s", summary, textOf(g[0]))
		}
		stated, _ := strconv.Atoi(regexp.MustCompile(`\[×(\d+)`).FindStringSubmatch(summary)[1])
		from, _ := strconv.Atoi(regexp.MustCompile(`:L(\d+)-`).FindStringSubmatch(summary)[1])
		spec, _ := attr(d, "data-lines")
		listed := 0
		for _, r := range strings.Split(spec, ",") {
			a, z, _ := strings.Cut(r, "-")
			lo, _ := strconv.Atoi(a)
			hi := lo
			if z != "" {
				hi, _ = strconv.Atoi(z)
			}
			for n := lo; n <= hi; n++ {
				listed++
				if kinds[n-1] != kinds[from-1] {
					t.Errorf("%q (%s) lists line %d, a %q", summary, kinds[from-1], n, kinds[n-1])
				}
			}
		}
		if listed != min(stated, 200) {
			t.Errorf("%q lists %d lines, states %d", summary, listed, stated)
		}
	}
}
