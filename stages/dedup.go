package stages

import (
	"context"
	"errors"
	"hash/maphash"
	"strings"
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

func (n dedupNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	if in.Kind == KindLog {
		// Logs are left to log_dedup, which counts what it merges: in build
		// output a repeated block (three failed retries, one stack per
		// failing test) is evidence, and dropping it silently would
		// misstate it.
		return skip(in, "logs are left to log_dedup"), nil
	}
	lines := splitLines(in.Text)
	if len(lines) < 2 && !strings.Contains(in.Text, ". ") {
		return skip(in, "nothing to merge"), nil
	}
	cc := canceled{ctx: ctx}
	seenPara := map[uint64]struct{}{}
	seenLine := map[uint64]struct{}{}
	seenSentence := map[uint64]struct{}{}
	dedupLines := in.Kind != KindJSON
	dedupSentences := in.Kind == KindProse || in.Kind == KindTranscript

	out := make([]string, 0, len(lines))
	for start := 0; start < len(lines); {
		if err := cc.check(); err != nil {
			return Outcome{}, err
		}
		end := start
		for end < len(lines) && strings.TrimSpace(lines[end]) != "" {
			end++
		}
		para := lines[start:end]
		if len(para) > 1 {
			h := maphash.String(dedupSeed, strings.Join(para, "\n"))
			if _, dup := seenPara[h]; dup && !hasProtected(para) {
				// Drop the paragraph and the blank line after it.
				start = end + 1
				continue
			}
			seenPara[h] = struct{}{}
		}
		for _, line := range para {
			if err := cc.check(); err != nil {
				return Outcome{}, err
			}
			trimmed := strings.TrimSpace(line)
			if dedupLines && len(trimmed) >= n.opt.MinLineChars && !IsProtectedLine(trimmed) {
				h := maphash.String(dedupSeed, trimmed)
				if _, dup := seenLine[h]; dup {
					continue
				}
				seenLine[h] = struct{}{}
			}
			if dedupSentences && strings.Contains(line, ". ") {
				line = n.dropSeenSentences(line, seenSentence)
				if strings.TrimSpace(line) == "" {
					continue
				}
			}
			out = append(out, line)
		}
		if end < len(lines) {
			out = append(out, lines[end])
		}
		start = end + 1
	}
	return done(joinLines(out)), nil
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

func hasProtected(lines []string) bool {
	for _, l := range lines {
		if IsProtectedLine(strings.TrimSpace(l)) {
			return true
		}
	}
	return false
}
