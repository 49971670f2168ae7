package logs

import (
	"errors"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Layout is the analysis of a log: whether it is made of records, how a
// record opens and how its fields are laid out. It is made once from the
// original text (Analyze) and handed to every node through stages.Input.Log,
// so no node decides again on text that an earlier node rewrote; across
// fleet segments it travels in its String form.
type Layout struct {
	// Analyzed is false for the zero value: a node given none analyses
	// the text it is given.
	Analyzed bool
	// Records: a log of records (a service log), whose templates are
	// mined across the whole text. False for build and test output,
	// whose repeats tell a story.
	Records bool
	// Fields names the field syntax of the records: FieldsJSON, FieldsLogfmt
	// or "" for free text.
	Fields string
	// ByRepeats: Records rests on repetition alone (no stamp, no data
	// column, no fields); stages.Detect does not turn prose into a log on it.
	ByRepeats bool
	// HeaderCols is how many leading columns (blank- or '|'-separated)
	// of a record are header: times, pids, node ids. The message follows.
	HeaderCols int
	// Openers are the shapes (see appendShape) of the first token of the
	// lines that open a record; other lines continue the record above.
	Openers []string
	// StatusFields are how many fields from its quoted request line an
	// access record holds a status, before (< 0) or after: at most two
	// (a balancer's and its target's), see statusFields.
	StatusFields []int
}

// The field syntaxes a log's records may use.
const (
	FieldsJSON   = "json"   // JSON lines: zap, logrus, bunyan, pino, slog, Docker json-file
	FieldsLogfmt = "logfmt" // key=value pairs: slog text, logrus text, Heroku
	FieldsAccess = "access" // the NCSA common or combined log format: Apache, nginx, proxies, CDNs
)

// String encodes the layout for an envelope header; ParseLayout reads it.
func (l Layout) String() string {
	if !l.Analyzed {
		return ""
	}
	v := url.Values{}
	v.Set("v", "1")
	if l.Records {
		v.Set("r", "1")
	}
	if l.ByRepeats {
		v.Set("b", "1")
	}
	if l.Fields != "" {
		v.Set("f", l.Fields)
	}
	if l.HeaderCols > 0 {
		v.Set("h", strconv.Itoa(l.HeaderCols))
	}
	if len(l.Openers) > 0 {
		v["o"] = l.Openers
	}
	for _, d := range l.StatusFields {
		v.Add("s", strconv.Itoa(d))
	}
	return v.Encode()
}

// ParseLayout reads a layout written by String. An empty string is the
// zero layout (not analysed).
func ParseLayout(s string) (Layout, error) {
	if s == "" {
		return Layout{}, nil
	}
	v, err := url.ParseQuery(s)
	if err != nil {
		return Layout{}, err
	}
	if v.Get("v") != "1" {
		return Layout{}, errors.New("log layout: unknown version")
	}
	l := Layout{Analyzed: true, Records: v.Get("r") == "1", ByRepeats: v.Get("b") == "1", Fields: v.Get("f"), Openers: v["o"]}
	if h := v.Get("h"); h != "" {
		n, err := strconv.Atoi(h)
		if err != nil || n < 0 || n > 8 {
			return Layout{}, errors.New("log layout: bad header columns")
		}
		l.HeaderCols = n
	}
	if len(v["s"]) > maxStatusFields {
		return Layout{}, errors.New("log layout: too many status fields")
	}
	for _, st := range v["s"] {
		n, err := strconv.Atoi(st)
		if err != nil || n == 0 || n < -maxStatusDistance || n > maxStatusDistance {
			return Layout{}, errors.New("log layout: bad status field")
		}
		l.StatusFields = append(l.StatusFields, n)
	}
	switch l.Fields {
	case "", FieldsJSON, FieldsLogfmt, FieldsAccess:
	default:
		return Layout{}, errors.New("log layout: unknown field syntax")
	}
	if len(l.Openers) > maxOpeners {
		return Layout{}, errors.New("log layout: too many openers")
	}
	return l, nil
}

// maxOpeners bounds the record-opening shapes a layout keeps.
const maxOpeners = 8

// analysisLines is how many lines Analyze samples: the head, and for
// long texts windows in the middle and at the end.
const analysisLines = 3000

// Analyze analyses a log from a sample of its lines. It assumes nothing
// about where a time stamp stands or what it looks like:
//   - the lines that open a record are those whose first token has one of
//     the frequent shapes (dates, levels, prefixes alike); indented lines,
//     stack frames and lines of rare shapes continue the record above;
//   - the text is a log of records when its records carry fields (JSON
//     lines, logfmt), when a leading column holds data that changes from
//     line to line (times in any shape, sequence numbers, epochs), or when
//     nearly every line repeats an earlier one, digits aside (logs without
//     time stamps).
//
// It is a pure function of the text, linear in its length.
func Analyze(text string) Layout {
	var a logAnalysis
	a.headed = map[shapeKey]int{}
	const window = 96 << 10
	// The heads are kept in the memo's room, pooled.
	a.memo = getFactMemo()
	a.heads, a.freshShapes, a.headFacts = a.memo.heads[:0], a.memo.freshShapes[:0], a.memo.headFacts[:0]
	defer func() { a.memo.release(a.heads, a.freshShapes, a.headFacts) }()
	if len(text) <= 3*window {
		a.scan(text, analysisLines)
	} else {
		a.scan(text[:window], analysisLines/3)
		mid := len(text)/2 - window/2
		a.scan(textkit.DropPartialLine(text[mid:mid+window]), analysisLines/3)
		a.scan(textkit.DropPartialLine(text[len(text)-window:]), analysisLines/3)
	}
	return a.layout()
}

// logAnalysis gathers the statistics of the sampled lines.
type logAnalysis struct {
	lines int // non-blank lines
	heads []string
	// headFacts number the facts of heads in memo, or for a head the
	// memo had none for (it was off), its shape in freshShapes as -1-i.
	headFacts   []int32
	freshShapes []shapeKey
	memo        *factMemo
	shapes      shapeCounts
	// headed counts, per shape, the heads followed by a continuation
	// form: an exception's name over its frames, not a record.
	headed  map[shapeKey]int
	stamped int // lines a known time stamp opens
	json    int // lines holding one JSON object, maybe after a prefix
	logfmt  int // lines of key=value pairs
	access  int // lines of the NCSA common or combined log format
	escapes int // lines with ANSI escapes
}

// shapeCounts counts the shapes of heads: a scan while they are few (a
// log has a handful), a map beyond.
type shapeCounts struct {
	keys   []shapeKey
	counts []int
	index  map[shapeKey]int // position in keys, once there are many
}

// addN counts n more heads of shape k.
func (c *shapeCounts) addN(k shapeKey, n int) {
	if c.index == nil {
		for i := range c.keys {
			if c.keys[i] == k {
				c.counts[i] += n
				return
			}
		}
		if len(c.keys) >= 16 {
			c.index = make(map[shapeKey]int, 64)
			for i, key := range c.keys {
				c.index[key] = i
			}
		}
	} else if i, ok := c.index[k]; ok {
		c.counts[i] += n
		return
	}
	if c.index != nil {
		c.index[k] = len(c.keys)
	}
	c.keys = append(c.keys, k)
	c.counts = append(c.counts, n)
}

func (a *logAnalysis) scan(s string, max int) {
	var prev shapeKey // the shape of the line before, when it was a head
	for n := 0; len(s) > 0 && n < max; {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		line = strings.TrimSuffix(line, "\r")
		if textkit.IsBlank(line) || textkit.IsProtectedLine(line) {
			continue
		}
		n++
		a.lines++
		f, fi := a.memo.lookup(line)
		if fi < 0 {
			fresh := factsOf(line)
			f = &fresh
		}
		if f.escape {
			a.escapes++
		}
		if f.continuation {
			if prev.n > 0 {
				a.headed[prev]++
				prev = shapeKey{}
			}
			continue
		}
		a.heads = append(a.heads, line[:min(len(line), maxHeadLen)])
		prev = f.shape
		if fi >= 0 {
			f.heads++ // counted by layout
		} else {
			a.count(f, 1)
			fi = -1 - int32(len(a.freshShapes))
			a.freshShapes = append(a.freshShapes, prev)
		}
		a.headFacts = append(a.headFacts, fi)
	}
}

// count counts n heads of facts f.
func (a *logAnalysis) count(f *lineFacts, n int) {
	a.shapes.addN(f.shape, n)
	if f.stamped {
		a.stamped += n
	}
	switch f.fields {
	case headJSON:
		a.json += n
	case headAccess:
		a.access += n
	case headLogfmt:
		a.logfmt += n
	}
}

func (a *logAnalysis) layout() Layout {
	l := Layout{Analyzed: true}
	heads := len(a.heads)
	if heads == 0 {
		return l
	}
	for i := range a.memo.facts {
		if f := &a.memo.facts[i]; f.heads > 0 {
			a.count(f, int(f.heads))
		}
	}
	type sc struct {
		key   shapeKey
		shape string
		n     int
	}
	all := make([]sc, 0, len(a.shapes.keys))
	for i, k := range a.shapes.keys {
		all = append(all, sc{k, string(k.b[:k.n]), a.shapes.counts[i]})
	}
	slices.SortFunc(all, func(x, y sc) int {
		if x.n != y.n {
			return y.n - x.n
		}
		return strings.Compare(x.shape, y.shape)
	})
	exceptions := 0 // heads of shapes that head stack traces
	for i, s := range all {
		// A shape opens records when it is the most frequent, or frequent
		// (2% of the heads, at least twice) and not mostly over stack
		// frames. Rare shapes (an exception's name, a stray line) and
		// exception names continue the record above.
		frequent := s.n >= 2 && s.n*50 >= heads && a.headed[s.key]*2 < s.n
		if (i == 0 || frequent) && len(l.Openers) < maxOpeners {
			l.Openers = append(l.Openers, s.shape)
		} else if a.headed[s.key]*2 >= s.n {
			exceptions += s.n
		}
	}
	slices.Sort(l.Openers)
	l.Fields = a.fieldSyntax(heads)
	// At most maxOpeners keys: a scan beats a map's hashing.
	openerKeys := make([]shapeKey, 0, maxOpeners)
	for _, s := range all {
		if slices.Contains(l.Openers, s.shape) {
			openerKeys = append(openerKeys, s.key)
		}
	}
	openers, openerFacts := a.openers(openerKeys)
	varying, header := a.headerStats(openers, openerFacts)
	if l.Fields == "" {
		l.HeaderCols = header
		if !a.fewRequests(openers, openerFacts) {
			l.StatusFields = statusFields(openers)
		}
	}
	// Records must make up most of the text's lines, continuations aside.
	mostly := len(openers)*10 >= (heads-exceptions)*6 && len(openers) >= 1
	switch {
	case !mostly:
	case l.Fields != "":
		l.Records = true
	case a.stamped*2 >= heads:
		l.Records = true
	case varying:
		l.Records = true
	case a.escapes*20 < a.lines && repetitive(openers):
		l.Records, l.ByRepeats = true, true
	}
	return l
}

// openers returns the heads whose shape is one of keys, and the facts of
// the first maxHeaderHeads of them.
func (a *logAnalysis) openers(keys []shapeKey) (openers []string, facts []int32) {
	n := 0 // the heads that open records
	for i := range a.memo.facts {
		f := &a.memo.facts[i]
		if f.opener = f.heads > 0 && slices.Contains(keys, f.shape); f.opener {
			n += int(f.heads)
		}
	}
	for _, k := range a.freshShapes {
		if slices.Contains(keys, k) {
			n++
		}
	}
	if n == len(a.heads) {
		// Every head opens a record, as in most logs: the heads as they
		// are, read only until Analyze returns.
		return a.heads, a.headFacts[:min(len(a.headFacts), maxHeaderHeads)]
	}
	openers = make([]string, 0, len(a.heads))
	facts = make([]int32, 0, maxHeaderHeads)
	for i, h := range a.heads {
		fi := a.headFacts[i]
		if fi >= 0 && a.memo.facts[fi].opener || fi < 0 && slices.Contains(keys, a.freshShapes[-1-fi]) {
			openers = append(openers, h)
			if len(facts) < maxHeaderHeads {
				facts = append(facts, fi)
			}
		}
	}
	return openers, facts
}

// fewRequests reports heads too few of which hold a request line for
// statusFields to find a status: fewer than three in ten of the first
// statusProbe, or of fewer heads six in ten. requestLine decides by
// bytes in which every digit is alike: it is asked once a digit shape of
// the first heads, whose facts facts number.
func (a *logAnalysis) fewRequests(heads []string, facts []int32) bool {
	n := min(len(heads), statusProbe)
	requests := 0
	for k, h := range heads[:n] {
		if fi := facts[k]; fi < 0 {
			if open, _ := requestLine(h); open >= 0 {
				requests++
			}
		} else if f := &a.memo.facts[fi]; f.request > 0 {
			requests++
		} else if f.request == 0 {
			f.request = -1
			if open, _ := requestLine(h); open >= 0 {
				f.request = 1
				requests++
			}
		}
	}
	if len(heads) > statusProbe {
		return requests*10 < statusProbe*3
	}
	return requests < 2 || requests*10 < len(heads)*6
}

// fieldSyntax names the field syntax that six heads in ten share, if any.
func (a *logAnalysis) fieldSyntax(heads int) string {
	switch {
	case a.json*10 >= heads*6:
		return FieldsJSON
	case a.logfmt*10 >= heads*6:
		return FieldsLogfmt
	case a.access*10 >= heads*6:
		return FieldsAccess
	}
	return ""
}

// OpensRecord reports whether line opens a record: not a continuation
// form, and a first token of a record's shape or a known stamp. Nodes
// ask it of every line: by pointer, the layout is not copied each time.
func (l *Layout) OpensRecord(line string) bool {
	if line == "" || continuationForm(line) || textkit.IsProtectedLine(line) || textkit.ParseFoldMarker(line) > 0 {
		return false
	}
	return l.opensRecordShape(line) || textkit.IsLogRecord(line)
}

func (l *Layout) opensRecordShape(line string) bool {
	if len(l.Openers) == 0 {
		return false
	}
	var buf [shapeMax]byte
	s := buf[:shapeInto(&buf, line)]
	for _, o := range l.Openers {
		if o == string(s) {
			return true
		}
	}
	return false
}

// continuationForm reports a line that can only continue a record:
// indented, a stack frame, a "Caused by:" or "Traceback" header, the
// "... 12 more" of a Java trace, or a closing bracket.
func continuationForm(line string) bool {
	s := line
	switch contOpener[line[0]] {
	case contNone:
		return false
	case contAlways:
		return true
	case contEscape:
		s = line[textkit.SkipANSI(line, 0):]
		if s == "" || s[0] == ' ' || s[0] == '\t' {
			return true
		}
	}
	switch s[0] {
	case 'a':
		return strings.HasPrefix(s, continuationPrefixes[0])
	case 'C':
		return strings.HasPrefix(s, continuationPrefixes[1])
	case 'S':
		return strings.HasPrefix(s, continuationPrefixes[2])
	case 'T':
		return strings.HasPrefix(s, continuationPrefixes[3]) || strings.HasPrefix(s, continuationPrefixes[5])
	case 'D':
		return strings.HasPrefix(s, continuationPrefixes[4])
	case 'g':
		return strings.HasPrefix(s, continuationPrefixes[6])
	case 'c':
		return strings.HasPrefix(s, continuationPrefixes[7])
	case '.':
		return strings.HasPrefix(s, "... ") && strings.HasSuffix(trimLineEnd(s), " more")
	}
	return false
}

// continuationPrefixes open the lines of stack traces in Java, Python,
// Go and JavaScript runtimes, which continue the record that logged them.
// continuationForm tests them by their first bytes, in this order: keep
// it in step.
var continuationPrefixes = [...]string{
	"at ", "Caused by: ", "Suppressed: ", "Traceback (most recent call last)",
	"During handling of the above exception", "The above exception was",
	"goroutine ", "created by ",
}

// contOpener classes the first byte of a line for continuationForm: one
// that opens no continuation form, one that always does (a blank or a
// closing bracket), an escape, or one that may (a prefix's or '.').
const (
	contNone = iota
	contAlways
	contEscape
	contMaybe
)

var contOpener = func() (t [256]uint8) {
	for _, c := range []byte{' ', '\t', '}', ']', ')'} {
		t[c] = contAlways
	}
	t[0x1b] = contEscape
	for _, p := range continuationPrefixes {
		t[p[0]] = contMaybe
	}
	t['.'] = contMaybe
	return t
}()

// shapeMax bounds a shape's length: the opening of a token says what it is.
const shapeMax = 8

// shapeKey is a shape held by value, for counting without allocating.
type shapeKey struct {
	b [shapeMax]byte
	n uint8
}

func shapeOf(line string) shapeKey {
	var k shapeKey
	k.n = uint8(shapeInto(&k.b, line))
	return k
}

// appendShape appends the shape of line's first token (ANSI aside): runs of
// letters and digits become 'a' (letters only) or 'd' (with a digit, so
// hex ids and dates alike), a placeholder such as <N> is 'd', and other
// bytes stay. "2024-03-01" is "d-d-d", "[Sun" is "[a", "web-1" is "a-d".
// The shape holds at most shapeMax bytes, dst's included.
func appendShape(dst []byte, line string) []byte {
	var b [shapeMax]byte
	n := shapeInto(&b, line)
	return append(dst, b[:min(n, max(shapeMax-len(dst), 0))]...)
}

// shapeInto writes the shape of line's first token (see appendShape) to
// b and returns its length. It runs on every line a node asks
// OpensRecord of: one class lookup a byte, no append.
func shapeInto(b *[shapeMax]byte, line string) int {
	s := line
	if s != "" && s[0] == 0x1b {
		s = s[textkit.SkipANSI(s, 0):]
	}
	n := 0
	for i := 0; i < len(s) && n < shapeMax; {
		c := s[i]
		switch cl := shapeClass[c]; {
		case cl&scWord != 0:
			// Letters and digits first, the most runs.
			seen := cl
			for i++; i < len(s); i++ {
				x := shapeClass[s[i]]
				if x&scWord == 0 {
					break
				}
				seen |= x
			}
			b[n] = 'a'
			if seen&scDigit != 0 {
				b[n] = 'd'
			}
		case cl == scStop:
			return n
		case c == '<' && textkit.IsPlaceholderAt(s[i:]):
			b[n] = 'd'
			i += strings.IndexByte(s[i:], '>') + 1
		default:
			b[n] = c
			i++
		}
		n++
	}
	return n
}

// shapeClass classes bytes for shapeInto: a letter or a digit (tokClass's),
// or a blank that ends the token.
const (
	scLetter = 1 << iota
	scDigit
	scStop
	scWord = scLetter | scDigit
)

var shapeClass = func() (t [256]uint8) {
	for c := range 256 {
		switch cl := tokClass[c]; {
		case c == ' ' || c == '\t' || c == '\r':
			t[c] = scStop
		case cl&tcDigit != 0:
			t[c] = scDigit
		case cl&tcLetter != 0:
			t[c] = scLetter
		}
	}
	return t
}()

// headerStats reads the first columns of the record heads. varying: one
// holds data (a token with digits, no more letters than digits) on most
// lines and changes from line to line: a time in any shape, a sequence
// number, an epoch, a request counter. header: the leading columns that
// hold data on most lines (times, pids, node ids), with at most one
// word between two of them (a host, a level); the message follows.
// facts number the facts of the first heads (at most maxHeaderHeads):
// their columns are read once a digit shape.
func (a *logAnalysis) headerStats(heads []string, facts []int32) (varying bool, header int) {
	var colsBuf [maxHeaderHeads]*headColumns
	cols := colsBuf[:len(facts)]
	for k, fi := range facts {
		if fi < 0 {
			return headerStats(heads)
		}
		cols[k] = &a.memo.facts[fi].cols
	}
	return headerStatsByColumns(heads, cols)
}

// headerStats is (*logAnalysis).headerStats for heads without facts
// (the memo was off): it reads them a column at a time and stops once
// the answer is settled.
func headerStats(heads []string) (varying bool, header int) {
	const cols, maxHeads = headerCols, maxHeaderHeads
	heads = heads[:min(len(heads), maxHeads)]
	n := len(heads)
	// Column by column, each head's unread rest kept: reading stops once
	// no later column can change the answer, which spares the message
	// words after the header in most logs.
	var restBuf [maxHeads]string
	rest := restBuf[:n]
	for k, h := range heads {
		rest[k] = h[textkit.SkipANSI(h, 0):]
	}
	var lagBuf [maxHeads]uint8
	lag := lagBuf[:n] // columns a head is behind, where a column stopped early
	gap := 0          // columns without data since the last one with data
	for c := 0; c < cols; c++ {
		data, changes := readColumn(rest, lag, !varying && c < 6)
		if data*10 < n*8 {
			gap++
		} else {
			if c < 6 && changes*10 >= n*3 {
				varying = true
			}
			if gap <= 1 && (header > 0 || c <= 1) {
				// The header runs on while at most one word (a host, a
				// level) stands between its data columns.
				header, gap = c+1, 0
			}
		}
		// The header is settled after two columns without data, or
		// without a start in the first two; varying after column 6.
		if (gap >= 2 || header == 0 && c >= 1) && (varying || c >= 5) {
			break
		}
	}
	return varying, header
}

// readColumn reads the next column of each head in rest, moving rest past
// it: how many heads hold data there (a token with digits, no more
// letters than digits), and how many of those differ from the head above.
// It stops once the counts cannot change what headerStats decides (a
// column holds data on 80% of heads; it varies on 30%, asked only when
// wantChanges): the heads it leaves are a column behind in lag, and skip
// it first when the next column is read.
func readColumn(rest []string, lag []uint8, wantChanges bool) (data, changes int) {
	n := len(rest)
	lag = lag[:n] // one bounds check, not one a head
	prev := ""
	for k, s := range rest {
		if left := n - k; (data+left)*10 < n*8 ||
			data*10 >= n*8 && (!wantChanges || changes*10 >= n*3 || (changes+left)*10 < n*3) {
			for j := k; j < n; j++ {
				lag[j]++
			}
			return data, changes
		}
		for ; lag[k] > 0 && s != ""; lag[k]-- {
			s = s[columnEnd(s):]
		}
		if s == "" {
			rest[k] = s
			continue
		}
		i := 0
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '|') {
			i++
		}
		st := i
		// Digits and letters, counted in the two halves of one word
		// (colCount).
		var cnt uint64
		for ; i < len(s); i++ {
			v := colCount[s[i]]
			if v == colEnd {
				break
			}
			cnt += v
		}
		d, l := cnt&(1<<32-1), cnt>>32
		e := i
		for st < e && trimmedByte(s[st]) {
			st++
		}
		for e > st && trimmedByte(s[e-1]) {
			e--
		}
		tok := s[st:e]
		if d > 0 && l <= d {
			data++
			if tok != prev {
				changes++
			}
		}
		prev = tok
		rest[k] = s[i:]
	}
	return data, changes
}

// columnEnd returns the end of s's first column (see readColumn).
func columnEnd(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '|') {
		i++
	}
	for i < len(s) && colCount[s[i]] != colEnd {
		i++
	}
	return i
}

// colClass classes the bytes of a header column without branches: a
// digit, a letter (tokClass's), or the end of the column.
const (
	ccDigit  = 1 << iota // must be bit 0
	ccLetter             // must be bit 1
	ccEnd
)

var colClass = func() (t [256]uint8) {
	for c := range 256 {
		switch cl := tokClass[c]; {
		case c == ' ' || c == '\t' || c == '|':
			t[c] = ccEnd
		case cl&tcDigit != 0:
			t[c] = ccDigit
		case cl&tcLetter != 0:
			t[c] = ccLetter
		}
	}
	return t
}()

// colCount is colClass as counts: a digit adds 1, a letter 1<<32, a
// column's end is colEnd.
var colCount = func() (t [256]uint64) {
	for c, cl := range colClass {
		switch {
		case cl&ccEnd != 0:
			t[c] = colEnd
		case cl&ccDigit != 0:
			t[c] = 1
		case cl&ccLetter != 0:
			t[c] = 1 << 32
		}
	}
	return t
}()

const colEnd = math.MaxUint64

// HeaderEnd returns where the message of a record starts: after its
// first n columns (see headerColumns), or 0.
func HeaderEnd(line string, n int) int {
	if n == 0 {
		return 0
	}
	s := line[textkit.SkipANSI(line, 0):]
	off := len(line) - len(s)
	c := 0
	for i := 0; i < len(s); {
		// colClass's ccEnd: ' ', '\t' and '|', one test a byte.
		for i < len(s) && colClass[s[i]] == ccEnd {
			i++
		}
		if i >= len(s) {
			break
		}
		for i < len(s) && colClass[s[i]] != ccEnd {
			i++
		}
		if c++; c == n {
			return off + i
		}
	}
	return len(line)
}

// trimmedByte reports the brackets, quotes and separators trimmed off a
// header column before it is compared with the one above.
func trimmedByte(c byte) bool {
	switch c {
	case '[', ']', '(', ')', '<', '>', '"', '\'', ',', ';':
		return true
	}
	return false
}

// repetitive reports heads that mostly repeat an earlier head, digits
// aside: a log without time stamps (at least 20 lines, four in five
// repeats, three templates or more).
func repetitive(heads []string) bool {
	if len(heads) < 20 {
		return false
	}
	seen := make(map[uint64]struct{}, len(heads))
	repeats := 0
	for _, h := range heads {
		k := MaskedHash(h)
		if _, ok := seen[k]; ok {
			repeats++
		} else {
			seen[k] = struct{}{}
		}
	}
	// Three templates at least: one sentence said over and over is prose
	// (dedup's), not a log.
	return repeats*5 >= len(heads)*4 && len(seen) >= 3
}

// jsonPayloadStart returns where a JSON object that ends the line starts:
// the whole line, or after a short prefix (a CRI or Compose header), or -1.
func jsonPayloadStart(line string) int {
	end := trimLineEnd(line)
	if len(end) < 2 || end[len(end)-1] != '}' {
		return -1
	}
	lim := min(len(end), 160)
	for i := 0; i < lim; i++ {
		if end[i] == '{' && (i == 0 || end[i-1] == ' ' || end[i-1] == '\t') {
			if i+1 < len(end) && (end[i+1] == '"' || end[i+1] == ' ' || end[i+1] == '}') {
				return i
			}
			return -1
		}
	}
	return -1
}

// trimLineEnd is strings.TrimRight(s, " \t\r") without building a
// cutset on every call: it runs on every line.
func trimLineEnd(s string) string {
	e := len(s)
	for e > 0 && (s[e-1] == ' ' || s[e-1] == '\t' || s[e-1] == '\r') {
		e--
	}
	return s[:e]
}

// logfmtPairs counts the key=value pairs of a logfmt line, up to 8, or
// returns 0 when a token is not one (plain words are allowed only inside
// quoted values).
func logfmtPairs(line string) int {
	n := 0
	for i := 0; i < len(line) && n < 8; {
		_, eq, more := logfmtKeyAt(line, i)
		if !more {
			break
		}
		if eq < 0 {
			return n
		}
		i = logfmtValueEnd(line, eq+1)
		n++
	}
	return n
}

// logfmtKeyAt reads the logfmt key that starts after the blanks at i. more
// is false at the end of line; eq is the offset of the '=' after the key,
// or -1 when no key and '=' stand there.
func logfmtKeyAt(line string, i int) (key, eq int, more bool) {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
		i++
	}
	if i >= len(line) {
		return i, -1, false
	}
	k := i
	for i < len(line) && (textkit.IsWordByte(line[i]) || line[i] == '.' || line[i] == '-' || line[i] == '@') {
		i++
	}
	if i == k || i >= len(line) || line[i] != '=' {
		return k, -1, true
	}
	return k, i, true
}

// logfmtValueEnd returns the end of the logfmt value at i: a quoted
// string with escapes, or up to the next blank.
func logfmtValueEnd(line string, i int) int {
	if i < len(line) && line[i] == '"' {
		for j := i + 1; j < len(line); j++ {
			switch line[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return len(line)
	}
	for i < len(line) && line[i] != ' ' && line[i] != '\t' {
		i++
	}
	return i
}

// JSONLines reports a text whose first lines (up to 50 non-blank ones)
// are mostly JSON objects of one line each, at least two: JSON lines.
func JSONLines(text string) bool {
	objects, lines := 0, 0
	for len(text) > 0 && lines < 50 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		lines++
		if len(line) >= 2 && line[0] == '{' && line[len(line)-1] == '}' {
			objects++
		}
	}
	return objects >= 2 && objects*10 >= lines*8
}
