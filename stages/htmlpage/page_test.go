package htmlpage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages/textkit"
	"golang.org/x/net/html"
)

const readabilityPages = "../../../shared/corpus/html/readability_test_pages"

// articleSentences mirrors the scorer: the sentences of 40 or more
// characters of the text of expected.html, a break at each block tag.
func articleSentences(expected string) []string {
	block := map[string]bool{"p": true, "div": true, "li": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
		"br": true, "tr": true, "td": true, "th": true, "blockquote": true, "pre": true, "figcaption": true}
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(expected))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			if block[string(name)] {
				b.WriteByte('\n')
			}
		case html.TextToken:
			b.WriteString(html.UnescapeString(string(z.Raw())))
		}
	}
	split := regexp.MustCompile(`[.!?]\s+|\n`)
	seen := map[string]bool{}
	var out []string
	text := b.String()
	last := 0
	for _, m := range split.FindAllStringIndex(text, -1) {
		end := m[0]
		if text[m[0]] != '\n' {
			end++ // the punctuation stays with its sentence
		}
		s := strings.Join(strings.Fields(text[last:end]), " ")
		last = m[1]
		if len([]rune(s)) >= 40 && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if s := strings.Join(strings.Fields(text[last:]), " "); len([]rune(s)) >= 40 && !seen[s] {
		out = append(out, s)
	}
	return out
}

// expectedTextChars is the size of the text of expected.html, runs of
// white space counted as one.
func expectedTextChars(expected string) int {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(expected))
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		if tt == html.TextToken {
			b.WriteString(html.UnescapeString(string(z.Raw())))
			b.WriteByte(' ')
		}
	}
	return textkit.Chars(strings.Join(strings.Fields(b.String()), " "))
}

// articleOverhead bounds the output of a page whose article alone is over
// a tenth of it: the article's text, its Markdown marks and the digest.
const articleOverhead = 1.12

// TestHTMLArticleSamplePages: on every sample page the article text a
// reader came for survives (90% of its sentences), each page shrinks to a
// tenth, and the pages together too. Three pages cannot: Readability's
// own article text (expected.html) is already over a tenth of the page,
// measured ietf-1 0.590 (a plain-text RFC in <pre>), lwn-1 0.284 (a
// long article with its comment thread) and lemonde-1 0.115; 90% of it
// would still be over 0.10. Those pages are held to their article's size
// times articleOverhead.
func TestHTMLArticleSamplePages(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(readabilityPages, "*", "source.html"))
	if len(dirs) == 0 {
		t.Skip("corpus absent: " + readabilityPages + " (CI has it)")
	}
	in, out := 0, 0
	for _, src := range dirs {
		raw, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		exp, err := os.ReadFile(filepath.Join(filepath.Dir(src), "expected.html"))
		if err != nil {
			continue
		}
		text := strings.ToValidUTF8(string(raw), "\uFFFD")
		got, _ := compactPage(t, text, testOptions)
		flat := strings.Join(strings.Fields(got), " ")
		sents := articleSentences(string(exp))
		kept := 0
		for _, s := range sents {
			if strings.Contains(flat, s) {
				kept++
			}
		}
		name := filepath.Base(filepath.Dir(src))
		if len(sents) > 0 && kept*10 < len(sents)*9 {
			t.Errorf("%s: %d of %d article sentences kept, want >= 90%%", name, kept, len(sents))
		}
		in += textkit.Chars(text)
		out += textkit.Chars(got)
		ratio := float64(textkit.Chars(got)) / float64(textkit.Chars(text))
		article := float64(expectedTextChars(string(exp))) / float64(textkit.Chars(text))
		if bar := max(0.10, article*articleOverhead); ratio > bar {
			t.Errorf("%s: ratio %.3f > %.3f (article text alone %.3f of the page)", name, ratio, bar, article)
		}
		t.Logf("%s: sentences %d/%d ratio %.3f, article text alone %.3f", name, kept, len(sents), ratio, article)
	}
	if r := float64(out) / float64(in); r > 0.10 {
		t.Errorf("ratio over the pages %.3f, want <= 0.10", r)
	}
}

// TestHTMLArticleMarkdown: a generated article page gives its headings,
// paragraphs, list items, table cells and code as Markdown, links as their
// text, then the short digest; navigation and scripts are gone.
func TestHTMLArticleMarkdown(t *testing.T) {
	for _, paras := range []int{6, 30} {
		var page strings.Builder
		page.WriteString(`<!doctype html><html lang="en"><head><title>Field notes | Site</title><script>var tracking = 1;</script></head><body>
<header><nav class="nav"><a href="/">Home</a> <a href="/about">About the site and its many sections</a></nav></header>
<main><article><h1>Field notes</h1><p class="byline">By Ana Author</p>`)
		var want []string
		for i := range paras {
			p := fmt.Sprintf("Paragraph %d tells of the <a href=\"/x%d\">river crossing</a> on day %d, and of what the team found there after the long walk through the valley.", i, i, i)
			page.WriteString("<h2>Day " + fmt.Sprint(i) + "</h2><p>" + p + " It was <em>cold</em>.</p>\n")
			want = append(want, fmt.Sprintf("## Day %d", i), fmt.Sprintf("Paragraph %d tells of the river crossing on day %d, and of what the team found there after the long walk through the valley. It was cold.", i, i))
		}
		page.WriteString(`<ul><li>First item of the list</li><li>Second item of the list</li></ul>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>alpha</td><td>1</td></tr></table>
<pre><code>func main() {
	fmt.Println("hi")
}</code></pre></article></main>
<footer><p>Copyright and a long list of footer links nobody reads.</p></footer></body></html>`)
		want = append(want, "- First item of the list", "- Second item of the list", "| Name | Value |", "| alpha | 1 |",
			"```\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```", "[html page: ")
		text := page.String()
		got, compacted := compactPage(t, text+strings.Repeat(" ", 1000), testOptions)
		if !compacted {
			t.Fatal("not compacted")
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%d paragraphs: output lacks %q\n%s", paras, w, got)
			}
		}
		for _, bad := range []string{"tracking", "<a", "Copyright"} {
			if strings.Contains(got, bad) {
				t.Errorf("%d paragraphs: output holds %q\n%s", paras, bad, got)
			}
		}
	}
}

// TestHTMLNoArticle: an app shell or a form has no article; it keeps the
// digest and its visible text, each repeated line once.
func TestHTMLNoArticle(t *testing.T) {
	var page strings.Builder
	page.WriteString(`<!doctype html><html><head><title>Console</title><style>:root{--brand: #0af}</style></head><body><div id="app">`)
	for i := range 30 {
		fmt.Fprintf(&page, `<div class="row"><button class="btn">Open</button><span class="label">Service %d</span><input name="q%d"></div>`, i, i)
	}
	page.WriteString(`<form><label>Search services</label><input type="search"><button>Go</button></form></div><script>boot()</script></body></html>`)
	text := page.String()
	got, compacted := compactPage(t, text, testOptions)
	if !compacted {
		t.Fatal("not compacted")
	}
	for _, w := range []string{"title: Console", "--brand: #0af", "Service 0", "Service 29", "Search services"} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q\n%s", w, got)
		}
	}
	if n := strings.Count(got, "Open"); n != 1 {
		t.Errorf("\"Open\" %d times, want once\n%s", n, got)
	}
	if strings.Contains(got, "boot()") {
		t.Errorf("script text kept\n%s", got)
	}
}

// nestedHeadings is the hostile page of issue 15: headings with text, each
// holding a div that holds the next.
func nestedHeadings(n int) string {
	t := strings.Repeat("lorem ipsum dolor sit amet ", 740)
	return "<!doctype html><html><body>" + strings.Repeat("<h4>"+t+"<div>", n) + "end"
}

// TestHTMLNestedHeadingsMemory: nested headings cost memory in proportion
// to the page, not to the sum of their subtrees (was ~750x the input).
func TestHTMLNestedHeadingsMemory(t *testing.T) {
	compact := func(text string, opt Options) { _, _, _ = Compact(context.Background(), text, opt) }
	for _, digestOnly := range []bool{false, true} {
		opt := testOptions
		opt.DigestOnly = digestOnly
		text := nestedHeadings(250)
		alloc := allocated(func() { compact(text, opt) })
		if ratio := float64(alloc) / float64(len(text)); ratio > 60 {
			t.Errorf("digest only %v: allocated %.0fx the input", digestOnly, ratio)
		}
	}
	a := allocated(func() { compact(nestedHeadings(100), testOptions) })
	b := allocated(func() { compact(nestedHeadings(200), testOptions) })
	if float64(b) > 2.5*float64(a) {
		t.Errorf("2x the headings allocate %.1fx", float64(b)/float64(a))
	}
}

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHTMLLayoutTable: a table used for layout gives the blocks of its
// cells, not one row of flattened text.
func TestHTMLLayoutTable(t *testing.T) {
	var body strings.Builder
	for i := range 8 {
		fmt.Fprintf(&body, "<h2>Part %d</h2><p>Part %d of the story tells how the old mill by the river was rebuilt by the village, stone by stone, over many summers.</p>", i, i)
	}
	page := `<!doctype html><html><head><title>Story</title></head><body><table><tr><td class="nav"><a href="/">Home</a></td><td>` +
		body.String() + `<ul><li>first point</li><li>second point</li></ul></td></tr></table></body></html>`
	got, _ := compactPage(t, page, testOptions)
	for _, w := range []string{"## Part 0\n\nPart 0 of the story", "## Part 7", "- first point\n- second point"} {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q\n%s", w, got)
		}
	}
}

// paginatedPage generates plain text served one <pre> a page (or one
// <pre> with form feeds): each page opens with a running head and closes
// with a running foot that carries the page number.
func paginatedPage(pages int, formFeeds bool, seed int) (page string, body []string) {
	words := strings.Fields("the protocol server client request storage token folder document access bearer domain provider version")
	var b strings.Builder
	b.WriteString("<html><head><title>Draft</title></head><body><article><h1>remoteStorage draft</h1>")
	if formFeeds {
		b.WriteString("<pre>")
	}
	for p := 1; p <= pages; p++ {
		if !formFeeds {
			b.WriteString("<pre>")
		}
		fmt.Fprintf(&b, "\nInternet-Draft              remoteStorage%d                  December 2014\n\n", seed)
		for l := range 40 {
			line := fmt.Sprintf("   %s %s page %d line %d of the %s.", words[(p+l)%len(words)], words[(p*l+seed)%len(words)], p, l, words[l%len(words)])
			body = append(body, line)
			b.WriteString(line + "\n")
		}
		fmt.Fprintf(&b, "\nde Jong                                                         [Page %d]\n", p)
		if formFeeds {
			b.WriteString("\f")
		} else {
			b.WriteString("</pre>")
		}
	}
	if formFeeds {
		b.WriteString("</pre>")
	}
	b.WriteString("</article></body></html>")
	return b.String(), body
}

// TestHTMLRunningHeadsFolded: the running head and foot of paginated
// text stay once; every line of every page stays; short code blocks that
// open alike are left alone.
func TestHTMLRunningHeadsFolded(t *testing.T) {
	for _, ff := range []bool{false, true} {
		for seed := range 3 {
			page, body := paginatedPage(5+seed*3, ff, seed)
			got, _ := compactPage(t, page, testOptions)
			if n := strings.Count(got, "Internet-Draft"); n != 1 {
				t.Errorf("form feeds %v seed %d: running head %d times, want 1", ff, seed, n)
			}
			if n := strings.Count(got, "[Page "); n != 1 {
				t.Errorf("form feeds %v seed %d: running foot %d times, want 1", ff, seed, n)
			}
			for _, l := range body {
				if !strings.Contains(got, l) {
					t.Fatalf("form feeds %v seed %d: line lost: %q", ff, seed, l)
				}
			}
		}
	}
	var b strings.Builder
	b.WriteString("<html><body><article><h1>Tutorial</h1>")
	for i := range 4 {
		fmt.Fprintf(&b, "<p>Step %d of the tutorial explains what the code below does in some detail.</p><pre>import numpy   as np\nx = np.arange(%d)\nprint(x)   # step %d</pre>", i, i, i)
	}
	b.WriteString("</article></body></html>")
	got, _ := compactPage(t, b.String(), testOptions)
	if n := strings.Count(got, "import numpy   as np"); n != 4 {
		t.Errorf("code blocks changed: first line %d times, want 4:\n%s", n, got)
	}
}

// testOptions are the knobs stages ships (DefaultStructuredOptions).
var testOptions = Options{TopClasses: 15, MaxProperties: 20}

// compactPage is what the structured node makes of a page: Compact's
// output when it is shorter, else the page itself (compacted false).
func compactPage(t testing.TB, text string, opt Options) (got string, compacted bool) {
	t.Helper()
	out, ok, err := Compact(context.Background(), text, opt)
	if err != nil {
		t.Fatalf("Compact: %v", err)
	}
	if !ok || textkit.Chars(out) >= textkit.Chars(text) {
		return text, false
	}
	if !utf8.ValidString(out) {
		t.Fatalf("invalid UTF-8 in output")
	}
	return out, true
}
