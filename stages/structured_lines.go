package stages

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/stages/b64"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

// foldLines folds the payloads of a text that is neither one JSON document
// nor an HTML page: JSON values on lines of their own, long tables and
// base64 blobs. Protected placeholder lines are copied as they are.
func (n structuredNode) foldLines(ctx context.Context, in Input) (string, error) {
	f := lineFolder{
		n: n, text: in.Text, kind: in.Kind, lines: lazyLines{text: in.Text},
		tables: newTableGate(in.Text, in.Kind),
		dumps:  in.Kind == KindLog || in.Kind == KindProse,
		// In logs, JSON and HTML a line that opens with a digit (a time
		// stamp) opens a block only with a '|' in it.
		digitQuiet: in.Kind == KindLog || in.Kind == KindJSON || in.Kind == KindHTML,
	}
	// Line ends come from the run's line index when it has the text's.
	var starts []int32
	if x, ok := lineIndexOf(ctx, in.Text); ok {
		f.lines.x, f.lines.made, starts = x, true, x.Starts
	}
	cc := canceled{ctx: ctx}
	for i, start := 0, 0; start <= len(in.Text); {
		if err := cc.check(); err != nil {
			return "", err
		}
		end := len(in.Text)
		if starts != nil {
			end = int(starts[i+1]) - 1
		} else if k := strings.IndexByte(in.Text[start:], '\n'); k >= 0 {
			end = start + k
		}
		line := in.Text[start:end]
		if !f.blobs && b64.LineMayFold(line, n.opt.Base64MinChars) {
			f.blobs = true
		}
		if f.digitQuiet && line != "" && textkit.IsDigit(line[0]) && !f.tables.pipeIn(start, end) {
			i, start = i+1, end+1
			continue
		}
		next, err := f.fold(ctx, i, start, line)
		if err != nil {
			return "", err
		}
		if next == i+1 {
			i, start = next, end+1
			continue
		}
		x := f.lines.index()
		for k := i + 1; k < next && !f.blobs; k++ {
			f.blobs = b64.LineMayFold(x.Line(k), n.opt.Base64MinChars)
		}
		i, start = next, int(x.Starts[next])
	}
	text := f.text
	if f.w != nil {
		x := f.lines.index()
		if f.copied < x.Len() {
			f.w.Add(x.Span(f.copied, x.Len()))
		}
		text = f.w.String()
	}
	if f.threads >= minDumpThreads {
		text = foldThreadDumps(text)
	}
	if text == in.Text && !f.blobs {
		return text, nil // no line holds a run b64.Fold could fold
	}
	return b64.Fold(text, n.opt.Base64MinChars, in.Kind.IsTranscript(), cc.check)
}

// lineFolder is foldLines' state. Lines are walked in place; the line
// index, and a lazily written output, are made only once a line may open
// a block, so that a text of millions of short lines with nothing to
// fold costs one pass and a few bytes a line.
type lineFolder struct {
	n          structuredNode
	text       string
	kind       Kind
	lines      lazyLines
	w          *textkit.LineWriter
	copied     int // lines before this one are written to w (once w exists)
	closers    map[string]closerMemo
	tables     tableGate
	threads    int  // thread headers of a dump (see foldThreadDumps)
	dumps      bool // thread dumps are looked for
	digitQuiet bool // see foldLines
	blobs      bool // a line seen may hold a base64 run b64.Fold folds
}

// fold looks at line i, at byte start: it counts a thread header, folds
// the embedded JSON value or the table that starts there, and returns
// the line after what it passed.
func (f *lineFolder) fold(ctx context.Context, i, start int, line string) (int, error) {
	if IsProtectedLine(line) {
		return i + 1, nil
	}
	if f.dumps && mayOpenThread(line) {
		if _, ok := threadHeader(line); ok {
			f.threads++
		}
	}
	if opensJSON(line) && f.n.mayFoldJSONLine(line) {
		if f.closers == nil {
			f.closers = map[string]closerMemo{}
		}
		folded, next, err := f.n.embeddedJSON(ctx, f.lines.index(), i, f.closers)
		if err != nil {
			return 0, err
		}
		if next > i {
			f.emit(i, next, folded)
			return next, nil
		}
	}
	if !f.tables.mayOpen(start, line) {
		return i + 1, nil
	}
	if rows, next := f.n.foldTable(f.lines.index(), i, f.kind); next > i {
		if rows != nil {
			f.emit(i, next, rows)
		}
		return next, nil
	}
	return i + 1, nil
}

// emit writes folded in place of lines [i, next).
func (f *lineFolder) emit(i, next int, folded []string) {
	x := f.lines.index()
	if f.w == nil {
		f.w = newLineWriter(len(f.text))
	}
	if f.copied < i {
		f.w.Add(x.Span(f.copied, i))
	}
	for _, l := range folded {
		f.w.Add(l)
	}
	f.copied = next
}

// lazyLines is the line index of text, made on first use.
type lazyLines struct {
	text string
	x    textkit.LineIndex
	made bool
}

func (l *lazyLines) index() textkit.LineIndex {
	if !l.made {
		l.x, l.made = textkit.NewLineIndex(l.text), true
	}
	return l.x
}

// tableGate passes the lines that may open a table. In logs, JSON and
// HTML only a line with a '|' can, or in logs a box table's rule or the
// header of an aligned table (command output).
type tableGate struct {
	text string
	pipe int // the first '|' at or after the line last asked, len(text) for none
	// any: every line may open a table (the kind is none of the three);
	// log: a line without a '|' may in a log.
	any, log bool
}

func newTableGate(text string, kind Kind) tableGate {
	return tableGate{
		text: text, pipe: -1,
		any: kind != KindLog && kind != KindJSON && kind != KindHTML,
		log: kind == KindLog,
	}
}

// mayOpen reports whether line, at byte start of the text, may open a table.
func (g *tableGate) mayOpen(start int, line string) bool {
	if g.any {
		return true
	}
	if g.pipeIn(start, start+len(line)) {
		return true
	}
	// Without a '|', only a box table's rule or an aligned table's header
	// opens a table foldTable folds in a log.
	return g.log && (boxRule(line) || isAlignedHeader(strings.TrimSuffix(line, "\r")))
}

// pipeIn reports a '|' in text[start:end]; start never decreases from one
// call to the next.
func (g *tableGate) pipeIn(start, end int) bool {
	if g.pipe < start {
		g.findPipe(start)
	}
	return g.pipe < end
}

func (g *tableGate) findPipe(start int) {
	g.pipe = len(g.text)
	if k := strings.IndexByte(g.text[start:], '|'); k >= 0 {
		g.pipe = start + k
	}
}

// opensJSON reports a line whose first byte past blanks is '{' or '[':
// only such a line can start a value embeddedJSON folds.
func opensJSON(line string) bool {
	for i := 0; i < len(line); i++ {
		if c := line[i]; c != ' ' && c != '\t' {
			return c == '{' || c == '['
		}
	}
	return false
}

// mayFoldJSONLine is embeddedJSON's first test: a line it folds holds a
// value of MinChars or more, or is a lone open bracket.
func (n structuredNode) mayFoldJSONLine(line string) bool {
	return len(line) >= n.opt.MinChars || trimsToOneByte(line)
}

// trimsToOneByte reports whether strings.Trim(s, " \t\r") is one byte
// long, without building Trim's cut set each call.
func trimsToOneByte(s string) bool {
	i, j := 0, len(s)-1
	for i <= j && trimBlank(s[i]) {
		i++
	}
	for j > i && trimBlank(s[j]) {
		j--
	}
	return i == j
}

func trimBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// closerMemo remembers, for one indentation and bracket, that the first
// closing line at or after from is at line at (-1: none to the end). Under
// failKey plus the same key it remembers a block [from, at] that stays.
type closerMemo struct{ from, at int }

const failKey = "\x00fail"

// embeddedJSON folds the JSON value that starts on line i, when one does:
// a whole line holding a JSON object or array, or a block from a line
// "{" or "[" to the closing line at the same indentation. It returns the
// folded lines and the next line to look at; next == i means no value
// starts here or it stays as it is.
func (n structuredNode) embeddedJSON(ctx context.Context, x textkit.LineIndex, i int, closers map[string]closerMemo) ([]string, int, error) {
	line := x.Line(i)
	body := strings.TrimLeft(line, " \t")
	if body == "" || (body[0] != '{' && body[0] != '[') {
		return nil, i, nil
	}
	indent := line[:len(line)-len(body)]
	cr := ""
	if strings.HasSuffix(line, "\r") {
		cr = "\r" // keep CRLF line ends
	}
	body = strings.TrimRight(body, " \t\r")
	if len(body) > 1 {
		return n.oneLineJSON(ctx, body, indent, cr, i)
	}
	return n.blockJSON(ctx, x, i, body, indent, cr, closers)
}

// oneLineJSON folds body, a whole line holding a JSON object or array.
func (n structuredNode) oneLineJSON(ctx context.Context, body, indent, cr string, i int) ([]string, int, error) {
	if len(body) < n.opt.MinChars || !looksJSONText(body) {
		return nil, i, nil
	}
	folded, ok, err := n.foldJSONText(ctx, body, true, "")
	if err != nil || !ok || !shorter(folded, body) {
		return nil, i, err
	}
	return []string{indent + folded + cr}, i + 1, nil
}

// blockJSON folds the block from line i, a lone open bracket, to its
// closing line at the same indentation.
func (n structuredNode) blockJSON(ctx context.Context, x textkit.LineIndex, i int, open, indent, cr string, closers map[string]closerMemo) ([]string, int, error) {
	closeBracket := "}"
	if open == "[" {
		closeBracket = "]"
	}
	key := indent + closeBracket
	end := closingLine(x, i, key, closers)
	if end < 0 {
		return nil, i, nil
	}
	span := x.Span(i, end+1)
	if len(span)+1 < n.opt.MinChars {
		return nil, i, nil
	}
	if m, ok := closers[failKey+key]; ok && m.from <= i && i <= m.at {
		// A block from an earlier line to the same closing line failed to
		// parse: lines of a lone bracket at one indentation, nested. Each
		// is tried once, so such a run costs its length, not its square.
		return nil, i, nil
	}
	// The block is parsed where it stands: no copy of its lines.
	text := strings.TrimRight(span, " \t\r")
	comma := strings.HasSuffix(text, ",")
	text = strings.TrimSuffix(text, ",")
	folded, ok, err := n.foldJSONText(ctx, text, false, indent)
	if err != nil || !ok || !shorter(folded, text) {
		if err == nil {
			closers[failKey+key] = closerMemo{from: i, at: end}
		}
		return nil, i, err
	}
	if comma {
		folded += ","
	}
	out := splitLines(indent + folded)
	if cr != "" {
		for k := range out {
			out[k] += cr
		}
	}
	return out, end + 1, nil
}

// closingLine is the first line after i that is key (indentation and
// closing bracket), with or without a comma, or -1; closers remembers it.
func closingLine(x textkit.LineIndex, i int, key string, closers map[string]closerMemo) int {
	if m, ok := closers[key]; ok && m.from <= i && (m.at < 0 || i < m.at) {
		return m.at
	}
	end := -1
	for j := i + 1; j < x.Len(); j++ {
		l := strings.TrimRight(x.Line(j), " \t\r")
		if l == key || l == key+"," {
			end = j
			break
		}
	}
	closers[key] = closerMemo{from: i, at: end}
	return end
}

// foldTable folds the table that starts on line i: a Markdown table
// (header row, delimiter row, body rows), an aligned table (command
// output: see alignedtable.go) or a CSV or TSV block (a header and rows
// with the same number of fields). In logs, where lines with the same
// number of commas are common, only Markdown tables with a leading pipe
// and aligned tables count. next > i means lines[i:next] are one table;
// rows == nil means it stays.
func (n structuredNode) foldTable(x textkit.LineIndex, i int, kind Kind) ([]string, int) {
	transcript := kind.IsTranscript()
	strict := kind == KindLog || kind == KindJSON || kind == KindHTML
	what := " rows folded ..."
	if transcript {
		what = "rows folded ..."
	}
	if i+1 < x.Len() && strings.Contains(x.Line(i), "|") && isDelimiterRow(x.Line(i+1)) &&
		(!strict || strings.HasPrefix(strings.TrimSpace(x.Line(i)), "|")) {
		return n.foldMarkdownTable(x, i, func(folded int) string {
			if transcript {
				return "| ... " + what + " |"
			}
			return "| ... " + strconv.Itoa(folded) + what + " |"
		}, !transcript)
	}
	marker := func(folded int) string {
		if transcript {
			return "[... " + what + "]"
		}
		return "[... " + strconv.Itoa(folded) + what + "]"
	}
	if kind != KindJSON && kind != KindHTML {
		if j, b := boxTable(x, i); j > i {
			if j-b < n.opt.TableMaxRows+1 {
				return nil, j
			}
			h := i
			if boxRule(x.Line(i)) {
				h++ // the header names the columns, not the border above it
			}
			rows := n.keepRows(x.Lines(h, b), x.Lines(b, j), markdownCells, func(folded int) string {
				return "| ... " + strconv.Itoa(folded) + what + " |"
			}, !transcript)
			return append(x.Lines(i, h), rows...), j
		}
		if j, b, cols := alignedTable(x, i); j-b >= n.opt.TableMaxRows+1 {
			return n.keepRows(x.Lines(i, b), x.Lines(b, j), alignedCells(cols), marker, !transcript), j
		}
	}
	if strict {
		return nil, i
	}
	return n.foldDelimitedTable(x, i, marker, !transcript)
}

// foldMarkdownTable folds the Markdown table whose header is line i.
func (n structuredNode) foldMarkdownTable(x textkit.LineIndex, i int, marker func(int) string, counted bool) ([]string, int) {
	j := i + 2
	for j < x.Len() && isTableRow(x.Line(j)) {
		j++
	}
	body := x.Lines(i+2, j)
	if len(body) <= n.opt.TableMaxRows || slices.ContainsFunc(body, tableMarkerRow) {
		// Short, or folded already: its outliers between markers.
		return nil, j
	}
	return n.keepRows(x.Lines(i, i+2), body, markdownCells, marker, counted), j
}

// foldDelimitedTable folds the CSV or TSV block whose header is line i.
func (n structuredNode) foldDelimitedTable(x textkit.LineIndex, i int, marker func(int) string, counted bool) ([]string, int) {
	sep, fields := delimiterOf(x.Line(i))
	if fields < 2 {
		return nil, i
	}
	j := i + 1
	for j < x.Len() && !IsProtectedLine(x.Line(j)) {
		if s, f := delimiterOf(x.Line(j)); s != sep || f != fields {
			break
		}
		j++
	}
	if j-i-1 < n.opt.TableMaxRows+1 {
		if j-i-1 < 2 {
			return nil, i
		}
		return nil, j
	}
	cells := csvCells
	if sep == '\t' {
		cells = tsvCells
	}
	return n.keepRows(x.Lines(i, i+1), x.Lines(i+1, j), cells, marker, counted), j
}

// keepRows folds a table's body to its TableEdgeRows rows at each end
// and the rows between that stand apart (see tableOutliers), each run of
// folded rows replaced by marker(its length). When counted, a line after
// the table counts its category columns' values (see categorySummary).
func (n structuredNode) keepRows(head, body []string, cells func(string) []string, marker func(int) string, counted bool) []string {
	e := n.opt.TableEdgeRows
	picks, cats := tableOutliers(head[0], body, e, cells)
	cr := ""
	if strings.HasSuffix(head[0], "\r") {
		cr = "\r"
	}
	out := make([]string, 0, len(head)+2*e+2*len(picks)+1)
	out = append(out, head...)
	out = append(out, body[:e]...)
	next := e // the first body row not yet written or folded
	for _, p := range append(picks, len(body)-e) {
		if p > next {
			out = append(out, marker(p-next)+cr)
		}
		if p < len(body)-e {
			out = append(out, body[p])
		}
		next = p + 1
	}
	out = append(out, body[len(body)-e:]...)
	if counted && len(cats) > 0 {
		out = append(out, "[table of "+strconv.Itoa(len(body))+" rows"+categorySummary(cats)+"]"+cr)
	}
	return out
}

// isDelimiterRow reports whether line is a Markdown table delimiter row
// such as "| --- | :-: |".
func isDelimiterRow(line string) bool {
	s := strings.TrimSpace(line)
	if !strings.Contains(s, "|") || !strings.Contains(s, "-") {
		return false
	}
	s = strings.TrimPrefix(strings.TrimSuffix(s, "|"), "|")
	for _, cell := range strings.Split(s, "|") {
		cell = strings.TrimSpace(cell)
		cell = strings.TrimPrefix(strings.TrimSuffix(cell, ":"), ":")
		if cell == "" || strings.Trim(cell, "-") != "" {
			return false
		}
	}
	return true
}

// tableMarkerRow reports a Markdown table's fold marker row.
func tableMarkerRow(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "| ... ") && strings.HasSuffix(t, "rows folded ... |")
}

func isTableRow(line string) bool {
	return strings.Contains(line, "|") && strings.TrimSpace(line) != "" && !IsProtectedLine(line)
}

// delimiterOf returns the field separator of a CSV or TSV line and its
// number of fields, or 0 fields when the line does not look like one. A
// CSV field may not start with a space outside quotes: prose does that.
func delimiterOf(line string) (byte, int) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == ',' {
		// Blank, indented (code, prose) or without a first field.
		return 0, 0
	}
	if strings.Contains(line, "\t") {
		return '\t', strings.Count(line, "\t") + 1
	}
	if !strings.Contains(line, ",") {
		return 0, 0
	}
	fields, inQuote, fieldStart := 1, false, true
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case inQuote:
			if c == '"' {
				inQuote = false
			}
		case c == '"' && fieldStart:
			inQuote = true
		case c == ',':
			fields++
			fieldStart = true
			continue
		case c == ' ' && fieldStart:
			return 0, 0
		}
		fieldStart = false
	}
	if inQuote {
		return 0, 0
	}
	return ',', fields
}
