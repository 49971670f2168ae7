package logs

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Mined is a record log's events grouped into templates (see Mine).
type Mined struct {
	t      *templates
	events []logEvent
	// Merged reports whether variants or header columns merged.
	Merged bool
}

// Mine groups the events of a record log, the lines of x, into templates,
// variants and header columns merged. Lines marked in tail (nil for none)
// neither open nor continue an event: they pass as they were written.
func Mine(ctx context.Context, x textkit.LineIndex, lay Layout, minVariants int, tail []bool) (*Mined, error) {
	return MineWith(ctx, x, lay, minVariants, tail, nil)
}

// MineWith is Mine that takes its tokens through memos (nil: memos of its
// own), which a later pass over the text it writes finds them in.
func MineWith(ctx context.Context, x textkit.LineIndex, lay Layout, minVariants int, tail []bool, memos *Memos) (*Mined, error) {
	t, events, merged, err := mineTemplates(ctx, x, lay, minVariants, tail, memos)
	if err != nil {
		return nil, err
	}
	return &Mined{t: t, events: events, Merged: merged}, nil
}

// Release lets the next Mine reuse m's memory; m is not used again.
func (m *Mined) Release() {
	m.t.release()
	m.t, m.events = nil, nil
}

// Spans puts each template's span in spans: its first event's first line
// -> its last event's last line.
func (m *Mined) Spans(spans map[int]int) { m.t.eventSpans(m.events, spans) }

// Members maps each template's first line to the first lines of all the
// events it stands for, in order, the key first.
func (m *Mined) Members() map[int][]int {
	byRoot := map[int][]int{}
	for _, e := range m.events {
		r := m.t.find(int(e.group))
		byRoot[r] = append(byRoot[r], int(e.start))
	}
	members := make(map[int][]int, len(byRoot))
	for _, mem := range byRoot {
		members[mem[0]] = mem
	}
	return members
}

// HeadKeys maps the head line each template is written with to its
// LineKey, which log_dedup's readers would compute again from that line.
func (m *Mined) HeadKeys() map[string]uint64 {
	roots := 0
	for i := range m.t.groups {
		if m.t.groups[i].parent == i {
			roots++
		}
	}
	keys := make(map[string]uint64, roots) // sized once: grown, it cost more than its fill
	for i := range m.t.groups {
		if g := &m.t.groups[i]; g.parent == i {
			keys[g.head] = g.lineKey
		}
	}
	return keys
}

// Write writes each template at its first event, saying what varies
// among the records it stands for; the other lines of x pass. long
// reports a count too long to read back.
func (m *Mined) Write(x textkit.LineIndex) (out string, long bool) {
	return m.t.writeEvents(x, m.events)
}

// Memos are the token memos of one document, kept across log dedup's
// passes: a later pass reads the lines an earlier one wrote (each
// template's first record), whose digit shapes they hold, and tokenizes
// none of them again. Not safe for concurrent use.
type Memos struct {
	records, conts *tokenMemo // record lines', continuation lines'
}

// NewMemos returns empty memos; Release them after the last pass.
func NewMemos() Memos {
	if !useTokenMemo {
		return Memos{}
	}
	return Memos{records: getTokenMemo(lineTokens), conts: getTokenMemo(tokenize)}
}

// Release lets another document reuse the memos; they are not used again.
func (m *Memos) Release() {
	if m.records != nil {
		m.records.release()
		m.conts.release()
	}
	*m = Memos{}
}

// mineTemplates groups the events of a record log into templates, variants
// and header columns merged. merged reports whether any merged. Tokens
// go through memos, or memos of its own when nil.
func mineTemplates(ctx context.Context, x textkit.LineIndex, lay Layout, minVariants int, tail []bool, memos *Memos) (*templates, []logEvent, bool, error) {
	// Events: a record line and the non-record lines after it. Lines
	// outside events pass as they are.
	t := newTemplates(minVariants, lay)
	if memos == nil {
		own := NewMemos()
		defer own.Release()
		memos = &own
	}
	memo, cmemo := memos.records, memos.conts
	// buf has room for most records' tokens; toks are a record's, in buf
	// or the memo's own (shared).
	buf, toks, ctoks := make([]Tok, 0, 64), []Tok(nil), []Tok(nil)
	// memoRecords: record lines take their tokens and their entry from
	// the memo (see tokenMemo.recordTokens).
	memoRecords := memo != nil && lay.memoRecords()
	nl := x.Len()
	// opens[i]: line i opens a record; each line is asked once.
	opens := make([]bool, nl)
	records := 0
	for i := range opens {
		opens[i] = lay.OpensRecord(x.Line(i)) && (tail == nil || !tail[i])
		if opens[i] {
			records++
		}
	}
	events := make([]logEvent, 0, records) // an event a record
	for i, n := 0, 0; i < nl; n++ {
		if n&4095 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, nil, false, err
			}
		}
		if !opens[i] {
			i++
			continue
		}
		end := i + 1
		if end < nl && !opens[end] {
			end = eventEnd(x, opens, tail, i)
		}
		head, weight := SplitCount(x.Line(i))
		// A record of one line, the most common, is its message and has
		// no continuation.
		msg, cont := head, uint64(fnvOffset)
		if end > i+1 {
			var from int
			msg, from = eventMessage(x, lay, head, i, end)
			cont, ctoks = continuationHash(x, from, end, ctoks, cmemo)
		}
		entry, shared := int32(-1), false
		if memoRecords {
			toks, entry, shared = memo.recordTokens(templateHead(msg), buf[:0])
		} else {
			toks = lay.templateTokens(msg, buf[:0], memo)
		}
		if !shared {
			buf = toks[:0] // grown, perhaps
		}
		key := memo.groupKey(entry, toks, cont)
		g := t.addKeyed(toks, key, cont, len(events), weight, msg)
		events = append(events, logEvent{start: int32(i), end: int32(end), group: int32(g)})
		i = end
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, false, err
	}
	merged := t.mergeHeaderColumns()
	merged = t.mergeVariants() || merged
	return t, events, merged, nil
}

// eventMessage returns the text whose tokens make the template of the
// event at lines [i, end), and the first line hashed as its continuation.
// An indented line right under a free-text record line is part of its
// message (.NET's console logger: "info: App.Worker[0]" then
// "      session opened for user bob"; a message's first detail line):
// its words are slots that vary and summarise like the record line's.
//
// A record written as indented fields under its head line (journalctl's
// verbose output, YAML records: "    MESSAGE=...", "  msg: ...") has its
// message among them: all its lines make the message.
func eventMessage(x textkit.LineIndex, lay Layout, head string, i, end int) (string, int) {
	if lay.Fields != "" || end <= i+1 {
		return head, i + 1
	}
	if fieldLines(x, i+1, end) {
		if len(head) == len(x.Line(i)) {
			return x.Span(i, end), end
		}
		return head + "\n" + x.Span(i+1, end), end // a count removed: as log_dedup read it first
	}
	next := x.Line(i + 1)
	if next == "" || (next[0] != ' ' && next[0] != '\t') || len(head)+len(next) >= maxTemplateBytes {
		return head, i + 1
	}
	if len(head) == len(x.Line(i)) {
		return x.Span(i, i+2), i + 2 // no count suffix: the two lines stand together
	}
	return head + "\n" + next, i + 2
}

// maxFieldLines bounds the field lines of a record read as its message.
const maxFieldLines = 32

// fieldLines reports whether lines [from, end) are a record's fields: at
// most maxFieldLines indented "key=value" or "key: value" lines, within
// maxTemplateBytes together. A stack trace's lines are no fields.
func fieldLines(x textkit.LineIndex, from, end int) bool {
	if end-from > maxFieldLines || int(x.Starts[end]-x.Starts[from]) >= maxTemplateBytes {
		return false
	}
	for k := from; k < end; k++ {
		if !fieldLine(x.Line(k)) {
			return false
		}
	}
	return true
}

// fieldLine reports an indented key=value or key: value line, the key a
// name (letters, digits, _ . -, a letter or _ first).
func fieldLine(l string) bool {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	if i == 0 || i == len(l) || !(textkit.IsLetter(l[i]) || l[i] == '_') {
		return false
	}
	for i < len(l) && (textkit.IsWordByte(l[i]) || l[i] == '.' || l[i] == '-') {
		i++
	}
	return i < len(l) && (l[i] == '=' || l[i] == ':' && (i+1 == len(l) || l[i+1] == ' '))
}

// logEvent is a record line and the non-record lines after it: lines
// [start, end), of template group.
type logEvent struct {
	start, end int32
	group      int32
}

// eventEnd returns the end of the event that line i opens: the next
// blank, record, protected or failing tail line.
func eventEnd(x textkit.LineIndex, opens, tail []bool, i int) int {
	end := i + 1
	for nl := x.Len(); end < nl; end++ {
		l := x.Line(end)
		if l == "" || opens[end] || textkit.IsProtectedLine(l) || (tail != nil && tail[end]) {
			break
		}
	}
	return end
}

// continuationHash hashes lines [from, end), an event's continuation,
// masked like a head: a host or a node (dn228) in a continuation line is
// a value, not a different trace, and so is whatever follows a key's '='
// ("  node=worker-a"): continuation lines are not merged by variants, so
// their values must not tell records apart. It returns ctoks for reuse.
func continuationHash(x textkit.LineIndex, from, end int, ctoks []Tok, memo *tokenMemo) (uint64, []Tok) {
	cont := uint64(fnvOffset)
	for k := from; k < end; k++ {
		l := x.Line(k)
		if len(l) > maxTemplateBytes {
			// Memory stays bounded: the rest of a long line
			// only has its numbers masked.
			cont = (cont ^ MaskedHash(l[maxTemplateBytes:])) * fnvPrime
			l = l[:maxTemplateBytes]
		}
		if memo != nil {
			ctoks = memo.lineTokens(l, ctoks[:0])
		} else {
			ctoks = tokenize(l, ctoks[:0])
		}
		for _, c := range ctoks {
			id := TokenID(c)
			if c.Start > 0 && l[c.Start-1] == '=' {
				id = varToken
			}
			cont = (cont ^ id) * fnvPrime
		}
		cont = (cont ^ '\n') * fnvPrime
	}
	return cont, ctoks
}

// eventSpans puts each template's span in spans: its first event's
// first line -> its last event's last line.
func (t *templates) eventSpans(events []logEvent, spans map[int]int) {
	last := make([]int, len(t.groups)) // root group -> its last event, -1 for none
	for g := range last {
		last[g] = -1
	}
	for g := range t.groups {
		if r := t.find(g); t.groups[g].last > last[r] {
			last[r] = t.groups[g].last
		}
	}
	for r, l := range last {
		if l >= 0 {
			spans[int(events[t.groups[r].first].start)] = int(events[l].end) - 1
		}
	}
}

// writeEvents writes each template at its first event, saying what
// varies among the records a representative stands for. long reports a
// count too long to read back.
func (t *templates) writeEvents(x textkit.LineIndex, events []logEvent) (out string, long bool) {
	sums := t.summaries()
	clockOf := func(ev int) string {
		head, _ := SplitCount(x.Line(int(events[ev].start)))
		c, _ := clockIn(head)
		return c
	}
	for _, sum := range sums {
		if sum != nil {
			sum.markSpikes(clockOf)
		}
	}
	contexts := t.requestContexts(x, events)
	var w textkit.LineWriter
	w.Grow(len(t.groups)*128 + 1024)
	var line []byte   // a summarised head line: head and suffix, one allocation
	done := 0         // lines written or skipped so far
	blankEnd := false // the last line written is blank
	for ei, e := range events {
		start, end := int(e.start), int(e.end)
		if blankEnd {
			// The blank lines that separated records (Rails' requests,
			// traces) stay one where the records between are gone.
			done = pastBlanks(x, done, start)
		}
		if done < start {
			w.Add(x.Span(done, start))
			blankEnd = x.Line(start-1) == ""
		}
		done = end
		root := t.find(int(e.group))
		if t.groups[root].first != ei {
			continue
		}
		blankEnd = false
		if c, ok := contexts[ei]; ok {
			w.Add(c.line(x, events))
		}
		head, _ := SplitCount(x.Line(start))
		count := t.groups[root].count
		if count >= 1e12 {
			long = true // splitCount reads 12 digits at most
		}
		switch sum := sums[root]; {
		case t.groups[root].events == 1 && sum == nil:
			w.Add(x.Line(start)) // alone: as it was, its summary included
		case sum != nil:
			line = sum.appendSuffix(append(line[:0], head...), count)
			w.Add(string(line))
		default:
			w.Add(WithCount(head, count))
		}
		if start+1 < end {
			w.Add(x.Span(start+1, end))
		}
	}
	if nl := x.Len(); done < nl {
		if blankEnd {
			done = pastBlanks(x, done, nl-1) // the last line may end the text with a line break
		}
		w.Add(x.Span(done, nl))
	}
	return w.String(), long
}

// pastBlanks returns the first line at or after i, and before end, that
// is not blank, or end.
func pastBlanks(x textkit.LineIndex, i, end int) int {
	for i < end && x.Line(i) == "" {
		i++
	}
	return i
}

// Tok is one whitespace-separated token, hashed after masking.
type Tok struct {
	h          uint64 // hash of the masked token
	Start, End int32  // the token's bytes in its line
	flags      tokFlags
}

// tokFlags say what a token is beyond its shape.
type tokFlags uint8

const (
	// tokVariable: a number, an id, a date or a path: never a constant.
	tokVariable tokFlags = 1 << iota
	// tokDigitValued: the token's shape depends on the values of its
	// digits, not only on where they stand (see tokenMemo).
	tokDigitValued
)

// flagIf is f when cond holds, else none.
func flagIf(cond bool, f tokFlags) tokFlags {
	if cond {
		return f
	}
	return 0
}

func (t Tok) variable() bool    { return t.flags&tokVariable != 0 }
func (t Tok) digitValued() bool { return t.flags&tokDigitValued != 0 }

const (
	fnvOffset = textkit.FNVOffset
	fnvPrime  = textkit.FNVPrime
)

// tokenize splits line on blanks and the usual field delimiters
// (| , ; = : [ ] ( ) { } ", and the & that joins a URL query's or a form's
// key=value pairs) and hashes each token's shape. Dates and paths are
// variables; a token without a digit is its own shape; the others are
// masked by maskToken.
func tokenize(line string, dst []Tok) []Tok {
	first := len(dst) // this line's tokens start there
	for i := 0; i < len(line); i++ {
		seen := tokClass[line[i]] // the classes of the token's bytes
		if seen&tcSep != 0 {
			if opensValue[line[i]] {
				dst, i = bracketedValue(line, i, dst)
			}
			continue
		}
		if line[i] == '\\' {
			if d, last := quotedPhrase(line, i, 2, dst); last > i {
				dst, i = d, last
				continue
			}
		}
		start := i
		i, seen = tokenBytes(line, i, seen)
		if i < len(line) && line[i] == ':' { // an address's first group ends at a ':'
			if e := addressAt(line, start, i); e > 0 {
				dst = append(dst, Tok{h: fnvOffset, Start: int32(start), End: int32(e), flags: tokVariable})
				i = e - 1
				continue
			}
		}
		end := i
		if seen&tcHigh != 0 || i < len(line) && line[i] == 0x1b {
			end, i, seen = tokenEnd(line, start, i, seen)
		}
		t := line[start:end]
		if seen&(tcDigit|tcSlash) == 0 {
			// A word, the most common token: a calendar word (letters
			// only) or a generated name is a variable, any other its own
			// shape.
			k := Tok{h: fnvOffset, Start: int32(start), End: int32(end), flags: tokVariable}
			if !(len(t) == 3 && textkit.IsCalendarName(t)) && (seen&(tcDash|tcNet) == 0 || !isDataWord(t, seen)) {
				k.h, k.flags = wordHash(t), k.flags&^tokVariable
			}
			dst = append(dst, k)
			continue
		}
		k := Tok{h: fnvOffset, Start: int32(start), End: int32(end), flags: tokVariable}
		switch {
		case len(t) == 3 && textkit.IsCalendarName(t): // isCalendarWord
		case seen&tcSlash != 0 && len(t) >= 3:
			k = slashToken(line, dst[first:], t)
			k.Start, k.End = int32(start), int32(end)
		case seen&tcDigit == 0:
			k.h, k.flags = wordHash(t), k.flags&^tokVariable
		case seen&tcLetter == 0:
			// Numbers and punctuation only (dates, times, addresses): a
			// variable, whose hash no one reads (see TokenID).
		case hexValue(line, start, t, seen):
			k.flags |= flagIf(hexLiteralShape(t), tokDigitValued)
		default:
			if n := dashedIDName(t, seen); n > 0 {
				// A named id (OpenStack req-<uuid>, span_<uuid>): its
				// name is the shape, the id a value.
				k.h, k.flags = wordHash(t[:n])^'I', k.flags&^tokVariable
				break
			}
			k = maskToken(t)
			k.Start, k.End = int32(start), int32(end)
			k.flags |= flagIf(hexLiteralShape(t), tokDigitValued)
		}
		dst = append(dst, k)
	}
	return dst
}

// tokenBytes scans the token that opens at line[i], whose byte classes
// are seen: it returns the token's end (a separator, or the line's end)
// and the classes of all its bytes.
func tokenBytes(line string, i int, seen uint16) (int, uint16) {
	for i++; i < len(line); i++ {
		cl := tokClass[line[i]]
		if cl&tcSep != 0 {
			break
		}
		seen |= cl
	}
	return i, seen
}

// tokenEnd settles a token line[start:i] that holds a byte of a
// multi-byte rune or ends at an escape: it ends at a script cut inside
// it, if any (the next token starts there), and an escape after it is
// read by the next iteration as a whole. last is the index tokenize's
// loop goes on after; seen, the classes of the token's bytes.
func tokenEnd(line string, start, i int, seen uint16) (end, last int, _ uint16) {
	if seen&(tcHigh|tcWord) == tcHigh|tcWord {
		if c := scriptCutIn(line, start, i); c > 0 {
			return c, c - 1, classesOf(line[start:c])
		}
	}
	if i < len(line) && line[i] == 0x1b {
		return i, i - 1, seen
	}
	return i, i, seen
}

// scriptCutIn returns the first script cut (see scriptCut) in the token
// line[start:end], or 0.
func scriptCutIn(line string, start, end int) int {
	for j := start + 1; j < end; j++ {
		if scriptCut(line, j) {
			return j
		}
	}
	return 0
}

// classesOf is the classes of the bytes of t.
func classesOf(t string) (seen uint16) {
	for i := 0; i < len(t); i++ {
		seen |= tokClass[t[i]]
	}
	return seen
}

// scriptCut reports a token cut at line[i], between a letter or digit of
// ASCII and an ideograph (Chinese, Japanese; their full-width forms):
// those scripts write no blank between words, so "用户alice登录成功" is
// three tokens, the name a value between two words, as "user alice
// logged in" is. Accented Latin letters cut nothing ("José" is one word).
func scriptCut(line string, i int) bool {
	if c := line[i]; c < 0x80 {
		return tokClass[c]&tcWord != 0 && i >= 3 && ideographAt(line, i-3)
	}
	return ideographAt(line, i) && tokClass[line[i-1]]&tcWord != 0
}

// ideographAt reports a three-byte rune at line[j] from the CJK blocks
// (U+3000–U+9FFF: punctuation, kana, ideographs) or the full-width forms
// (U+FF00–U+FFEF).
func ideographAt(line string, j int) bool {
	if j+2 >= len(line) || line[j+1]&0xC0 != 0x80 || line[j+2]&0xC0 != 0x80 {
		return false
	}
	c := line[j]
	return c >= 0xE3 && c <= 0xE9 || c == 0xEF && line[j+1] >= 0xBC
}

// opensValue marks the separators that open more than one byte: '[' a
// list, '"' a phrase, ESC a terminal escape.
var opensValue = [256]bool{'[': true, '"': true, 0x1b: true}

// bracketedValue reads a list or a quoted phrase that opens at the
// separator line[i] as one token. It returns dst and the index of the
// value's last byte, or i when none opens there. A terminal escape (a
// color: "\x1b[1mweb-1\x1b[0m") is a separator as a whole, no token:
// colored and plain records are the same records.
func bracketedValue(line string, i int, dst []Tok) ([]Tok, int) {
	switch line[i] {
	case 0x1b:
		return dst, textkit.SkipANSI(line, i) - 1
	case '[':
		if e := listEnd(line, i); e > 0 {
			return append(dst, Tok{h: fnvOffset, Start: int32(i), End: int32(e), flags: tokVariable}), e - 1
		}
	case '"':
		return quotedPhrase(line, i, 1, dst)
	}
	return dst, i
}

// quotedPhrase reads a quoted phrase inside a sentence that opens at
// line[i] as one token: its quotes are q bytes wide, '"' or, escaped in a
// JSON or logfmt string, '\\"' (msg="search for \\"red shoes\\" returned
// 3"). A phrase stands after a word and a blank, holds words with blanks
// between them and no quote or backslash, closes on the line and has more
// words after it (search for "red running shoes" returned 12 results). A
// quoted cell (after ',': CSV), a quoted value (after '='), a quoted
// message after a header (klog's 1 main.go:42] "msg" key="v") and a quote
// that ends the line are none: there the quotes hold the message. It
// returns dst and the index of the phrase's last byte, or i when none
// opens there.
func quotedPhrase(line string, i, q int, dst []Tok) ([]Tok, int) {
	if !afterWord(line, i) || i+q >= len(line) || line[i+q-1] != '"' {
		return dst, i
	}
	k := strings.IndexByte(line[i+q:], '"') - (q - 1) // the inner phrase's length
	if k < 1 || k+q-1 > maxValueBytes || q == 2 && line[i+q+k] != '\\' {
		return dst, i
	}
	inner := line[i+q : i+q+k]
	if q == 2 && strings.IndexByte(inner, '\\') >= 0 || strings.IndexByte(inner, ' ') < 0 {
		return dst, i
	}
	e := i + 2*q + k
	if e+1 >= len(line) || line[e] != ' ' || !textkit.IsWordByte(line[e+1]) {
		return dst, i
	}
	if d, ok := appendPhrase(line, i, e, q, dst); ok {
		return d, e - 1
	}
	return dst, i
}

// appendPhrase appends the quoted phrase line[i:e], its quotes q bytes
// wide, as one token when it
// is words only: a search query, a name with blanks. Such phrases vary in
// their number of words from record to record, which token by token made
// a template of every phrase; as one token, a position holding many
// phrases merges like any other. A phrase with a value in it (a number,
// an id, a path) is read token by token (ok false): its words keep their
// count, and its values their summary.
func appendPhrase(line string, i, e, q int, dst []Tok) (_ []Tok, ok bool) {
	at := len(dst)
	dst = tokenize(line[i+q:e-q], dst)
	h := uint64(fnvOffset) ^ 'Q'
	valued := false
	for _, t := range dst[at:] {
		if t.variable() {
			return dst[:at], false
		}
		h = (h ^ TokenID(t)) * fnvPrime
		valued = valued || t.digitValued()
	}
	return append(dst[:at], Tok{h: h | 2, Start: int32(i), End: int32(e), flags: flagIf(valued, tokDigitValued)}), true
}

// maxValueBytes bounds a list or a quoted phrase read as one value.
const maxValueBytes = 1024

// listEnd returns the end of a list that opens at line[i] == '[': two
// items or more, each without blanks, colons or brackets, joined by ','
// and perhaps one blank ("[auth, cache, gzip]", "[1,2,3]", ['a', 'b']).
// A list's length and items vary from record to record (plugins loaded,
// partitions assigned), so it is one value; token by token it made a
// template for every combination. A bracketed time, level or thread
// ("[10:00:01,123]", "[INFO]", "[main]") is no list, nor are brackets
// right after a word (sshd[1234]): tokenize looks for lists only after a
// separator. 0 when there is none.
func listEnd(line string, i int) int {
	commas := 0
	lim := min(len(line), i+maxValueBytes)
	for j := i + 1; j < lim; j++ {
		for j < lim && !listByte[line[j]] {
			j++
		}
		if j == lim {
			break
		}
		switch line[j] {
		case ']':
			if commas == 0 {
				return 0
			}
			return j + 1
		case ',':
			commas++
			if j+1 < lim && line[j+1] == ' ' {
				j++
			}
		default:
			return 0 // a blank, a colon or a bracket
		}
	}
	return 0
}

// listByte marks the bytes that end a list item: ',' and ']', and those
// no item holds (blanks, colons, brackets).
var listByte = func() (t [256]bool) {
	for _, c := range []byte(",] \t\n\r\v\f:[{()}") {
		t[c] = true
	}
	return t
}()

// isDataWord reports a word without digits that is data all the same: a
// host name or an e-mail address, or a generated name.
func isDataWord(t string, seen uint16) bool {
	return seen&tcNet != 0 && isNetName(t) || seen&tcDash != 0 && hasRandomPart(t)
}

// isNetName reports an e-mail address (name@domain.tld) or a host name:
// lower-case labels joined by '.' that end in a generic top-level domain
// (api.example.com, db.internal), or in a country's two letters under a
// generic second level (proxy.cse.cuhk.edu.hk). A file name (config.yaml,
// main.go), a logger (org.apache.Foo, app.db) or a property
// (mapred.task.id) is none.
func isNetName(t string) bool {
	dom := t
	if at := strings.IndexByte(t, '@'); at > 0 {
		dom = t[at+1:]
		return strings.IndexByte(dom, '.') > 0 && !strings.HasSuffix(dom, ".")
	}
	dot := strings.LastIndexByte(dom, '.')
	if dot <= 0 || dot == len(dom)-1 {
		return false
	}
	for i := 0; i < len(dom); i++ {
		if c := dom[i]; !(c >= 'a' && c <= 'z' || c == '.' || c == '-') {
			return false
		}
	}
	switch tld := dom[dot+1:]; tld {
	case "com", "net", "org", "io", "edu", "gov", "internal", "local", "localdomain", "lan", "corp", "cloud", "test":
		return true
	}
	// A country's domain under its generic second level: cuhk.edu.hk,
	// bbc.co.uk. Property names end in two letters too (mapred.task.id).
	rest := dom[:dot]
	switch rest[strings.LastIndexByte(rest, '.')+1:] {
	case "com", "co", "edu", "ac", "gov", "net", "org", "or", "ne", "go":
		return len(dom)-dot-1 == 2 && strings.IndexByte(rest, '.') > 0
	}
	return false
}

// hasRandomPart reports a dashed or underscored name with a part of seven
// or more letters and no vowel: generated, not written (a Kubernetes pod's
// "web-kgkxttbzrl-sxsxk", whose alphabet has no vowels; the same name with
// a digit in its hash is masked like any id). Shorter parts are words
// ("git-remote-https", "xhtml", "pgsql").
func hasRandomPart(t string) bool {
	if strings.IndexByte(t, '-') < 0 && strings.IndexByte(t, '_') < 0 {
		return false
	}
	run, vowel := 0, false // the current part's letters; a vowel or other byte seen
	for i := 0; i <= len(t); i++ {
		if i == len(t) || t[i] == '-' || t[i] == '_' || t[i] == '.' {
			if run >= 7 && !vowel {
				return true
			}
			run, vowel = 0, false
			continue
		}
		switch c := t[i] | 0x20; c {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			run, vowel = run+1, true
		default:
			if c < 'a' || c > 'z' {
				vowel = true // not a letter: not a generated word
			}
			run++
		}
	}
	return false
}

// addressAt returns the end of the MAC or IPv6 address that the token
// line[start:end] opens (see hexGroupsEnd), or 0. An address opens with
// one to four hex digits and a ':', which ends a token: only such a
// token is tried; tokenize has seen the ':' at line[end].
func addressAt(line string, start, end int) int {
	if end-start > 4 || tokClass[line[start]]&tcHex == 0 || !mayOpenHexGroups(line, start) {
		return 0
	}
	return hexGroupsEnd(line, start)
}

// mayOpenHexGroups is a cheap test before hexGroupsEnd: room for five
// groups, and a ':' where one ends. Two-character groups need their
// third ':' too, which a clock (10:00:01) has not.
func mayOpenHexGroups(s string, i int) bool {
	if i+8 >= len(s) {
		return false
	}
	if s[i+2] == ':' {
		return s[i+5] == ':' && s[i+8] == ':'
	}
	return s[i+1] == ':' || s[i+3] == ':' || s[i+4] == ':'
}

// hexGroupsEnd returns the end of a MAC or IPv6 address at i (five or more
// groups of one to four hex digits joined by ':', one "::" allowed, a
// digit among them), or 0. ':' splits tokens, so without it the groups
// of "fa:16:3e:0c" would read as words ("fa") and numbers, and every
// address would make its own template.
func hexGroupsEnd(s string, i int) int {
	groups, digit, gap := 0, false, false
	j := i
	for {
		k := j
		for k < len(s) && k-j <= 4 && tokClass[s[k]]&tcHex != 0 {
			digit = digit || textkit.IsDigit(s[k])
			k++
		}
		switch n := k - j; {
		case n > 4:
			return 0
		case n > 0:
			groups++
		case gap || j == i:
			return 0
		default:
			gap = true
		}
		if k+1 >= len(s) || s[k] != ':' || tokClass[s[k+1]]&tcHex == 0 && s[k+1] != ':' {
			if groups < 5 || !digit || k < len(s) && tokClass[s[k]]&tcWord != 0 {
				return 0
			}
			return k
		}
		j = k + 1
	}
}

// wordHash hashes a token without digits, eight bytes a step: words make
// most of a log's bytes, and a byte-at-a-time hash is a chain of
// multiplications. Tokens of up to eight bytes never collide.
func wordHash(t string) uint64 {
	const m = 0x9E3779B97F4A7C15
	h := (uint64(fnvOffset) ^ uint64(len(t))) * m
	for ; len(t) >= 8; t = t[8:] {
		w := uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56
		h = (h ^ w) * m
		h ^= h >> 32
	}
	if len(t) > 0 {
		h = (h ^ tailWord(t)) * m
	}
	h ^= h >> 29
	h *= 0xBF58476D1CE4E5B9
	return h ^ h>>32
}

// tailWord packs the 1 to 7 bytes of t into a word, the first byte
// lowest: two loads that may overlap (an overlapped byte is ORed onto
// itself), not a load a byte.
func tailWord(t string) uint64 {
	switch n := len(t); {
	case n >= 4:
		lo, hi := t[:4], t[n-4:]
		return uint64(uint32(lo[0])|uint32(lo[1])<<8|uint32(lo[2])<<16|uint32(lo[3])<<24) |
			uint64(uint32(hi[0])|uint32(hi[1])<<8|uint32(hi[2])<<16|uint32(hi[3])<<24)<<(8*(n-4))
	case n >= 2:
		lo, hi := t[:2], t[n-2:]
		return uint64(uint16(lo[0])|uint16(lo[1])<<8) | uint64(uint16(hi[0])|uint16(hi[1])<<8)<<(8*(n-2))
	}
	return uint64(t[0])
}

// isHexID reports a token of hex digits and dashes with at least eight
// hex digits, a digit and a dash among them: a UUID, a trace or a
// request id.
func isHexID(t string) bool {
	hex, digit, dash := 0, false, false
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case textkit.IsDigit(c):
			hex++
			digit = true
		case textkit.IsHexDigit(c):
			hex++
		case c == '-':
			dash = true
		default:
			return false
		}
	}
	return hex >= 8 && digit && dash
}

// hexValue reports a token t at line[start:], with a digit, whose bytes
// are of classes seen, that is a hex id whatever letters it spells: a
// UUID or a dashed hex id, a hex value after '=' (trace_id=5ccd,
// commit=3fa9e) or a hex literal (0x1aaa), an id however short where
// maskToken would keep the letters of one under six bytes.
func hexValue(line string, start int, t string, seen uint16) bool {
	if seen&tcDash != 0 {
		return isHexID(t)
	}
	return start > 0 && line[start-1] == '=' && isHexWord(t) || hexLiteral(t)
}

// hexLiteral reports a C-style hex number (0x1aaa, 0XFF): a value
// whatever letters its digits spell.
func hexLiteral(t string) bool {
	if len(t) < 3 || t[0] != '0' || t[1] != 'x' && t[1] != 'X' {
		return false
	}
	for i := 2; i < len(t); i++ {
		if tokClass[t[i]]&tcHex == 0 {
			return false
		}
	}
	return true
}

// hexLiteralShape reports a token that hexLiteral tells by the value of
// its first digit (0x1f is one, 5x1f none): see tokenMemo.
func hexLiteralShape(t string) bool {
	return len(t) >= 3 && (t[1] == 'x' || t[1] == 'X') && textkit.IsDigit(t[0])
}

// isHexWord reports a token of hex digits only, a letter among them
// (tokenize calls it on tokens that hold a digit).
func isHexWord(t string) bool {
	letter := false
	for i := 0; i < len(t); i++ {
		cl := tokClass[t[i]]
		if cl&tcHex == 0 {
			return false
		}
		letter = letter || cl&tcDigit == 0
	}
	return letter
}

// dashedIDName is hexIDPrefix for a token whose byte classes are seen:
// without a '-' there is no hex id.
func dashedIDName(t string, seen uint16) int {
	if seen&tcDash == 0 {
		return 0
	}
	return hexIDPrefix(t)
}

// hexIDPrefix returns the length of the name before a dashed hex id in t
// ("req" in req-<uuid>), or 0: letters, then '-' or '_', then a hex id.
func hexIDPrefix(t string) int {
	i := 0
	for i < len(t) && tokClass[t[i]]&tcLetter != 0 && t[i] < 0x80 {
		i++
	}
	// blk_-42 is a signed number (maskToken's), not an id.
	if i == 0 || i+2 >= len(t) || (t[i] != '-' && t[i] != '_') || t[i+1] == '-' || !isHexID(t[i+1:]) {
		return 0
	}
	return i
}

// slashToken is pathShape(t), or for a word written twice around a
// slash ("web-1/web-1": a syslog relay's source and relay, the host
// twice, as Thunderbird's records carry it) that an earlier token of the
// record toks is, a reference to that token, whatever the token holds:
// the host then varies at its own position alone. A number's pair
// ("1/1", kubectl's READY) stays a value.
func slashToken(line string, toks []Tok, t string) Tok {
	half := len(t) / 2
	if len(t)%2 == 1 && strings.IndexByte(t, '/') == half && classesOf(t[:half])&tcLetter != 0 {
		// Halves with digits are equal or not by the digits' values.
		valued := classesOf(t[:half])&tcDigit != 0
		if t[:half] == t[half+1:] {
			for j, k := range toks {
				if line[k.Start:k.End] == t[:half] {
					return Tok{h: repeatOf(j) ^ 'P', flags: flagIf(valued, tokDigitValued)}
				}
			}
		}
		k := pathShape(t)
		k.flags |= flagIf(valued, tokDigitValued)
		return k
	}
	return pathShape(t)
}

// pathShape hashes a path or URL by its route: the first two segments
// after the scheme and host, numbers masked. REST routes and file trees
// name what happened by their leading segments (GET /api/orders/…,
// /var/log/…); deeper segments are ids and names, variables. A path
// without two word segments is a variable, but for a route of one word
// (an access log's /login, /health, /favicon.ico).
func pathShape(t string) Tok {
	if strings.IndexByte(t, ':') >= 0 { // tokenize splits at ':': rarely here
		if i := strings.Index(t, "://"); i >= 0 {
			t = t[i+3:]
			if j := strings.IndexByte(t, '/'); j >= 0 {
				t = t[j:]
			} else {
				t = ""
			}
		}
	}
	h := uint64(fnvOffset) ^ '/'
	segs, words := 0, 0
	for len(t) > 0 && segs < 2 {
		// The next segment; a query or fragment ends the path.
		seg, rest := t, ""
		for i := 0; i < len(t); i++ {
			if c := t[i]; c == '/' || c == '?' || c == '#' {
				seg = t[:i]
				if c == '/' {
					rest = t[i+1:]
				}
				break
			}
		}
		t = rest
		if seg == "" {
			continue
		}
		segs++
		var mh uint64
		if hasDigit(seg) || hasRandomPart(seg) {
			mh = maskToken(seg).h
		} else {
			// maskToken without a digit to mask: every byte as it is.
			mh = fnvOffset
			for i := 0; i < len(seg); i++ {
				mh = (mh ^ uint64(seg[i])) * fnvPrime
			}
			if !isCalendarWord(seg) {
				words++
			}
		}
		h = (h ^ mh) * fnvPrime
	}
	if segs == 0 || words < min(segs, 2) {
		return Tok{h: fnvOffset, flags: tokVariable}
	}
	return Tok{h: h | 2}
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if textkit.IsDigit(s[i]) {
			return true
		}
	}
	return false
}

// maskToken hashes a token that holds a digit, with its numbers masked:
// runs of digits, and runs of hex digits that hold a digit and are 6 or
// more long, become one '0'. It is a variable unless a word of three or
// more letters is left (sshd[0]:, user_0, [main:QuorumPeer@0]): then its
// shape is a constant.
func maskToken(t string) Tok {
	h := uint64(fnvOffset)
	digits, run, word := 0, 0, 0
	for i := 0; i < len(t); {
		c := t[i]
		switch cl := tokClass[c]; {
		case cl&tcHex != 0:
			e, nd := i, 0
			for e < len(t) && tokClass[t[e]]&tcHex != 0 {
				nd += int(tokClass[t[e]] & tcDigit)
				e++
			}
			if nd > 0 && (nd == e-i || e-i >= 6) {
				// A number, or a hex id: one '0'.
				h = (h ^ '0') * fnvPrime
				digits++
				run = 0
				i = e
				continue
			}
			// Letters a-f of a word, with the digit runs inside masked.
			for i < e {
				if tokClass[t[i]]&tcDigit != 0 {
					for i < e && tokClass[t[i]]&tcDigit != 0 {
						i++
					}
					h = (h ^ '0') * fnvPrime
					digits++
					run = 0
					continue
				}
				run++
				word = max(word, run)
				h = (h ^ uint64(t[i])) * fnvPrime
				i++
			}
		case cl&tcLetter != 0:
			run++
			word = max(word, run)
			h = (h ^ uint64(c)) * fnvPrime
			i++
		case c == '-' && i+1 < len(t) && tokClass[t[i+1]]&tcDigit != 0 &&
			(i == 0 || tokClass[t[i-1]]&tcWord == 0 || t[i-1] == '_'):
			// The sign of a number: blk_-42 and blk_42 have one shape.
			i++
		default:
			run = 0
			h = (h ^ uint64(c)) * fnvPrime
			i++
		}
	}
	return Tok{h: h, flags: flagIf(digits > 0 && word < 3, tokVariable)}
}

// Byte classes for tokenize.
const (
	tcDigit  = 1 << iota // 0-9; must be bit 0, tokenize adds it up
	tcHex                // 0-9, a-f, A-F
	tcLetter             // a-z, A-Z and every byte of a multi-byte rune
	tcWord               // isWordByte
	tcSep                // blanks and | , ; = : [ ] ( ) { } " & ESC: token separators
	tcSlash              // '/': a token of three or more with one is a path
	tcDash               // '-': dashed hex ids have one
	tcNet                // '.' and '@': host names and e-mail addresses have them
	tcHigh               // a byte of a multi-byte rune
)

var tokClass = func() (t [256]uint16) {
	for c := range 256 {
		b := byte(c)
		if textkit.IsDigit(b) {
			t[c] |= tcDigit
		}
		if textkit.IsHexDigit(b) {
			t[c] |= tcHex
		}
		if (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b >= 0x80 {
			t[c] |= tcLetter
		}
		if b >= 0x80 {
			t[c] |= tcHigh
		}
		if textkit.IsWordByte(b) {
			t[c] |= tcWord
		}
		if b == ' ' || b == '\t' || b == '\n' || b == 0x1b { // '\n' joins a message's lines (eventMessage); ESC opens a color
			t[c] |= tcSep
		}
		if b == '/' {
			t[c] |= tcSlash
		}
		if b == '-' {
			t[c] |= tcDash
		}
		if b == '.' || b == '@' {
			t[c] |= tcNet
		}
		if strings.IndexByte(`|,;=:[](){}"&`, b) >= 0 {
			t[c] |= tcSep
		}
	}
	return t
}()

func isCalendarWord(t string) bool { return len(t) == 3 && textkit.IsCalendarName(t) }

// MaskedHash hashes a whole line with only its numbers masked: digit
// runs that do not end a name (eval1 stays), and hex runs of 6 or more that
// hold a digit, count as one '0'; runs of blanks as one space. Words, paths
// and punctuation must match.
func MaskedHash(line string) uint64 {
	h := uint64(fnvOffset)
	for j := 0; j < len(line); {
		c := line[j]
		switch {
		case c == ' ' || c == '\t':
			for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
				j++
			}
			h = (h ^ ' ') * fnvPrime
			continue
		case textkit.IsHexDigit(c) && (j == 0 || !textkit.IsHexDigit(line[j-1])):
			e, hasDigit := j, false
			for e < len(line) && textkit.IsHexDigit(line[e]) {
				hasDigit = hasDigit || textkit.IsDigit(line[e])
				e++
			}
			afterName := j > 0 && (textkit.IsLetter(line[j-1]) || line[j-1] == '_')
			if hasDigit && ((textkit.DigitRun(line, j) == e && !afterName) || e-j >= 6) {
				h = (h ^ '0') * fnvPrime
				j = e
				continue
			}
			if textkit.IsDigit(c) && !afterName {
				h = (h ^ '0') * fnvPrime
				j = textkit.DigitRun(line, j)
				continue
			}
		case textkit.IsDigit(c) && (j == 0 || !textkit.IsLetter(line[j-1]) && line[j-1] != '_'):
			h = (h ^ '0') * fnvPrime
			j = textkit.DigitRun(line, j)
			continue
		}
		h = (h ^ uint64(c)) * fnvPrime
		j++
	}
	return h
}

// templates groups events by their masked head line and continuation,
// then merges groups that differ in one token position only, when that
// position takes many values: a user name or a host, not a state.
type templates struct {
	minVariants int
	lay         Layout
	byKey       groupIndex
	groups      []tgroup
	// scratch holds a group's first tokens while its summary starts.
	scratch []Tok
	// block is where groups' token words are cut from (see words).
	block []uint64
}

// words returns n words of its own, cut from a block that doubles when
// full: a group's tokens cost no allocation of their own.
func (t *templates) words(n int) []uint64 {
	if cap(t.block)-len(t.block) < n {
		t.block = make([]uint64, 0, max(n, 2*cap(t.block), 256))
	}
	at := len(t.block)
	t.block = t.block[:at+n]
	return t.block[at : at+n : at+n]
}

type tgroup struct {
	toks   []uint64 // token ids; wildcard where variants were merged
	cont   uint64   // continuation lines, masked
	sum    uint64   // sum of mix(position, token id)
	first  int      // event index of the first instance
	head   string   // the first instance's head line
	events int      // records seen (lines, not weights)
	last   int      // event index of the last instance
	// lastHead is the last instance's head line; summary follows the
	// variable slots of a template seen more than once.
	lastHead string
	summary  *groupSummary
	count    int
	parent   int
	// spans are the bytes of head's tokens, start<<32 | end, when toks
	// is set.
	spans []uint64
	// lineKey is LineKey of head's tokens, before any merge.
	lineKey uint64
}

// LineKey is the key of one record's own template tokens (no
// continuation, no merge): what counts a record's template after mining.
func LineKey(toks []Tok) uint64 {
	return foldTokenIDs(uint64(fnvOffset)^uint64(len(toks)), toks)
}

// foldTokenIDs folds the TokenIDs of toks into h, FNV-style. It reads
// the fields in place: a Tok copied out a token at a time cost a store
// and a load through the stack each.
func foldTokenIDs(h uint64, toks []Tok) uint64 {
	for i := range toks {
		id := toks[i].h | 2
		if toks[i].variable() {
			id = varToken
		}
		h = (h ^ id) * fnvPrime
	}
	return h
}

// firstTokens appends the tokens of the group's first record, their
// spans only (what summaries and merges read of them), as
// TemplateTokens would give them.
func (g *tgroup) firstTokens(dst []Tok) []Tok {
	for _, sp := range g.spans {
		dst = append(dst, Tok{Start: int32(sp >> 32), End: int32(uint32(sp))})
	}
	return dst
}

// maxTemplateTokens bounds the tokens a line may have to take part in
// variant merging; longer lines only merge when their masks are equal.
const maxTemplateTokens = 128

func newTemplates(minVariants int, lay Layout) *templates {
	if a, ok := templatePool.Get().(*templateArenas); ok {
		return &templates{minVariants: minVariants, lay: lay, byKey: a.byKey, groups: a.groups, block: a.block}
	}
	return &templates{minVariants: minVariants, lay: lay, groups: make([]tgroup, 0, 64)}
}

// templateArenas are what a templates keeps between documents: its index,
// groups and token words, emptied.
type templateArenas struct {
	byKey  groupIndex
	groups []tgroup
	block  []uint64
}

var templatePool sync.Pool

// templateKeepGroups bounds the groups of arenas put back in the pool.
const templateKeepGroups = 4096

// release empties t's arenas into the pool; t is not used again.
func (t *templates) release() {
	if cap(t.groups) > templateKeepGroups || cap(t.block) > 16*templateKeepGroups {
		return
	}
	t.byKey.reset()
	clear(t.groups) // they hold the document's lines
	templatePool.Put(&templateArenas{byKey: t.byKey, groups: t.groups[:0], block: t.block[:0]})
	t.byKey, t.groups, t.block = groupIndex{}, nil, nil
}

func mix(pos int, id uint64) uint64 {
	x := id ^ (uint64(pos)+1)*0x9E3779B97F4A7C15
	x ^= x >> 31
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 29
	return x
}

// groupKey is the key of a group: a record's tokens toks and its
// continuation hash cont.
func groupKey(toks []Tok, cont uint64) uint64 {
	return foldTokenIDs((cont^uint64(len(toks)))*fnvPrime, toks)
}

// add counts a record, event ev with tokens toks, continuation hash cont,
// weight and head line, in its group, new or not, and returns the group.
func (t *templates) add(toks []Tok, cont uint64, ev, weight int, head string) int {
	return t.addKeyed(toks, groupKey(toks, cont), cont, ev, weight, head)
}

// addKeyed is add, the group key given (groupKey(toks, cont)).
func (t *templates) addKeyed(toks []Tok, key, cont uint64, ev, weight int, head string) int {
	if g, ok := t.byKey.get(key); ok {
		gr := &t.groups[g]
		gr.count += weight
		gr.events++
		gr.last, gr.lastHead = ev, head
		if gr.toks != nil && len(toks) == len(gr.toks) {
			if gr.summary == nil {
				// The second record: follow the slots from the first.
				first := gr.firstTokens(t.scratch[:0])
				t.scratch = first
				if len(first) == len(gr.toks) {
					gr.summary = newGroupSummary(gr.head, first, gr.toks, t.lay)
					gr.summary.add(gr.head, first, gr.first)
				}
			}
			if gr.summary != nil {
				gr.summary.add(head, toks, ev)
			}
		}
		return g
	}
	g := tgroup{cont: cont, first: ev, head: head, count: weight, parent: len(t.groups),
		events: 1, last: ev, lastHead: head, lineKey: LineKey(toks)}
	if len(toks) <= maxTemplateTokens {
		// The ids, then the spans of the first record's tokens, so that
		// it is never tokenized again; cut from a shared block.
		buf := t.words(2 * len(toks))
		g.toks, g.spans = buf[:len(toks):len(toks)], buf[len(toks):]
		tieRepeats(toks, g.toks)
		for i, x := range toks {
			g.spans[i] = uint64(uint32(x.Start))<<32 | uint64(uint32(x.End))
			g.sum += mix(i, g.toks[i])
		}
	}
	t.groups = append(t.groups, g)
	t.byKey.put(key, len(t.groups)-1)
	return len(t.groups) - 1
}

// tieRepeats writes the ids of a template's tokens to ids, each word that
// repeats an earlier word of the record as a reference to that first one.
// The class: a value written twice in one record, in the message and
// again in a context map or a field ("session opened for alice
// {"user":"alice"}", PHP's and Python's context dicts, a rendered message
// beside its properties). Tied, the value varies at one position, where
// variant merging weighs it like any other. Words of one or two bytes are
// left alone: they are mostly constants, and a short value equal to one
// would split its template off. It runs once a template, not a record.
func tieRepeats(toks []Tok, ids []uint64) {
	var seen uint64 // one bit per word hash class met so far
	for k, t := range toks {
		ids[k] = TokenID(t)
		if !tieable(t) {
			continue
		}
		bit := uint64(1) << (t.h & 63)
		if seen&bit != 0 {
			for j := range k {
				if toks[j].h == t.h && tieable(toks[j]) {
					ids[k] = repeatOf(j)
					break
				}
			}
		}
		seen |= bit
	}
}

func tieable(t Tok) bool { return !t.variable() && t.End-t.Start >= 3 }

// repeatOf is the id of a repeat of the record's token i: never
// wildcard or varToken, like TokenID's.
func repeatOf(i int) uint64 { return (uint64(i)+0x5245504541)*0x9E3779B97F4A7C15 | 2 }

// summaries returns the summary of every template that stands for more
// than one record, by root group (nil for none). Merged groups add what
// they counted, and a merged position (one word per group) becomes a
// slot of its own.
func (t *templates) summaries() []*groupSummary {
	kids := make([][]int, len(t.groups))
	for i := range t.groups {
		if r := t.find(i); r != i {
			kids[r] = append(kids[r], i)
		}
	}
	out := make([]*groupSummary, len(t.groups))
	for i := range t.groups {
		g := &t.groups[i]
		if g.parent != i || g.toks == nil {
			continue
		}
		k := kids[i]
		if len(k) == 0 {
			if g.summary != nil {
				// newGroupSummary set first, from g.head.
				g.summary.last, _ = clockIn(g.lastHead)
				out[i] = g.summary
			}
			continue
		}
		rootToks := g.firstTokens(nil)
		if len(rootToks) != len(g.toks) {
			continue
		}
		s := newGroupSummary(g.head, rootToks, g.toks, t.lay)
		last, lastHead := g.last, g.lastHead
		var toks []Tok
		for _, j := range append([]int{i}, k...) {
			m := &t.groups[j]
			toks = m.firstTokens(toks[:0])
			if len(toks) != len(g.toks) {
				continue
			}
			if m.summary != nil {
				s.mergeFrom(m.summary)
				s.addWildcards(m.head, toks, g.toks, m.first)
			} else {
				s.add(m.head, toks, m.first)
			}
			if m.last > last {
				last, lastHead = m.last, m.lastHead
			}
		}
		s.last, _ = clockIn(lastHead)
		out[i] = s
	}
	return out
}

func (t *templates) find(g int) int {
	for t.groups[g].parent != g {
		t.groups[g].parent = t.groups[t.groups[g].parent].parent
		g = t.groups[g].parent
	}
	return g
}

// mergeVariants sweeps the token positions. At each position it buckets
// the groups by everything but that position; a bucket whose groups show
// at least MinVariants different constants there is one template with a
// parameter, and its groups merge into the oldest. It reports whether any
// did.
func (t *templates) mergeVariants() (merged bool) {
	minV := int32(t.minVariants)
	order := t.sweepOrder(minV)
	// Longest first, so position p only visits the groups that reach it.
	slices.SortStableFunc(order, func(a, b int) int { return len(t.groups[b].toks) - len(t.groups[a].toks) })
	key := func(g *tgroup, p int) uint64 {
		return (g.sum - mix(p, g.toks[p])) ^ (g.cont^uint64(len(g.toks)))*fnvPrime
	}
	sizes := make(map[uint64]int32, len(order))
	buckets := map[uint64][]int{}
	for p := 0; len(order) > 0; p++ {
		for len(order) > 0 && len(t.groups[order[len(order)-1]].toks) <= p {
			order = order[:len(order)-1]
		}
		// Count first: most buckets hold one group and need no list.
		clear(sizes)
		counted := 0
		for _, i := range order {
			if g := &t.groups[i]; g.parent == i && g.toks[p] > varToken {
				sizes[key(g, p)]++
				counted++
			}
		}
		clear(buckets)
		if len(sizes) > counted-int(minV)+1 {
			continue // too many keys for a bucket of minV
		}
		for _, i := range order {
			if g := &t.groups[i]; g.parent == i && g.toks[p] > varToken {
				if k := key(g, p); sizes[k] >= minV {
					buckets[k] = append(buckets[k], i)
				}
			}
		}
		for _, b := range buckets {
			if distinctAt(t.groups, b, p) < t.minVariants || !t.variesWidely(b, p) {
				continue
			}
			if b = t.withoutRecurring(b, p); len(b) < 2 {
				continue
			}
			root := b[0]
			for _, i := range b {
				if t.groups[i].first < t.groups[root].first {
					root = i
				}
			}
			merged = true
			r := &t.groups[root]
			r.sum -= mix(p, r.toks[p])
			r.toks[p] = wildcard
			r.sum += mix(p, wildcard)
			for _, i := range b {
				if i != root {
					t.groups[i].parent = root
					r.count += t.groups[i].count
				}
			}
		}
	}
	return merged
}

// sweepOrder returns the groups mergeVariants sweeps. Two templates that
// differ in one position share the half of their tokens without it. A
// template whose both halves are rare cannot be in a bucket of minV, so
// it is left out of the sweep: crafted input made of distinct lines
// costs one pass.
func (t *templates) sweepOrder(minV int32) []int {
	// Sized once: grown key by key, these maps cost more than the sweep.
	countA, countB := make(map[uint64]int32, len(t.groups)), make(map[uint64]int32, len(t.groups))
	halves := make([][2]uint64, len(t.groups)) // hashed once, read twice
	for i := range t.groups {
		if len(t.groups[i].toks) > 1 {
			a, b := tokenHalves(&t.groups[i])
			halves[i] = [2]uint64{a, b}
			countA[a]++
			countB[b]++
		}
	}
	var order []int
	for i := range t.groups {
		if len(t.groups[i].toks) > 1 {
			if h := halves[i]; countA[h[0]] >= minV || countB[h[1]] >= minV {
				order = append(order, i)
			}
		}
	}
	return order
}

// tokenHalves hashes the first and the second half of g's tokens.
func tokenHalves(g *tgroup) (uint64, uint64) {
	a := (g.cont ^ uint64(len(g.toks))) * fnvPrime
	b := a ^ 0x9E3779B97F4A7C15
	half := len(g.toks) / 2
	for i, x := range g.toks[:half] {
		a += mix(i, x)
	}
	for i, x := range g.toks[half:] {
		b += mix(half+i, x)
	}
	return a, b
}

// mergeHeaderColumns merges templates that differ only in word columns
// that do not depend on the message: a host, a program or a container
// that logs every kind of event (syslog's host, Proxifier's program, a
// node's name and id in JSON fields). Candidates are the word columns of
// the records' header (between its data columns, or right after them)
// and, in records with fields, the values of one token, by key. A column
// takes several names under most frequent messages; an event name or a
// component belongs to its message and takes one. Columns that vary
// together (a node's name and id) are judged on the message alone. Levels
// never merge. It reports whether any templates merged.
func (t *templates) mergeHeaderColumns() bool {
	hc := headerCells{cells: make([][]cell, len(t.groups)), names: map[uint64]int{},
		// Room for a few cells a group: appends that grow flat copy it whole.
		flat: make([]cell, 0, len(t.groups)*(min(t.lay.HeaderCols, 13)+3))}
	toks := t.scratch[:0]
	defer func() { t.scratch = toks[:0] }() // grown, perhaps
	for i := range t.groups {
		g := &t.groups[i]
		if g.parent != i || g.toks == nil {
			continue
		}
		toks = g.firstTokens(toks[:0])
		if len(toks) != len(g.toks) {
			continue
		}
		if t.lay.Fields != "" {
			t.markFieldCells(&hc, i, toks)
		} else {
			t.markHeaderCells(&hc, i, toks)
		}
	}
	cols := hc.candidates()
	if len(cols) == 0 {
		return false
	}
	byColumn := cellsByColumn(cols, hc.cells)
	message := t.messageKeys(byColumn)
	wild := map[uint64]bool{}
	for k, cells := range byColumn {
		if t.independentColumn(cells, message) {
			wild[cols[k]] = true
		}
	}
	if len(wild) == 0 {
		return false
	}
	return t.dropColumns(hc.cells, wild)
}

// headerCells are the groups' tokens in candidate columns, and how many
// groups take a name in each column.
type headerCells struct {
	cells [][]cell
	flat  []cell // the backing of cells: a group's cells are marked together
	names map[uint64]int
	ends  []int // scratch: a head's header column ends
}

func (hc *headerCells) mark(g *tgroup, i int, col uint64, p int, v string) {
	if len(hc.cells[i]) >= 16 || mayBeLevel(v) && textkit.UpperLevelAt(v) {
		return
	}
	c := cell{col: col, pos: p, name: g.toks[p] > varToken && len(v) >= 3}
	// Group i's cells so far are the last of flat: extend them in place.
	n := len(hc.cells[i])
	hc.flat = append(hc.flat, c)
	hc.cells[i] = hc.flat[len(hc.flat)-n-1 : len(hc.flat) : len(hc.flat)]
	if c.name {
		hc.names[col]++
	}
}

// mayBeLevel is false where textkit.UpperLevelAt(v) is sure to be: a
// level's first byte, after a bracket, is a letter, ESC or not ASCII
// (which upper-casing leaves alone otherwise).
func mayBeLevel(v string) bool {
	if v != "" && (v[0] == '[' || v[0] == '<') {
		v = v[1:]
	}
	if v == "" {
		return false
	}
	c := v[0] | 0x20
	return c >= 'a' && c <= 'z' || v[0] == 0x1b || v[0] >= 0x80
}

// candidates returns the columns with names in three groups or more, sorted.
func (hc *headerCells) candidates() []uint64 {
	var cols []uint64
	for col, n := range hc.names {
		if n >= 3 {
			cols = append(cols, col)
		}
	}
	slices.Sort(cols)
	return cols
}

// markFieldCells marks group i's values of one token, by key. Key
// tokens carry no offsets (fieldTokens).
func (t *templates) markFieldCells(hc *headerCells, i int, toks []Tok) {
	g := &t.groups[i]
	isKey := func(p int) bool { return p >= len(toks) || toks[p].End == 0 }
	for p := 1; p < len(toks); p++ {
		if !isKey(p) && isKey(p-1) && isKey(p+1) {
			hc.mark(g, i, g.toks[p-1], p, g.head[toks[p].Start:toks[p].End])
		}
	}
}

// markHeaderCells marks group i's first token after each header column,
// and the values of the key=value pairs in its message.
func (t *templates) markHeaderCells(hc *headerCells, i int, toks []Tok) {
	g := &t.groups[i]
	hc.ends = headerEnds(g.head, t.lay.HeaderCols, hc.ends[:0])
	prev := -1 // the token the column before opened
	p := 0     // the ends never fall: each column's scan goes on from the last
	for c := 0; c <= t.lay.HeaderCols; c++ {
		he := hc.ends[c]
		for p < len(toks) && int(toks[p].Start) < he {
			p++
		}
		if p == prev {
			// A column without a token (a terminal's color reset, alone
			// between blanks) opens none: the next column's token is
			// that column's, not a second column varying with it.
			continue
		}
		prev = p
		// Without a header, only a label opens a column: the service
		// of a multiplexed log ("web: ...", "[api] ...", "web.1 | ..."),
		// not the first word of a message.
		if p < len(toks) && (t.lay.HeaderCols > 0 || labelAt(g.head, toks[p])) {
			hc.mark(g, i, uint64(c), p, g.head[toks[p].Start:toks[p].End])
			// A level after the header leaves the column after it a
			// header's too: "10:00:01 INFO [worker-a] ...".
			if c == t.lay.HeaderCols && p+1 < len(toks) && textkit.UpperLevelAt(g.head[toks[p].Start:toks[p].End]) {
				hc.mark(g, i, uint64(c+1), p+1, g.head[toks[p+1].Start:toks[p+1].End])
			}
		}
	}
	// A pair's value is a column too, by its key: klog's structured
	// records and text loggers write the host, the pod or the node that
	// logged an event as a pair after its message (node="worker-a"), or
	// in a field line under it (_HOSTNAME=). A message key's value is
	// what happened (journalctl's MESSAGE=).
	from := hc.ends[t.lay.HeaderCols]
	for p := 1; p < len(toks); p++ {
		k := toks[p-1]
		if int(k.Start) < from || int(k.End) >= len(g.head) || g.head[k.End] != '=' && g.head[k.End] != '"' {
			continue // pairValue's first test, without the call
		}
		if pairValue(g.head, k, toks[p]) && !messageKey(g.head[k.Start:k.End]) {
			hc.mark(g, i, g.toks[p-1]^pairColumn, p, g.head[toks[p].Start:toks[p].End])
		}
	}
}

// headerEnds appends HeaderEnd(line, c) for c = 0..n to dst, reading
// the line once.
func headerEnds(line string, n int, dst []int) []int {
	dst = append(dst, 0)
	s := line[textkit.SkipANSI(line, 0):]
	off := len(line) - len(s)
	i := 0
	for c := 1; c <= n; c++ {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '|') {
			i++
		}
		if i >= len(s) {
			dst = append(dst, len(line)) // fewer columns: the line's end
			continue
		}
		for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '|' {
			i++
		}
		dst = append(dst, off+i)
	}
	return dst
}

// groupCell is group's cell in one column.
type groupCell struct {
	group int
	cell  cell
}

// cellsByColumn returns the cells of each column of cols (sorted), in
// the order of cells: group by group, each group's in its order. The
// columns are few: a binary search finds one, and their cells, counted
// first, are cut from one slice.
func cellsByColumn(cols []uint64, cells [][]cell) [][]groupCell {
	n := make([]int, len(cols))
	var colOf []int32 // each cell's column, in order; -1 for none
	total := 0
	for _, cs := range cells {
		for _, c := range cs {
			k, ok := slices.BinarySearch(cols, c.col)
			if !ok {
				k = -1
			} else {
				n[k]++
				total++
			}
			colOf = append(colOf, int32(k))
		}
	}
	flat := make([]groupCell, total)
	by := make([][]groupCell, len(cols))
	at := 0
	for k := range by {
		by[k] = flat[at : at : at+n[k]]
		at += n[k]
	}
	for i, cs := range cells {
		for _, c := range cs {
			if k := colOf[0]; k >= 0 {
				by[k] = append(by[k], groupCell{group: i, cell: c})
			}
			colOf = colOf[1:]
		}
	}
	return by
}

// messageKey reports a key that names the message (msg, message, event,
// log, in any case): its value is what happened, never a column.
func messageKey(k string) bool {
	for _, m := range [...]string{"msg", "message", "event", "log"} {
		if strings.EqualFold(k, m) {
			return true
		}
	}
	return false
}

// labelAt reports whether the first token tk of line is a label: followed
// by ": ", closing a bracket it opens, or followed by blanks and '|'.
func labelAt(line string, tk Tok) bool {
	e := int(tk.End)
	switch {
	case e+1 < len(line) && line[e] == ':' && line[e+1] == ' ':
		return true
	case tk.Start == 1 && line[0] == '[' && e < len(line) && line[e] == ']':
		return true
	}
	for e < len(line) && line[e] == ' ' {
		e++
	}
	return e > int(tk.End) && e < len(line) && line[e] == '|'
}

// pairColumn sets a pair's column, its key's token, apart from the
// header's, which are numbered.
const pairColumn = 0x5061697200000000

// pairValue reports whether v is the whole value of a pair whose key is
// k in line: key=value or key="value" (logfmt, klog), or "key":"value",
// "key": value (a JSON context map after a message).
func pairValue(line string, k, v Tok) bool {
	e, end := int(k.End), int(v.End)
	if e >= len(line) {
		return false
	}
	closers := " \t\n" // what may follow a pair
	switch {
	case line[e] == '=':
		e++
	case line[e] == '"' && k.Start > 0 && line[k.Start-1] == '"' && e+1 < len(line) && line[e+1] == ':':
		e += 2
		if e < len(line) && line[e] == ' ' {
			e++
		}
		closers = ",}\n"
	default:
		return false
	}
	switch int(v.Start) {
	case e:
	case e + 1:
		if line[e] != '"' || end >= len(line) || line[end] != '"' {
			return false
		}
		end++
	default:
		return false
	}
	return end == len(line) || strings.IndexByte(closers, line[end]) >= 0
}

// messageKeys returns the message of each group: its tokens but the
// candidate columns (names in three groups or more), whose cells are
// byColumn.
func (t *templates) messageKeys(byColumn [][]groupCell) []uint64 {
	message := make([]uint64, len(t.groups))
	for i := range message {
		message[i] = t.groups[i].sum
	}
	for _, cells := range byColumn {
		for _, gc := range cells {
			message[gc.group] -= mix(gc.cell.pos, t.groups[gc.group].toks[gc.cell.pos])
		}
	}
	for i := range message {
		g := &t.groups[i]
		message[i] ^= (g.cont ^ uint64(len(g.toks))) * fnvPrime
	}
	return message
}

// dropColumns makes the wild columns no part of any message: every
// template drops them, and templates left equal merge into the oldest,
// so a message's other parameters merge after. It reports whether any
// templates merged.
func (t *templates) dropColumns(cells [][]cell, wild map[uint64]bool) bool {
	byKey := map[uint64]int{}
	merged := false
	for i, cs := range cells {
		g := &t.groups[i]
		if !t.wildcardCells(g, cs, wild) {
			continue
		}
		key := (g.cont ^ uint64(len(g.toks))) * fnvPrime
		for _, x := range g.toks {
			key = (key ^ x) * fnvPrime
		}
		r, ok := byKey[key]
		if !ok {
			byKey[key] = i
			continue
		}
		merged = true
		if t.groups[r].first > g.first {
			r, i = i, r
			byKey[key] = r
		}
		t.groups[i].parent = r
		t.groups[r].count += t.groups[i].count
	}
	return merged
}

// wildcardCells puts a wildcard in g's cells of wild columns, and
// reports whether it put any.
func (t *templates) wildcardCells(g *tgroup, cs []cell, wild map[uint64]bool) bool {
	dropped := false
	for _, c := range cs {
		if wild[c.col] {
			g.sum += mix(c.pos, wildcard) - mix(c.pos, g.toks[c.pos])
			g.toks[c.pos] = wildcard
			dropped = true
		}
	}
	return dropped
}

// cell is a group's token in a candidate column.
type cell struct {
	col  uint64 // the column: its index, or its key's token
	pos  int
	name bool // a name there, not a number or a level letter
}

// independentColumn reports whether a column, its cells given, is independent of the
// message, as a host is: three messages at least take several names
// there, and so do half of the messages seen four times or more; and the
// names come evenly, three of them (or all) with two in three messages
// seen ten times or more. An HTTP method before a route is not: DELETE
// comes with few routes.
func (t *templates) independentColumn(cells []groupCell, message []uint64) bool {
	// The column's cells as (message, name) pairs, sorted: a message's
	// pairs are a run, its distinct names runs within it.
	type pair struct {
		msg, name uint64
		named     bool
		n         int
	}
	pairs := make([]pair, 0, len(cells))
	for _, gc := range cells {
		i, c := gc.group, gc.cell
		p := pair{msg: message[i], n: t.groups[i].count, named: c.name}
		if c.name {
			p.name = t.groups[i].toks[c.pos]
		}
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if c := cmp.Compare(a.msg, b.msg); c != 0 {
			return c
		}
		if a.named != b.named {
			return textkit.BoolOrder(a.named) - textkit.BoolOrder(b.named)
		}
		return cmp.Compare(a.name, b.name)
	})
	var all, commonNames []uint64 // every name; the names of each common message, once per message
	multi, frequent, common := 0, 0, 0
	for lo := 0; lo < len(pairs); {
		hi, n, names := lo, 0, 0
		at := len(commonNames)
		for ; hi < len(pairs) && pairs[hi].msg == pairs[lo].msg; hi++ {
			n += pairs[hi].n
			if p := pairs[hi]; p.named && (hi == lo || !pairs[hi-1].named || pairs[hi-1].name != p.name) {
				names++
				all = append(all, p.name)
				commonNames = append(commonNames, p.name)
			}
		}
		if names >= 2 {
			multi++
		}
		if n >= 4 {
			frequent++
		}
		if n >= 10 {
			common++
		} else {
			commonNames = commonNames[:at]
		}
		lo = hi
	}
	slices.Sort(all)
	distinctNames := len(slices.Compact(all))
	// even: names that come with two thirds of the common messages at least.
	slices.Sort(commonNames)
	even := 0
	for lo := 0; lo < len(commonNames); {
		hi := lo
		for hi < len(commonNames) && commonNames[hi] == commonNames[lo] {
			hi++
		}
		if 3*(hi-lo) >= 2*common {
			even++
		}
		lo = hi
	}
	return multi >= 3 && 2*multi >= frequent && common >= 3 && distinctNames >= 2 && even >= min(3, distinctNames)
}

// poolValues: a position that takes this many different words, each of
// them recurring, holds a pool of names (users, hosts, tables, queues),
// not the events of one call site, which are a handful.
const poolValues = 16

// variesWidely reports a position whose values look like a parameter's,
// not like names of events: most values are new (the groups of bucket b,
// one value each, stand for at most twice as many records), half of them
// occur once (a long tail of users), they are poolValues names at least
// (a pool of users that all recur; not a phrase that holds one), or most
// look like data (host names, addresses, paths). Words that name events (openDrawer,
// closeDrawer) recur, each of them, and are few: they stay apart.
func (t *templates) variesWidely(b []int, p int) bool {
	total, once := 0, 0
	for _, i := range b {
		total += t.groups[i].count
		if t.groups[i].count == 1 {
			once++
		}
	}
	if 2*len(b) >= total || 2*once >= len(b) {
		return true
	}
	data, names, seen := 0, 0, 0
	var toks []Tok
	for _, i := range b[:min(len(b), 64)] {
		g := &t.groups[i]
		toks = g.firstTokens(toks[:0])
		if p >= len(toks) {
			continue
		}
		seen++
		if valueAt(g.head, toks[p]) {
			data++
		}
		if len(b) >= poolValues && isPlainName(unquoted(g.head[toks[p].Start:toks[p].End])) {
			names++
		}
	}
	return seen > 0 && (2*data >= seen || len(b) >= poolValues && 2*names >= seen)
}

// unquoted returns w without a pair of quotes around it ('x', `x`, <x>):
// a name a logger quotes (user 'alice', table `orders`, job <etl>) is a
// name all the same. Double quotes separate tokens already.
func unquoted(w string) string {
	if len(w) < 3 {
		return w
	}
	switch first, last := w[0], w[len(w)-1]; {
	case first == last && (first == '\'' || first == '`'), first == '<' && last == '>':
		return w[1 : len(w)-1]
	}
	return w
}

// withoutRecurring drops from bucket b, which varies widely at p, the
// groups whose word there recurs: seen ten times at least and twice as
// often as the bucket's groups on average. A long tail of one-off values
// (scanned URLs, once-seen users) merges; the routes or event names that
// stand out of it stay apart. Data (host names, addresses) merges
// however often it recurs.
func (t *templates) withoutRecurring(b []int, p int) []int {
	total := 0
	for _, i := range b {
		total += t.groups[i].count
	}
	var toks []Tok
	var items map[string]bool // the items of the lists at p (see joinLists)
	out := b[:0:0]
	for _, i := range b {
		g := &t.groups[i]
		if g.count >= 10 && g.count*len(b) >= 2*total {
			toks = g.firstTokens(toks[:0])
			if p < len(toks) && !valueAt(g.head, toks[p]) {
				if items == nil {
					items = t.listItemsAt(b, p)
				}
				if !items[g.head[toks[p].Start:toks[p].End]] {
					continue
				}
			}
		}
		out = append(out, i)
	}
	return out
}

// listItemsAt returns the items of the lists that groups b hold at p: a
// word the same position also lists among others is one item of a list,
// not the name of an event (enabled features: auth; enabled features:
// auth, cache).
func (t *templates) listItemsAt(b []int, p int) map[string]bool {
	items := map[string]bool{}
	var toks []Tok
	for _, i := range b {
		g := &t.groups[i]
		if toks = g.firstTokens(toks[:0]); p >= len(toks) {
			continue
		}
		if v := g.head[toks[p].Start:toks[p].End]; strings.Contains(v, ", ") {
			for item := range strings.SplitSeq(v, ", ") {
				items[item] = true
			}
		}
	}
	return items
}

// looksLikeData reports a value that variant merging reads as data: a
// host name or an address (a '.' or '@'), not a path (whose route names
// what happened).
func looksLikeData(v string) bool {
	return strings.ContainsAny(v, ".@") && !strings.Contains(v, "/")
}

// valueAt reports a token of head that variant merging reads as a value
// however often it recurs: data (looksLikeData), or a word someone put in
// quotes inside a sentence, "name" or 'name' (a search term, a command, a
// user): quotes set a value apart from the sentence that names the event.
// Quotes around a whole message or a field's value are syntax.
func valueAt(head string, t Tok) bool {
	s, e := int(t.Start), int(t.End)
	if looksLikeData(head[s:e]) {
		return true
	}
	if e-s >= 3 && head[s] == '\'' && head[e-1] == '\'' {
		return afterWord(head, s) // ' is no separator: the token holds its quotes
	}
	if s == 0 || e >= len(head) || head[s-1] != '"' || head[e] != '"' {
		return false
	}
	open := s - 1
	if open > 0 && head[open-1] == '\\' {
		open-- // escaped in a JSON or logfmt string: \"alice\"
	}
	return afterWord(head, open)
}

// afterWord reports a quote at line[i] that stands inside a sentence: a
// word and a blank before it. A quote after a separator or a header
// opens a field's value or a quoted message, not a value in a sentence.
func afterWord(line string, i int) bool {
	return i >= 2 && line[i-1] == ' ' && textkit.IsWordByte(line[i-2])
}

// distinctAt counts the different tokens the groups b hold at position p.
func distinctAt(groups []tgroup, b []int, p int) int {
	seen := make(map[uint64]struct{}, len(b))
	for _, i := range b {
		seen[groups[i].toks[p]] = struct{}{}
	}
	return len(seen)
}

const (
	wildcard = 0
	varToken = 1
)

// TokenID is a token's identity in a template: its hash, or one id for
// every variable.
func TokenID(t Tok) uint64 {
	if t.variable() {
		return varToken
	}
	return t.h | 2 // never wildcard or varToken
}

// StartsValue reports a byte at text[i] that may start a value: a digit,
// or a hex digit that opens a word.
func StartsValue(text string, i int) bool {
	cl := tokClass[text[i]]
	return cl&tcDigit != 0 || (cl&tcHex != 0 && (i == 0 || tokClass[text[i-1]]&tcWord == 0))
}
