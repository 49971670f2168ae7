package htmlpage

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// The HTML digest keeps a page's structure and drops its bulk (design.md,
// Sessions: custom properties, landmarks, recurring class names, headings):
//
//	[html digest: 10720 chars]
//	title: …
//	# h1 text
//	## h2 text
//	landmarks: header, nav(2), main, footer, role=search
//	classes: card(40), btn(12), …
//	custom properties (3): --brand: #0af; --gap: 8px; …
//	counts: links 120, images 30, scripts 12
//
// Every title and heading is kept whole (whitespace folded), in document
// order, each distinct text once. Classes are ranked by recurrence, not
// matched against a list of known prefixes, so an unfamiliar naming scheme
// yields fewer findings rather than none.

// Sniff reports whether s (trimmed) starts like an HTML document.
func Sniff(s string) bool {
	if s == "" || s[0] != '<' {
		return false
	}
	head := s
	if len(head) > 1024 {
		head = head[:1024]
	}
	head = strings.ToLower(head)
	return strings.Contains(head, "<!doctype html") || strings.Contains(head, "<html")
}

var landmarkTags = map[atom.Atom]bool{
	atom.Header: true, atom.Nav: true, atom.Main: true, atom.Aside: true,
	atom.Footer: true, atom.Section: true, atom.Article: true, atom.Form: true,
}

type tally struct {
	names []string
	count map[string]int
}

func (t *tally) add(name string) {
	if t.count == nil {
		t.count = map[string]int{}
	}
	if t.count[name] == 0 {
		t.names = append(t.names, name)
	}
	t.count[name]++
}

type htmlDigest struct {
	lang, description string
	headings          []string // formatted lines
	seen              map[string]bool
	landmarks         tally
	classes           tally
	props             []string
	propSeen          map[string]bool
	propTotal         int
	counts            tally
	elements          int
	body, main        *html.Node // where the text excerpt comes from
}

// digestExcerptChars is the length of the text excerpt in the digest.
const digestExcerptChars = 192

// digest returns the digest of an HTML page. ok is false when the text
// holds no HTML elements.
func digest(ctx context.Context, text string, opt Options) (string, bool, error) {
	_, d, ok, err := parseDigest(ctx, text, opt.MaxProperties)
	if !ok {
		return "", false, err
	}
	from := d.main
	if from == nil {
		from = d.body
	}
	excerpt := ""
	if from != nil {
		excerpt = textExcerpt(from, digestExcerptChars)
	}
	return d.render(textkit.Chars(text), excerpt, opt.TopClasses), true, nil
}

// parseDigest parses text and collects its digest. ok is false when the
// text holds no HTML elements.
func parseDigest(ctx context.Context, text string, maxProps int) (doc *html.Node, d *htmlDigest, ok bool, err error) {
	doc, err = html.ParseWithOptions(strings.NewReader(text), html.ParseOptionEnableScripting(false))
	if err != nil {
		return nil, nil, false, nil
	}
	d, err = collectDigest(ctx, doc, maxProps)
	if err != nil || d.elements == 0 {
		return nil, nil, false, err
	}
	return doc, d, true, nil
}

// collectDigest walks doc once and gathers what the digest shows.
func collectDigest(ctx context.Context, doc *html.Node, maxProps int) (*htmlDigest, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d := &htmlDigest{seen: map[string]bool{}, propSeen: map[string]bool{}}
	visited := 0
	for nd := doc; nd != nil; nd = nextHTMLNode(nd, doc) {
		// ctx is read every 4096 nodes, to keep the walk cheap.
		if visited++; visited&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if nd.Type != html.ElementNode {
			continue
		}
		d.element(nd, maxProps)
	}
	return d, nil
}

// nextHTMLNode walks the tree in document order without recursion.
func nextHTMLNode(nd, root *html.Node) *html.Node { return nextAfter(nd, root, true) }

// nextAfter is the node after nd in document order under root, nd's
// children left out unless descend; nil at the end.
func nextAfter(nd, root *html.Node, descend bool) *html.Node {
	if descend && nd.FirstChild != nil {
		return nd.FirstChild
	}
	for nd != root {
		if nd.NextSibling != nil {
			return nd.NextSibling
		}
		nd = nd.Parent
	}
	return nil
}

// element records what nd adds to the digest: its place in the page,
// its headings and counts, and its landmarks, classes and custom
// properties.
func (d *htmlDigest) element(nd *html.Node, maxProps int) {
	d.structure(nd)
	d.content(nd, maxProps)
	d.attributes(nd, maxProps)
}

// structure counts nd as an HTML element and notes the page's language,
// body and main content.
func (d *htmlDigest) structure(nd *html.Node) {
	switch nd.DataAtom {
	case atom.Html, atom.Head, atom.Body:
		if nd.DataAtom == atom.Html && d.lang == "" {
			d.lang = attr(nd, "lang")
		}
	case 0:
		// Not an HTML element: "<notes>" does not make a text a page.
	default:
		d.elements++
	}
	switch nd.DataAtom {
	case atom.Body:
		if d.body == nil {
			d.body = nd
		}
	case atom.Main, atom.Article:
		if d.main == nil && nd.Namespace == "" {
			d.main = nd
		}
	}
}

// content notes nd's headings and description and counts its kind.
func (d *htmlDigest) content(nd *html.Node, maxProps int) {
	switch nd.DataAtom {
	case atom.Title:
		d.heading("title: ", headingText(nd))
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		if nd.Namespace == "" {
			level := int(nd.Data[1] - '0')
			d.heading(strings.Repeat("#", level)+" ", headingText(nd))
		}
	case atom.Meta:
		if strings.EqualFold(attr(nd, "name"), "description") && d.description == "" {
			d.description = foldSpace(attr(nd, "content"))
		}
	case atom.A:
		if attr(nd, "href") != "" {
			d.counts.add("links")
		}
	case atom.Img:
		d.counts.add("images")
	case atom.Script:
		d.counts.add("scripts")
	case atom.Iframe:
		d.counts.add("iframes")
	case atom.Table:
		d.counts.add("tables")
	case atom.Input, atom.Select, atom.Textarea, atom.Button:
		d.counts.add("inputs")
	case atom.Style:
		d.counts.add("stylesheets")
		for c := nd.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				d.customProps(c.Data, maxProps)
			}
		}
	case atom.Link:
		if strings.EqualFold(attr(nd, "rel"), "stylesheet") {
			d.counts.add("stylesheets")
		}
	}
}

// attributes notes nd's landmarks, classes and inline custom properties.
func (d *htmlDigest) attributes(nd *html.Node, maxProps int) {
	if landmarkTags[nd.DataAtom] && nd.Namespace == "" {
		d.landmarks.add(nd.Data)
	}
	for _, a := range nd.Attr {
		switch a.Key {
		case "role":
			if r := strings.TrimSpace(a.Val); r != "" {
				d.landmarks.add("role=" + r)
			}
		case "class":
			for _, c := range strings.Fields(a.Val) {
				d.classes.add(c)
			}
		case "style":
			d.customProps(a.Val, maxProps)
		}
	}
}

func attr(nd *html.Node, key string) string {
	for _, a := range nd.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func (d *htmlDigest) heading(prefix, text string) {
	if text == "" || d.seen[text] {
		return
	}
	d.seen[text] = true
	d.headings = append(d.headings, prefix+text)
}

// isHeadingTag reports the elements whose text a reader of headings
// takes for their own: a heading's text leaves out theirs.
func isHeadingTag(nd *html.Node) bool {
	switch nd.DataAtom {
	case atom.Title, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// headingText is the text under nd, nested titles and headings left out,
// whitespace folded, cut at headingMaxChars. Reading stops at the cut, so
// headings nested in one another's content cost their own size, not their
// subtree's.
func headingText(nd *html.Node) string {
	var b strings.Builder
	limit := 4 * headingMaxChars // bytes: room for folded space and multi-byte runes
	for c := nd.FirstChild; c != nil && b.Len() < limit; c = nextAfter(c, nd, !(c.Type == html.ElementNode && isHeadingTag(c))) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data[:min(len(c.Data), limit-b.Len())])
		}
	}
	s := foldSpace(strings.ToValidUTF8(b.String(), ""))
	if r := []rune(s); len(r) > headingMaxChars {
		s = string(r[:headingMaxChars]) + "…"
	}
	return s
}

// textExcerpt returns the first limit characters of the prose under nd:
// text outside scripts, styles, navigation and forms, whitespace folded.
func textExcerpt(nd *html.Node, limit int) string {
	var b strings.Builder
	for c := nd.FirstChild; c != nil && b.Len() < 8*limit; {
		block := c.Type == html.ElementNode && !inlineTags[c.DataAtom]
		if block {
			b.WriteByte(' ')
		}
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		if c.FirstChild != nil && !(c.Type == html.ElementNode && skipForExcerpt(c)) {
			c = c.FirstChild
			continue
		}
		for c != nd && c.NextSibling == nil {
			c = c.Parent
			if c.Type == html.ElementNode && !inlineTags[c.DataAtom] {
				b.WriteByte(' ')
			}
		}
		if c == nd {
			break
		}
		c = c.NextSibling
	}
	s := foldSpace(b.String())
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit]) + "…"
	}
	return s
}

// inlineTags do not break a line of text.
var inlineTags = map[atom.Atom]bool{
	atom.A: true, atom.Abbr: true, atom.B: true, atom.Bdi: true, atom.Bdo: true, atom.Cite: true,
	atom.Code: true, atom.Data: true, atom.Dfn: true, atom.Em: true, atom.Font: true, atom.I: true,
	atom.Kbd: true, atom.Mark: true, atom.Q: true, atom.S: true, atom.Samp: true, atom.Small: true,
	atom.Span: true, atom.Strong: true, atom.Sub: true, atom.Sup: true, atom.Time: true, atom.U: true,
	atom.Var: true,
}

func skipForExcerpt(nd *html.Node) bool {
	switch nd.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Nav,
		atom.Header, atom.Footer, atom.Aside, atom.Form, atom.Select, atom.Button, atom.Iframe:
		return true
	}
	return nd.Namespace != ""
}

// isFoldSpace is whitespace as the digest's readers fold it: Unicode
// spaces and the ASCII separators.
func isFoldSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// foldSpace folds whitespace runs to one space and trims the ends.
func foldSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pending := false
	for _, r := range s {
		if isFoldSpace(r) {
			pending = b.Len() > 0
			continue
		}
		if pending {
			b.WriteByte(' ')
			pending = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// customProps collects CSS custom property declarations (--name: value)
// from a style sheet or a style attribute.
func (d *htmlDigest) customProps(css string, maxProps int) {
	for i := 0; i+2 < len(css); {
		k := strings.Index(css[i:], "--")
		if k < 0 {
			return
		}
		k += i
		i = k + 2
		if k > 0 {
			if p := css[k-1]; p != '{' && p != ';' && p != ' ' && p != '\t' && p != '\n' && p != '\r' && p != '"' {
				continue
			}
		}
		j := k + 2
		for j < len(css) && isCSSNameByte(css[j]) {
			j++
		}
		if j == k+2 {
			continue
		}
		name := css[k:j]
		v := j
		for v < len(css) && (css[v] == ' ' || css[v] == '\t') {
			v++
		}
		if v >= len(css) || css[v] != ':' {
			continue
		}
		v++
		e := v
		for e < len(css) && css[e] != ';' && css[e] != '}' {
			e++
		}
		i = e
		if d.propSeen[name] {
			continue
		}
		d.propSeen[name] = true
		d.propTotal++
		if len(d.props) >= maxProps {
			continue
		}
		value := foldSpace(css[v:e])
		if r := []rune(value); len(r) > 40 {
			value = string(r[:40]) + "…"
		}
		d.props = append(d.props, name+": "+value)
	}
}

func isCSSNameByte(c byte) bool {
	return c == '-' || c == '_' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// digestText keeps the digest free of "<", so no reader takes a stretch of
// it for a tag.
func digestText(s string) string { return strings.ReplaceAll(s, "<", "&lt;") }

func (d *htmlDigest) render(chars int, excerpt string, topClasses int) string {
	var b strings.Builder
	b.WriteString("[html digest: " + strconv.Itoa(chars) + " chars]\n")
	if d.lang != "" {
		b.WriteString("lang: " + digestText(foldSpace(d.lang)) + "\n")
	}
	for _, h := range d.headings {
		b.WriteString(digestText(h) + "\n")
	}
	if d.description != "" {
		desc := d.description
		if r := []rune(desc); len(r) > 200 {
			desc = string(r[:200]) + "…"
		}
		b.WriteString("description: " + digestText(desc) + "\n")
	}
	if excerpt != "" {
		b.WriteString("text: " + digestText(excerpt) + "\n")
	}
	if len(d.landmarks.names) > 0 {
		b.WriteString("landmarks: " + d.landmarkList() + "\n")
	}
	if classes := d.recurringClasses(topClasses); classes != "" {
		b.WriteString("classes: " + classes + "\n")
	}
	if d.propTotal > 0 {
		b.WriteString("custom properties (" + strconv.Itoa(d.propTotal) + "): ")
		b.WriteString(digestText(strings.Join(d.props, "; ")))
		if d.propTotal > len(d.props) {
			b.WriteString("; …")
		}
		b.WriteByte('\n')
	}
	if len(d.counts.names) > 0 {
		b.WriteString("counts: " + d.countList() + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// landmarkList is "header, nav(2), main": the landmarks in document order.
func (d *htmlDigest) landmarkList() string {
	parts := make([]string, len(d.landmarks.names))
	for i, name := range d.landmarks.names {
		parts[i] = digestText(counted(name, d.landmarks.count[name]))
	}
	return strings.Join(parts, ", ")
}

// countList is "links 120, images 30": the element counts in first-seen order.
func (d *htmlDigest) countList() string {
	parts := make([]string, len(d.counts.names))
	for i, name := range d.counts.names {
		parts[i] = name + " " + strconv.Itoa(d.counts.count[name])
	}
	return strings.Join(parts, ", ")
}

// recurringClasses lists the classes seen at least twice, most frequent
// first (ties keep document order), at most top of them.
func (d *htmlDigest) recurringClasses(top int) string {
	var recurring []string
	for _, c := range d.classes.names {
		if d.classes.count[c] >= 2 {
			recurring = append(recurring, c)
		}
	}
	sort.SliceStable(recurring, func(i, j int) bool {
		return d.classes.count[recurring[i]] > d.classes.count[recurring[j]]
	})
	var b strings.Builder
	for i, c := range recurring[:min(top, len(recurring))] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(digestText(counted(c, d.classes.count[c])))
	}
	if more := len(recurring) - top; more > 0 {
		b.WriteString(", … " + strconv.Itoa(more) + " more")
	}
	return b.String()
}

func counted(name string, n int) string {
	if n == 1 {
		return name
	}
	return name + "(" + strconv.Itoa(n) + ")"
}
