package stages

import (
	"context"
	"errors"
	"hash/maphash"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// DedupOptions are the duplicate-merge node's knobs.
type DedupOptions struct {
	// MinLineChars: shorter lines (braces, "nl", separators) are never removed.
	MinLineChars int `yaml:"min_line_chars"`
	// MinSentenceChars: shorter sentences are never removed.
	MinSentenceChars int `yaml:"min_sentence_chars"`
}

// DefaultDedupOptions returns the shipped defaults.
func DefaultDedupOptions() DedupOptions {
	return DedupOptions{MinLineChars: 12, MinSentenceChars: 24}
}

// Validate reports a knob that is out of range.
func (o DedupOptions) Validate() error {
	return errors.Join(
		mustBePositive("min_line_chars", o.MinLineChars),
		mustBePositive("min_sentence_chars", o.MinSentenceChars),
	)
}

type dedupNode struct{ opt DedupOptions }

// NewDedup builds the duplicate-merge node. It drops paragraphs, lines and
// inline sentences seen before, keeping the first occurrence, and never adds
// counts. Lines shorter than MinLineChars (braces, "nl", separators, the
// short lines of a failure reason) always stay. Logs are left to log_dedup,
// which counts what it merges.
func NewDedup(o DedupOptions) Node { return dedupNode{o} }

func (dedupNode) Key() Key { return KeyDedup }

var dedupSeed = maphash.MakeSeed()

// dedupPasses returns why dedup passes in as it is, or "".
func dedupPasses(in Input) string {
	switch {
	case in.Kind == KindLog:
		// Logs are left to log_dedup, which counts what it merges: in build
		// output a repeated block (three failed retries, one stack per
		// failing test) is evidence, and dropping it silently would
		// misstate it.
		return "logs are left to log_dedup"
	case strings.IndexByte(in.Text, '\n') < 0 && !strings.Contains(in.Text, ". "):
		return "nothing to merge"
	case in.Kind != KindProse:
		return ""
	}
	return documentRepeats(in.Text)
}

// documentRepeats returns why a prose text's repeats, exact or near, are
// its content and stay, or "": dedup and near_dup pass such a text.
func documentRepeats(text string) string {
	switch {
	case mostlyEntries(text):
		// XML, YAML, INI: "<status>ok</status>" under the next record,
		// or "image: app:1.4" under the next document, is that record's
		// own line; dropping it says the record has none.
		return "structured entries: a line repeats under each parent"
	case sourceCodeText(text):
		// A decorator on each test, a statement in each branch, a
		// method like the one before in the next class.
		return "source code: a repeated line is another statement"
	case timedParagraphs(text):
		// "Where is the key?" said twice was said twice.
		return "subtitles: a repeated line is said again"
	}
	return ""
}

func (n dedupNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	if reason := dedupPasses(in); reason != "" {
		return skip(in, reason), nil
	}
	text := in.Text
	cc := canceled{ctx: ctx}
	r := dedupRun{
		n:              n,
		kind:           in.Kind,
		seenPara:       map[uint64]struct{}{},
		seenLine:       map[uint64]struct{}{},
		seenSentence:   map[uint64]struct{}{},
		dedupLines:     in.Kind != KindJSON,
		dedupSentences: in.Kind == KindProse || in.Kind == KindTranscript,
		codeKept:       in.Kind == KindTranscript || in.Kind == KindProse,
		w:              textkit.LineWriter{},
	}

	// One pass over the text, line by line, without a slice of lines: a
	// text of millions of short lines costs no more than its own size.
	r.w.Grow(len(text))
	userTurn := false // in a transcript: inside a user's turn
	it := lineIter{text: text}
	line, at, ok := it.next()
	for ok {
		if err := cc.check(); err != nil {
			return Outcome{}, err
		}
		// A paragraph: the non-blank lines from here; then one blank line.
		paraStart, paraEnd, nlines := at, at, 0
		for ok && strings.TrimSpace(line) != "" {
			paraEnd = at + len(line)
			nlines++
			line, at, ok = it.next()
		}
		para := text[paraStart:paraEnd]
		keepAll := false // a user turn: every line of a request stays
		if in.Kind == KindTranscript {
			userTurn = userTurnAfter(para, userTurn)
			keepAll = userTurn || strings.Contains(para, "#### ")
		}
		if nlines > 1 && !keepAll && r.seenParagraph(para) {
			// Drop the paragraph and the blank line after it.
			if ok {
				line, at, ok = it.next()
			}
			continue
		}
		if nlines > 0 {
			if err := r.paragraph(&cc, para, keepAll, userTurn); err != nil {
				return Outcome{}, err
			}
		}
		if ok {
			r.w.Add(line) // the blank line that ends the paragraph
			line, at, ok = it.next()
		}
	}
	out := r.w.String()
	if out == text {
		return skip(in, "no duplicates"), nil
	}
	return done(out), nil
}

// dedupRun is one Apply's output and what it has seen.
type dedupRun struct {
	n                                    dedupNode
	kind                                 Kind
	seenPara, seenLine, seenSentence     map[uint64]struct{}
	dedupLines, dedupSentences, codeKept bool
	w                                    textkit.LineWriter
}

// seenParagraph reports a paragraph seen before, outside protected
// spans, and remembers it otherwise.
func (r *dedupRun) seenParagraph(para string) bool {
	h := maphash.String(dedupSeed, para)
	if _, dup := r.seenPara[h]; dup && !strings.ContainsRune(para, protectOpen) {
		return true
	}
	r.seenPara[h] = struct{}{}
	return false
}

// paragraph emits the lines of para that were not seen before.
func (r *dedupRun) paragraph(cc *canceled, para string, keepAll, userTurn bool) error {
	for pi := (lineIter{text: para}); ; {
		l, _, more := pi.next()
		if !more {
			return nil
		}
		if err := cc.check(); err != nil {
			return err
		}
		if r.kept(l, keepAll, userTurn) {
			r.w.Add(l)
			continue
		}
		if l, keep := r.unseen(l); keep {
			r.w.Add(l)
		}
	}
}

// kept reports a line that stays whatever was seen: requests, the
// headings that say who speaks, and a snippet outside fences, whose
// repeated lines ("return None", "}") are structure, not repetition.
func (r *dedupRun) kept(l string, keepAll, userTurn bool) bool {
	if (keepAll && (userTurn || isRequestLine(l))) || (r.kind == KindTranscript && isTurnHeading(l)) {
		return true
	}
	return r.codeKept && isIndentedCode(l)
}

// unseen returns l without its seen sentences, and whether anything of
// it stays: a line seen before does not.
func (r *dedupRun) unseen(l string) (string, bool) {
	trimmed := strings.TrimSpace(l)
	if r.dedupLines && len(trimmed) >= r.n.opt.MinLineChars && !IsProtectedLine(trimmed) {
		h := maphash.String(dedupSeed, trimmed)
		if _, dup := r.seenLine[h]; dup {
			return l, false
		}
		r.seenLine[h] = struct{}{}
	}
	if r.dedupSentences && strings.Contains(l, ". ") {
		l = r.n.dropSeenSentences(l, r.seenSentence)
		if strings.TrimSpace(l) == "" {
			return l, false
		}
	}
	return l, true
}

// dropSeenSentences removes sentences of a line that appeared before.
func (n dedupNode) dropSeenSentences(line string, seen map[uint64]struct{}) string {
	var b strings.Builder
	rest := line
	changed := false
	for rest != "" {
		i := strings.Index(rest, ". ")
		var sentence string
		if i < 0 {
			sentence, rest = rest, ""
		} else {
			sentence, rest = rest[:i+2], rest[i+2:]
		}
		key := strings.TrimSpace(sentence)
		if len(key) >= n.opt.MinSentenceChars {
			h := maphash.String(dedupSeed, key)
			if _, dup := seen[h]; dup {
				changed = true
				continue
			}
			seen[h] = struct{}{}
		}
		b.WriteString(sentence)
	}
	if !changed {
		return line
	}
	return strings.TrimRight(b.String(), " ")
}

// lineIter yields the lines of text exactly as strings.Split(text, "\n")
// would, with the offset of each, without building the slice.
type lineIter struct {
	text string
	pos  int
	done bool
}

func (it *lineIter) next() (line string, at int, ok bool) {
	if it.done {
		return "", 0, false
	}
	at = it.pos
	if i := strings.IndexByte(it.text[at:], '\n'); i >= 0 {
		it.pos = at + i + 1
		return it.text[at : at+i], at, true
	}
	it.done = true
	return it.text[at:], at, true
}

func hasProtected(lines []string) bool {
	for _, l := range lines {
		if IsProtectedLine(strings.TrimSpace(l)) {
			return true
		}
	}
	return false
}

// userTurnAfter tells whether a transcript is in a user's turn after
// para, given that it was (inUser) before: a turn heading ("## user",
// "**assistant:**") switches it. Aider's "#### " request lines are user
// text of their own and are kept line by line.
func userTurnAfter(para string, inUser bool) bool {
	for line := range strings.SplitSeq(para, "\n") {
		if isTurnHeading(line) {
			role := strings.ToLower(strings.Trim(strings.TrimSpace(strings.TrimLeft(line, "#")), "*: "))
			inUser = role == "user" || role == "human"
		}
	}
	return inUser
}

// isIndentedCode reports an indented line that reads as code: it ends like
// a statement, holds an assignment or a call, returns or comments.
func isIndentedCode(l string) bool {
	if !strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "\t") {
		return false
	}
	t := strings.TrimSpace(l)
	if t == "" {
		return false
	}
	switch t[len(t)-1] {
	case ';', '{', '}', ')', ':', ',', '(', '[', ']':
		return true
	}
	return strings.ContainsAny(t, "=(") || strings.HasPrefix(t, "return") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//")
}
