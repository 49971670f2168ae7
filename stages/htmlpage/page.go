// Package htmlpage compacts an HTML page to what a reader came for: the
// main content as compact Markdown, then a structural digest. It knows
// nothing of the pipeline: stages' structured node calls Compact.
package htmlpage

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// HTML pages are compacted to what a reader came for: the main content as
// compact Markdown (title, byline, headings, paragraphs, lists, tables,
// code; links as their text), then the structural digest in two or three
// lines. A page without an article (an app shell, a form) keeps the digest
// and its visible text, each distinct line once. The option
// structured.html: digest gives the digest alone (design.md, Sessions).

// Options are the knobs of Compact.
type Options struct {
	// DigestOnly gives the digest alone, without the article.
	DigestOnly bool
	// TopClasses: how many recurring class names the digest lists.
	TopClasses int
	// MaxProperties: how many CSS custom properties the digest lists.
	MaxProperties int
}

const (
	// htmlMaxElements bounds the elements readability scores; a bigger
	// page gets the digest and its visible text.
	htmlMaxElements = 100000
	// articleMinChars: extracted text shorter than this is not an article.
	articleMinChars = 250
	// headingMaxChars bounds one heading in the digest: a "heading" longer
	// than this wraps content, not a title.
	headingMaxChars = 300
)

// Compact compacts an HTML page. ok is false when text holds no HTML
// elements; err is ctx's error.
func Compact(ctx context.Context, text string, opt Options) (string, bool, error) {
	if opt.DigestOnly {
		return digest(ctx, text, opt)
	}
	doc, d, ok, err := parseDigest(ctx, text, opt.MaxProperties)
	if !ok {
		return "", false, err
	}
	chars := textkit.Chars(text)
	var b strings.Builder
	title, body := readableArticle(doc)
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	if body != "" {
		if title != "" && !strings.Contains(body, title) {
			b.WriteString("# " + title + "\n")
		}
		b.WriteString(foldRunningHeads(body))
		b.WriteString("\n\n")
		d.renderShort(&b, b.String(), chars, opt.TopClasses)
	} else {
		b.WriteString(d.render(chars, "", opt.TopClasses))
		b.WriteString("\n")
		// Readability may have pruned the tree before it gave up: the
		// visible text is read from a fresh parse.
		root, err := html.ParseWithOptions(strings.NewReader(text), html.ParseOptionEnableScripting(false))
		if err != nil {
			return "", false, nil
		}
		seen := map[string]bool{}
		fence := ""
		for _, line := range strings.Split(markdownOf(root, true), "\n") {
			switch k := strings.TrimSpace(line); {
			case fence != "":
				if strings.TrimRight(line, "`") == "" && len(line) == len(fence) {
					fence = ""
				}
			case textkit.FenceMarker(line) != "":
				fence = textkit.FenceMarker(line)
			case k != "" && seen[k]:
				continue
			case k == "" && strings.HasSuffix(b.String(), "\n\n"):
				// The blank lines around dropped repeats fold to one.
				continue
			default:
				seen[k] = true
			}
			b.WriteString(line + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n"), true, nil
}

// readableArticle returns the title and the Markdown of the main content
// readability finds in doc (which it rewrites), or "" for no article.
func readableArticle(doc *html.Node) (title, body string) {
	defer func() {
		if recover() != nil {
			// A page readability cannot take is a page without an article.
			title, body = "", ""
		}
	}()
	p := readability.NewParser()
	p.MaxElemsToParse = htmlMaxElements
	if denseScript(doc) {
		// Chinese, Japanese and Korean text says in 200 characters what
		// takes 500 in a Latin script: a short brief there is an article,
		// not a reason to retry without the filters (which lets a long
		// comment thread win).
		p.CharThresholds = 200
	}
	if !p.CheckDocument(doc) && !shortParagraphProse(doc) {
		// Readability's own test: no run of paragraph text long enough.
		return "", ""
	}
	a, err := p.ParseAndMutate(doc, nil)
	if err != nil || a.Node == nil {
		return "", ""
	}
	body = markdownOf(a.Node, false)
	if textkit.Chars(body) < articleMinChars {
		return "", ""
	}
	title = foldSpace(a.Title())
	if by := foldSpace(a.Byline()); by != "" && !strings.Contains(body, by) {
		body = "by " + by + "\n\n" + body
	}
	return title, body
}

// Articles of short paragraphs (news briefs, wire copy, one sentence a
// paragraph) fail readability's test, which counts only paragraphs of
// 140 characters or more. proseMinParagraphs sentence-like paragraphs
// holding proseMinChars between them make a page an article too.
const (
	proseMinParagraphs = 5
	proseMinChars      = 300
	proseMinParagraph  = 40 // characters: shorter is a label or a caption
	// proseMaxBrText bounds the text read under <br> parents, which
	// nest: deep nesting must not cost the square of the page.
	proseMaxBrText = 1 << 22
)

// shortParagraphProse reports a page with proseMinParagraphs or more
// distinct paragraphs that read as sentences: visible <p>s (or runs of
// text between <br>s) outside lists, forms and navigation, of
// proseMinParagraph characters or more, ending as a sentence ends.
func shortParagraphProse(doc *html.Node) bool {
	n, chars := 0, 0
	seen := map[string]bool{}
	brParents := map[*html.Node]bool{}
	brRead := 0
	// paragraph counts one paragraph's text; it reports enough prose.
	paragraph := func(t string) bool {
		t = foldSpace(t)
		w := proseWidth(t)
		if w < proseMinParagraph || !strings.ContainsRune(".!?。！？…\"”»)", []rune(t)[len([]rune(t))-1]) {
			return false
		}
		if k := maskDigits(t); !seen[k] {
			// A listing repeats one template a card; an article's
			// paragraphs differ.
			seen[k] = true
			n++
			chars += w
		}
		return n >= proseMinParagraphs && chars >= proseMinChars
	}
	for c := doc; c != nil; c = nextHTMLNode(c, doc) {
		if c.Type != html.ElementNode {
			continue
		}
		switch {
		case c.DataAtom == atom.P && proseContext(c):
			if paragraph(nodeText(c)) {
				return true
			}
		case c.DataAtom == atom.Br && c.Parent != nil && c.Parent.DataAtom != atom.P && !brParents[c.Parent] && brRead < proseMaxBrText && proseContext(c.Parent):
			// Paragraphs as runs of text between <br>s (old layouts,
			// forum posts), in a div or a table cell.
			brParents[c.Parent] = true
			text := nodeText(c.Parent)
			brRead += len(text)
			for _, line := range strings.Split(text, "\n") {
				if paragraph(line) {
					return true
				}
			}
		}
	}
	return false
}

// proseWidth counts a Han, kana or Hangul character twice: it says about
// what two Latin letters do.
func proseWidth(s string) int {
	w := 0
	for _, r := range s {
		w++
		if isDense(r) {
			w++
		}
	}
	return w
}

func isDense(r rune) bool {
	return r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// proseContext reports a paragraph that is neither hidden nor in a list,
// form, navigation or template.
func proseContext(p *html.Node) bool {
	for a := p; a != nil; a = a.Parent {
		if a.Type != html.ElementNode {
			continue
		}
		switch a.DataAtom {
		case atom.Li, atom.Form, atom.Nav, atom.Template, atom.Noscript, atom.Button, atom.Label:
			return false
		}
		if skipForText(a, true) || strings.Contains(strings.ReplaceAll(attr(a, "style"), " ", ""), "display:none") {
			return false
		}
	}
	return true
}

// denseScript reports a page whose readable text is mostly Han, kana or
// Hangul: more than half of its letters.
func denseScript(doc *html.Node) bool {
	dense, letters := 0, 0
	for c := doc; c != nil; c = nextHTMLNode(c, doc) {
		if c.Type != html.TextNode || c.Parent == nil || skipForText(c.Parent, false) {
			continue
		}
		for _, r := range c.Data {
			switch {
			case isDense(r):
				dense++
				letters++
			case unicode.IsLetter(r):
				letters++
			}
		}
	}
	return dense*2 > letters
}

// mdWriter renders HTML as compact Markdown: blocks separated by one
// blank line, inline text with whitespace folded, no emphasis marks and
// links as their text, so each sentence reads as on the page.
type mdWriter struct {
	out     strings.Builder
	line    strings.Builder // the inline text of the open block
	prefix  string          // list or quote marker of the open block
	item    bool            // the last block written is a list item
	visible bool            // a page without an article: hidden elements are skipped too
}

// markdownOf renders the tree under root as Markdown.
func markdownOf(root *html.Node, visibleOnly bool) string {
	w := &mdWriter{visible: visibleOnly}
	w.children(root, 0)
	w.flush()
	return strings.TrimSpace(w.out.String())
}

func (w *mdWriter) flush() {
	text := foldSpace(w.line.String())
	w.line.Reset()
	if text == "" {
		return
	}
	item := strings.HasPrefix(w.prefix, "- ") || isOrderedMarker(w.prefix)
	w.separate(item)
	w.out.WriteString(w.prefix + text)
	w.prefix = ""
}

// separate ends the last block: list items of one list share a line
// break, other blocks a blank line.
func (w *mdWriter) separate(item bool) {
	if w.out.Len() > 0 {
		if item && w.item {
			w.out.WriteString("\n")
		} else {
			w.out.WriteString("\n\n")
		}
	}
	w.item = item
}

func isOrderedMarker(p string) bool {
	i := 0
	for i < len(p) && p[i] >= '0' && p[i] <= '9' {
		i++
	}
	return i > 0 && strings.HasPrefix(p[i:], ". ")
}

func (w *mdWriter) children(nd *html.Node, depth int) {
	for c := nd.FirstChild; c != nil; c = c.NextSibling {
		w.node(c, depth)
	}
}

// mdMaxDepth bounds the recursion of the renderer; deeper content is
// rendered flat.
const mdMaxDepth = 200

func (w *mdWriter) node(nd *html.Node, depth int) {
	switch nd.Type {
	case html.TextNode:
		w.line.WriteString(nd.Data)
		return
	case html.ElementNode, html.DocumentNode:
	default:
		return
	}
	if nd.Type == html.DocumentNode {
		w.children(nd, depth+1)
		return
	}
	if skipForText(nd, w.visible) {
		return
	}
	if depth > mdMaxDepth {
		w.line.WriteString(" " + nodeText(nd) + " ")
		return
	}
	switch nd.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		w.flush()
		w.prefix = strings.Repeat("#", int(nd.Data[1]-'0')) + " "
		w.children(nd, depth+1)
		w.flush()
	case atom.Br:
		w.flush()
	case atom.Img, atom.Picture, atom.Video, atom.Audio:
		// Media: no reading text.
	case atom.Pre:
		w.flush()
		code := strings.Trim(nodeText(nd), "\n")
		if strings.TrimSpace(code) != "" {
			fence := "```"
			for strings.Contains(code, fence) {
				fence += "`"
			}
			w.separate(false)
			w.out.WriteString(fence + "\n" + code + "\n" + fence)
		}
	case atom.Ul, atom.Ol:
		w.flush()
		k := 0
		for c := nd.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.DataAtom == atom.Li {
				k++
				w.flush()
				marker := "- "
				if nd.DataAtom == atom.Ol {
					marker = strconv.Itoa(k) + ". "
				}
				w.prefix = marker
				w.children(c, depth+1)
				w.flush()
				continue
			}
			w.node(c, depth+1)
		}
		w.flush()
	case atom.Table:
		w.flush()
		w.table(nd, depth)
	case atom.Blockquote:
		w.flush()
		w.prefix = "> "
		w.children(nd, depth+1)
		w.flush()
	default:
		if !blockTags[nd.DataAtom] {
			// Inline, known or not (tt, font, big, custom elements): a
			// sentence runs through it.
			w.children(nd, depth+1)
			return
		}
		w.flush()
		w.children(nd, depth+1)
		w.flush()
	}
}

// table renders rows as "| a | b |" lines, a delimiter after the first.
// A layout table (cells that hold paragraphs, lists, headings or tables)
// is rendered as the blocks of its cells, in order.
func (w *mdWriter) table(nd *html.Node, depth int) {
	if hasBlockCell(nd) {
		for c := nd; c != nil; c = nextHTMLNode(c, nd) {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) && nearestTable(c) == nd {
				w.flush()
				w.children(c, depth+1)
				w.flush()
			}
		}
		return
	}
	var rows [][]string
	for c := nd; c != nil; c = nextHTMLNode(c, nd) {
		if c.Type == html.ElementNode && c.DataAtom == atom.Tr {
			var cells []string
			for td := c.FirstChild; td != nil; td = td.NextSibling {
				if td.Type == html.ElementNode && (td.DataAtom == atom.Td || td.DataAtom == atom.Th) {
					cells = append(cells, strings.ReplaceAll(foldSpace(nodeText(td)), "|", "\\|"))
				}
			}
			if len(cells) > 0 {
				rows = append(rows, cells)
			}
		}
	}
	if len(rows) == 0 {
		return
	}
	if len(rows) == 1 && len(rows[0]) == 1 {
		// A layout table of one cell: its content is text.
		w.line.WriteString(rows[0][0])
		w.flush()
		return
	}
	w.separate(false)
	for i, r := range rows {
		if i > 0 {
			w.out.WriteString("\n")
		}
		w.out.WriteString("| " + strings.Join(r, " | ") + " |")
		if i == 0 {
			w.out.WriteString("\n|" + strings.Repeat(" --- |", len(r)))
		}
	}
}

// nodeText is the text under nd, scripts and styles left out, with a line
// break for each <br>.
func nodeText(nd *html.Node) string {
	var b strings.Builder
	for c := nd.FirstChild; c != nil; c = nextAfter(c, nd, !(c.Type == html.ElementNode && (c.DataAtom == atom.Script || c.DataAtom == atom.Style))) {
		switch {
		case c.Type == html.TextNode:
			b.WriteString(c.Data)
		case c.Type == html.ElementNode && c.DataAtom == atom.Br:
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// skipForText reports elements with no reading text; on a page without an
// article (visible), hidden elements are left out as well. Forms and
// navigation stay there: on an app shell they are the page.
func skipForText(nd *html.Node, visible bool) bool {
	switch nd.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Iframe, atom.Head, atom.Select:
		return true
	}
	if nd.Namespace != "" {
		return true
	}
	if visible && (attr(nd, "hidden") != "" || strings.EqualFold(attr(nd, "aria-hidden"), "true")) {
		return true
	}
	return false
}

// renderShort writes the digest's structure in two or three lines: size
// and landmarks, recurring classes, custom properties and counts.
// Headings h1-h3 (and the title) the article does not hold are listed on a
// line of their own: they say what else the page offers.
func (d *htmlDigest) renderShort(b *strings.Builder, article string, chars, topClasses int) {
	var others []string
	for _, h := range d.headings {
		if strings.HasPrefix(h, "####") {
			// h4-h6 outside the article title cards, teasers and footer
			// columns, not the sections of the page.
			continue
		}
		text := strings.TrimLeft(strings.TrimPrefix(h, "title: "), "# ")
		if !strings.Contains(article, text) {
			others = append(others, digestText(text))
		}
	}
	if len(others) > 0 {
		b.WriteString("[page headings: " + strings.Join(others, " · ") + "]\n")
	}
	fmt.Fprintf(b, "[html page: %d chars", chars)
	if d.lang != "" {
		b.WriteString("; lang " + digestText(foldSpace(d.lang)))
	}
	if len(d.landmarks.names) > 0 {
		b.WriteString("; landmarks: " + d.landmarkList())
	}
	if len(d.counts.names) > 0 {
		b.WriteString("; " + d.countList())
	}
	b.WriteString("]\n")
	if classes := d.recurringClasses(topClasses); classes != "" {
		b.WriteString("[classes: " + classes + "]\n")
	}
	if d.propTotal > 0 {
		b.WriteString("[custom properties (" + strconv.Itoa(d.propTotal) + "): " + digestText(strings.Join(d.props, "; ")))
		if d.propTotal > len(d.props) {
			b.WriteString("; …")
		}
		b.WriteString("]\n")
	}
}

// hasBlockCell reports a table whose own cells hold block content.
func hasBlockCell(table *html.Node) bool {
	for c := table; c != nil; c = nextHTMLNode(c, table) {
		if c == table || c.Type != html.ElementNode {
			continue
		}
		switch c.DataAtom {
		case atom.P, atom.Ul, atom.Ol, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Table, atom.Pre, atom.Blockquote:
			return true
		}
	}
	return false
}

// nearestTable is the table a cell belongs to.
func nearestTable(nd *html.Node) *html.Node {
	for p := nd.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.DataAtom == atom.Table {
			return p
		}
	}
	return nil
}

// blockTags break the text into blocks; every other element is inline.
var blockTags = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Body: true, atom.Center: true,
	atom.Dd: true, atom.Details: true, atom.Dialog: true, atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true,
	atom.Figcaption: true, atom.Figure: true, atom.Footer: true, atom.Form: true, atom.Header: true, atom.Hgroup: true,
	atom.Hr: true, atom.Html: true, atom.Legend: true, atom.Li: true, atom.Main: true, atom.Nav: true, atom.Ol: true,
	atom.P: true, atom.Section: true, atom.Summary: true, atom.Td: true, atom.Th: true, atom.Tr: true, atom.Ul: true,
	atom.Caption: true, atom.Tbody: true, atom.Thead: true, atom.Tfoot: true, atom.Option: true,
	atom.Button: true, atom.Label: true, // controls of an app shell: one item each
}

// pageMinLines: a preformatted block shorter than this is not a page.
const pageMinLines = 20

// foldRunningHeads drops the running heads and feet of paginated plain
// text (RFCs, drafts, printed manuals served as one <pre> a page): a line
// laid out in columns (title, date; author, page number) that opens or
// closes three or more pages alike, digits aside, is kept where it first
// stands and dropped from the other pages. Pages are fenced blocks of
// pageMinLines or more, or the parts of one between form feeds.
func foldRunningHeads(md string) string {
	lines := strings.Split(md, "\n")
	// edges: the indexes of each page's first and last non-blank lines.
	var edges []int
	addPage := func(from, to int) { // lines[from:to]
		if to-from < pageMinLines {
			return
		}
		first, last := -1, -1
		for i := from; i < to; i++ {
			if strings.Trim(lines[i], " \t\f\r") != "" {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		if first >= 0 {
			edges = append(edges, first)
			if last != first {
				edges = append(edges, last)
			}
		}
	}
	pages := 0
	for i := 0; i < len(lines); i++ {
		fence := textkit.FenceMarker(lines[i])
		if fence == "" {
			continue
		}
		start := i + 1
		j := start
		for j < len(lines) && strings.TrimSpace(lines[j]) != fence {
			if strings.Contains(lines[j], "\f") {
				addPage(start, j+1)
				start = j + 1
				pages++
			}
			j++
		}
		addPage(start, j)
		pages++
		i = j
	}
	if pages < 3 {
		return md
	}
	key := func(l string) string {
		var b strings.Builder
		for _, f := range strings.Fields(strings.Trim(l, "\f")) {
			b.WriteString(maskDigits(f) + " ")
		}
		return b.String()
	}
	count := map[string]int{}
	for _, i := range edges {
		count[key(lines[i])]++
	}
	drop := map[int]bool{}
	kept := map[string]bool{}
	for _, i := range edges {
		k := key(lines[i])
		if count[k] < 3 || !columnGap(strings.TrimSpace(lines[i])) {
			continue
		}
		if !kept[k] {
			kept[k] = true
			continue
		}
		drop[i] = true
	}
	if len(drop) == 0 {
		return md
	}
	out := make([]string, 0, len(lines))
	for i, l := range lines {
		if drop[i] {
			if strings.Contains(l, "\f") {
				out = append(out, "\f")
			}
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// columnGap reports a gap of three or more blanks between words.
func columnGap(s string) bool {
	i := strings.Index(s, "   ")
	return i > 0 && strings.TrimSpace(s[i:]) != ""
}

// maskDigits replaces each run of digits in s with one '0'.
func maskDigits(s string) string {
	var b strings.Builder
	digits := false
	for _, r := range s {
		if r >= '0' && r <= '9' {
			if !digits {
				b.WriteByte('0')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteRune(r)
	}
	return b.String()
}
