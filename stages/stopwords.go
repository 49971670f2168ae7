package stages

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// StopwordsOptions are the stop-word node's knobs.
type StopwordsOptions struct {
	// Extra words to drop, in addition to the built-in English and Chinese lists.
	Extra []string `yaml:"extra"`
}

// DefaultStopwordsOptions returns the shipped defaults.
func DefaultStopwordsOptions() StopwordsOptions { return StopwordsOptions{} }

// Validate reports a knob that is out of range.
func (o StopwordsOptions) Validate() error {
	for _, w := range o.Extra {
		if strings.TrimSpace(w) == "" || strings.ContainsAny(w, " \t\n") {
			return &fieldError{"extra", "entries must be single words"}
		}
	}
	return nil
}

var englishStopwords = strings.Fields(`a an the and or but if then else of at by for with about
against between into through during before after above below to from up down in out on off over under
again further once here there when where why how all any both each few more most other some such no nor
not only own same so than too very s t can will just don should now is am are was were be been being
have has had having do does did doing i me my myself we our ours ourselves you your yours yourself
yourselves he him his himself she her hers herself it its itself they them their theirs themselves
what which who whom this that these those would could also just really quite`)

// chineseStopwords are single-character function words; removing them
// keeps the content characters of a sentence.
var chineseStopwords = []rune("的了是在和就都而及与着或一个也这那之于把被让给对从")

type stopwordsNode struct {
	words map[string]struct{}
	han   map[rune]struct{}
}

// NewStopwords builds the stop-word filter (English and Chinese). It only
// touches prose and transcripts; logs, JSON and HTML keep their words.
func NewStopwords(o StopwordsOptions) Node {
	n := stopwordsNode{words: map[string]struct{}{}, han: map[rune]struct{}{}}
	for _, w := range englishStopwords {
		n.words[w] = struct{}{}
	}
	for _, w := range o.Extra {
		n.words[strings.ToLower(w)] = struct{}{}
	}
	for _, r := range chineseStopwords {
		n.han[r] = struct{}{}
	}
	return n
}

func (stopwordsNode) Key() Key { return KeyStopwords }

func (n stopwordsNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	if in.Kind != KindProse && in.Kind != KindTranscript {
		return skip(in, "kind "+string(in.Kind)+" keeps its words"), nil
	}
	lines := splitLines(in.Text)
	cc := canceled{ctx: ctx}
	for i, line := range lines {
		if err := cc.check(); err != nil {
			return Outcome{}, err
		}
		if IsProtectedLine(line) {
			continue
		}
		// A line that starts a fence only once its words are gone would
		// turn text into a protected block on the next run: keep it.
		if out := n.filterLine(line); textkit.FenceMarker(out) == "" || textkit.FenceMarker(line) != "" {
			lines[i] = out
		}
	}
	return done(joinLines(lines)), nil
}

// filterLine drops stop words from one line. A Han stop character that
// sits between two Latin words (mixed-script text such as "o在f") is kept
// once: dropping it would glue the words into a new one, which could itself
// be a stop word and vanish on the next run.
func (n stopwordsNode) filterLine(line string) string {
	var b strings.Builder
	b.Grow(len(line))
	pendingHan := ""     // the first Han stop character since the last write
	lastWasWord := false // the output ends in a Latin letter or apostrophe
	write := func(s string, startsWord, endsWord bool) {
		if pendingHan != "" && lastWasWord && startsWord {
			b.WriteString(pendingHan)
		}
		pendingHan = ""
		b.WriteString(s)
		lastWasWord = endsWord
	}
	i := 0
	for i < len(line) {
		r, size := utf8.DecodeRuneInString(line[i:])
		if unicode.Is(unicode.Han, r) {
			if _, stop := n.han[r]; !stop {
				write(line[i:i+size], false, false)
			} else if pendingHan == "" {
				pendingHan = line[i : i+size]
			}
			i += size
			continue
		}
		if unicode.IsLetter(r) {
			j := i
			for j < len(line) {
				r2, s2 := utf8.DecodeRuneInString(line[j:])
				if !isLatinWordRune(r2) {
					break
				}
				j += s2
			}
			word := line[i:j]
			if _, stop := n.words[strings.ToLower(word)]; stop {
				// Drop the word and one following space.
				if j < len(line) && line[j] == ' ' {
					j++
				}
				i = j
				continue
			}
			write(word, true, true)
			i = j
			continue
		}
		wordRune := r == '\''
		write(line[i:i+size], wordRune, wordRune)
		i += size
	}
	return b.String()
}

// isLatinWordRune reports whether r continues a word: a letter outside Han,
// or an apostrophe.
func isLatinWordRune(r rune) bool {
	return (unicode.IsLetter(r) || r == '\'') && !unicode.Is(unicode.Han, r)
}
