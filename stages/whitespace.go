package stages

import (
	"context"
	"slices"
	"strings"
	"unsafe"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// WhitespaceOptions are the whitespace node's knobs.
type WhitespaceOptions struct {
	// MaxBlankLines is the longest run of blank lines kept.
	MaxBlankLines int `yaml:"max_blank_lines"`
	// CollapseInnerSpaces folds runs of spaces and tabs inside a line to one space.
	CollapseInnerSpaces bool `yaml:"collapse_inner_spaces"`
	// Dedent removes indentation common to every non-blank line.
	Dedent bool `yaml:"dedent"`
}

// DefaultWhitespaceOptions returns the shipped defaults.
func DefaultWhitespaceOptions() WhitespaceOptions {
	return WhitespaceOptions{MaxBlankLines: 1, CollapseInnerSpaces: true, Dedent: true}
}

// Validate reports a knob that is out of range.
func (o WhitespaceOptions) Validate() error {
	return mustBeNonNegative("max_blank_lines", o.MaxBlankLines)
}

type whitespaceNode struct{ opt WhitespaceOptions }

// NewWhitespace builds the whitespace node: it turns CRLF and lone CR into
// LF, trims trailing spaces, limits runs of blank lines, removes common
// indentation and folds runs of inner spaces.
func NewWhitespace(o WhitespaceOptions) Node { return whitespaceNode{o} }

func (whitespaceNode) Key() Key { return KeyWhitespace }

func (n whitespaceNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	if in.Kind != KindJSON && tabSeparated(in.Text) {
		return skip(in, "a tab-separated table keeps its tabs"), nil
	}
	return n.fold(ctx, in)
}

// fold trims, dedents and folds runs in in's text.
func (n whitespaceNode) fold(ctx context.Context, in Input) (Outcome, error) {
	text := in.Text
	hasCR := strings.IndexByte(text, '\r') >= 0
	indent := n.indent(text, in.Kind, hasCR)
	collapse := n.opt.CollapseInnerSpaces && in.Kind != KindJSON
	// Source code keeps the blanks of its string literals.
	code := collapse && in.Kind == KindProse && sourceCodeText(text)
	// The next double blank and tab at or after a line's start, found in
	// the whole text and kept until passed: a line before both has no
	// run to fold, and is not searched again.
	var runs nextRuns
	lines, nl := whitespaceLines(ctx, text, hasCR)
	w := newPrefixWriter(text, runMemoOf(ctx), nl)
	cc := canceled{ctx: ctx}
	blanks, started := 0, false
	plain := newPlainLines(text, indent, collapse)
	for pos := 0; ; {
		end, next, more, ok := lines.fromIndex(pos)
		if !ok {
			end, next, more = lines.cut.cut(pos)
		}
		line := text[pos:end]
		if err := cc.check(); err != nil {
			return Outcome{}, err
		}
		if started && blanks == 0 && plain.on && plainLine(text, pos, end) && end <= plain.stopAfter(text, &runs, pos) {
			w.noteLine(1)
			w.writeSrc(pos-1, end)
			if !more {
				break
			}
			pos = next
			continue
		}
		line = trimBlanksRight(line)
		if line == "" {
			blanks++
		} else {
			if started {
				w.newLines(1 + max(0, min(blanks, n.opt.MaxBlankLines)))
			}
			blanks, started = 0, true
			start := pos + indent
			if line = line[indent:]; collapse && runs.before(text, start, start+len(line)) {
				if code {
					writeCollapsedCode(&w, start, line)
				} else {
					writeCollapsed(&w, &runs, text, start, line)
				}
			} else {
				w.writeSrc(start, start+len(line))
			}
		}
		if !more {
			break
		}
		pos = next
	}
	// Leading blank lines carry nothing; a trailing line break stays.
	if started && blanks > 0 && n.opt.MaxBlankLines > 0 {
		w.newLine()
	}
	out := w.String()
	if out == text {
		return skip(in, "nothing to trim"), nil
	}
	w.keepLines(out)
	return done(out), nil
}

// indent is the indentation common to text's lines that the node
// removes.
func (n whitespaceNode) indent(text string, kind Kind, cr bool) int {
	if n.opt.Dedent && kind != KindJSON {
		return commonIndent(text, cr)
	}
	return 0
}

// whitespaceLines cuts text into lines as lineCutter does: from the
// run's line index when that has text's lines and every "\r" in text
// comes right before a line feed (see indexLines), else with a
// lineCutter (which reads the line feeds from the index when it has
// them). It also returns the count of text's lines in the index, or -1.
func whitespaceLines(ctx context.Context, text string, cr bool) (indexLines, int) {
	x, ok := lineIndexOf(ctx, text)
	switch {
	case !ok:
		return indexLines{cut: newLineCutter(text, cr)}, -1
	case cr && loneCR(text, x.Starts):
		return indexLines{cut: newIndexedLineCutter(text, cr, x.Starts)}, x.Len()
	}
	return indexLines{text: text, starts: x.Starts}, x.Len()
}

// loneCR reports whether a "\r" of text comes other than right before a
// line feed; starts is text's line index.
func loneCR(text string, starts []int32) bool {
	pairs := 0
	for _, s := range starts[1 : len(starts)-1] {
		if s >= 2 && text[s-2] == '\r' {
			pairs++
		}
	}
	return strings.Count(text, "\r") != pairs
}

// indexLines gives the lines of a text from its line index, or, without
// one, from cut. The index knows only line feeds: a line ends before
// the "\r" of a "\r\n", and the text has no other "\r".
type indexLines struct {
	text   string
	starts []int32 // the index, or nil
	k      int     // the next line is k
	cut    lineCutter
}

// fromIndex returns what lineCutter.cut(pos) does, from the index; ok is
// false without one.
func (l *indexLines) fromIndex(pos int) (end, next int, more, ok bool) {
	if l.starts == nil {
		return 0, 0, false, false
	}
	l.k++
	next = int(l.starts[l.k])
	end, more = next-1, l.k < len(l.starts)-1
	if more && end > pos && l.text[end-1] == '\r' {
		end--
	}
	return end, next, more, true
}

// plainLines tells the plain lines (see plainLine) that hold no run to
// fold, which pass as they are: stop is where the next run starts, once
// known.
type plainLines struct {
	on   bool // no indentation to remove
	stop int
}

func newPlainLines(text string, indent int, collapse bool) plainLines {
	p := plainLines{on: indent == 0, stop: -1}
	if !collapse {
		p.stop = len(text) // no run is folded
	}
	return p
}

// stopAfter returns where the first run to fold at or after pos starts,
// or len(text). pos never decreases from one call to the next.
func (p *plainLines) stopAfter(text string, runs *nextRuns, pos int) int {
	if p.stop < pos {
		p.stop = runs.next(text, pos)
	}
	return p.stop
}

// prefixWriter builds a text that mostly repeats src. While the output is
// a prefix of src it is only an offset; the first differing write copies
// that prefix into out, which has room for all the output: the node
// never writes more bytes than src has.
type prefixWriter struct {
	src  string
	same int    // while out is nil, the output is src[:same]
	out  []byte // written, from the first differing write on
	// starts, when not nil, gets the start of each line of the output
	// after the first, as textkit.LineIndex has them, up to limit of
	// them (then it is emptied).
	starts []int32
	limit  int
	memo   *runMemo
}

// newPrefixWriter returns a writer of a text that mostly repeats src;
// with memo, it notes the output's line starts for memo (see keepLines).
// lines, when not -1, is src's count of lines: the output seldom has
// more, so the starts are sized for it and grow only past it.
func newPrefixWriter(src string, memo *runMemo, lines int) prefixWriter {
	w := prefixWriter{src: src, memo: memo}
	if memo != nil {
		w.limit = lineStartsCap(src)
		size := w.limit
		if lines >= 0 {
			size = min(size, lines+2)
		}
		w.starts = make([]int32, 1, size)
	}
	return w
}

// keepLines leaves out's line starts, noted as it was written, in the
// run's line memo (see runMemo.noteLines), when they all fitted.
func (w *prefixWriter) keepLines(out string) {
	if w.memo != nil && len(w.starts) > 0 && len(w.starts) < w.limit {
		w.memo.noteLines(out, append(w.starts, int32(len(out)+1)))
	}
}

// len is the length of the output so far.
func (w *prefixWriter) len() int {
	if w.out == nil {
		return w.same
	}
	return len(w.out)
}

// noteLine notes that a line starts at k bytes past the output so far.
func (w *prefixWriter) noteLine(k int) {
	if len(w.starts) < w.limit {
		w.starts = append(w.starts, int32(w.len()+k))
	} else {
		w.starts, w.limit = nil, 0 // too many lines: no growing
	}
}

// newLine writes a line feed.
func (w *prefixWriter) newLine() {
	w.writeByte('\n')
	w.noteLine(0)
}

// newLines writes k line feeds.
func (w *prefixWriter) newLines(k int) {
	for range k {
		w.newLine()
	}
}

// writeSrc writes src[start:end].
func (w *prefixWriter) writeSrc(start, end int) {
	if w.out == nil && w.extends(start, end) {
		return
	}
	w.out = append(w.out, w.src[start:end]...)
}

// extends writes src[start:end] while the output is a prefix of src,
// and reports whether it still is; if not, out holds the prefix.
func (w *prefixWriter) extends(start, end int) bool {
	if start == w.same {
		w.same = end
		return true
	}
	w.diverge()
	return false
}

func (w *prefixWriter) diverge() {
	w.out = make([]byte, w.same, len(w.src))
	copy(w.out, w.src)
}

func (w *prefixWriter) writeByte(c byte) {
	if w.out == nil {
		if w.same < len(w.src) && w.src[w.same] == c {
			w.same++
			return
		}
		w.diverge()
	}
	w.out = append(w.out, c)
}

// String returns the output; nothing is written after.
func (w *prefixWriter) String() string {
	if w.out == nil {
		return w.src[:w.same]
	}
	// out is not written again: as strings.Builder does, let the string
	// share its bytes rather than copy them.
	return unsafe.String(unsafe.SliceData(w.out), len(w.out))
}

// nextLine cuts the first line off s. Line breaks are \n, and with cr
// also \r\n and a lone \r. more is false when s had no line break left.
func nextLine(s string, cr bool) (line, rest string, more bool) {
	if !cr {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return s, "", false
		}
		return s[:i], s[i+1:], true
	}
	i := lineBreak(s)
	if i < 0 {
		return s, "", false
	}
	if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
		return s[:i], s[i+2:], true
	}
	return s[:i], s[i+1:], true
}

// commonIndent is the count of leading space bytes shared by all non-blank lines.
func commonIndent(text string, cr bool) int {
	common := -1
	for rest := text; ; {
		line, next, more := nextLine(rest, cr)
		k := 0
		for k < len(line) && line[k] == ' ' {
			k++
		}
		if trimBlanksRight(line[k:]) != "" && (common < 0 || k < common) {
			common = k
			if common == 0 {
				return 0
			}
		}
		if !more {
			break
		}
		rest = next
	}
	if common < 0 {
		return 0
	}
	return common
}

// trimBlanksRight is strings.TrimRight(s, " \t\f\v").
func trimBlanksRight(s string) string {
	i := len(s)
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t' || s[i-1] == '\f' || s[i-1] == '\v') {
		i--
	}
	return s[:i]
}

// nextRuns finds where runs of blanks to fold start in a text.
type nextRuns struct {
	// The next tab and double blank at or after the last start, or
	// len(text); each is searched for again only once passed.
	tab, double int
	init        bool
}

// before reports whether a double blank or a tab starts in
// text[start:end]. start never decreases from one call to the next.
func (r *nextRuns) before(text string, start, end int) bool {
	return r.next(text, start) < end
}

// next returns where the first double blank or tab at or after start
// is, or len(text). start never decreases from one call to the next.
func (r *nextRuns) next(text string, start int) int {
	if !r.init || r.tab < start {
		r.tab = len(text)
		if i := strings.IndexByte(text[start:], '\t'); i >= 0 {
			r.tab = start + i
		}
	}
	if !r.init || r.double < start {
		r.double = doubleBlankAt(text, start)
	}
	r.init = true
	return min(r.tab, r.double)
}

// plainLine reports a line [pos, end), after a line written and no
// blank line pending, that the node writes as it is with the line feed
// before it, as text[pos-1:end], unless a run to fold starts in it: it
// follows a line feed, is not empty and ends in no blank. (A line the
// cutter gives holds no '\r'.)
func plainLine(text string, pos, end int) bool {
	if end <= pos || text[pos-1] != '\n' {
		return false
	}
	switch text[end-1] {
	case ' ', '\t', '\f', '\v':
		return false
	}
	return true
}

// first returns where the first run of blanks to fold starts at or
// after at: a double blank, or a tab with the spaces right before it.
// at never decreases from one call to the next, nor passes a line's
// start without before having been asked for that line.
func (r *nextRuns) first(text string, at int) int {
	if r.tab < at {
		r.tab = len(text)
		if i := strings.IndexByte(text[at:], '\t'); i >= 0 {
			r.tab = at + i
		}
	}
	if r.double < at {
		r.double = doubleBlankAt(text, at)
	}
	tab := r.tab
	for tab > at && text[tab-1] == ' ' {
		tab--
	}
	return min(tab, r.double)
}

// writeCollapsed writes line, found at start in w's source text, keeping
// its leading indentation and folding later runs of spaces and tabs to
// one space. line has no trailing blanks. runs knows the text's next
// runs (see nextRuns.before).
func writeCollapsed(w *prefixWriter, runs *nextRuns, text string, start int, line string) {
	lead := keptLead(line)
	if lead > 0 {
		w.writeSrc(start, start+lead)
	}
	at, end := start+lead, start+len(line)
	for {
		k := runs.first(text, at)
		if k >= end {
			w.writeSrc(at, end)
			return
		}
		// A run that starts with a space keeps that space.
		if text[k] == ' ' {
			w.writeSrc(at, k+1)
		} else {
			w.writeSrc(at, k)
			w.writeByte(' ')
		}
		j := k + 1
		for j < end && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
		at = j
	}
}

// tabSeparated reports a tab-separated table (TSV, a spreadsheet pasted
// as text, Zeek's logs): of its first 200 lines with text, at least three
// and four in five hold the same number of tabs after their first
// character. There a tab parts two cells, two tabs hold an empty one, and
// a trailing tab an empty last one: folding or trimming them would move
// values into other columns. Tabs that only indent (a Java stack trace's
// "\tat") do not count.
func tabSeparated(text string) bool {
	if strings.IndexByte(text, '\t') < 0 {
		return false
	}
	var tabsPerLine [16]int // lines by their count of inner tabs, 15 or more in the last
	lines := 0
	for rest := text; rest != "" && lines < 200; {
		line, after, _ := strings.Cut(rest, "\n")
		rest = after
		body := strings.TrimLeft(line, " \t")
		if strings.TrimRight(body, " \t\r") == "" {
			continue
		}
		lines++
		tabsPerLine[min(strings.Count(body, "\t"), 15)]++
	}
	best := slices.Max(tabsPerLine[1:])
	return lines >= 3 && best*5 >= lines*4
}

// keptLead returns the length of line's lead, which stays as written: its
// indentation and, on a line of a compiler's source excerpt (gcc, clang
// and rustc draw one: "   12 |     int x = 3", "      |          ^"), the
// gutter of blanks and a line number, the bar and the blanks after it,
// which place the code and the caret under it in their columns. The bar
// follows a blank; a line that opens with it (a table row) has no gutter.
func keptLead(line string) int {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	g := i
	for g < len(line) && textkit.IsDigit(line[g]) {
		g++
	}
	for g < len(line) && line[g] == ' ' {
		g++
	}
	if g == 0 || g >= len(line) || line[g] != '|' || line[g-1] != ' ' {
		return i
	}
	g++
	for g < len(line) && (line[g] == ' ' || line[g] == '\t') {
		g++
	}
	return g
}

// writeCollapsedCode is writeCollapsed for a line of source code: the
// blanks within a quoted literal ("%-10s  %5d") stay as they are.
func writeCollapsedCode(w *prefixWriter, start int, line string) {
	from := keptLead(line) // line[:from] is written
	w.writeSrc(start, start+from)
	var quote byte
	for i := from; i < len(line); i++ {
		switch c := line[i]; {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '\t' || c == ' ' && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			j := i + 1
			for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
				j++
			}
			w.writeSrc(start+from, start+i)
			w.writeByte(' ')
			from, i = j, j-1
		}
	}
	w.writeSrc(start+from, start+len(line))
}
