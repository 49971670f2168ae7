package stages

import (
	"context"
	"slices"
	"strings"

	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

// NumberNormalizeOptions are the number-normalization node's knobs.
type NumberNormalizeOptions struct {
	// MinChars: numbers shorter than this stay as they are ("<N>" is 3 runes).
	MinChars int `yaml:"min_chars"`
	// Kinds the node applies to. Prose and transcripts keep exact values by
	// default, since a changed number there changes a fact.
	Kinds []Kind `yaml:"kinds"`
	// Placeholder replaces each number.
	Placeholder string `yaml:"placeholder"`
}

// DefaultNumberNormalizeOptions returns the shipped defaults.
func DefaultNumberNormalizeOptions() NumberNormalizeOptions {
	return NumberNormalizeOptions{MinChars: 4, Kinds: []Kind{KindLog}, Placeholder: "<N>"}
}

// Validate reports a knob that is out of range.
func (o NumberNormalizeOptions) Validate() error {
	if err := mustBePositive("min_chars", o.MinChars); err != nil {
		return err
	}
	if o.Placeholder == "" || strings.ContainsAny(o.Placeholder, "0123456789\n") {
		return &fieldError{"placeholder", "must be non-empty, without digits or newlines"}
	}
	return validKinds("kinds", o.Kinds)
}

type numberNode struct{ opt NumberNormalizeOptions }

// NewNumberNormalize builds the node that replaces numbers (digit runs,
// decimals) and hex ids with a placeholder. In logs it rewrites the
// records of a log of records only, where numbers are mostly ids and
// counters; free output such as build steps, stack traces and test
// failures keeps its versions, line numbers and expected/actual values.
// A record whose template is seen once or twice keeps its full line.
// What carries a fact stays whole: time stamps in any shape (a reader
// wants the time of the first occurrence), IP addresses, dotted versions,
// grouped numbers such as 1440,900 and UUIDs; so do the lines keywords
// keeps as signal (lineSignal), and a count appended by log_dedup.
func NewNumberNormalize(o NumberNormalizeOptions) Node { return numberNode{o} }

func (numberNode) Key() Key { return KeyNumberNormalize }

func (n numberNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	if !slices.Contains(n.opt.Kinds, in.Kind) {
		return skip(in, "kind "+string(in.Kind)+" keeps exact numbers"), nil
	}
	var lay logs.Layout
	if in.Kind == KindLog {
		if lay = layoutOf(in); !lay.Records {
			return skip(in, "build output keeps exact numbers"), nil
		}
	}
	text := in.Text
	var rare rareTemplates
	if in.Kind == KindLog {
		var err error
		if rare, err = countTemplates(ctx, text, lay); err != nil {
			return Outcome{}, err
		}
	}
	var out strings.Builder // stays empty until a line changes
	changed := false
	var scratch []byte
	cc := canceled{ctx: ctx}
	tails := failingTails(text) // a build's failure keeps its numbers
	lineNo := 0
	for start := 0; start < len(text); {
		if err := cc.check(); err != nil {
			return Outcome{}, err
		}
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		line := text[start:end]
		next := min(end+1, len(text))
		// A count that log_dedup appended is a fact, not a value.
		head, _ := logs.SplitCount(line)
		// A rare record (its template seen once or twice) keeps its full line.
		rewrite := (in.Kind != KindLog || (rare.opens(lineNo) && !rare.nextIsRare())) && !tails.holds(start)
		keep, ok := 0, false
		if rewrite && lineSignal(head) == 0 {
			// The header (times in any shape, pids, nodes) says when and
			// where the first record was: it stays as written.
			if in.Kind == KindLog {
				keep = logs.HeaderEnd(head, lay.HeaderCols)
			}
			scratch, ok = n.normalize(scratch[:0], head[keep:])
		}
		switch {
		case ok:
			if !changed {
				out.Grow(len(text))
				out.WriteString(text[:start])
				changed = true
			}
			out.WriteString(head[:keep])
			out.Write(scratch)
			out.WriteString(text[start+len(head) : next])
		case changed:
			out.WriteString(text[start:next])
		}
		start, lineNo = end+1, lineNo+1
	}
	if !changed {
		return skip(in, "no numbers to normalize"), nil
	}
	return done(out.String()), nil
}

// rareTemplates counts the records of each template of a log (their
// weights: a line with a count stands for that many), and remembers each
// record line's template, in order.
type rareTemplates struct {
	counts map[uint64]int
	keys   []uint64 // the template of each record line, in order
	next   int
	record []bool // whether each line opens a record, as the keys said
}

// opens reports whether line i of the text opens a record.
func (r *rareTemplates) opens(i int) bool { return i < len(r.record) && r.record[i] }

func countTemplates(ctx context.Context, text string, lay logs.Layout) (rareTemplates, error) {
	lines := strings.Count(text, "\n") + 1
	r := rareTemplates{counts: make(map[uint64]int, min(lines, 1<<12)), keys: make([]uint64, 0, lines), record: make([]bool, 0, lines)}
	cc := canceled{ctx: ctx}
	keyer := newRecordKeyer(ctx, lay)
	for line := range strings.SplitSeq(text, "\n") {
		if err := cc.check(); err != nil {
			return r, err
		}
		k := keyer.key(line)
		if k.record {
			r.counts[k.key] += k.weight
			r.keys = append(r.keys, k.key)
		}
		r.record = append(r.record, k.record)
	}
	return r, nil
}

// nextIsRare reports whether the next record line (in text order) has a
// template that stands for two records or fewer.
func (r *rareTemplates) nextIsRare() bool {
	if r.next >= len(r.keys) {
		return false
	}
	r.next++
	return r.counts[r.keys[r.next-1]] <= 2
}

// normalize appends text to dst with its numbers replaced. When none is,
// ok is false and dst is returned as it was.
func (n numberNode) normalize(dst []byte, text string) (_ []byte, ok bool) {
	at := len(dst)
	last := 0
	changed := false
	tokEnd := -1   // end of the blank-separated token holding i
	whole := false // that token is a time stamp: it stays whole
	var stamp stampTail
	for i := 0; i < len(text); {
		c := text[i]
		if c == ' ' || c == '\t' {
			i++
			continue
		}
		if i >= tokEnd {
			var seen uint8
			tokEnd, seen = numTokenEnd(text, i)
			whole = stamp.next(text[i:tokEnd], seen)
		}
		if whole {
			i = tokEnd
			continue
		}
		if !startsValue(text, i) {
			i = nextValueStart(text, i+1, tokEnd)
			continue
		}
		// Hex word boundary: a token of hex digits and dashes.
		if i == 0 || !isWordByte(text[i-1]) {
			if end := hexLiteralEnd(text, i); end > 0 {
				// 0x1f2e3d: keep the prefix, it says "an address".
				dst = append(append(dst, text[last:i+2]...), n.opt.Placeholder...)
				last, i, changed = end, end, true
				continue
			}
			if end := uuidEnd(text, i); end > 0 {
				i = end // a UUID names one thing: it stays
				continue
			}
			end, stop := hexTokenEnd(text, i)
			if end > 0 {
				dst = append(append(dst, text[last:i]...), n.opt.Placeholder...)
				last, i, changed = end, end, true
				continue
			}
			if !textkit.IsDigit(c) {
				// No start inside this run of hex and dashes opens an id
				// either: skip it, so a long run is read once.
				i = max(i+1, stop)
				continue
			}
		}
		if !textkit.IsDigit(c) {
			i++
			continue
		}
		end := numberEnd(text, i)
		if n.masksNumber(text, i, end) {
			dst = append(append(dst, text[last:i]...), n.opt.Placeholder...)
			last, changed = end, true
		}
		i = end
	}
	if !changed {
		return dst[:at], false
	}
	return append(dst, text[last:]...), true
}

// startsValue reports a byte at text[i] that may start a value: a digit,
// or a hex digit that opens a word.
func startsValue(text string, i int) bool { return logs.StartsValue(text, i) }

// Byte classes of normalize's scan, as bits.
const (
	numDigit = 1 << iota
	numHex   // a hex digit, either case, digits included
	numWord  // isWordByte
	numBlank // ends a token
	numColon
	numDateSep // - or /
)

var numClass = func() (t [256]uint8) {
	for c := range 256 {
		b := byte(c)
		if textkit.IsDigit(b) {
			t[c] |= numDigit
		}
		if textkit.IsHexDigit(b) {
			t[c] |= numHex
		}
		if isWordByte(b) {
			t[c] |= numWord
		}
		switch b {
		case ' ', '\t':
			t[c] |= numBlank
		case ':':
			t[c] |= numColon
		case '-', '/':
			t[c] |= numDateSep
		}
	}
	return t
}()

// numTokenEnd returns the end of the blank-separated token at i, and the
// classes of its bytes, or-ed.
func numTokenEnd(text string, i int) (end int, seen uint8) {
	for ; i < len(text); i++ {
		cl := numClass[text[i]]
		if cl&numBlank != 0 {
			break
		}
		seen |= cl
	}
	return i, seen
}

// nextValueStart returns the first i in [from, end) where startsValue
// holds, or end.
func nextValueStart(text string, from, end int) int {
	for i := from; i < end; i++ {
		cl := numClass[text[i]]
		if cl&numDigit != 0 || cl&numHex != 0 && numClass[text[i-1]]&numWord == 0 {
			return i
		}
	}
	return end
}

// masksNumber reports whether the number text[i:end] is replaced. A
// number glued to letters (x86_64k, v12abc) is part of a name; grouped
// numbers (1440,900) and dotted ones (an address, a version) are facts.
func (n numberNode) masksNumber(text string, i, end int) bool {
	free := (i == 0 || !isLetter(text[i-1])) && (end == len(text) || !isLetter(text[end]))
	return free && digitsIn(text[i:end]) >= n.opt.MinChars && !grouped(text[i:end])
}

// stampTail follows the blank-separated tokens of a line to find the
// year that ends a ctime-style stamp (asctime, Apache's error log, ftpd,
// `date`: "Sun Dec 04 04:51:08 2005"; Java's Date: "... 04:51:08 UTC
// 2005"): a clock time, at most one zone word, then a year. The year is
// part of the time stamp and stays whole with it. So does a numeric zone
// offset after the clock (the common log format's "10:00:00 +0000]",
// RFC 2822 and git dates, "... 20:19:24 +0000 2018"), and a year at most
// two tokens after a month name (RFC 2822's "1 Mar 2025", "March 1,
// 2025", "Mar 2025").
type stampTail struct {
	afterClock, afterZone bool
	monthGap              uint8 // tokens left in which a year follows a month
}

// next reports whether token t, whose byte classes or-ed are seen, is
// part of a time stamp. A time or a date has a digit and a separator.
func (s *stampTail) next(t string, seen uint8) bool {
	year := (s.afterClock || s.afterZone || s.monthGap > 0) && isYearToken(t)
	switch {
	case isMonthWord(t):
		s.monthGap = 2
	case s.monthGap > 0:
		s.monthGap--
	}
	offset := s.afterClock && isZoneOffset(t)
	s.afterZone = s.afterClock && (isZoneWord(t) || offset)
	stamp := seen&numDigit != 0 && seen&(numColon|numDateSep) != 0 && isTimeToken(t)
	s.afterClock = stamp && seen&numColon != 0
	return stamp || year || offset
}

// isYearToken reports a token that opens with four digits from 1970 to
// 2099 closed by its end or by a field separator ("2005", "2005]", a CSV
// row's "2005,notice,..."), not by what joins a longer number (. : - /).
func isYearToken(t string) bool {
	if len(t) < 4 || textkit.DigitRun(t, 0) != 4 || !(t[:2] == "19" && t[2] >= '7' || t[:2] == "20") {
		return false
	}
	return len(t) == 4 || !isWordByte(t[4]) && strings.IndexByte(".:-/", t[4]) < 0
}

// isZoneWord reports a time zone abbreviation: two to five capitals
// (UTC, GMT, CEST).
func isZoneWord(t string) bool {
	if len(t) < 2 || len(t) > 5 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < 'A' || t[i] > 'Z' {
			return false
		}
	}
	return true
}

// isMonthWord reports a month's name, short or full, perhaps closed by a
// comma or a dot: "Mar", "Mar,", "March".
func isMonthWord(t string) bool {
	if len(t) < 3 || t[0] < 'A' || t[0] > 'Z' {
		return false
	}
	switch strings.TrimRight(t, ",.") {
	case "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
		"January", "February", "March", "April", "June", "July", "August", "September", "October", "November", "December":
		return true
	}
	return false
}

// isZoneOffset reports a numeric UTC offset, +hhmm or +hh:mm (or -), with
// hh at most 14 and mm a quarter hour, as every zone's is; a closing
// bracket or comma may follow. "-1234" is a number, not an offset.
func isZoneOffset(t string) bool {
	if len(t) < 5 || t[0] != '+' && t[0] != '-' {
		return false
	}
	hh, rest := t[1:3], t[3:]
	if rest[0] == ':' {
		rest = rest[1:]
	}
	if len(rest) < 2 || textkit.DigitRun(hh, 0) != 2 || textkit.DigitRun(rest, 0) < 2 || hh > "14" {
		return false
	}
	mm, tail := rest[:2], rest[2:]
	if mm != "00" && mm != "15" && mm != "30" && mm != "45" {
		return false
	}
	return tail == "" || len(tail) == 1 && strings.IndexByte("]),;", tail[0]) >= 0
}

// isTimeToken is textkit.IsTimeToken.
func isTimeToken(t string) bool { return textkit.IsTimeToken(t) }

// grouped reports a number of three or more dot-joined groups (an IP
// address, a version, a dotted date) or of comma-joined groups (1440,900,
// 13,48,39.36): each of those reads as one fact.
func grouped(num string) bool {
	return strings.IndexByte(num, ',') >= 0 || strings.Count(num, ".") >= 2
}

// uuidEnd returns the end of a UUID (8-4-4-4-12 hex digits) at i, or 0.
func uuidEnd(s string, i int) int {
	j := i
	for g, want := range [...]int{8, 4, 4, 4, 12} {
		if g > 0 {
			if j >= len(s) || s[j] != '-' {
				return 0
			}
			j++
		}
		for k := 0; k < want; k++ {
			if j >= len(s) || !textkit.IsHexDigit(s[j]) {
				return 0
			}
			j++
		}
	}
	if j < len(s) && isWordByte(s[j]) {
		return 0
	}
	return j
}

func digitsIn(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if textkit.IsDigit(s[i]) {
			n++
		}
	}
	return n
}

// numberEnd returns the end of the digit run at i, joined by single . and ,
// separators.
func numberEnd(s string, i int) int {
	for {
		for i < len(s) && textkit.IsDigit(s[i]) {
			i++
		}
		if i+1 < len(s) && (s[i] == '.' || s[i] == ',') && textkit.IsDigit(s[i+1]) {
			i++
			continue
		}
		return i
	}
}

// hexLiteralEnd returns the end of a 0x literal with four or more hex
// digits starting at i, or 0.
func hexLiteralEnd(s string, i int) int {
	if i+2 >= len(s) || s[i] != '0' || (s[i+1] != 'x' && s[i+1] != 'X') {
		return 0
	}
	j := i + 2
	for j < len(s) && textkit.IsHexDigit(s[j]) {
		j++
	}
	if j-i-2 < 4 || (j < len(s) && isWordByte(s[j])) {
		return 0
	}
	return j
}

// hexTokenEnd returns the end of a hex id (8+ hex chars with a digit and a
// letter, optionally dashed like a UUID) starting at i, or 0. stop is
// where its scan stopped: no start after a dash before stop opens an id
// when this one does not, so the caller skips there (linear on long
// dash-joined runs).
func hexTokenEnd(s string, i int) (end, stop int) {
	j := i
	digits, letters, run := 0, 0, 0
	for j < len(s) {
		c := s[j]
		switch {
		case textkit.IsDigit(c):
			digits++
			run++
		case (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'):
			letters++
			run++
		case c == '-' && run >= 4 && j+1 < len(s) && textkit.IsHexDigit(s[j+1]):
			run = 0
		default:
			goto end
		}
		j++
	}
end:
	if j < len(s) && isWordByte(s[j]) {
		return 0, j
	}
	if digits+letters < 8 || digits == 0 || letters == 0 {
		return 0, j
	}
	return j, j
}

func isWordByte(c byte) bool {
	return textkit.IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
}
