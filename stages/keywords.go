package stages

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// KeywordsOptions are the key-line node's knobs.
type KeywordsOptions struct {
	// Before and After are the lines of context kept around a key line
	// (blank lines are not counted).
	Before int `yaml:"before"`
	After  int `yaml:"after"`
	// Continuation: after a key line, indented and blank lines (a stack
	// trace, a diff, a multi-line message) are kept up to this many more.
	Continuation int `yaml:"continuation"`
	// MinFold is the shortest run of other lines that is folded into a
	// marker; shorter runs between kept lines stay, so a reason reads on.
	MinFold int `yaml:"min_fold"`
	// RareMax: in logs made of records, a line whose template occurs at most
	// this many times is kept as rare. 0 turns rarity off.
	RareMax int `yaml:"rare_max"`
}

// DefaultKeywordsOptions returns the shipped defaults.
func DefaultKeywordsOptions() KeywordsOptions {
	return KeywordsOptions{Before: 4, After: 8, Continuation: 300, MinFold: 4, RareMax: 3}
}

// Validate reports a knob that is out of range.
func (o KeywordsOptions) Validate() error {
	var errs []error
	errs = append(errs,
		mustBeNonNegative("before", o.Before),
		mustBeNonNegative("after", o.After),
		mustBeNonNegative("continuation", o.Continuation),
		mustBeNonNegative("rare_max", o.RareMax),
	)
	if o.MinFold < 2 {
		errs = append(errs, &fieldError{"min_fold", fmt.Sprintf("must be >= 2, got %d", o.MinFold)})
	}
	return errors.Join(errs...)
}

type keywordsNode struct{ opt KeywordsOptions }

// NewKeywords builds the key-line node. On logs it scores every line by
// what it says: errors, failures, exceptions, assertions and their
// expected/actual values, exit codes, commands, summaries, and (in logs of
// records) lines of rare templates. It keeps those lines with context
// around them, and the indented or blank lines that continue them, so a
// multi-line failure reason stays whole and in order; every run of other
// lines becomes one marker that says how many lines it folded. JSON and
// HTML are left to the structured node; prose and transcripts pass, since
// their lines carry meaning that keywords cannot weigh.
func NewKeywords(o KeywordsOptions) Node { return keywordsNode{o} }

func (keywordsNode) Key() Key { return KeyKeywords }

const keywordsFolded = "folded by keywords"

func (n keywordsNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	if in.Kind != KindLog {
		return skip(in, "kind "+string(in.Kind)+" passes"), nil
	}
	// Rarity depends on the whole text, and folding changes the whole
	// text: run to a fixed point so that a second run changes nothing.
	lay := layoutOf(in)
	out, err := fixpoint(ctx, in.Text, 4, func(ctx context.Context, text string) (string, bool, error) {
		return n.pass(ctx, text, lay)
	})
	if err != nil {
		return Outcome{}, err
	}
	if out == in.Text {
		return skip(in, "no lines to fold"), nil
	}
	return done(out), nil
}

// pass folds one round. Its output is settled when rarity played no part:
// key lines, their context and the short runs between them are then the
// same in a second pass, so nothing more folds.
func (n keywordsNode) pass(ctx context.Context, text string, lay LogLayout) (string, bool, error) {
	x := newLineIndex(text)
	nl := x.len()
	if nl < n.opt.MinFold+2 {
		return text, true, nil
	}
	rare := false
	cc := canceled{ctx: ctx}
	keep := make([]bool, nl)
	score := make([]int8, nl)
	for i := 0; i < nl; i++ {
		if err := cc.check(); err != nil {
			return "", false, err
		}
		switch l := x.line(i); {
		case IsProtectedLine(l):
			score[i] = 3
		case parseFoldMarker(l) > 0:
			score[i] = -1
		default:
			score[i] = int8(lineSignal(l))
		}
	}
	if n.opt.RareMax > 0 && lay.Records {
		rare = true
		if err := n.markRare(ctx, x, score, lay); err != nil {
			return "", false, err
		}
	}
	for i := 0; i < nl; i++ {
		if score[i] <= 0 {
			continue
		}
		keep[i] = true
		if score[i] < 2 {
			continue
		}
		// Context before, counted in lines that say something.
		for j, c := i-1, 0; j >= 0 && c < n.opt.Before; j-- {
			keep[j] = true
			if substantial(x.line(j)) {
				c++
			}
		}
		// Context after, then the indented continuation.
		j, c := i+1, 0
		for ; j < nl && c < n.opt.After; j++ {
			keep[j] = true
			if substantial(x.line(j)) {
				c++
			}
		}
		for c = 0; j < nl && c < n.opt.Continuation; j++ {
			l := x.line(j)
			if !continues(l) || endsBlock(l) {
				break
			}
			keep[j] = true
			if substantial(l) {
				c++
			}
		}
	}
	// Lines [0, same) go out as they are; the writer starts at the first fold.
	var w *lineWriter
	same := 0
	for i := 0; i < nl; {
		if keep[i] || score[i] > 0 {
			i++
			continue
		}
		j := i
		folded := 0
		for j < nl && !keep[j] && score[j] <= 0 {
			if m := parseFoldMarker(x.line(j)); m > 0 {
				folded += m
			} else {
				folded++
			}
			j++
		}
		if j-i >= n.opt.MinFold || (j-i > 1 && folded > j-i) {
			if w == nil {
				w = newLineWriter(len(text))
			}
			if same < i {
				w.add(x.span(same, i))
			}
			w.add(foldMarker(folded, keywordsFolded))
			same = j
		}
		i = j
	}
	if w == nil {
		return text, true, nil
	}
	if same < nl {
		w.add(x.span(same, nl))
	}
	return w.String(), !rare, nil
}

// endsBlock reports a line that cannot continue a failure: a test that
// passed, or the next command.
func endsBlock(line string) bool {
	if strings.HasPrefix(lineHead(line), "$ ") {
		return true
	}
	return substantial(line) && passed(line)
}

// substantial reports a line with at least four visible characters; blank
// and near-blank lines do not count as context.
func substantial(line string) bool {
	n := 0
	for i := 0; i < len(line); {
		c := line[i]
		if c == 0x1b {
			i = skipANSI(line, i)
			continue
		}
		if c != ' ' && c != '\t' {
			n++
			if n >= 4 {
				return true
			}
		}
		i++
	}
	return false
}

// continues reports a line that carries on the one above: indented, blank
// or a caret under a column.
func continues(line string) bool {
	if line == "" {
		return true
	}
	c := line[0]
	if c == 0x1b {
		i := skipANSI(line, 0)
		if i >= len(line) {
			return true
		}
		c = line[i]
	}
	return strings.IndexByte(" \t^|}])=#~>", c) >= 0 || isFrame(line)
}

// isFrame reports a stack frame: "at f (file:12)", "from file:12:in",
// "File "x.py", line 3", or a line that opens with a file:line location.
func isFrame(line string) bool {
	s := lineHead(line)
	for _, p := range [...]string{"at ", "from ", "File \"", "in "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	end := strings.IndexAny(s, " \t")
	if end < 0 {
		end = len(s)
	}
	return hasFileLine(s[:end])
}

// hasFileLine reports a token such as src/a.c:12, Foo.java:123) or
// x.rb:5:in: a name with an extension, a colon and a line number.
func hasFileLine(tok string) bool {
	for i := strings.IndexByte(tok, ':'); i >= 0; {
		if i+1 < len(tok) && isDigit(tok[i+1]) {
			dot := strings.LastIndexByte(tok[:i], '.')
			if dot > 0 && dot < i-1 && isLetter(tok[dot+1]) && isWordByte(tok[dot-1]) {
				return true
			}
		}
		j := strings.IndexByte(tok[i+1:], ':')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return false
}

// keptKeysMaxLines bounds the texts whose template keys markRare keeps
// between its passes.
const keptKeysMaxLines = 1 << 16

// recordKey is a line's template key and weight, for a record line.
type recordKey struct {
	key    uint64
	weight int
	record bool
}

// markRare raises to 2 the score of record lines whose template is rare.
// It is called when most of the text is records. Template keys are
// counted first; up to keptKeysMaxLines lines they are kept for the
// second pass, beyond that they are computed again, since 24 bytes a line
// would outweigh a text of short lines.
func (n keywordsNode) markRare(ctx context.Context, x lineIndex, score []int8, lay LogLayout) error {
	cc := canceled{ctx: ctx}
	counts := map[uint64]int{}
	var toks []tok
	keyOf := func(i int) recordKey {
		l := x.line(i)
		if !lay.opensRecord(l) {
			return recordKey{}
		}
		head, w := splitCount(l)
		toks = lay.templateTokens(head, toks[:0])
		k := uint64(fnvOffset) ^ uint64(len(toks))
		for _, t := range toks {
			k = (k ^ tokenID(t)) * fnvPrime
		}
		return recordKey{key: k, weight: w, record: true}
	}
	var kept []recordKey
	if x.len() <= keptKeysMaxLines {
		kept = make([]recordKey, x.len())
	}
	for i := 0; i < x.len(); i++ {
		if err := cc.check(); err != nil {
			return err
		}
		r := keyOf(i)
		if r.record {
			counts[r.key] += r.weight
		}
		if kept != nil {
			kept[i] = r
		}
	}
	for i := 0; i < x.len(); i++ {
		if err := cc.check(); err != nil {
			return err
		}
		if score[i] >= 2 {
			continue
		}
		var r recordKey
		if kept != nil {
			r = kept[i]
		} else {
			r = keyOf(i)
		}
		if r.record && (r.weight > 1 || counts[r.key] <= n.opt.RareMax) {
			// A line that already stands for several is a template's one instance.
			score[i] = 2
		}
	}
	return nil
}

// signalWords scores lower-case words by what they say about the run.
// 3: something went wrong. 2: a fact worth keeping (a warning, an
// expectation, a summary). 1: a weak fact.
var signalWords = newScoreTable(map[int8][]string{
	3: {"error", "errors", "err", "fail", "fails", "failed", "failing", "failure", "failures",
		"fatal", "exception", "exceptions", "panic", "panicked", "traceback", "abort", "aborted",
		"aborting", "segfault", "segmentation", "sigsegv", "sigabrt", "sigkill", "crash", "crashed",
		"assert", "assertion", "undefined", "unmatched", "unexpected", "invalid", "illegal", "cannot",
		"unable", "denied", "refused", "timeout", "killed", "mismatch", "missing", "violation",
		"violations", "offense", "offenses", "severity", "notok", "unresolved", "forbidden",
		"unauthorized", "rejected", "corrupt", "broken", "disconnected", "overflow", "conflict",
		"conflicts"},
	2: {"warning", "warnings", "warn", "deprecated", "expected", "actual", "expecting", "summary"},
	1: {"got", "skipped", "result", "results", "conclusion"},
})

// signalPairs scores two-word phrases ("not found") that signal a failure
// on their own.
var signalPairs = newScoreTable(map[int8][]string{
	3: {"not found", "no such", "could not", "couldn t", "can t", "did not", "exited with",
		"exit code", "exit status", "timed out", "no rule", "not ok", "did you", "does not",
		"not supported", "stack trace", "core dumped", "non zero", "won t", "doesn t"},
})

// scoreTable holds scored lower-case words or phrases, with a filter
// that rules most other words out before the lookup: it is asked about
// every word of every line.
type scoreTable struct {
	scores map[string]int8
	// first[n] and last[n] have bit c-'a' set when a word of length n,
	// or the first word of a phrase, starts or ends with c.
	first, last [16]uint32
	// second[n] is first for the second words of phrases.
	second [16]uint32
}

func newScoreTable(byScore map[int8][]string) *scoreTable {
	t := &scoreTable{scores: map[string]int8{}}
	for score, words := range byScore {
		for _, w := range words {
			t.scores[w] = score
			a, b, _ := strings.Cut(w, " ")
			t.first[len(a)] |= 1 << (a[0] - 'a')
			t.last[len(a)] |= 1 << (a[len(a)-1] - 'a')
			if b != "" {
				t.second[len(b)] |= 1 << (b[0] - 'a')
			}
		}
	}
	return t
}

// mayHold reports whether the table may hold a word (or open a phrase
// with one) of n letters and underscores, first and last as given, lower
// case.
func (t *scoreTable) mayHold(n int, first, last byte) bool {
	return n < len(t.first) && t.first[n]>>(first-'a')&1 != 0 && t.last[n]>>(last-'a')&1 != 0
}

// maySecond reports whether the table may hold a phrase whose second word
// has n bytes and starts with first, lower case.
func (t *scoreTable) maySecond(n int, first byte) bool {
	return n < len(t.second) && t.second[n]>>(first-'a')&1 != 0
}

// signalMarks are symbols that mark a failure in test and build output.
var signalMarks = [...]string{"✖", "✗", "❌", "✘", "[-]", "***", "!!!"}

// lineSignal scores one line: 3 for a failure, 2 for a command, a warning
// or an expectation, 1 for weaker facts, 0 for nothing. Counts of zero
// ("0 errors", "failures: 0") do not count, nor do failure words in the
// name of a test that passed ("rejects invalid input ... OK").
func lineSignal(line string) int {
	s := rawSignal(line)
	if s >= 2 && passed(line) {
		return 0
	}
	return s
}

// passed reports a line that ends with a passing verdict (OK, PASSED, ✓) or
// opens with one (TAP "ok 12", "✓ test").
func passed(line string) bool {
	head := line
	if len(head) > 64 {
		head = head[:64]
	}
	head = strings.TrimLeft(stripANSI(head), " \t")
	for _, p := range [...]string{"ok ", "✓", "✔", "√", "PASS ", "PASSED "} {
		if strings.HasPrefix(head, p) {
			return true
		}
	}
	tail := line
	if len(tail) > 64 {
		tail = tail[len(tail)-64:]
	}
	tail = strings.TrimRight(stripANSI(tail), " \t.)]")
	for _, v := range [...]string{"✓", "✔", "√"} {
		if strings.HasSuffix(tail, v) {
			return true
		}
	}
	w := len(tail)
	for w > 0 && isLetter(tail[w-1]) {
		w--
	}
	if w > 0 && strings.IndexByte(" \t[(:", tail[w-1]) < 0 {
		return false
	}
	switch strings.ToLower(tail[w:]) {
	case "ok", "pass", "passed", "passes", "success", "succeeded", "successful":
		return true
	}
	return false
}

func rawSignal(line string) int {
	best := 0
	start := skipANSI(line, 0)
	head := lineHead(line)
	if strings.HasPrefix(head, "$ ") {
		best = 1 // a command: a landmark, kept without context
	}
	if numberedItem(head) {
		best = 2
	}
	if best == 0 {
		// A diagnostic location first (src/a.c:12:5: note: ...): a file and
		// a line someone will open.
		end := strings.IndexAny(head, " \t")
		if end < 0 {
			end = len(head)
		}
		if hasFileLine(head[:end]) {
			best = 1
		}
	}
	// The previous word, lower-cased and cut to 15 bytes, is kept only
	// when it may open a phrase or be "without": no other word reads it.
	var prev [15]byte
	prevLen := 0 // 0 at the start and after a number
	prevKept := false
	prevZero := false // the previous token was the number 0
	marks := false    // the line holds a byte that may start a mark
	for i := start; i < len(line); {
		c := line[i]
		if !isLetter(c) {
			switch {
			case c == 0x1b:
				i = skipANSI(line, i)
				continue
			case isDigit(c):
				e := digitRun(line, i)
				prevZero = e-i == 1 && c == '0' && (e == len(line) || !isLetter(line[e]))
				i = e
				prevLen = 0
				continue
			case c >= 0x80 || c == '*' || c == '!' || c == '-':
				marks = true
			}
			if c != ' ' {
				// "0 errors" counts, "Errors: 0, Skipped: 2" does not carry over.
				prevZero = false
			}
			i++
			continue
		}
		e := i
		for e < len(line) && (isLetter(line[e]) || line[e] == '_') {
			e++
		}
		word := line[i:min(e, i+15)]
		n, first := len(word), lower(word[0])
		s := int8(0)
		if e-i <= 15 && !inPath(line, i, e) {
			s = wordSignal(word)
		}
		if s == 0 && prevLen > 0 && prevKept && signalPairs.maySecond(n, first) {
			var p [31]byte
			k := copy(p[:], prev[:prevLen])
			p[k] = ' '
			k += 1 + lowerInto(p[k+1:], word)
			s = signalPairs.scores[string(p[:k])]
		}
		if s > 0 && (prevZero || zeroAfter(line, e) || (prevKept && noBefore(prev[:prevLen]))) {
			s = 0
		}
		if int(s) > best {
			best = int(s)
			if best == 3 {
				return 3
			}
		}
		last := lower(word[n-1])
		prevKept = signalPairs.mayHold(n, first, last) || (n == len("without") && first == 'w' && last == 't')
		if prevKept {
			lowerInto(prev[:], word)
		}
		prevLen = n
		prevZero = false
		i = e
	}
	if marks {
		for _, m := range signalMarks {
			if strings.Contains(line, m) {
				return 3
			}
		}
	}
	return best
}

// lowerInto writes s lower-cased to dst and returns its length.
func lowerInto(dst []byte, s string) int {
	for k := 0; k < len(s); k++ {
		dst[k] = lower(s[k])
	}
	return len(s)
}

// wordSignal looks a word of letters and underscores up, as written and
// at most 15 bytes long, and also catches compound names such as
// AssertionError, RuntimeException or TestFailure, whose suffix starts
// with a capital.
func wordSignal(orig string) int8 {
	n, first, last := len(orig), lower(orig[0]), lower(orig[len(orig)-1])
	var w [15]byte
	lowered := false
	if signalWords.mayHold(n, first, last) {
		lowerInto(w[:], orig)
		lowered = true
		if s := signalWords.scores[string(w[:n])]; s > 0 {
			return s
		}
	}
	if n > 5 && strings.IndexByte(orig, '_') < 0 {
		for _, suf := range [...]string{"error", "exception", "failure", "failed"} {
			k := n - len(suf)
			if k > 0 && orig[k] >= 'A' && orig[k] <= 'Z' {
				if !lowered {
					lowerInto(w[:], orig)
					lowered = true
				}
				if string(w[k:n]) == suf {
					return 3
				}
			}
		}
	}
	return 0
}

// inPath reports a word that is part of a path or a flag
// (pkg/errors, -timeout, errors/x): a name, not a message.
func inPath(line string, i, e int) bool {
	return (i > 0 && (line[i-1] == '/' || line[i-1] == '-' || line[i-1] == '\\')) ||
		(e < len(line) && (line[e] == '/' || line[e] == '\\'))
}

// zeroAfter reports "errors: 0", "failures=0" and the like.
func zeroAfter(line string, i int) bool {
	for i < len(line) && (line[i] == ':' || line[i] == '=' || line[i] == ' ') {
		i++
	}
	if i >= len(line) || line[i] != '0' {
		return false
	}
	// 0 but not 0.5 or 01.
	return i+1 == len(line) || !isDigit(line[i+1]) && !(line[i+1] == '.' && i+2 < len(line) && isDigit(line[i+2]))
}

func noBefore(prev []byte) bool { return string(prev) == "no" || string(prev) == "without" }

// numberedItem reports a numbered failure item such as "1) Foo::bar".
func numberedItem(s string) bool {
	e := digitRun(s, 0)
	return e > 0 && e <= 4 && e+1 < len(s) && s[e] == ')' && s[e+1] == ' '
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
