package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// markdownDoc writes a generated Markdown document of one of three
// shapes (a README with a long table, a curated list of links, a
// changelog) and returns it with the lines that must survive verbatim.
func markdownDoc(r *rand.Rand, shape int) (doc string, verbatim []string) {
	var b strings.Builder
	line := func(s string, keep bool) {
		b.WriteString(s + "\n")
		if keep {
			verbatim = append(verbatim, s)
		}
	}
	words := []string{"service", "cluster", "release", "storage", "metrics", "gateway", "archive", "replica"}
	sentence := func(i int) string {
		return fmt.Sprintf("The %s keeps %d copies of every %s for %d days, and the %s reads them back when asked.",
			words[r.IntN(len(words))], 2+r.IntN(5), words[r.IntN(len(words))], 7+r.IntN(80), words[r.IntN(len(words))])
	}
	line("# Project "+words[shape%len(words)], true)
	line("", false)
	line(sentence(0), true)
	line("", false)
	switch shape % 3 {
	case 0:
		line("## Datasets", true)
		line("", false)
		line("| Name | Description | Lines | Size | Link |", true)
		line("| :--- | :--- | ---: | ---: | :---: |", false)
		for i := range 40 + r.IntN(200) {
			line(fmt.Sprintf("| [set%d](./set%d) | %s %s log | %d,%03d | %d.%02dMiB | [:link:](https://example.org/files/set%d.zip) |",
				i, i, words[r.IntN(len(words))], words[r.IntN(len(words))], 1+r.IntN(900), r.IntN(1000), 1+r.IntN(900), r.IntN(100), i), i == 0)
		}
	case 1:
		for s := range 3 + r.IntN(4) {
			line("", false)
			line(fmt.Sprintf("## %s tools %d", strings.ToUpper(words[s%len(words)][:1])+words[s%len(words)][1:], s), true)
			line("", false)
			for i := range 5 + r.IntN(20) {
				line(fmt.Sprintf("- [%s-%d-%d](https://example.org/%s/%d) - A %s for the %s, version %d.%d.", words[r.IntN(len(words))], s, i, words[s%len(words)], i, words[r.IntN(len(words))], words[r.IntN(len(words))], 1+r.IntN(9), r.IntN(20)), true)
			}
		}
	default:
		for v := 30 + r.IntN(10); v > 20; v-- {
			line("", false)
			line(fmt.Sprintf("## 1.%d.0 (2024-%02d-%02d)", v, 1+v%12, 1+v%28), true)
			line("", false)
			for i := range 2 + r.IntN(5) {
				line(fmt.Sprintf("* Fixed %s %s handling when %d %s requests arrive (#%d)", words[r.IntN(len(words))], words[r.IntN(len(words))], 2+r.IntN(500), words[i%len(words)], 1000+r.IntN(9000)), true)
			}
		}
	}
	line("", false)
	line("## License", true)
	line(sentence(1), true)
	return b.String(), verbatim
}

// TestMarkdownDocumentIsProse: a Markdown document whose table or lists
// open its lines alike is read as prose, not as a log: its sentences and
// items keep their numbers, each heading stays, and a long table folds.
func TestMarkdownDocumentIsProse(t *testing.T) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(61, 62))
	for doc := range 30 {
		text, verbatim := markdownDoc(r, doc)
		res, err := p.CompactAlgorithmic(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		if res.Report.Kind != stages.KindProse {
			t.Errorf("doc %d (shape %d): read as %s", doc, doc%3, res.Report.Kind)
		}
		for _, v := range verbatim {
			if !strings.Contains(res.Text, v+"\n") && !strings.HasSuffix(res.Text, v) {
				t.Errorf("doc %d (shape %d): lost %q\n%.800s", doc, doc%3, v, res.Text)
				break
			}
		}
		if rows := strings.Count(text, "\n| ["); rows > 60 && len(res.Text)*2 > len(text) {
			t.Errorf("doc %d: a table of %d rows did not fold: %d of %d bytes", doc, rows, len(res.Text), len(text))
		}
	}
}

// TestCommentedBuildStaysLog: build output whose shell trace comments
// its steps ("# Install dependencies") and lists its work ("- Installing
// six (1.16.0)", "+ make -j4") is no Markdown document.
func TestCommentedBuildStaysLog(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "# Step %d: install dependencies of module %d\n", i, i)
		fmt.Fprintf(&b, "+ pip install -r requirements-%d.txt\n", i)
		fmt.Fprintf(&b, "  - Installing six%d (1.%d.0)\n", i, i)
		fmt.Fprintf(&b, "+ make -j4 target_%d\n", i)
	}
	if k := stages.Detect(b.String()); k != stages.KindLog {
		t.Errorf("read as %s", k)
	}
}
