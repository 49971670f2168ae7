package stages

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/jetcompact/jetcompact/stages/textkit"
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
	// TailChars: in a build log, the last this many characters of a step
	// that failed (a non-zero exit) are kept whole; steps that passed fold
	// to their header. 0 keeps only what the key lines keep.
	TailChars int `yaml:"tail_chars"`
}

// DefaultKeywordsOptions returns the shipped defaults.
func DefaultKeywordsOptions() KeywordsOptions {
	return KeywordsOptions{Before: 4, After: 8, Continuation: 300, MinFold: 4, RareMax: 3, TailChars: 3000}
}

// Validate reports a knob that is out of range.
func (o KeywordsOptions) Validate() error {
	var errs []error
	errs = append(errs,
		mustBeNonNegative("before", o.Before),
		mustBeNonNegative("after", o.After),
		mustBeNonNegative("continuation", o.Continuation),
		mustBeNonNegative("rare_max", o.RareMax),
		mustBeNonNegative("tail_chars", o.TailChars),
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
func (n keywordsNode) pass(ctx context.Context, text string, lay logs.Layout) (string, bool, error) {
	x := lineIndex(ctx, text)
	nl := x.Len()
	if nl < n.opt.MinFold+2 {
		return text, true, nil
	}
	rare := n.opt.RareMax > 0 && lay.Records
	var rareLine []bool
	if rare {
		var err error
		if rareLine, err = n.rareLines(ctx, x, lay); err != nil {
			return "", false, err
		}
	}
	// A rare record scores 2 at least whatever it says, so its own
	// signal is read only when a fold is possible at all: a log that
	// log_dedup wrote holds one line a template, every one of them rare.
	cc := canceled{ctx: ctx}
	score := make([]int8, nl)
	var deferred []int32 // rare records whose signal is not read yet
	keyLines := 0
	for i := 0; i < nl; i++ {
		if err := cc.check(); err != nil {
			return "", false, err
		}
		switch l := x.Line(i); {
		case IsProtectedLine(l):
			score[i] = 3
		case dumpHeader(l):
			// A thread of a dump (folded to one a stack): its stack,
			// the block below it, is what the dump says.
			score[i] = 3
		case rareLine != nil && rareLine[i]:
			score[i] = 2
			if textkit.ParseFoldMarker(l) == 0 {
				deferred = append(deferred, int32(i))
			}
		case textkit.ParseFoldMarker(l) > 0:
			score[i] = -1
		default:
			score[i] = int8(lineSignal(l))
		}
		if score[i] > 0 {
			keyLines++
		}
	}
	// Steps fold or keep lines only once a line reports an exit status;
	// until then they decide no more than whether the ends are marked.
	var steps []buildStep
	if keyLines == 0 || mayReportExit(text) {
		steps = findSteps(x)
	}
	if keyLines == 0 && len(steps) == 0 {
		// Output that reports nothing (a listing, a clean build's
		// progress, a diff): its opening says what ran and its end how
		// it ended. Those are its key lines, or one marker would stand
		// for the whole text.
		markEnds(x, score, n.opt.Before, n.opt.After)
	}
	keep := make([]bool, nl)
	if len(steps) == 0 && !n.foldRuns(x, score, keep, nil) {
		// Context and steps only keep lines or fold a step: with no
		// step and no run to fold, nothing would fold.
		return text, true, nil
	}
	for _, i := range deferred {
		score[i] = max(int8(lineSignal(x.Line(int(i)))), 2)
	}
	n.markContext(x, score, keep)
	n.markSteps(x, steps, score, keep)
	var w *textkit.LineWriter
	if !n.foldRuns(x, score, keep, func() *textkit.LineWriter {
		w = newLineWriter(len(text))
		return w
	}) {
		return text, true, nil
	}
	return w.String(), !rare, nil
}

// mayReportExit reports a text that holds one of exitMarks. Without them
// no line gives a step an exit status (see exitStatus): no step has failed
// or passed, and markSteps changes nothing.
func mayReportExit(text string) bool {
	for _, m := range exitMarks {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}

// markEnds scores the first head and the last tail lines of a text that
// has no key line as key lines, without context of their own. Blank
// lines and fold markers are not counted, so a second pass marks the
// same lines.
func markEnds(x textkit.LineIndex, score []int8, head, tail int) {
	end := func(i int) bool {
		l := x.Line(i)
		return strings.TrimSpace(l) != "" && textkit.ParseFoldMarker(l) == 0
	}
	for i, n := 0, 0; i < x.Len() && n < head; i++ {
		if end(i) {
			score[i], n = 1, n+1
		}
	}
	for i, n := x.Len()-1, 0; i >= 0 && n < tail; i-- {
		if end(i) {
			score[i], n = 1, n+1
		}
	}
}

// foldRuns folds each run of lines neither kept nor scored into one
// marker, writing the text to the writer newWriter makes at the first
// fold. It reports whether any run folds; with a nil newWriter it only
// says so.
func (n keywordsNode) foldRuns(x textkit.LineIndex, score []int8, keep []bool, newWriter func() *textkit.LineWriter) bool {
	nl := x.Len()
	var w *textkit.LineWriter
	same := 0 // lines [0, same) go out as they are
	for i := 0; i < nl; {
		if keep[i] || score[i] > 0 {
			i++
			continue
		}
		j := i
		folded := 0
		for j < nl && !keep[j] && score[j] <= 0 {
			if m := textkit.ParseFoldMarker(x.Line(j)); m > 0 {
				folded += m
			} else {
				folded++
			}
			j++
		}
		// A short run stays so that a reason reads on, unless it is long
		// lines (progress dots, minified blobs) a marker is far shorter than.
		if j-i >= n.opt.MinFold || (j-i > 1 && folded > j-i) || (folded == j-i && x.Starts[j]-x.Starts[i] > 2*longContextLine) {
			if newWriter == nil {
				return true
			}
			if w == nil {
				w = newWriter()
			}
			if same < i {
				w.Add(x.Span(same, i))
			}
			w.Add(foldMarker(folded, keywordsFolded))
			same = j
		}
		i = j
	}
	if w != nil && same < nl {
		w.Add(x.Span(same, nl))
	}
	return w != nil
}

// markContext keeps each key line, and around those scoring 2 or more
// the context before and after (counted in substantial lines) and the
// continuation that follows. Windows are found through the positions of
// substantial lines and marked as intervals, so the work is linear however
// many key lines there are (a log of 40,000 short "err" lines).
func (n keywordsNode) markContext(x textkit.LineIndex, score []int8, keep []bool) {
	nl := x.Len()
	var sub []int32    // sub[k]: substantial lines among [0, k)
	var subPos []int32 // positions of the substantial lines
	var contEnd []int32
	var diff []bool
	delta := make([]int32, nl+1)
	var seenWarnings map[string]bool
	var tmpl []byte // a warning's template, the buffer reused
	for i := 0; i < nl; i++ {
		if score[i] <= 0 {
			continue
		}
		keep[i] = true
		if score[i] < 2 {
			continue
		}
		// Repeated warnings (a compiler's hundred "unused variable"s):
		// the first of a template keeps its context, the rest stand alone.
		if score[i] == 2 {
			if seenWarnings == nil {
				seenWarnings = map[string]bool{}
			}
			tmpl = appendWarningTemplate(tmpl[:0], x.Line(i))
			if seenWarnings[string(tmpl)] {
				continue
			}
			seenWarnings[string(tmpl)] = true
		}
		if sub == nil {
			sub, subPos = substantialIndex(x)
			diff = diffLines(x)
			contEnd = make([]int32, nl+1)
			for k := range contEnd {
				contEnd[k] = -1
			}
		}
		lo := i
		if b := n.opt.Before; b > 0 {
			lo = 0
			if k := int(sub[i]) - b; k >= 0 {
				lo = int(subPos[k])
			}
		}
		hi := i + 1
		if a := n.opt.After; a > 0 {
			hi = nl
			if k := int(sub[i+1]) + a - 1; k < len(subPos) {
				hi = int(subPos[k]) + 1
			}
		}
		// Only a failure goes on in an indented block (a trace, a diff);
		// a warning or a summary keeps its context alone.
		if c := n.opt.Continuation; c > 0 && hi < nl && score[i] >= 3 {
			end := continuationEnd(x, contEnd, diff, hi)
			if strings.HasPrefix(lineHead(x.Line(i)), "Traceback (most recent call last)") {
				// A traceback runs to its final exception line, whatever it says.
				if e := continuationEnd(x, contEnd, diff, i+1); e < nl {
					end = max(end, e+1)
				}
			}
			// A region (a trace, a diff, a list) longer than the budget is
			// folded from its middle: its first lines up to the budget stay,
			// and so does its end.
			if tail := max(c/10, 1); int(sub[end]-sub[hi]) > c+tail {
				headEnd := int(subPos[int(sub[hi])+c-1]) + 1
				tailFrom := int(subPos[int(sub[end])-tail])
				delta[tailFrom]++
				delta[end]--
				end = headEnd
			}
			hi = max(hi, end)
		}
		delta[lo]++
		delta[hi]--
	}
	if sub == nil {
		return
	}
	open := int32(0)
	for i := 0; i < nl; i++ {
		open += delta[i]
		// A very long line is no context: progress dots, a minified
		// bundle, a command line of every flag. Key lines keep theirs.
		if open > 0 && (score[i] > 0 || len(x.Line(i)) <= longContextLine) {
			keep[i] = true
		}
	}
}

// appendWarningTemplate appends line with its digit runs and quoted names
// masked: the warnings of one kind share it ("unused variable 'tmp'" at
// any place). Plain runs are copied whole.
func appendWarningTemplate(b []byte, line string) []byte {
	for i := 0; i < len(line); {
		j := i
		for j < len(line) && !warningMasked[line[j]] {
			j++
		}
		b = append(b, line[i:j]...)
		if j == len(line) {
			break
		}
		c := line[j]
		if textkit.IsDigit(c) {
			if len(b) == 0 || b[len(b)-1] != '0' {
				b = append(b, '0')
			}
			i = j + 1
			continue
		}
		b = append(b, c) // a quote: what it holds is masked, an unclosed one to the end
		k := strings.IndexByte(line[j+1:], c)
		if k < 0 {
			break
		}
		b = append(b, c)
		i = j + k + 2
	}
	return b
}

// warningMasked marks the bytes appendWarningTemplate masks: digits, and
// the quotes around names.
var warningMasked = func() (t [256]bool) {
	for _, c := range "0123456789'`\"" {
		t[c] = true
	}
	return t
}()

// longContextLine is the longest line, in bytes, kept as context.
const longContextLine = 1000

// substantialIndex counts substantial lines: sub[k] is how many lie in
// [0, k), pos lists where they are.
func substantialIndex(x textkit.LineIndex) (sub, pos []int32) {
	nl := x.Len()
	sub = make([]int32, nl+1)
	for i := 0; i < nl; i++ {
		sub[i+1] = sub[i]
		if substantial(x.Line(i)) {
			sub[i+1]++
			pos = append(pos, int32(i))
		}
	}
	return sub, pos
}

// continuationEnd returns the end of the run of lines from j that carry on
// a failure (see continues and endsBlock; also a diff to its last hunk and
// a Java trace through its "Caused by:" chain), memoized in memo so that
// runs shared by many key lines are walked once.
func continuationEnd(x textkit.LineIndex, memo []int32, diff []bool, j int) int {
	nl := x.Len()
	k := j
	for k < nl && memo[k] < 0 {
		l := x.Line(k)
		if !(continues(l) || diff[k] || strings.HasPrefix(lineHead(l), "Caused by: ")) || endsBlock(l) {
			memo[k] = int32(k)
			break
		}
		k++
	}
	end := nl
	if k < nl {
		end = int(memo[k])
	}
	for m := j; m < k; m++ {
		memo[m] = int32(end)
	}
	return end
}

// diffLines marks the lines of unified diffs: a diff header ("diff
// --git", "--- a/x" over "+++ b/x", "@@ -1 +1 @@") and the hunk body
// (" ", "+", "-", "\ No newline") below it, to its last hunk. A dashed list
// that no diff header opens is not a diff.
func diffLines(x textkit.LineIndex) []bool {
	in := make([]bool, x.Len())
	inside := false
	for k := range in {
		l := x.Line(k)
		switch {
		case diffHeader(x, k):
			inside = true
		case inside && l != "" && strings.IndexByte(" +-\\", l[0]) >= 0:
		default:
			inside = false
		}
		in[k] = inside
	}
	return in
}

func diffHeader(x textkit.LineIndex, k int) bool {
	l := x.Line(k)
	switch {
	case strings.HasPrefix(l, "diff --git ") || strings.HasPrefix(l, "@@ -"):
		return true
	case strings.HasPrefix(l, "index ") && k > 0 && strings.HasPrefix(x.Line(k-1), "diff --git "):
		return true
	case strings.HasPrefix(l, "--- ") && k+1 < x.Len() && strings.HasPrefix(x.Line(k+1), "+++ "):
		return true
	case strings.HasPrefix(l, "+++ ") && k > 0 && strings.HasPrefix(x.Line(k-1), "--- "):
		return true
	}
	return false
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
			i = textkit.SkipANSI(line, i)
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
		i := textkit.SkipANSI(line, 0)
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
	// One pass, remembering the last dot: linear even for "1:1:1:...".
	dot := -1
	for i := 0; i+1 < len(tok); i++ {
		switch tok[i] {
		case '.':
			dot = i
		case ':':
			if textkit.IsDigit(tok[i+1]) && dot > 0 && dot < i-1 && isLetter(tok[dot+1]) && isWordByte(tok[dot-1]) {
				return true
			}
		}
	}
	return false
}

// keptKeysMaxLines bounds the texts whose template keys rareLines keeps
// between its passes.
const keptKeysMaxLines = 1 << 16

// rareLines marks the record lines whose template is rare: seen at most
// RareMax times, or a line that already stands for several (a template's
// one instance). It is asked when most of the text is records. Template
// keys are counted first; up to keptKeysMaxLines lines they are kept for
// the second pass, beyond that they are computed again, since 24 bytes a
// line would outweigh a text of short lines.
func (n keywordsNode) rareLines(ctx context.Context, x textkit.LineIndex, lay logs.Layout) ([]bool, error) {
	cc := canceled{ctx: ctx}
	counts := make(map[uint64]int, min(x.Len(), 1<<12))
	keyer := newRecordKeyer(ctx, lay)
	keyOf := func(i int) recordKey { return keyer.key(x.Line(i)) }
	var kept []recordKey
	if x.Len() <= keptKeysMaxLines {
		kept = make([]recordKey, x.Len())
	}
	for i := 0; i < x.Len(); i++ {
		if err := cc.check(); err != nil {
			return nil, err
		}
		r := keyOf(i)
		if r.record {
			counts[r.key] += r.weight
		}
		if kept != nil {
			kept[i] = r
		}
	}
	rare := make([]bool, x.Len())
	for i := range rare {
		if err := cc.check(); err != nil {
			return nil, err
		}
		var r recordKey
		if kept != nil {
			r = kept[i]
		} else {
			r = keyOf(i)
		}
		rare[i] = r.record && (r.weight > 1 || counts[r.key] <= n.opt.RareMax)
	}
	return rare, nil
}

// signalClass is one named class of lines that say something about a
// run, with the lower-case words and two-word phrases that show it.
type signalClass struct {
	name  string
	score int8 // 3: something went wrong; 2: a fact worth keeping; 1: a weak fact
	// failure: a step that prints it reports a failure, whatever its exit.
	failure bool
	words   []string
}

// signalClasses is the vocabulary, one entry per class of message. A word
// belongs here when a class of tools writes it, never for one file.
var signalClasses = [...]signalClass{
	// A run's own verdict: the tool says it failed (make, npm, pytest, go test, mvn).
	{"verdict", 3, true, []string{"error", "errors", "err", "fail", "fails", "failed", "failing", "failure",
		"failures", "fatal", "unsuccessful", "not successful", "not ok"}},
	// A program that died: panics, signals, aborts, crashes (any runtime).
	{"crash", 3, true, []string{"exception", "exceptions", "panic", "panicked", "traceback", "stack trace",
		"abort", "aborted", "segfault", "segmentation", "sigsegv", "sigabrt", "sigkill", "crash",
		"crashed", "killed", "core dumped", "overflow"}},
	// Test assertions and their mismatch reports (xunit, rspec, jest, tap).
	{"assertion", 3, true, []string{"assert", "assertion", "mismatch"}},
	// A name or file the tool looked for and did not find (compilers, linkers, loaders, shells).
	{"unresolved", 3, false, []string{"undefined", "unresolved", "missing", "not found", "no such",
		"cannot", "unable", "could not", "couldn t", "can t", "no rule", "did you"}},
	// Input a parser or checker rejected (syntax errors, linters, validators).
	{"rejected input", 3, false, []string{"unexpected", "invalid", "illegal", "unmatched", "violation",
		"violations", "corrupt", "not supported", "does not", "doesn t", "did not", "won t"}},
	// Access and connection refused (registries, servers, package mirrors).
	{"denied", 3, false, []string{"denied", "refused", "forbidden", "unauthorized", "rejected",
		"disconnected"}},
	// A step that ran out of time or another limit (runners, test timeouts,
	// health checks, "context deadline exceeded", "quota exceeded").
	{"timeout", 3, false, []string{"timeout", "timed out", "exceeded"}},
	// An exit status reported in words (shells, CI runners); a zero status is no failure.
	{"exit status", 3, false, []string{"exited with", "exit code", "exit status", "non zero"}},
	// Merge and dependency conflicts (git, package resolvers).
	{"conflict", 3, false, []string{"conflict", "conflicts"}},
	// Warnings and deprecations (compilers, package managers).
	{"warning", 2, false, []string{"warning", "warnings", "warn", "deprecated"}},
	// Summaries a runner prints at its end.
	{"summary", 2, false, []string{"summary"}},
	{"summary", 1, false, []string{"skipped", "result", "results", "conclusion"}},
}

// Signal classes found by shape rather than by a word. Each can be
// switched off, like a word class, to measure what it brings.
const (
	// Exception and error type names of any length: OutOfMemoryError,
	// ModuleNotFoundError, RuntimeException, TestFailure.
	signalErrorType = "error type name"
	// Compiler diagnostic codes: E0308, error[E0599], TS2345:, CS1002:.
	signalCompilerCode = "compiler code"
	// Failure marks of test reporters: ✖ ✗ ❌ ✘.
	signalFailMark = "failure mark"
	// A heading that announces a list or diff of problems below it
	// ("Needs attention:", "please apply the changes below").
	signalProblemHeading = "problem heading"
	// An assertion report: an expected value against what came instead.
	signalAssertionReport = "assertion report"
)

// signalsOff names the signals (classes, shape signals or single vocabulary
// entries) switched off. Only the ablation test sets it, before building
// the tables again with setSignalsOff.
var signalsOff = map[string]bool{}

var (
	signalWords, signalPairs   = buildSignalTables(false)
	failureWords, failurePairs = buildSignalTables(true)
)

// setSignalsOff switches the named signals off (none for nil) and builds
// the tables again. For tests: it is not safe while a node runs.
func setSignalsOff(names ...string) {
	signalsOff = map[string]bool{}
	for _, n := range names {
		signalsOff[n] = true
	}
	signalWords, signalPairs = buildSignalTables(false)
	failureWords, failurePairs = buildSignalTables(true)
}

func signalOn(name string) bool { return len(signalsOff) == 0 || !signalsOff[name] }

// buildSignalTables builds the word and phrase tables of the classes
// switched on; of the failure classes only, when failureOnly is set.
func buildSignalTables(failureOnly bool) (words, pairs *scoreTable) {
	w, p := map[int8][]string{}, map[int8][]string{}
	for _, c := range signalClasses {
		if signalsOff[c.name] || (failureOnly && !c.failure) {
			continue
		}
		for _, e := range c.words {
			if signalsOff[e] {
				continue
			}
			if strings.IndexByte(e, ' ') >= 0 {
				p[c.score] = append(p[c.score], e)
			} else {
				w[c.score] = append(w[c.score], e)
			}
		}
	}
	return newScoreTable(w), newScoreTable(p)
}

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

// signalMarks are symbols that mark a failure in test and build output
// (class signalFailMark).
var signalMarks = [...]string{"✖", "✗", "❌", "✘"}

// lineSignal scores one line: 3 for a failure, 2 for a warning, a numbered
// failure item or a summary, 1 for weaker facts (a command, a location),
// 0 for nothing; > 0 is a line keywords keeps as signal. Counts of zero
// ("0 errors", "failures: 0") do not count, nor does a test that passed or
// was skipped, whatever its name says ("rejects invalid input ... OK").
func lineSignal(line string) int {
	s := rawSignal(line)
	if s >= 1 && (passed(line) || cargoBanner(line)) {
		return 0
	}
	if s == 3 && warningTagged(line) {
		return 2
	}
	return s
}

// warningTagged reports a diagnostic the tool itself calls a warning
// ("warning: unused import: `std::error::Error`", "x.c:3:1: warning:
// unused variable 'error'"), no failure tag before it: failure words in
// what it quotes do not make it a failure.
func warningTagged(line string) bool {
	if !strings.Contains(line, "arning:") {
		return false
	}
	s := strings.ToLower(terminalView(line))
	w := strings.Index(s, "warning:")
	if w < 0 {
		return false
	}
	for _, tag := range failureTags {
		if strings.Contains(s[:w], tag) {
			return false
		}
	}
	return true
}

// cargoBanner reports cargo's progress line for a crate ("   Compiling
// quick-error v2.0.1"): the crate's name is no verdict, whatever it says.
func cargoBanner(line string) bool {
	verb, rest, ok := strings.Cut(strings.TrimLeft(line, " "), " ")
	switch verb {
	case "Compiling", "Checking", "Downloaded", "Documenting", "Fresh":
	default:
		return false
	}
	f := strings.Fields(rest)
	return ok && len(f) >= 2 && len(f[1]) > 1 && f[1][0] == 'v' && textkit.IsDigit(f[1][1])
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
	switch v := tail[w:]; strings.ToLower(v) {
	case "skipped", "skip":
		// A test skipped, whatever its name says; in capitals only, as
		// runners print it ("testOnErrorFails SKIPPED").
		return v == strings.ToUpper(v)
	case "ok", "pass", "passed", "passes", "success", "succeeded", "successful":
		// "was not successful" negates the verdict; a lower-case word after
		// a plain word ("expected status ok") is part of a sentence.
		before := strings.TrimRight(tail[:w], " \t")
		if strings.HasSuffix(strings.ToLower(before), " not") || before == "not" {
			return false
		}
		if v != strings.ToUpper(v) && w >= 2 && tail[w-1] == ' ' && isLetter(tail[w-2]) {
			return false
		}
		return true
	}
	return false
}

func rawSignal(line string) int { return rawSignalWith(line, signalWords, signalPairs) }

// reportsFailure reports a line that says something failed: a verdict, a
// crash, an assertion, an error type or code, a failure mark. A step that
// prints one is not folded as passed, whatever its exit status.
func reportsFailure(line string) bool {
	if strings.HasPrefix(lineHead(line), "E: ") {
		return true // apt and dpkg: "E: Unable to locate package x"
	}
	return rawSignalWith(line, failureWords, failurePairs) >= 3 && !passed(line) && failureTagged(line)
}

// failureTags are how tools tag a line that reports a failure, as opposed
// to prose that mentions one ("useful error messages").
var failureTags = [...]string{"error:", "error!", "err!", "[error]", "error[", "fatal:", "failed:", "failed!",
	"failed.", "failure:", "failures:", "panic:", "exception:", "[fail]", "fail:", "not ok ", "--- fail"}

// failureHeads are first words that make a line a failure report
// ("ERROR db connection lost", "FAILED tests/x.py", "fatal: not a repo").
var failureHeads = [...]string{"error", "err", "fail", "failed", "failure", "fatal", "panic", "exception", "traceback", "assertion"}

// failureTagged reports a line shaped as a failure report: a failure word
// first or in a tag, an error type name, a compiler code, a failure mark.
func failureTagged(line string) bool {
	s := strings.ToLower(terminalView(line))
	if len(s) > 400 {
		s = s[:400]
	}
	head := strings.TrimLeft(s, " \t[(*>!#")
	// The first word, or the second after a name ("CMake Error at",
	// "Build failed", "Fatal error:").
	e := 0
	for e < len(head) && isLetter(head[e]) {
		e++
	}
	second := strings.TrimLeft(head[e:], " ")
	e2 := 0
	for e2 < len(second) && isLetter(second[e2]) {
		e2++
	}
	for _, h := range failureHeads {
		if head[:e] == h || second[:e2] == h {
			return true
		}
	}
	for _, t := range failureTags {
		if strings.Contains(s, t) {
			return true
		}
	}
	for _, m := range signalMarks {
		if strings.Contains(line, m) {
			return true
		}
	}
	for i := 0; i < len(line); {
		switch {
		case textkit.IsDigit(line[i]):
			e := textkit.DigitRun(line, i)
			if compilerCode(line, i, e) {
				return true
			}
			i = e
		case isLetter(line[i]):
			e := i
			for e < len(line) && isLetter(line[e]) {
				e++
			}
			if errorTypeName(line[i:e]) {
				return true
			}
			i = e
		default:
			i++
		}
	}
	return false
}

func rawSignalWith(line string, words, pairs *scoreTable) int {
	head := lineHead(line)
	best := headSignal(head)
	var sc signalScan
	used := usedWords(words, pairs)
	for i := textkit.SkipANSI(line, 0); i < len(line); {
		switch signalByte[line[i]] {
		case signalBlank:
			i++
			continue
		case signalPunct, signalWordByte:
			sc.prevZero = false
			i++
			continue
		case signalMarkStart:
			sc.marks, sc.prevZero = true, false
			i++
			continue
		case signalEscape:
			i = textkit.SkipANSI(line, i)
			continue
		case signalDigit:
			e := textkit.DigitRun(line, i)
			if e-i == 4 && compilerCode(line, i, e) {
				return 3
			}
			sc.prevZero, sc.prevLen = zeroCount(line, i, e), 0
			i = e
			continue
		}
		e := i + 1
		for e < len(line) && signalByte[line[e]] >= signalWordByte {
			e++
		}
		next := e // the blank a word mostly ends on changes nothing
		if next < len(line) && line[next] == ' ' {
			next++
		}
		// Most words are read no further: word's first answer, without
		// a call, for a word no table may hold, not capitalised, no
		// phrase open before it.
		n := min(e-i, 15) & 15 // the mask drops bounds checks
		// Bits 26 and up are clear: &31 keeps '_' out and drops shift checks.
		f, l := (lower(line[i])-'a')&31, (lower(line[i+n-1])-'a')&31
		if used.last[n][f]>>l&1 == 0 && !sc.prevKept && (line[i] >= 'a' || n <= 5) {
			sc.prevLen, sc.prevZero = n, false
			i = next
			continue
		}
		if s := int(sc.word(line, i, e, words, pairs)); s > best {
			best = s
			if best == 3 {
				return 3
			}
		}
		i = next
	}
	return sc.lineEnd(line, head, best)
}

// lineEnd scores what only the whole line shows, after its words gave
// best: an assertion report, a failure mark, a heading over problems.
func (sc *signalScan) lineEnd(line, head string, best int) int {
	if sc.expect.both() || (sc.marks && hasFailMark(line)) {
		return 3
	}
	if best < 3 && problemHeading(head) {
		return 3
	}
	return best
}

// zeroCount reports the digit run line[i:e] as the number 0, a word
// after it not joined on ("0 errors" counts none; "0x1f" is no count).
func zeroCount(line string, i, e int) bool {
	return e-i == 1 && line[i] == '0' && (e == len(line) || !isLetter(line[e]))
}

// headSignal scores a line's head before its words are read: a shell
// command, a numbered item, or a diagnostic location (src/a.c:12:5: note:
// ...), a file and a line someone will open.
func headSignal(head string) int {
	if numberedItem(head) {
		return 2
	}
	if strings.HasPrefix(head, "$ ") {
		return 1 // a command: a landmark, kept without context
	}
	end := 0
	for end < len(head) && head[end] != ' ' && head[end] != '\t' {
		end++
	}
	if hasFileLine(head[:end]) {
		return 1
	}
	return 0
}

// hasFailMark reports a failure mark symbol (✖, ✗, ❌, ✘) in line.
func hasFailMark(line string) bool {
	// Every mark is three bytes from 0xE2 on.
	if !signalOn(signalFailMark) || strings.IndexByte(line, 0xE2) < 0 {
		return false
	}
	for _, m := range signalMarks {
		if strings.Contains(line, m) {
			return true
		}
	}
	return false
}

// Byte classes of rawSignalWith's scan: what a byte does between words,
// or whether it is part of a word.
const (
	signalEscape    = iota // ESC: an ANSI sequence to step over
	signalDigit            // a digit: a number, maybe a compiler code
	signalBlank            // a blank changes nothing
	signalPunct            // punctuation ends a zero ("Errors: 0, ...")
	signalMarkStart        // may start a failure mark, and ends a zero
	signalWordByte         // an underscore: punctuation, but inside a word
	signalLetter           // a letter: starts or continues a word
)

var signalByte = func() (t [256]uint8) {
	for c := range 256 {
		switch b := byte(c); {
		case isLetter(b):
			t[c] = signalLetter
		case b == 0x1b:
			t[c] = signalEscape
		case textkit.IsDigit(b):
			t[c] = signalDigit
		case b == ' ':
			t[c] = signalBlank
		case b >= 0x80 || b == '*' || b == '!' || b == '-':
			t[c] = signalMarkStart
		case b == '_':
			t[c] = signalWordByte
		default:
			t[c] = signalPunct
		}
	}
	return t
}()

// signalScan is rawSignalWith's state between words. The previous word,
// lower-cased and cut to 15 bytes, is kept only when it may open a phrase
// or be "without": no other word reads it.
type signalScan struct {
	prev     [15]byte
	prevLen  int  // 0 at the start and after a number
	prevKept bool // prev holds the previous word
	prevZero bool // the previous token was the number 0
	marks    bool // the line holds a byte that may start a mark
	expect   expectation
}

// wordsUsed tells rawSignalWith which words word may do more with than
// pass over: last[n][c-'a'] has bit d-'a' set when a word of n letters
// from c to d is in words, opens a phrase in pairs (both cut to 15
// bytes), is "no" or "without", or is one an assertion report may use.
// Words outside it score nothing and leave only their length behind,
// unless capitalised (a type name) or after a word kept.
type wordsUsed struct {
	words, pairs *scoreTable
	last         [16][32]uint32
}

// usedCache holds the wordsUsed of the signal tables and of the failure
// tables, built when first asked for and again when the tables change.
var usedCache [2]atomic.Pointer[wordsUsed]

func usedWords(words, pairs *scoreTable) *wordsUsed {
	for k := range usedCache {
		if u := usedCache[k].Load(); u != nil && u.words == words && u.pairs == pairs {
			return u
		}
	}
	u := &wordsUsed{words: words, pairs: pairs}
	add := func(w string) {
		w = w[:min(len(w), 15)]
		if f, l := w[0]-'a', w[len(w)-1]-'a'; f < 26 && l < 26 {
			u.last[len(w)][f] |= 1 << l
		}
	}
	for w := range words.scores {
		add(w)
	}
	for p := range pairs.scores {
		w, _, _ := strings.Cut(p, " ")
		add(w)
	}
	add("no")
	add("without")
	for n := range expectFirst {
		for c := byte('a'); c <= 'z'; c++ {
			if expectFirst[n]>>(c&31)&1 != 0 {
				u.last[n][c-'a'] = 1<<26 - 1
			}
		}
	}
	k := 1
	if words == signalWords {
		k = 0
	}
	usedCache[k].Store(u)
	return u
}

// word scores the word line[i:e], alone or after the previous word, and
// remembers it for the next.
func (sc *signalScan) word(line string, i, e int, words, pairs *scoreTable) int8 {
	word := line[i:min(e, i+15)]
	n, first := len(word), lower(word[0])
	if sc.plainWord(line[i:e], n, first, lower(word[n-1]), pairs) && !words.mayHold(n, first, lower(word[n-1])) {
		sc.prevKept, sc.prevLen, sc.prevZero = false, n, false
		return 0
	}
	s := tokenSignal(line, i, e, words)
	if s == 0 && sc.prevLen > 0 && sc.prevKept && pairs.maySecond(n, first) {
		var p [31]byte
		k := copy(p[:], sc.prev[:sc.prevLen])
		p[k] = ' '
		k += 1 + lowerInto(p[k+1:], word)
		s = pairs.scores[string(p[:k])]
	}
	if s > 0 && sc.negated(line, e) {
		s = 0
	}
	last := lower(word[n-1])
	sc.prevKept = pairs.mayHold(n, first, last) || (n == len("without") && first == 'w' && last == 't')
	if sc.prevKept {
		lowerInto(sc.prev[:], word)
	}
	sc.expect.see(word)
	sc.prevLen = n
	sc.prevZero = false
	return s
}

// plainWord reports a word w (n bytes of it read, first and last lower
// case) that no phrase, type name or assertion report can use, nor the
// next word as the first of a phrase or a denial. Unless words may hold
// it, such a word scores nothing and leaves only its length behind.
func (sc *signalScan) plainWord(w string, n int, first, last byte, pairs *scoreTable) bool {
	switch {
	case pairs.mayHold(n, first, last) || n == len("without") && first == 'w' && last == 't':
		return false
	case sc.prevLen > 0 && sc.prevKept && pairs.maySecond(n, first):
		return false
	case n >= 3 && n <= 9 && expectFirst[n]>>(first&31)&1 != 0:
		return false
	}
	return len(w) <= 5 || w[0] < 'A' || w[0] > 'Z' || !capitalAtSuffix(w)
}

// negated reports a word that ends at e counted as zero or denied: "0
// errors", "errors: 0", "no errors".
func (sc *signalScan) negated(line string, e int) bool {
	return sc.prevZero || zeroAfter(line, e) || (sc.prevKept && noBefore(sc.prev[:sc.prevLen]))
}

// tokenSignal scores the word line[i:e] on its own: a listed word, or an
// error type name, plain or qualified (java.lang.OutOfMemoryError).
func tokenSignal(line string, i, e int, words *scoreTable) int8 {
	if inPath(line, i, e) {
		if i > 0 && line[i-1] == '.' && errorTypeName(line[i:e]) {
			return 3
		}
		return 0
	}
	if e-i <= 15 {
		return wordSignalIn(words, line[i:e])
	}
	if errorTypeName(line[i:e]) {
		return 3
	}
	return 0
}

// expectation tracks an assertion report: an expected value set against
// what came instead ("Expected 3 but got 4", "expected and actual values
// differ", "Expected: x Received: y").
type expectation struct{ expected, instead bool }

func (e *expectation) see(word string) {
	if len(word) < 3 || len(word) > 9 || expectFirst[len(word)]>>(lower(word[0])&31)&1 == 0 || !signalOn(signalAssertionReport) {
		return
	}
	var low [9]byte
	switch string(low[:lowerInto(low[:], word)]) {
	case "expected", "expecting", "expect":
		e.expected = true
	case "actual", "got", "received", "differ", "differs", "but":
		e.instead = true
	}
}

// expectFirst[n] has bit c&31 set for the first letter c of each word of
// n bytes that see looks for.
var expectFirst = func() (t [10]uint32) {
	for _, w := range [...]string{"expected", "expecting", "expect", "actual", "got", "received", "differ", "differs", "but"} {
		t[len(w)] |= 1 << (w[0] & 31)
	}
	return t
}()

func (e expectation) both() bool { return e.expected && e.instead }

// errorTypeName reports an exception or error type name of any length
// whose last part, after a capital, is Error, Exception or Failure
// (OutOfMemoryError, ModuleNotFoundError, TestFailure).
func errorTypeName(w string) bool {
	if !signalOn(signalErrorType) || len(w) <= 5 || !typeNameShape(w) {
		return false
	}
	for _, suf := range [...]string{"error", "exception", "failure", "failed"} {
		k := len(w) - len(suf)
		if k > 0 && w[k] >= 'A' && w[k] <= 'Z' && strings.EqualFold(w[k:], suf) {
			return true
		}
	}
	return false
}

// typeNameShape reports a word shaped as a type name: capitalised, no
// underscore, and not a test's name (TestHandlesFailure, onErrorFailure).
func typeNameShape(w string) bool {
	return w[0] >= 'A' && w[0] <= 'Z' && strings.IndexByte(w, '_') < 0 && !strings.HasPrefix(w, "Test")
}

// compilerCode reports a diagnostic code such as E0308, TS2345 or LNK2019:
// one to three capitals then four digits (the run [i, e)), ending the line
// or followed by a colon or a bracket.
func compilerCode(line string, i, e int) bool {
	if e-i != 4 || !signalOn(signalCompilerCode) || (e < len(line) && isWordByte(line[e])) {
		return false
	}
	k := i
	for k > 0 && i-k < 3 && line[k-1] >= 'A' && line[k-1] <= 'Z' {
		k--
	}
	return k < i && (k == 0 || !isWordByte(line[k-1])) && (e == len(line) || strings.IndexByte(":])", line[e]) >= 0)
}

// problemHeadingStems open the words a heading over a list or diff of
// problems says: "Needs attention:", "Problems found:", "please apply the
// changes below", "The following files would be reformatted:".
var problemHeadingStems = [...]string{"attention", "problem", "issue", "apply", "reformat", "differ", "violation", "offen"}

// problemHeading reports a short heading (ending in a colon, or framed by
// a rule such as "==== x ====") that announces problems below it.
func problemHeading(head string) bool {
	if !signalOn(signalProblemHeading) || len(head) > 100 {
		return false
	}
	s := strings.TrimRight(head, " \t")
	framed := strings.HasPrefix(s, "===") || strings.HasPrefix(s, "---") || strings.HasPrefix(s, "***")
	if !framed && !strings.HasSuffix(s, ":") {
		return false
	}
	for i := 0; i < len(s); {
		if !isLetter(s[i]) {
			i++
			continue
		}
		e := i
		for e < len(s) && isLetter(s[e]) {
			e++
		}
		for _, stem := range problemHeadingStems {
			if e-i >= len(stem) && strings.EqualFold(s[i:i+len(stem)], stem) {
				return true
			}
		}
		i = e
	}
	return false
}

// lowerInto writes s lower-cased to dst and returns its length.
func lowerInto(dst []byte, s string) int {
	for k := 0; k < len(s); k++ {
		dst[k] = lower(s[k])
	}
	return len(s)
}

// wordSignalIn looks a word of letters and underscores up in words, as
// written and at most 15 bytes long, and also catches compound names such
// as AssertionError, RuntimeException or TestFailure, whose suffix starts
// with a capital.
func wordSignalIn(words *scoreTable, orig string) int8 {
	n, first, last := len(orig), lower(orig[0]), lower(orig[len(orig)-1])
	var w [15]byte
	lowered := false
	if words.mayHold(n, first, last) {
		lowerInto(w[:], orig)
		lowered = true
		if s := words.scores[string(w[:n])]; s > 0 {
			return s
		}
	}
	if n > 5 && typeNameShape(orig) && signalOn(signalErrorType) {
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

// capitalAtSuffix reports a capital where one of the suffixes of an
// error type name (Error, Exception, Failure, Failed) would start in w.
func capitalAtSuffix(w string) bool {
	for _, k := range [...]int{len("error"), len("exception"), len("failure"), len("failed")} {
		if k < len(w) && w[len(w)-k] >= 'A' && w[len(w)-k] <= 'Z' {
			return true
		}
	}
	return false
}

// inPath reports a word that is part of a path, a flag or a name
// (pkg/errors, -timeout, errors/x, exceptions-0.10): not a message.
func inPath(line string, i, e int) bool {
	if i > 0 && (line[i-1] == '/' || line[i-1] == '-' || line[i-1] == '\\' || (line[i-1] == '.' && i > 1 && isWordByte(line[i-2]))) {
		return true
	}
	if e >= len(line) {
		return false
	}
	// A name joined by a dash or a dot (exceptions-0.10.0, errors.New,
	// error.log, test87.failed, Text.Pandoc.Error) is a package, module or
	// file, not a message.
	return line[e] == '/' || line[e] == '\\' ||
		((line[e] == '-' || line[e] == '.') && e+1 < len(line) && isWordByte(line[e+1]))
}

// zeroAfter reports "errors: 0", "failures=0" and the like.
func zeroAfter(line string, i int) bool {
	for i < len(line) && (line[i] == ':' || line[i] == '=' || line[i] == ' ') {
		i++
	}
	if i >= len(line) || line[i] != '0' {
		return false
	}
	// 0 but not 0.5, 01 or 0xC0000005 (an error code, not a count).
	return i+1 == len(line) || !isWordByte(line[i+1]) && !(line[i+1] == '.' && i+2 < len(line) && textkit.IsDigit(line[i+2]))
}

func noBefore(prev []byte) bool { return string(prev) == "no" || string(prev) == "without" }

// numberedItem reports a numbered failure item such as "1) Foo::bar".
func numberedItem(s string) bool {
	e := textkit.DigitRun(s, 0)
	return e > 0 && e <= 4 && e+1 < len(s) && s[e] == ')' && s[e+1] == ' '
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
