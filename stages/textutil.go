package stages

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Byte-level helpers shared by the log-oriented nodes. They avoid regular
// expressions on hot paths: each runs in one pass over its line.

// skipANSI returns the offset past any ANSI escape sequences (CSI "ESC [ …
// final byte" and the two-byte ESC forms) starting at i.
func skipANSI(s string, i int) int {
	for i < len(s) && s[i] == 0x1b {
		i++
		if i >= len(s) {
			return i
		}
		if s[i] != '[' {
			if s[i] < utf8.RuneSelf {
				i++ // a two-byte escape; a rune after a lone ESC stays whole
			}
			continue
		}
		i++
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
			i++
		}
		if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
			i++
		}
	}
	return i
}

// lineHead returns line without its leading blanks and ANSI sequences.
func lineHead(line string) string {
	i := 0
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == 0x1b:
			i = skipANSI(line, i)
		default:
			return line[i:]
		}
	}
	return ""
}

// stripANSI returns s without its ANSI escape sequences.
func stripANSI(s string) string {
	i := strings.IndexByte(s, 0x1b)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[skipANSI(s, i):]
		i = strings.IndexByte(s, 0x1b)
	}
	b.WriteString(s)
	return b.String()
}

// lineBreak is strings.IndexAny(s, "\r\n") with vectorised scans, over
// windows so that a text without one kind of break stays linear.
func lineBreak(s string) int {
	const window = 512
	for off := 0; off < len(s); off += window {
		w := s[off:min(off+window, len(s))]
		i := strings.IndexByte(w, '\n')
		if i < 0 {
			i = len(w)
		}
		if j := strings.IndexByte(w[:i], '\r'); j >= 0 {
			return off + j
		}
		if i < len(w) {
			return off + i
		}
	}
	return -1
}

// breakFinder finds the line breaks (\r or \n) of a text in order, as
// lineBreak does, with one scan for \n a line: the next \r is kept.
type breakFinder struct {
	text string
	cr   int // the first \r at or after the last search, len(text) for none, -1 before
}

func newBreakFinder(text string) breakFinder { return breakFinder{text: text, cr: -1} }

// next returns the index of the first \r or \n at or after pos, or -1.
// pos must not decrease from call to call.
func (f *breakFinder) next(pos int) int {
	if f.cr < pos {
		f.cr = len(f.text)
		if i := strings.IndexByte(f.text[pos:], '\r'); i >= 0 {
			f.cr = pos + i
		}
	}
	if i := strings.IndexByte(f.text[pos:f.cr], '\n'); i >= 0 {
		return pos + i
	}
	if f.cr < len(f.text) {
		return f.cr
	}
	return -1
}

// digitRun returns the end of the run of ASCII digits starting at i.
func digitRun(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

var monthNames = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
var dayNames = [...]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// monthAt reports whether s starts with a month name and a blank.
func monthAt(s string) bool { return len(s) >= 4 && s[3] == ' ' && isMonthName(s[:3]) }

// dayAt reports whether s starts with a weekday name and a blank.
func dayAt(s string) bool { return len(s) >= 4 && s[3] == ' ' && isDayName(s[:3]) }

// nameIndex numbers a capital and two lower-case letters from 0 to
// 26*26*26-1, or returns -1 for any other three bytes.
func nameIndex(s string) int {
	c0, c1, c2 := s[0]-'A', s[1]-'a', s[2]-'a'
	if c0 >= 26 || c1 >= 26 || c2 >= 26 {
		return -1
	}
	return int(c0)*26*26 + int(c1)*26 + int(c2)
}

// nameSet holds three-letter names as bits, so that a name test is one
// lookup.
type nameSet [26 * 26 * 26 / 8]byte

func newNameSet(names ...[]string) *nameSet {
	var set nameSet
	for _, list := range names {
		for _, n := range list {
			k := nameIndex(n)
			set[k/8] |= 1 << (k % 8)
		}
	}
	return &set
}

// has reports whether the set holds s, 3 bytes long. Not inlined, so
// that its callers are.
//
//go:noinline
func (set *nameSet) has(s string) bool {
	k := nameIndex(s)
	return k >= 0 && set[k/8]>>(k%8)&1 != 0
}

var monthSet, daySet, calendarSet = newNameSet(monthNames[:]), newNameSet(dayNames[:]), newNameSet(monthNames[:], dayNames[:])

// isMonthName reports one of monthNames. s must be 3 bytes long.
func isMonthName(s string) bool { return monthSet.has(s) }

// isDayName reports one of dayNames. s must be 3 bytes long.
func isDayName(s string) bool { return daySet.has(s) }

// timeAt reports whether s starts with a clock time such as 7:04 or 16:49:06.
func timeAt(s string) bool {
	e := digitRun(s, 0)
	if e < 1 || e > 2 || e+2 >= len(s) || s[e] != ':' {
		return false
	}
	return digitRun(s, e+1) == e+3
}

// stampAt reports whether s starts with a date, a time or an epoch: the
// usual first field of a log record.
func stampAt(s string) bool {
	if isPlaceholderAt(s) {
		// A stamp that number_normalize already replaced: <N>, <*>, <TS>.
		return true
	}
	if s != "" && (s[0] == '[' || s[0] == '<' || s[0] == '(') {
		s = s[1:]
	}
	switch {
	case s == "":
		return false
	case isDigit(s[0]):
		return numericStampAt(s)
	case monthAt(s):
		i := 4
		for i < len(s) && s[i] == ' ' {
			i++
		}
		return i < len(s) && isDigit(s[i])
	case dayAt(s):
		return monthAt(s[4:])
	}
	// glog: I0607 12:34:56.789
	return len(s) > 6 && strings.IndexByte("IWEF", s[0]) >= 0 && digitRun(s, 1) == 5 && s[5] == ' '
}

// numericStampAt is stampAt for s that starts with a digit.
func numericStampAt(s string) bool {
	e := digitRun(s, 0)
	switch {
	case e >= 6:
		// An epoch or a compact date (081109), ended by a separator.
		return e == len(s) || s[e] == ' ' || s[e] == ',' || s[e] == '.' || s[e] == ']' || s[e] == '|'
	case e <= 2 && e < len(s) && s[e] == ':':
		return timeAt(s)
	case (e == 2 || e == 4) && e+1 < len(s) && (s[e] == '-' || s[e] == '/' || s[e] == '.'):
		return dateAt(s, e)
	}
	return false
}

// dateAt reports a date whose first field is s[:e]: ISO 2005-06-03,
// day-first 17/06/09, dotted 2005.06.03; not a version such as 1.54.0.
// Other shapes are found by the analysis of the document (AnalyzeLog),
// not listed here.
func dateAt(s string, e int) bool {
	sep := s[e]
	f := digitRun(s, e+1)
	if f-e-1 != 2 || f >= len(s) || s[f] != sep {
		return false
	}
	g := digitRun(s, f+1)
	return g-f-1 == 2 || g-f-1 == 4
}

// isPlaceholderAt reports a placeholder token such as <N>, <NUM> or <*>
// followed by a blank, a bracket or a colon.
func isPlaceholderAt(s string) bool {
	if len(s) < 3 || s[0] != '<' {
		return false
	}
	i := 1
	for i < len(s) && i <= 13 && (s[i] == '*' || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_') {
		i++
	}
	if i == 1 || i >= len(s) || s[i] != '>' {
		return false
	}
	i++
	return i == len(s) || strings.IndexByte(" \t]:,.-", s[i]) >= 0
}

// levelAt reports whether s starts with a log level: INFO, [WARN], <ERROR>,
// or a bracketed lower-case level such as [error].
func levelAt(s string) bool { return levelAtCase(s, false) }

// upperLevelAt is levelAt(strings.ToUpper(s)), without building the
// upper-cased string when s is ASCII without escapes.
func upperLevelAt(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] == 0x1b {
			return levelAt(strings.ToUpper(s))
		}
	}
	return levelAtCase(s, true)
}

// levelAtCase is levelAt, reading lower-case letters as upper-case ones
// when folded.
func levelAtCase(s string, folded bool) bool {
	bracket := false
	if s != "" && (s[0] == '[' || s[0] == '<') {
		s = s[1:]
		bracket = true
	}
	s = s[skipANSI(s, 0):]
	var up [9]byte
	e, lowerSeen := 0, false
	for e < len(s) && e < len(up) {
		c := s[e]
		switch {
		case c >= 'A' && c <= 'Z':
			up[e] = c
		case c >= 'a' && c <= 'z':
			up[e] = c - 'a' + 'A'
			lowerSeen = true
		default:
			goto word
		}
		e++
	}
word:
	if e < 3 || (e < len(s) && isWordByte(s[e])) || (lowerSeen && !bracket && !folded) {
		return false
	}
	switch string(up[:e]) {
	case "INFO", "WARN", "WARNING", "ERROR", "DEBUG", "TRACE", "FATAL", "CRITICAL", "NOTICE",
		"SEVERE", "ERR", "CRIT", "ALERT", "EMERG", "VERBOSE":
		return true
	}
	return false
}

// isLogRecord reports whether line starts like a log record: a timestamp,
// an epoch, a syslog date or a level, possibly after one short leading field
// (a label, a host or a dash).
func isLogRecord(line string) bool {
	stamped, level := recordStart(line)
	return stamped || level
}

// isStamped reports a log record that opens with a time, a date or an
// epoch: an event of a service log. Lines that open with a level only
// ("[INFO] Compiling", "[error] x.scala:12") are the output of a build tool.
func isStamped(line string) bool {
	stamped, _ := recordStart(line)
	return stamped
}

func recordStart(line string) (stamped, level bool) {
	if line == "" || line[0] == ' ' || line[0] == '\t' {
		return false, false
	}
	s := line[skipANSI(line, 0):]
	if stampAt(s) {
		return true, false
	}
	if levelAt(s) {
		return false, true
	}
	lim := len(s)
	if lim > 24 {
		lim = 24
	}
	if i := strings.IndexByte(s[:lim], ' '); i > 0 {
		rest := s[i+1:]
		return stampAt(rest) || (s[0] == '-' && i == 1 && rest != "" && isDigit(rest[0])), false
	}
	return false, false
}

// countSuffix is what log_dedup appends to a kept line that stands for
// several: " [×57]".
const (
	countOpen  = " [×"
	countClose = "]"
)

// splitCount splits a trailing count suffix off line, with the summary
// that may follow the count (" [×57; …]"). It returns the line without it
// and the count (1 when there is none).
func splitCount(line string) (string, int) {
	if !strings.HasSuffix(line, countClose) {
		return line, 1
	}
	i := strings.LastIndex(line, countOpen)
	if i < 0 {
		return line, 1
	}
	digits := line[i+len(countOpen) : len(line)-len(countClose)]
	if j := strings.IndexByte(digits, ';'); j >= 0 {
		if strings.IndexByte(digits[j:], ']') >= 0 {
			return line, 1 // a bracket inside: not a summary of ours
		}
		digits = digits[:j]
	}
	if digits == "" || len(digits) > 12 || digitRun(digits, 0) != len(digits) {
		return line, 1
	}
	n := 0
	for j := 0; j < len(digits); j++ {
		n = n*10 + int(digits[j]-'0')
	}
	if n < 2 {
		return line, 1
	}
	return line[:i], n
}

// withCount appends the count suffix when n > 1.
func withCount(line string, n int) string {
	if n < 2 {
		return line
	}
	return line + countOpen + strconv.Itoa(n) + countClose
}

// parseFoldMarker reports the line count of a marker made by foldMarker
// (any "what"), or 0 when line is not one.
func parseFoldMarker(line string) int {
	if !strings.HasPrefix(line, "[... ") || !strings.HasSuffix(line, " ...]") {
		return 0
	}
	rest := line[len("[... "):]
	e := digitRun(rest, 0)
	if e == 0 || e > 12 {
		return 0
	}
	if !strings.HasPrefix(rest[e:], " line") {
		return 0
	}
	n := 0
	for j := 0; j < e; j++ {
		n = n*10 + int(rest[j]-'0')
	}
	return n
}

// fixpoint applies f until its output stops changing, at most max times.
// Nodes whose decisions depend on text-wide statistics use it so that
// node(node(x)) == node(x). f also reports whether its output is settled:
// true when it knows a further pass would change nothing, which saves that
// pass on large inputs.
func fixpoint(ctx context.Context, text string, max int, f func(context.Context, string) (string, bool, error)) (string, error) {
	for i := 0; i < max; i++ {
		out, settled, err := f(ctx, text)
		if err != nil {
			return "", err
		}
		if out == text || settled {
			return out, nil
		}
		text = out
	}
	return text, nil
}

// lineIndex gives random access to the lines of a text for 4 bytes a line
// instead of the 16 of a []string: nodes that look around a line (context,
// events) use it, so a text of millions of short lines stays cheap.
type lineIndex struct {
	text   string
	starts []int32 // start of each line, then len(text)+1
}

func newLineIndex(text string) lineIndex {
	n := strings.Count(text, "\n") + 1
	starts := make([]int32, 0, n+1)
	starts = append(starts, 0)
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, int32(i))
	}
	starts = append(starts, int32(len(text)+1))
	return lineIndex{text: text, starts: starts}
}

// len is the number of lines, as len(strings.Split(text, "\n")).
func (x lineIndex) len() int { return len(x.starts) - 1 }

// line returns line i without its line break.
func (x lineIndex) line(i int) string { return x.text[x.starts[i] : x.starts[i+1]-1] }

// span returns lines [i, j) joined by their line breaks.
func (x lineIndex) span(i, j int) string {
	if i >= j {
		return ""
	}
	return x.text[x.starts[i] : x.starts[j]-1]
}

// lines returns lines [i, j) as a slice (for small spans only).
func (x lineIndex) lines(i, j int) []string {
	out := make([]string, 0, max(j-i, 0))
	for k := i; k < j; k++ {
		out = append(out, x.line(k))
	}
	return out
}

// lineWriter joins lines with "\n" into a builder, as joinLines does.
type lineWriter struct {
	b     strings.Builder
	first bool
}

func newLineWriter(size int) *lineWriter {
	w := &lineWriter{first: true}
	w.b.Grow(size)
	return w
}

func (w *lineWriter) add(line string) {
	if !w.first {
		w.b.WriteByte('\n')
	}
	w.b.WriteString(line)
	w.first = false
}

func (w *lineWriter) String() string { return w.b.String() }

// splitLines splits text on "\n"; joinLines reverses it exactly.
func splitLines(text string) []string { return strings.Split(text, "\n") }

func joinLines(lines []string) string { return strings.Join(lines, "\n") }

// canceled reports ctx's error every 4096 calls, to keep hot loops cheap.
type canceled struct {
	ctx context.Context
	n   int
}

func (c *canceled) check() error {
	c.n++
	if c.n&4095 != 0 {
		return nil
	}
	return c.ctx.Err()
}

// foldMarker is the line that replaces n folded lines.
func foldMarker(n int, what string) string {
	if n == 1 {
		return "[... 1 line " + what + " ...]"
	}
	return "[... " + strconv.Itoa(n) + " lines " + what + " ...]"
}
