package stages

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages/jsonfold"
	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Kind is the detected content type of a text. Nodes adapt to it.
type Kind string

// The content kinds.
const (
	KindLog        Kind = "log"
	KindJSON       Kind = "json"
	KindHTML       Kind = "html"
	KindTranscript Kind = "transcript"
	KindProse      Kind = "prose"
)

// ParseKind returns the kind named s, or "" when s names none.
func ParseKind(s string) Kind {
	switch k := Kind(s); k {
	case KindLog, KindJSON, KindHTML, KindTranscript, KindProse:
		return k
	}
	return ""
}

// IsTranscript reports whether counts and tallies must stay out of the text.
func (k Kind) IsTranscript() bool { return k == KindTranscript }

var (
	// A transcript turn starts with a speaker or role label.
	turnStart = regexp.MustCompile(`^(?:#{1,4} +)?(?:\*\*)?\[?([A-Z][\w .'-]{0,30}|user|assistant|system|tool|human|ai)\]?(?:\*\*)?(?: \([^)]{0,40}\))?:(?:\*\*)? `)
	htmlStart = regexp.MustCompile(`(?i)^\s*(?:<!doctype html|<html|<head|<body|<div|<!--)`)
)

// Detect guesses the kind of text from its start and a sample of its lines.
// Fenced code blocks are skipped: they are protected from every node, so
// they say nothing about how the text around them should be treated.
func Detect(text string) Kind {
	k, _ := DetectLayout(text)
	return k
}

// DetectLayout is Detect, and the log analysis of text (logs.Analyze) when
// Detect needed it to decide: a log whose records no known time stamp
// opens is then analysed once, not again by the caller. The layout is the
// zero value when Detect did not analyse.
func DetectLayout(text string) (Kind, logs.Layout) { return detectLayout(text, nil) }

// DetectTape is DetectLayout, and for KindJSON the token tape of the
// document as Detect read it to check it (jsonfold.ValidTape), for the
// structured node: nil when none was recorded.
func DetectTape(text string) (Kind, logs.Layout, *jsonfold.Tape) {
	var tape *jsonfold.Tape
	k, lay := detectLayout(text, &tape)
	return k, lay, tape
}

// detectLayout is DetectLayout; with tape not nil, a JSON document's tape
// is left there.
func detectLayout(text string, tape **jsonfold.Tape) (Kind, logs.Layout) {
	trimmed := strings.TrimLeft(text, " \t\r\n\ufeff")
	if trimmed == "" {
		return KindProse, logs.Layout{}
	}
	if isAgentTranscript(text) {
		return KindTranscript, logs.Layout{} // before logs: see transcriptdetect.go
	}
	switch trimmed[0] {
	case '{', '[':
		if trimmed[0] == '{' && logs.JSONLines(trimmed) {
			// One object a line: a structured log, not a JSON document.
			return KindLog, logs.Layout{}
		}
		if looksJSON(trimmed[0], text) && validJSON(trimmed, tape) {
			// One whole JSON value; text that merely opens and closes with
			// brackets (a log, code, JSON with comments) is read by its lines.
			return KindJSON, logs.Layout{}
		}
	case '<':
		if htmlStart.MatchString(trimmed) {
			return KindHTML, logs.Layout{}
		}
	}
	var st kindStats
	st.speakers = map[string]int{}
	var sampled [450]string // on the stack: at most 450 lines are sampled
	sample := sampled[:0]
	// Sample the head and, for long texts, windows in the middle and at the
	// end: build logs often open with pages of environment banners.
	const window = 24 << 10
	if len(text) <= 3*window {
		sample = st.scan(text, 450, sample)
	} else {
		sample = st.scan(text[:window], 150, sample)
		mid := len(text)/2 - window/2
		sample = st.scan(dropPartialLine(text[mid:mid+window]), 150, sample)
		sample = st.scan(dropPartialLine(text[len(text)-window:]), 150, sample)
	}
	st.sample = sample
	k := st.kind()
	if documentNoLog(k, &st, text) {
		return KindProse, logs.Layout{}
	}
	if k == KindProse && st.prose*2 < st.lines {
		// Records with a header of any shape (see logs.Analyze); repetition
		// alone does not make prose or a chat a log.
		if l := logs.Analyze(text); l.Records && !l.ByRepeats {
			return KindLog, l
		}
	}
	return k, logs.Layout{}
}

// validJSON is jsonfold.Valid, leaving the document's tape in tape when
// tape is not nil.
func validJSON(text string, tape **jsonfold.Tape) bool {
	if tape == nil {
		return jsonfold.Valid(text)
	}
	valid, tp := jsonfold.ValidTape(text)
	*tape = tp
	return valid
}

// documentNoLog reports a text whose lines open alike, or hold times, as
// a log's do, and that is one document, read as prose: captions, source
// code, command output, Markdown, CSV, structured documents.
func documentNoLog(k Kind, st *kindStats, text string) bool {
	switch {
	case st.cueLike >= minSubtitleCues && subtitleDocument(st.sample):
		return true // what was said: see subtitles.go
	case (k == KindLog || k == KindProse) && delimitedDocument(st.sample):
		// A CSV or TSV table (see delimiteddoc.go), its rows records or not
		// (an id or a time first).
		return true
	case st.records > 0:
		return false
	case k == KindLog && sourceCode(st.sample, lastLine(text)):
		return true // see sourcecode.go
	case (k == KindLog || k == KindProse) && alignedDocument(st.sample):
		return true // command output: see alignedtable.go
	case (k == KindLog || k == KindProse) && boxDocument(st.sample):
		return true // a database shell's result: see boxtable.go
	case k == KindLog && markdownDocument(st.sample):
		return true // see markdown.go
	}
	// YAML documents, XML records, INI sections: their lines open alike
	// as a build's do, and their records have a header of a shape, but
	// they are records of one document.
	return k != KindTranscript && structuredDocument(text)
}

// dropPartialLine is textkit.DropPartialLine.
func dropPartialLine(s string) string { return textkit.DropPartialLine(s) }

// scan adds up to max non-blank lines of s outside fenced code blocks,
// appending them to sample.
func (st *kindStats) scan(s string, max int, sample []string) []string {
	// One search for an escape, not one a line (see add).
	st.noEscapes = strings.IndexByte(s, 0x1b) < 0
	at := len(sample)
	sample, end, pairs := sampleLinesLF(s, max, sample)
	if strings.Count(s[:end], "\r") != pairs {
		// A "\r" that ends a line on its own: cut by the slow path.
		return st.scanCR(s, max, sample[:at])
	}
	for _, line := range sample[at:] {
		st.add(line)
		if mayBeCueTiming(line) {
			st.cueLike++
		}
	}
	return sample
}

// sampleLinesLF is scan's choice of lines, cutting s at "\n" only and
// dropping a "\r" right before one. It returns where the lines read end
// and how many "\r" it dropped: when s[:end] holds no other "\r", the
// lines are those a cut at "\r\n", "\n" and a lone "\r" gives.
func sampleLinesLF(s string, max int, sample []string) (_ []string, end, pairs int) {
	fence := ""
	pos := 0
	for n := 0; pos < len(s) && n < max; {
		line := s[pos:]
		if j := strings.IndexByte(line, '\n'); j >= 0 {
			line = line[:j]
			pos += j + 1
			if j > 0 && line[j-1] == '\r' {
				line = line[:j-1]
				pairs++
			}
		} else {
			pos = len(s)
		}
		if line, fence = sampledLine(line, fence); line != "" {
			sample = append(sample, line)
			n++
		}
	}
	return sample, pos, pairs
}

// sampledLine is line as scan samples it, or "" for a line it skips: a
// blank one, one in a fenced block or one that opens or closes it. fence
// is the marker of the block line is in ("" outside one), and the next
// line's.
func sampledLine(line, fence string) (string, string) {
	if fence != "" {
		if strings.HasPrefix(strings.TrimSpace(line), fence) {
			fence = ""
		}
		return "", fence
	}
	if line == "" {
		return "", fence // blank
	}
	// Most lines open with a byte that opens no fence, no quote and
	// no blank: they skip those tests.
	if c := line[0]; !plainOpener[c] {
		if f := fenceOpening(line); f != "" {
			return "", f
		}
		// A quoted reply ("> > text") is read by what it quotes: its
		// markers open every line alike, as a build's output does.
		if line = unquoted(line); textkit.IsBlank(line) {
			return "", fence
		}
	}
	return line, fence
}

// scanCR is scan for a text with a "\r" that ends a line on its own.
func (st *kindStats) scanCR(s string, max int, sample []string) []string {
	fence := ""
	lines := newLineCutter(s, true)
	for pos, n := 0, 0; pos < len(s) && n < max; {
		end, next, _ := lines.cut(pos)
		line := s[pos:end]
		pos = next
		if line, fence = sampledLine(line, fence); line == "" {
			continue
		}
		st.add(line)
		sample = append(sample, line)
		if mayBeCueTiming(line) {
			st.cueLike++
		}
		n++
	}
	return sample
}

// plainOpener marks the first bytes of a line that is no fence opening,
// no quoted reply and not blank: printable ASCII but for a blank, '>',
// '`' and '~'.
var plainOpener = func() (t [256]bool) {
	for c := '!'; c < 0x7f; c++ {
		t[c] = c != '>' && c != '`' && c != '~'
	}
	return t
}()

// fenceOpening is textkit.FenceMarker of line without its leading
// spaces, asked only of a line whose first other byte may open a fence.
func fenceOpening(line string) string {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i == len(line) || line[i] != '`' && line[i] != '~' {
		return ""
	}
	return textkit.FenceMarker(line[i:])
}

// mayBeCueTiming is cueTiming's first test (subtitles.go): past blanks,
// two digits and a colon, and room for a cue's two clocks.
func mayBeCueTiming(line string) bool {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	t := line[i:]
	return len(t) >= 23 && t[2] == ':' && textkit.IsDigit(t[0]) && textkit.IsDigit(t[1])
}

// unquoted is line without the quote markers of an e-mail or Markdown
// reply that open it ("> ", ">> ", "> > ").
func unquoted(line string) string {
	i := 0
	for i < len(line) && (line[i] == '>' || line[i] == ' ' && i > 0) {
		i++
	}
	if i == 0 {
		return line
	}
	return line[i:]
}

// kindStats counts what the sampled lines look like.
type kindStats struct {
	lines   int
	records int      // log records: a timestamp, epoch or level first
	console int      // terminal output: escapes, prompts, progress, file:line
	escapes int      // lines with ANSI escape sequences
	sample  []string // the lines added, in order
	cueLike int      // sampled lines that may be a subtitle cue's timing
	// noEscapes: the text scanned has no escape byte, so no line has one.
	noEscapes bool
	prose     int // sentences: mostly plain words
	turns     int
	speakers  map[string]int
}

func (st *kindStats) add(line string) {
	st.lines++
	if !st.noEscapes && strings.IndexByte(line, 0x1b) >= 0 {
		st.escapes++
	}
	console := false
	stamped, level := textkit.RecordStart(line)
	record := stamped || level
	switch {
	case record:
		st.records++
	case isConsoleLine(line):
		st.console++
		console = true
	case isProseLine(line):
		st.prose++
	}
	body := line
	if line[0] == '[' && record {
		// A transcript written as a log: "[2023-08-22 14:46 INFO] User: ...".
		if i := strings.IndexByte(line, ']'); i > 0 && i+2 < len(line) {
			body = line[i+2:]
		}
	}
	// A level first ("INFO: ...", "WARNING: ...": java.util.logging, bare
	// loggers), or right after the stamp ("[01-Mar-2024 10:00:00] NOTICE:
	// ...": PHP-FPM and others), names no speaker.
	if !turnOpener[body[0]] || console || level {
		return
	}
	if m := turnStartIndex(body); m != nil && !textkit.UpperLevelAt(body[m[2]:m[3]]) && saysSomething(body[m[1]:]) {
		st.turns++
		st.speakers[strings.ToLower(body[m[2]:m[3]])]++
	}
}

func (st *kindStats) kind() Kind {
	if st.lines == 0 {
		return KindProse
	}
	// A transcript has a few speakers who each talk more than once; a
	// build log has many "Key: value" lines with one-off keys.
	repeated, speakers := 0, 0
	for _, n := range st.speakers {
		if n >= 2 {
			repeated += n
			speakers++
		}
	}
	if speakers >= 1 && speakers <= 12 && repeated >= 2 && repeated*8 >= st.lines && repeated*2 >= st.turns {
		return KindTranscript
	}
	machine := st.records + st.console
	switch {
	case st.records*2 >= st.lines || recordsDominateLines(st.sample, 50):
		// Records, possibly with stack traces under them.
		return KindLog
	case st.turns*4 < st.lines && st.prose*2 < st.lines && st.repeats()*3 >= st.lines*2:
		// Machine output repeats itself: most lines open the same way.
		return KindLog
	case st.escapes*30 >= st.lines:
		// Terminal colours: nobody types them into prose or chat.
		return KindLog
	case machine >= 2*st.prose && machine*3 >= st.lines:
		return KindLog
	}
	return KindProse
}

// repeats counts the sampled lines that open like an earlier one, digits
// aside. Only verdicts that records do not settle need it.
func (st *kindStats) repeats() int {
	n := 0
	openings := map[string]struct{}{}
	var buf []byte
	for _, line := range st.sample {
		if k := openingKey(line, buf[:0]); k != nil {
			buf = k
			if _, seen := openings[string(k)]; seen {
				n++
			} else {
				openings[string(k)] = struct{}{}
			}
		}
	}
	return n
}

// openingKey appends to buf the first two tokens of line, joined by a
// blank with digits masked, or returns nil for a line of fewer than three
// tokens. Tokens are those of strings.Fields.
func openingKey(line string, buf []byte) []byte {
	f, n := firstFields(line)
	if n < 3 {
		return nil
	}
	at := len(buf)
	buf = append(append(append(buf, f[0]...), ' '), f[1]...)
	for i := at; i < len(buf); i++ {
		if textkit.IsDigit(buf[i]) {
			buf[i] = '0'
		}
	}
	return buf
}

// firstFields returns up to three leading fields of line, as
// strings.Fields splits them, without allocating.
func firstFields(line string) (f [3]string, n int) {
	for i := 0; i < len(line) && n < len(f); {
		if line[i] >= utf8.RuneSelf {
			return firstFieldsUnicode(line) // Unicode blanks
		}
		if asciiSpace[line[i]] {
			i++
			continue
		}
		start := i
		for i < len(line) && line[i] < utf8.RuneSelf && !asciiSpace[line[i]] {
			i++
		}
		if i < len(line) && line[i] >= utf8.RuneSelf {
			return firstFieldsUnicode(line)
		}
		f[n] = line[start:i]
		n++
	}
	return f, n
}

func firstFieldsUnicode(line string) (f [3]string, n int) {
	for tok := range strings.FieldsSeq(line) {
		f[n] = tok
		if n++; n == len(f) {
			break
		}
	}
	return f, n
}

// asciiSpace marks the ASCII bytes strings.Fields splits on.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// turnStartIndex matches turnStart, after a cheap check that rules out
// most lines (those of logs above all) without running the expression.
func turnStartIndex(s string) []int {
	if !mayStartTurn(s) {
		return nil
	}
	return turnStart.FindStringSubmatchIndex(s)
}

// turnOpener marks the bytes mayStartTurn lets open a line: a heading's
// '#', a bold '*', a '[' or a label's first byte. A log record's digit is
// none: add rules such a line out without a call.
var turnOpener = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '#' || c == '*' || c == '[' || turnLabelFirst(byte(c))
	}
	return t
}()

// mayStartTurn is a necessary condition for turnStart, written out so
// that most lines (those of logs above all) never reach the expression:
// past the optional heading, bold and bracket, a capital or a role name,
// then label bytes up to a ']', a '*', a " (" or a colon before a blank
// or a bold marker.
func mayStartTurn(s string) bool {
	s, ok := skipTurnHeading(s)
	if !ok {
		return false
	}
	s = strings.TrimPrefix(s, "**")
	s = strings.TrimPrefix(s, "[")
	if s == "" || !turnLabelFirst(s[0]) {
		return false
	}
	// A label is at most 31 bytes, so what ends it is at index 31 at most.
	for k := 1; k <= 31 && k < len(s); k++ {
		switch labelByte[s[k]] {
		case lbLabel:
		case lbClose:
			return true
		case lbColon:
			return k+1 < len(s) && (s[k+1] == ' ' || s[k+1] == '*')
		case lbBlank:
			if k+1 < len(s) && s[k+1] == '(' {
				return true
			}
		default:
			return false
		}
	}
	return false
}

// labelByte classes the bytes after a speaker label's first for
// mayStartTurn: a label's (a word byte, a dot, an apostrophe, a dash),
// a blank, what closes it (']', '*'), a colon, or none of them (0).
const (
	lbLabel = 1 + iota
	lbBlank
	lbClose
	lbColon
)

var labelByte = func() (t [256]uint8) {
	for c := range 256 {
		switch b := byte(c); {
		case b == ']' || b == '*':
			t[c] = lbClose
		case b == ':':
			t[c] = lbColon
		case b == ' ':
			t[c] = lbBlank
		case isWordByte(b) || b == '.' || b == '\'' || b == '-':
			t[c] = lbLabel
		}
	}
	return t
}()

// skipTurnHeading returns s past a Markdown heading of at most four '#'
// and its blanks; ok is false for a '#' run that is no such heading.
func skipTurnHeading(s string) (rest string, ok bool) {
	if s == "" || s[0] != '#' {
		return s, true
	}
	i := 0
	for i < len(s) && s[i] == '#' {
		i++
	}
	j := i
	for j < len(s) && s[j] == ' ' {
		j++
	}
	if i > 4 || j == i {
		return s, false
	}
	return s[j:], true
}

// turnLabelFirst reports a byte that may open a speaker label: a capital,
// or the first letter of a lower-case role (user, assistant, ai, system,
// tool, human).
func turnLabelFirst(c byte) bool {
	return (c >= 'A' && c <= 'Z') || c == 'u' || c == 'a' || c == 's' || c == 't' || c == 'h'
}

// saysSomething reports whether the text after a speaker label is speech:
// at least three plain words, not a progress counter or a value.
func saysSomething(s string) bool {
	words := 0
	fields := strings.Fields(s)
	if len(fields) > 0 && opensWithID(fields[0]) {
		// A labelled record of a log (AWS Lambda's "REPORT RequestId:
		// 8f5e... Duration: 2.02 ms"): the label names a field, not a
		// speaker, whose value comes first.
		return false
	}
	for _, tok := range fields {
		if isPlainWord(tok) {
			words++
			if words >= 3 {
				return true
			}
		}
	}
	return false
}

// opensWithID reports a token that is an id or a number: a run of eight
// or more hex digits and dashes with a digit among them (a UUID, a hash),
// or mostly digits (404, 12:30, 2024-01-01). Not a word with a digit in
// it (2FA, 5G, i18n) nor a list item's number (1., 2)): someone speaking
// begins with words.
func opensWithID(tok string) bool {
	digits, hex := 0, true
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if textkit.IsDigit(c) {
			digits++
		} else if !textkit.IsHexDigit(c) && c != '-' {
			hex = false
		}
	}
	n := len(tok)
	switch {
	case digits == 0:
		return false
	case digits == n-1 && (tok[n-1] == '.' || tok[n-1] == ')'):
		return false // a list item's number
	case hex && n >= 8:
		return true
	}
	return digits*2 > n
}

// isConsoleLine reports terminal output that is not a log record: ANSI
// escapes, shell prompts and traces, CI markers, progress counters, and
// lines dense with paths, numbers and symbols rather than words.
func isConsoleLine(line string) bool {
	if strings.IndexByte(line, 0x1b) >= 0 {
		return true
	}
	for _, p := range consolePrefixes {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	words, other := 0, 0
	for _, tok := range strings.Fields(line) {
		if isPlainWord(tok) {
			words++
		} else {
			other++
		}
	}
	return other >= 2 && other > words || quietBuildStep(line)
}

// quietBuildStep reports a step of a build that prints a tool and its
// target file ("  CC      kernel/fork.o", "  LD [M]  drivers/net/e1000.ko",
// "  GEN     include/config.h"): Kbuild and the makefiles that copy it.
func quietBuildStep(line string) bool {
	f, n := firstFields(line)
	if n < 2 || len(f[0]) < 2 || len(f[0]) > 8 || line[0] != ' ' {
		return false
	}
	for i := 0; i < len(f[0]); i++ {
		if f[0][i] < 'A' || f[0][i] > 'Z' {
			return false
		}
	}
	target := f[1]
	if n == 3 && len(f[1]) == 3 && f[1][0] == '[' && f[1][2] == ']' {
		target = f[2] // "[M]": built as a module
	} else if n == 3 {
		return false
	}
	return strings.ContainsAny(target, "/.")
}

var consolePrefixes = [...]string{"$ ", "+ ", "travis_", "##[", "==> ", "---> ", "npm ", "Step ", "#", ">>> "}

// isProseLine reports a line of running text: six or more tokens, nearly
// all of them plain words.
func isProseLine(line string) bool {
	words, n := 0, 0
	for _, tok := range strings.Fields(line) {
		n++
		if isPlainWord(tok) {
			words++
		}
	}
	return n >= 5 && words*4 >= n*3
}

// isPlainWord reports a token made of letters, optionally with one inner
// apostrophe or hyphen and trailing punctuation.
func isPlainWord(tok string) bool {
	tok = strings.TrimFunc(tok, func(r rune) bool { return unicode.IsPunct(r) || r == '`' })
	if tok == "" {
		return false
	}
	for _, r := range tok {
		if !unicode.IsLetter(r) && r != '\'' && r != '-' {
			return false
		}
	}
	return true
}

// looksJSON checks that a text starting with { or [ ends with the matching
// bracket. Full validation is the structured node's job.
func looksJSON(first byte, text string) bool {
	end := strings.TrimRight(text, " \t\r\n")
	if end == "" {
		return false
	}
	last := end[len(end)-1]
	return (first == '{' && last == '}') || (first == '[' && last == ']')
}
