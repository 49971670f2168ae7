package transcripts

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// roleWords are words of speaker labels that are roles, not names: a label
// holding one ("Analyst A", "Chief Technology Officer") is only matched
// whole, never word by word.
var roleWords = map[string]bool{
	"agent": true, "analyst": true, "assistant": true, "chair": true, "chief": true,
	"critic": true, "debater": true, "expert": true, "judge": true, "manager": true,
	"model": true, "moderator": true, "officer": true, "participant": true, "player": true,
	"programmer": true, "reviewer": true, "side": true, "speaker": true, "system": true,
	"tester": true, "user": true, "human": true, "ai": true, "bot": true, "pm": true,
	"the": true, "of": true, "and": true, "mr": true, "mrs": true, "ms": true, "dr": true,
	"turn": true, "counselor": true, "executive": true, "product": true, "technology": true,
	"affirmative": true, "negative": true, "team": true, "lead": true, "engineer": true,
}

// chatRoles are the generic roles of chat logs; as speakers they name no one.
var chatRoles = map[string]bool{"user": true, "assistant": true, "system": true, "tool": true, "human": true, "ai": true}

// nameSet is the author names of a transcript, longest first.
type nameSet struct {
	names []string
}

// speakerNames collects the speakers of t and, for labels that look like
// personal names ("Maria Lopez"), their words. Words that also occur in
// protected (the options, the decision, the criteria) are left out.
func speakerNames(t Transcript, protected ...string) nameSet {
	prot := strings.ToLower(strings.Join(protected, " "))
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		n = strings.TrimSpace(n)
		key := strings.ToLower(n)
		if n == "" || seen[key] || chatRoles[key] || containsWord(prot, key) {
			return
		}
		seen[key] = true
		out = append(out, n)
	}
	for _, turn := range t {
		add(turn.Speaker)
		words := strings.Fields(turn.Speaker)
		personal := len(words) > 1
		for _, w := range words {
			r, _ := utf8.DecodeRuneInString(w)
			if roleWords[strings.ToLower(strings.Trim(w, ".'"))] || !unicode.IsUpper(r) {
				personal = false
			}
		}
		if personal {
			for _, w := range words {
				if utf8.RuneCountInString(w) >= 3 {
					add(strings.Trim(w, ".'"))
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return nameSet{out}
}

// find returns the first name that occurs in text as a whole word.
func (s nameSet) find(text string) (string, bool) {
	for _, n := range s.names {
		if containsWord(text, n) {
			return n, true
		}
	}
	return "", false
}

// scrub replaces every whole-word occurrence of a name with repl.
func (s nameSet) scrub(text, repl string) string {
	for _, n := range s.names {
		text = replaceWord(text, n, repl)
	}
	return text
}

// wordPatterns caches wordPattern, bounded: names and options are matched
// against every sentence of a transcript, and a worker serves many.
var wordPatterns = struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}{m: map[string]*regexp.Regexp{}}

const maxWordPatterns = 4096

func wordPattern(w string) *regexp.Regexp {
	wordPatterns.Lock()
	re, ok := wordPatterns.m[w]
	wordPatterns.Unlock()
	if ok {
		return re
	}
	re = regexp.MustCompile(`(?i)(^|[^\p{L}\p{N}_])(` + regexp.QuoteMeta(w) + `)($|[^\p{L}\p{N}_])`)
	wordPatterns.Lock()
	if len(wordPatterns.m) >= maxWordPatterns {
		wordPatterns.m = map[string]*regexp.Regexp{}
	}
	wordPatterns.m[w] = re
	wordPatterns.Unlock()
	return re
}

// containsWord reports whether w occurs in text, ignoring case, with no
// letter or digit on either side.
func containsWord(text, w string) bool {
	if w == "" {
		return false
	}
	return wordPattern(w).MatchString(text)
}

// replaceWord replaces every whole-word, case-insensitive occurrence of w.
func replaceWord(text, w, repl string) string {
	if w == "" || !containsWord(text, w) {
		return text
	}
	re := wordPattern(w)
	// Adjacent occurrences share a boundary character, so one pass can miss
	// every second one; repeat until none is left.
	for i := 0; i < 8 && re.MatchString(text); i++ {
		text = re.ReplaceAllString(text, "${1}"+strings.ReplaceAll(repl, "$", "$$")+"${3}")
	}
	return text
}
