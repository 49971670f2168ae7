package stages

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// LogDedupOptions are the log-dedup node's knobs.
type LogDedupOptions struct {
	// MinVariants: lines that agree on every token but one position merge
	// into one template when that position shows at least this many
	// different words (user names, hosts). Fewer variants are kept apart:
	// "from NEW to RUNNING" and "from RUNNING to DONE" are different events.
	MinVariants int `yaml:"min_variants"`
	// RecordPercent: templates are mined across the whole text only when at
	// least this share of its non-blank lines are log records (a timestamp
	// or a level first). Other logs (build and test output) only get runs of
	// consecutive repeats collapsed, since their repeats tell a story.
	RecordPercent int `yaml:"record_percent"`
	// MinRun is the shortest run of consecutive repeats collapsed in build
	// and test output.
	MinRun int `yaml:"min_run"`
}

// DefaultLogDedupOptions returns the shipped defaults.
func DefaultLogDedupOptions() LogDedupOptions {
	return LogDedupOptions{MinVariants: 5, RecordPercent: 50, MinRun: 3}
}

// Validate reports a knob that is out of range.
func (o LogDedupOptions) Validate() error {
	var errs []error
	if o.MinVariants < 2 {
		errs = append(errs, &fieldError{"min_variants", fmt.Sprintf("must be >= 2, got %d", o.MinVariants)})
	}
	if o.RecordPercent < 1 || o.RecordPercent > 100 {
		errs = append(errs, &fieldError{"record_percent", fmt.Sprintf("must be in [1, 100], got %d", o.RecordPercent)})
	}
	if o.MinRun < 2 {
		errs = append(errs, &fieldError{"min_run", fmt.Sprintf("must be >= 2, got %d", o.MinRun)})
	}
	return errors.Join(errs...)
}

type logdedupNode struct{ opt LogDedupOptions }

// NewLogDedup builds the log-dedup node.
//
// On logs made of time-stamped records it mines templates in two steps,
// both linear. First every record is tokenized and masked: numbers, hex
// ids, dates, paths and tokens that are mostly digits become variables,
// while a token that keeps a word (sshd[0]:, user_0) keeps its shape; the
// masked token sequence is the record's template, found by hashing (the
// exact leaf a Drain parse tree would reach, without its similarity guess).
// Then, position by position, templates that agree everywhere but one
// position are bucketed; a bucket showing MinVariants or more different
// words there (user names, hosts) is one template with a parameter and
// merges, while a position with a few values ("from NEW to RUNNING") marks
// different events and stays apart. Similarity thresholds merge those,
// which loses events; counting variants does not.
//
// Every template keeps one full instance, its first, with the number of
// records it stands for appended (" [×57]"); a record's continuation lines
// (a stack trace) travel with it and are part of its identity. In build and
// test output (few time stamps) repeats tell the story of a failure, so
// only runs of consecutive equal lines (numbers aside) that carry no
// failure signal collapse. Other kinds pass: counts never enter transcripts
// or prose.
func NewLogDedup(o LogDedupOptions) Node { return logdedupNode{o} }

func (logdedupNode) Key() Key { return KeyLogDedup }

func (n logdedupNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	if in.Kind != KindLog {
		return skip(in, "kind "+string(in.Kind)+" is not a log"), nil
	}
	if strings.IndexByte(in.Text, '\n') < 0 {
		return skip(in, "single line"), nil
	}
	lay := layoutOf(in)
	var spans map[int]int // the first pass's, on in.Text
	first := true
	out, err := fixpoint(ctx, in.Text, 4, func(ctx context.Context, text string) (string, bool, error) {
		if first {
			first, spans = false, map[int]int{}
			return n.passSpans(ctx, text, lay, spans)
		}
		return n.pass(ctx, text, lay)
	})
	if err != nil {
		return Outcome{}, err
	}
	if out == in.Text {
		return skip(in, "no repeated templates"), nil
	}
	return Outcome{Text: out, Spans: spans}, nil
}

// pass mines a log of records, or collapses runs of repeats in other
// logs, as the document's layout says: the text it is given may already
// be rewritten, so it does not decide again.
func (n logdedupNode) pass(ctx context.Context, text string, lay LogLayout) (string, bool, error) {
	return n.passSpans(ctx, text, lay, nil)
}

// passSpans is pass that fills a non-nil spans as mine does.
func (n logdedupNode) passSpans(ctx context.Context, text string, lay LogLayout, spans map[int]int) (string, bool, error) {
	x := newLineIndex(text)
	if lay.Records {
		out, merged, err := n.mine(ctx, x, lay, spans)
		// Without merged variants, a second pass finds the same
		// templates, each once, and writes the same text.
		return out, err == nil && !merged, err
	}
	out, err := n.runs(ctx, x)
	return out, err == nil, err
}

// recordsDominate reports whether at least percent of the non-blank lines
// are time-stamped log records, not counting the lines that continue a
// record (an indented line, a stack frame or the exception line that heads
// one, right after a record or another continuation). It stops early once
// the share cannot be reached.
func recordsDominate(n int, line func(int) string, percent int) bool {
	records, other := 0, 0
	inEvent := false
	for i := 0; i < n; i++ {
		l := line(i)
		if l == "" || parseFoldMarker(l) > 0 {
			continue
		}
		switch stamped, level := recordStart(l); {
		case stamped:
			records++
			inEvent = true
		case level:
			// A level without a time: build tool output, not an event.
			other++
			inEvent = true
		case inEvent && continues(l):
		case inEvent && i+1 < n && continues(line(i+1)) && line(i+1) != "":
			// The header of a stack trace: java.io.IOException: reset.
		default:
			other++
			inEvent = false
		}
		if i&1023 == 1023 {
			best := records + n - i - 1
			if best*100 < percent*(best+other) {
				return false
			}
		}
	}
	return records > 0 && records*100 >= percent*(records+other)
}

// recordsDominateLines is recordsDominate over a slice of lines.
func recordsDominateLines(lines []string, percent int) bool {
	return recordsDominate(len(lines), func(i int) string { return lines[i] }, percent)
}

// mine collapses every template of a record log to its first event. It
// reports whether variants merged, or a count grew too long to read back.
// A non-nil spans gets each template's span (see LogTemplateSpans).
func (n logdedupNode) mine(ctx context.Context, x lineIndex, lay LogLayout, spans map[int]int) (string, bool, error) {
	t, events, merged, err := mineTemplates(ctx, x, lay, n.opt)
	if err != nil {
		return "", false, err
	}
	if spans != nil {
		t.eventSpans(events, spans)
	}
	out, long := t.writeEvents(x, events)
	return out, merged || long, nil
}

// mineTemplates groups the events of a record log into templates, variants
// and header columns merged. merged reports whether any merged.
func mineTemplates(ctx context.Context, x lineIndex, lay LogLayout, opt LogDedupOptions) (*templates, []logEvent, bool, error) {
	cc := canceled{ctx: ctx}
	// Events: a record line and the non-record lines after it. Lines
	// outside events pass as they are.
	var events []logEvent
	t := newTemplates(opt, lay)
	var toks, ctoks []tok
	nl := x.len()
	// opens[i]: line i opens a record; each line is asked once.
	opens := make([]bool, nl)
	tail := failingTailLines(x) // a build's failure is kept as it was written
	for i := range opens {
		opens[i] = lay.opensRecord(x.line(i)) && (tail == nil || !tail[i])
	}
	for i := 0; i < nl; {
		if err := cc.check(); err != nil {
			return nil, nil, false, err
		}
		if !opens[i] {
			i++
			continue
		}
		end := eventEnd(x, opens, tail, i)
		head, weight := splitCount(x.line(i))
		toks = lay.templateTokens(head, toks[:0])
		var cont uint64
		cont, ctoks = continuationHash(x, i+1, end, ctoks)
		g := t.add(toks, cont, len(events), weight, head)
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

// logEvent is a record line and the non-record lines after it: lines
// [start, end), of template group.
type logEvent struct {
	start, end int32
	group      int32
}

// eventEnd returns the end of the event that line i opens: the next
// blank, record, protected or failing tail line.
func eventEnd(x lineIndex, opens, tail []bool, i int) int {
	end := i + 1
	for nl := x.len(); end < nl; end++ {
		l := x.line(end)
		if l == "" || opens[end] || IsProtectedLine(l) || (tail != nil && tail[end]) {
			break
		}
	}
	return end
}

// continuationHash hashes lines [from, end), an event's continuation,
// masked like a head: a host or a node (dn228) in a continuation line is
// a value, not a different trace. It returns ctoks for reuse.
func continuationHash(x lineIndex, from, end int, ctoks []tok) (uint64, []tok) {
	cont := uint64(fnvOffset)
	for k := from; k < end; k++ {
		l := x.line(k)
		if len(l) > maxTemplateBytes {
			// Memory stays bounded: the rest of a long line
			// only has its numbers masked.
			cont = (cont ^ maskedHash(l[maxTemplateBytes:])) * fnvPrime
			l = l[:maxTemplateBytes]
		}
		ctoks = tokenize(l, ctoks[:0])
		for _, c := range ctoks {
			cont = (cont ^ tokenID(c)) * fnvPrime
		}
		cont = (cont ^ '\n') * fnvPrime
	}
	return cont, ctoks
}

// eventSpans puts each template's span in spans: its first event's
// first line -> its last event's last line.
func (t *templates) eventSpans(events []logEvent, spans map[int]int) {
	last := map[int]int{} // root group -> its last event
	for g := range t.groups {
		r := t.find(g)
		if l, ok := last[r]; !ok || t.groups[g].last > l {
			last[r] = t.groups[g].last
		}
	}
	for r, l := range last {
		spans[int(events[t.groups[r].first].start)] = int(events[l].end) - 1
	}
}

// writeEvents writes each template at its first event, saying what
// varies among the records a representative stands for. long reports a
// count too long to read back.
func (t *templates) writeEvents(x lineIndex, events []logEvent) (out string, long bool) {
	sums := t.summaries()
	w := newLineWriter(len(t.groups)*128 + 1024)
	done := 0 // lines written or skipped so far
	for ei, e := range events {
		start, end := int(e.start), int(e.end)
		if done < start {
			w.add(x.span(done, start))
		}
		done = end
		root := t.find(int(e.group))
		if t.groups[root].first != ei {
			continue
		}
		head, _ := splitCount(x.line(start))
		count := t.groups[root].count
		if count >= 1e12 {
			long = true // splitCount reads 12 digits at most
		}
		switch sum := sums[root]; {
		case t.groups[root].events == 1 && sum == nil:
			w.add(x.line(start)) // alone: as it was, its summary included
		case sum != nil:
			w.add(head + sum.suffix(count))
		default:
			w.add(withCount(head, count))
		}
		if start+1 < end {
			w.add(x.span(start+1, end))
		}
	}
	if nl := x.len(); done < nl {
		w.add(x.span(done, nl))
	}
	return w.String(), long
}

// runs collapses runs of consecutive lines that are equal once numbers
// are masked and that carry no failure signal.
func (n logdedupNode) runs(ctx context.Context, x lineIndex) (string, error) {
	cc := canceled{ctx: ctx}
	nl := x.len()
	w := newLineWriter(len(x.text))
	changed := false
	tail := failingTailLines(x) // a build's failure is kept as it was written
	head, weight := splitCount(x.line(0))
	h := maskedHash(head)
	for i := 0; i < nl; {
		if err := cc.check(); err != nil {
			return "", err
		}
		// Find the run [i, j) of lines equal to line i once masked.
		j, total := i+1, weight
		var nextHead string
		var nextWeight int
		var nextHash uint64
		for ; j < nl; j++ {
			nextHead, nextWeight = splitCount(x.line(j))
			nextHash = maskedHash(nextHead)
			if nextHash != h {
				break
			}
			total += nextWeight
		}
		if (j-i >= n.opt.MinRun || (j-i > 1 && weight > 1)) && len(strings.TrimSpace(head)) >= 8 &&
			!IsProtectedLine(head) && lineSignal(head) == 0 && (tail == nil || !tail[i] && !tail[j-1]) {
			w.add(withCount(head, total))
			changed = true
		} else {
			w.add(x.span(i, j))
		}
		i, head, weight, h = j, nextHead, nextWeight, nextHash
	}
	if !changed {
		return x.text, nil
	}
	return w.String(), nil
}

// tok is one whitespace-separated token, hashed after masking.
type tok struct {
	h          uint64 // hash of the masked token
	start, end int32  // the token's bytes in its line
	variable   bool   // a number, an id, a date or a path: never a constant
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// tokenize splits line on blanks and the usual field delimiters
// (| , ; = : [ ] ( ) { } ") and hashes each token's shape. Dates and paths
// are variables; a token without a digit is its own shape; the others are
// masked by maskToken.
func tokenize(line string, dst []tok) []tok {
	for i := 0; i < len(line); i++ {
		seen := tokClass[line[i]] // the classes of the token's bytes
		if seen&tcSep != 0 {
			continue
		}
		start := i
		for i++; i < len(line); i++ {
			cl := tokClass[line[i]]
			if cl&tcSep != 0 {
				break
			}
			seen |= cl
		}
		t := line[start:i]
		if seen&(tcDigit|tcSlash) == 0 {
			// A word, the most common token: a calendar word (letters
			// only) is a variable, any other its own shape.
			k := tok{h: fnvOffset, start: int32(start), end: int32(i), variable: true}
			if len(t) != 3 || !calendarSet.has(t) {
				k.h, k.variable = wordHash(t), false
			}
			dst = append(dst, k)
			continue
		}
		k := tok{h: fnvOffset, start: int32(start), end: int32(i), variable: true}
		switch {
		case len(t) == 3 && calendarSet.has(t): // isCalendarWord
		case seen&tcSlash != 0 && len(t) >= 3:
			k = pathShape(t)
			k.start, k.end = int32(start), int32(i)
		case seen&tcDigit == 0:
			k.h, k.variable = wordHash(t), false
		case seen&tcLetter == 0:
			// Numbers and punctuation only (dates, times, addresses): a
			// variable, whose hash no one reads (see tokenID).
		case seen&tcDash != 0 && isHexID(t):
			// A UUID or a dashed hex id, whatever letters it spells.
		default:
			if n := dashedIDName(t, seen); n > 0 {
				// A named id (OpenStack req-<uuid>, span_<uuid>): its
				// name is the shape, the id a value.
				k.h, k.variable = wordHash(t[:n])^'I', false
				break
			}
			k = maskToken(t)
			k.start, k.end = int32(start), int32(i)
		}
		dst = append(dst, k)
	}
	return dst
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
		case isDigit(c):
			hex++
			digit = true
		case isHexDigit(c):
			hex++
		case c == '-':
			dash = true
		default:
			return false
		}
	}
	return hex >= 8 && digit && dash
}

// dashedIDName is hexIDPrefix for a token whose byte classes are seen:
// without a '-' there is no hex id.
func dashedIDName(t string, seen uint8) int {
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

// pathShape hashes a path or URL by its route: the first two segments
// after the scheme and host, numbers masked. REST routes and file trees
// name what happened by their leading segments (GET /api/orders/…,
// /var/log/…); deeper segments are ids and names, variables. A path
// without two word segments is a variable.
func pathShape(t string) tok {
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
	for i := 0; i < len(t); i++ {
		if t[i] == '?' || t[i] == '#' {
			t = t[:i]
			break
		}
	}
	h := uint64(fnvOffset) ^ '/'
	segs, words := 0, 0
	for len(t) > 0 && segs < 2 {
		seg := t
		if i := strings.IndexByte(t, '/'); i >= 0 {
			seg, t = t[:i], t[i+1:]
		} else {
			t = ""
		}
		if seg == "" {
			continue
		}
		segs++
		var mh uint64
		if hasDigit(seg) {
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
	if words < 2 {
		return tok{h: fnvOffset, variable: true}
	}
	return tok{h: h | 2}
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
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
func maskToken(t string) tok {
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
	return tok{h: h, variable: digits > 0 && word < 3}
}

// Byte classes for tokenize.
const (
	tcDigit  = 1 << iota // 0-9; must be bit 0, tokenize adds it up
	tcHex                // 0-9, a-f, A-F
	tcLetter             // a-z, A-Z and every byte of a multi-byte rune
	tcWord               // isWordByte
	tcBlank              // space and tab: token separators
	tcSlash              // '/': a token of three or more with one is a path
	tcDelim              // | , ; = : [ ] ( ) { } ": field delimiters
	tcDash               // '-': dashed hex ids have one
	tcSep    = tcBlank | tcDelim
)

var tokClass = func() (t [256]uint8) {
	for c := range 256 {
		b := byte(c)
		if isDigit(b) {
			t[c] |= tcDigit
		}
		if isHexDigit(b) {
			t[c] |= tcHex
		}
		if (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b >= 0x80 {
			t[c] |= tcLetter
		}
		if isWordByte(b) {
			t[c] |= tcWord
		}
		if b == ' ' || b == '\t' {
			t[c] |= tcBlank
		}
		if b == '/' {
			t[c] |= tcSlash
		}
		if b == '-' {
			t[c] |= tcDash
		}
		if strings.IndexByte(`|,;=:[](){}"`, b) >= 0 {
			t[c] |= tcDelim
		}
	}
	return t
}()

func isCalendarWord(t string) bool { return len(t) == 3 && calendarSet.has(t) }

// maskedHash hashes a whole line with only its numbers masked: digit
// runs that do not end a name (eval1 stays), and hex runs of 6 or more that
// hold a digit, count as one '0'; runs of blanks as one space. Words, paths
// and punctuation must match.
func maskedHash(line string) uint64 {
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
		case isHexDigit(c) && (j == 0 || !isHexDigit(line[j-1])):
			e, hasDigit := j, false
			for e < len(line) && isHexDigit(line[e]) {
				hasDigit = hasDigit || isDigit(line[e])
				e++
			}
			afterName := j > 0 && (isLetter(line[j-1]) || line[j-1] == '_')
			if hasDigit && ((digitRun(line, j) == e && !afterName) || e-j >= 6) {
				h = (h ^ '0') * fnvPrime
				j = e
				continue
			}
			if isDigit(c) && !afterName {
				h = (h ^ '0') * fnvPrime
				j = digitRun(line, j)
				continue
			}
		case isDigit(c) && (j == 0 || !isLetter(line[j-1]) && line[j-1] != '_'):
			h = (h ^ '0') * fnvPrime
			j = digitRun(line, j)
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
	opt    LogDedupOptions
	lay    LogLayout
	byKey  map[uint64]int
	groups []tgroup
	// scratch holds a group's first tokens while its summary starts.
	scratch []tok
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
}

// firstTokens appends the tokens of the group's first record, their
// spans only (what summaries and merges read of them), as
// templateTokens would give them.
func (g *tgroup) firstTokens(dst []tok) []tok {
	for _, sp := range g.spans {
		dst = append(dst, tok{start: int32(sp >> 32), end: int32(uint32(sp))})
	}
	return dst
}

// maxTemplateTokens bounds the tokens a line may have to take part in
// variant merging; longer lines only merge when their masks are equal.
const maxTemplateTokens = 128

func newTemplates(o LogDedupOptions, lay LogLayout) *templates {
	return &templates{opt: o, lay: lay, byKey: map[uint64]int{}}
}

func mix(pos int, id uint64) uint64 {
	x := id ^ (uint64(pos)+1)*0x9E3779B97F4A7C15
	x ^= x >> 31
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 29
	return x
}

func (t *templates) add(toks []tok, cont uint64, ev, weight int, head string) int {
	key := (cont ^ uint64(len(toks))) * fnvPrime
	for _, x := range toks {
		key = (key ^ tokenID(x)) * fnvPrime
	}
	if g, ok := t.byKey[key]; ok {
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
					gr.summary.add(gr.head, first)
				}
			}
			if gr.summary != nil {
				gr.summary.add(head, toks)
			}
		}
		return g
	}
	g := tgroup{cont: cont, first: ev, head: head, count: weight, parent: len(t.groups),
		events: 1, last: ev, lastHead: head}
	if len(toks) <= maxTemplateTokens {
		// One allocation: the ids, then the spans of the first record's
		// tokens, so that it is never tokenized again.
		buf := make([]uint64, 2*len(toks))
		g.toks, g.spans = buf[:len(toks):len(toks)], buf[len(toks):]
		for i, x := range toks {
			g.spans[i] = uint64(uint32(x.start))<<32 | uint64(uint32(x.end))
			g.toks[i] = tokenID(x)
			g.sum += mix(i, g.toks[i])
		}
	}
	t.groups = append(t.groups, g)
	t.byKey[key] = len(t.groups) - 1
	return len(t.groups) - 1
}

// summaries returns the summary of every template that stands for more
// than one record, by root group. Merged groups add what they counted,
// and a merged position (one word per group) becomes a slot of its own.
func (t *templates) summaries() map[int]*groupSummary {
	kids := map[int][]int{}
	for i := range t.groups {
		if r := t.find(i); r != i {
			kids[r] = append(kids[r], i)
		}
	}
	out := map[int]*groupSummary{}
	for i := range t.groups {
		g := &t.groups[i]
		if g.parent != i || g.toks == nil {
			continue
		}
		k := kids[i]
		if len(k) == 0 {
			if g.summary != nil {
				g.summary.first, _ = clockIn(g.head)
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
		var toks []tok
		for _, j := range append([]int{i}, k...) {
			m := &t.groups[j]
			toks = m.firstTokens(toks[:0])
			if len(toks) != len(g.toks) {
				continue
			}
			if m.summary != nil {
				s.mergeFrom(m.summary)
				s.addWildcards(m.head, toks, g.toks)
			} else {
				s.add(m.head, toks)
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
	minV := int32(t.opt.MinVariants)
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
		for _, i := range order {
			if g := &t.groups[i]; g.parent == i && g.toks[p] > varToken {
				sizes[key(g, p)]++
			}
		}
		clear(buckets)
		for _, i := range order {
			if g := &t.groups[i]; g.parent == i && g.toks[p] > varToken {
				if k := key(g, p); sizes[k] >= minV {
					buckets[k] = append(buckets[k], i)
				}
			}
		}
		for _, b := range buckets {
			if distinctAt(t.groups, b, p) < t.opt.MinVariants || !t.variesWidely(b, p) {
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
	for i := range t.groups {
		if len(t.groups[i].toks) > 1 {
			a, b := tokenHalves(&t.groups[i])
			countA[a]++
			countB[b]++
		}
	}
	var order []int
	for i := range t.groups {
		if len(t.groups[i].toks) > 1 {
			if a, b := tokenHalves(&t.groups[i]); countA[a] >= minV || countB[b] >= minV {
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
	for i, x := range g.toks {
		if i < len(g.toks)/2 {
			a += mix(i, x)
		} else {
			b += mix(i, x)
		}
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
	if t.lay.Fields == "" && t.lay.HeaderCols == 0 {
		return false
	}
	hc := headerCells{cells: make([][]cell, len(t.groups)), names: map[uint64]int{}}
	var toks []tok
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
	message := t.messageKeys(&hc)
	wild := map[uint64]bool{}
	for _, col := range cols {
		if t.independentColumn(col, hc.cells, message) {
			wild[col] = true
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
}

func (hc *headerCells) mark(g *tgroup, i int, col uint64, p int, v string) {
	if upperLevelAt(v) || len(hc.cells[i]) >= 16 {
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
func (t *templates) markFieldCells(hc *headerCells, i int, toks []tok) {
	g := &t.groups[i]
	isKey := func(p int) bool { return p >= len(toks) || toks[p].end == 0 }
	for p := 1; p < len(toks); p++ {
		if !isKey(p) && isKey(p-1) && isKey(p+1) {
			hc.mark(g, i, g.toks[p-1], p, g.head[toks[p].start:toks[p].end])
		}
	}
}

// markHeaderCells marks group i's first token after each header column.
func (t *templates) markHeaderCells(hc *headerCells, i int, toks []tok) {
	g := &t.groups[i]
	for c := 0; c <= t.lay.HeaderCols; c++ {
		he := headerEnd(g.head, c)
		p := 0
		for p < len(toks) && int(toks[p].start) < he {
			p++
		}
		if p < len(toks) {
			hc.mark(g, i, uint64(c), p, g.head[toks[p].start:toks[p].end])
		}
	}
}

// messageKeys returns the message of each group: its tokens but the
// candidate columns (names in three groups or more).
func (t *templates) messageKeys(hc *headerCells) []uint64 {
	message := make([]uint64, len(t.groups))
	for i, cs := range hc.cells {
		g := &t.groups[i]
		k := g.sum
		for _, c := range cs {
			if hc.names[c.col] >= 3 {
				k -= mix(c.pos, g.toks[c.pos])
			}
		}
		message[i] = k ^ (g.cont^uint64(len(g.toks)))*fnvPrime
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

// independentColumn reports whether column col is independent of the
// message, as a host is: three messages at least take several names
// there, and so do half of the messages seen four times or more; and the
// names come evenly, three of them (or all) with two in three messages
// seen ten times or more. An HTTP method before a route is not: DELETE
// comes with few routes.
func (t *templates) independentColumn(col uint64, cells [][]cell, message []uint64) bool {
	// The column's cells as (message, name) pairs, sorted: a message's
	// pairs are a run, its distinct names runs within it.
	type pair struct {
		msg, name uint64
		named     bool
		n         int
	}
	var pairs []pair
	for i, cs := range cells {
		for _, c := range cs {
			if c.col != col {
				continue
			}
			p := pair{msg: message[i], n: t.groups[i].count, named: c.name}
			if c.name {
				p.name = t.groups[i].toks[c.pos]
			}
			pairs = append(pairs, p)
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if c := cmp.Compare(a.msg, b.msg); c != 0 {
			return c
		}
		if a.named != b.named {
			return boolOrder(a.named) - boolOrder(b.named)
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

// boolOrder orders false before true.
func boolOrder(b bool) int {
	if b {
		return 1
	}
	return 0
}

// variesWidely reports a position whose values look like a parameter's,
// not like names of events: most values are new (the groups of bucket b,
// one value each, stand for at most twice as many records), half of them
// occur once (a long tail of users), or most look like data (host names,
// addresses, paths). Words that name events (openDrawer, closeDrawer)
// recur, each of them, and stay apart.
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
	data, seen := 0, 0
	var toks []tok
	for _, i := range b[:min(len(b), 64)] {
		g := &t.groups[i]
		toks = g.firstTokens(toks[:0])
		if p >= len(toks) {
			continue
		}
		seen++
		if v := g.head[toks[p].start:toks[p].end]; strings.ContainsAny(v, ".@") && !strings.Contains(v, "/") {
			data++
		}
	}
	return seen > 0 && 2*data >= seen
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

func tokenID(t tok) uint64 {
	if t.variable {
		return varToken
	}
	return t.h | 2 // never wildcard or varToken
}
