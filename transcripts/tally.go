package transcripts

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// The kinds of count leaks (design.md, Evidence): any phrase that tells the decider
// how many people held a view, or that a view was the majority's.
const (
	// RuleTally: a number word or digit attached to people ("3 agents",
	// "three of us", "2 said").
	RuleTally = "supporter count"
	// RuleQuantifier: both, all, most, many, several, few attached to
	// people ("both of us", "most of the team", "several analysts").
	RuleQuantifier = "group quantifier"
	// RuleMajority: unanimity, consensus and majority words ("everyone
	// agreed", "nobody disagreed", "the majority").
	RuleMajority = "majority phrasing"
	// RuleRepetition: repetition adverbs on what was said ("repeatedly
	// stressed", "said twice", "mentioned 3 times").
	RuleRepetition = "repetition"
	// RuleAttribution: anonymous attributions that add up to a count ("a
	// participant and a participant said", "another analyst agreed").
	RuleAttribution = "repeated attribution"
)

// CountLexicon is one language's vocabulary for count leaks. Each list
// holds lower-case words or phrases (spaces match any white space). Adding
// a language is adding one CountLexicon to countLexicons; the patterns are
// built from the lists by the same templates.
type CountLexicon struct {
	Lang string
	// Numbers are number words that can count people ("one", "three",
	// "a dozen"); digits are always numbers.
	Numbers []string
	// Quantifiers count a group without a number ("both", "most", "several").
	Quantifiers []string
	// People are nouns and pronoun phrases for the discussion's participants
	// ("analysts", "of us", "the team").
	People []string
	// Partitive joins a count to its people ("of", "out of").
	Partitive []string
	// Determiners may sit between the partitive and the people ("the", "our").
	Determiners []string
	// SpeechVerbs report a view ("said", "argued", "stressed", "agreed").
	SpeechVerbs []string
	// OpinionVerbs are the past-tense speech verbs that follow a bare count
	// ("two said", "3 models agreed").
	OpinionVerbs []string
	// GroupPronouns take a trailing quantifier ("we" in "we both").
	GroupPronouns []string
	// Unanimity are unanimity, consensus and majority phrases, matched as
	// they are ("everyone agreed", "nobody disagreed", "the majority").
	Unanimity []string
	// RepetitionAdverbs say a view was voiced more than once ("repeatedly",
	// "twice", "again and again"). They leak only next to a speech verb.
	RepetitionAdverbs []string
	// RepetitionVerbs leak on their own ("reiterated", "echoed").
	RepetitionVerbs []string
	// Attributions are anonymous stand-ins for a person ("a participant",
	// "one analyst"). Two in one sentence add up to a count.
	Attributions []string
	// FurtherAttributions imply an earlier holder of the view ("another
	// participant", "someone else").
	FurtherAttributions []string
}

var englishCounts = CountLexicon{
	Lang: "en",
	Numbers: []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
		"twenty", "thirty", "forty", "fifty", "hundred", "a dozen", "dozens", "a couple", "a pair", "a single", "only one",
		"a trio", "both", "half", "a third", "a quarter", "zero", "none", "no", "one or two", "two or three"},
	Quantifiers: []string{"both", "all", "most", "many", "several", "few", "a few", "numerous", "multiple",
		"various", "a number", "a handful", "a couple", "plenty", "the bulk", "a lot", "lots", "the rest", "the remainder",
		"almost all", "nearly all", "virtually all", "most", "many more", "the other", "each", "every", "the whole"},
	People: []string{"agents?", "analysts?", "people", "persons?", "participants?", "debaters?",
		"experts?", "reviewers?", "members?", "speakers?", "voters?", "judges?", "respondents?", "panel+ists?",
		"colleagues?", "teammates?", "team", "group", "panel", "committee", "room", "attendees?", "contributors?",
		"discussants?", "advisers?", "advisors?", "consultants?", "voices?", "folks", "us", "them", "you",
		"individuals?", "stakeholders?", "present"},
	Partitive:     []string{"of", "out of", "among", "amongst"},
	Determiners:   []string{"the", "our", "these", "those", "this", "that", "us", "them", "the other", "the three", "the two", "the four", "the five"},
	GroupPronouns: []string{"we", "they", "you", "the analysts", "the participants", "the agents", "the team", "the group", "the panel"},
	SpeechVerbs: []string{"said", "says", "say", "saying", "agreed", "agree", "agrees", "agreeing", "argued", "argue", "argues",
		"claimed", "claim", "claims", "stated", "state", "states", "noted", "note", "notes", "mentioned", "mention",
		"mentions", "stressed", "stress", "stresses", "emphasi[sz]ed", "emphasi[sz]e", "insisted", "insist",
		"pointed out", "point out", "raised", "raise", "highlighted", "highlight", "warned", "warn", "reported",
		"report", "observed", "observe", "thought", "think", "thinks", "believed", "believe", "believes", "felt",
		"feel", "feels", "found", "find", "finds", "voted", "vote", "votes", "preferred", "prefer", "prefers",
		"favou?red", "favou?r", "favou?rs", "supported", "support", "supports", "backed", "back", "backs",
		"recommended", "recommend", "recommends", "cited", "cite", "cites", "flagged", "flag", "flags",
		"brought up", "bring up", "came up", "come up", "comes up", "was raised", "were raised", "was mentioned",
		"were mentioned", "was cited", "was noted", "was stressed", "was repeated", "concluded", "conclude",
		"suggested", "suggest", "expressed", "voiced", "objected", "disagreed", "disagree", "questioned",
		"doubted", "complained", "praised", "criticised", "criticized", "confirmed", "repeated", "repeat",
		"endorsed", "concurred", "sided", "chose", "picked", "liked", "like", "likes", "want", "wanted",
		"prefers", "told", "asked", "added", "replied", "answered", "countered"},
	OpinionVerbs: []string{"said", "agreed", "argued", "claimed", "thought", "believed", "felt", "preferred",
		"favou?red", "voted", "insisted", "stressed", "emphasi[sz]ed", "suggested", "recommended", "backed",
		"objected", "disagreed", "concurred", "sided", "chose", "picked", "warned", "worried", "doubted"},
	Unanimity: []string{"everyone agreed", "everyone agrees", "everybody agreed", "everybody agrees", "everyone", "everybody", "every one of us", "all of us", "all of them", "all agreed",
		"we all", "they all", "no one disagreed", "nobody disagreed", "no one objected", "nobody objected",
		"no one questioned", "nobody questioned", "no one disputed", "nobody disputed", "no one doubted",
		"nobody doubted", "no one argued otherwise", "nobody argued otherwise", "no one else", "nobody else",
		"no dissent", "without dissent", "no objections?", "unopposed", "unanimous", "unanimously", "unanimity",
		"consensus", "majority", "minority", "most agreed", "the group agreed", "the team agreed", "the panel agreed",
		"it was agreed", "was agreed", "were agreed", "agreed by all", "broad agreement", "general agreement",
		"widespread agreement", "wide agreement", "common ground", "shared view", "shared by all", "widely agreed",
		"widely held", "widely shared", "widely accepted", "generally agreed", "generally accepted", "commonly held",
		"undisputed", "uncontested", "unchallenged", "overwhelming", "overwhelmingly", "lone dissenter",
		"lone voice", "dissenting voice", "single dissent", "outvoted", "out-voted", "in agreement", "all sides",
		"both sides agreed", "the room agreed", "show of hands", "a vote", "the vote", "voted", "by vote",
		"seconded", "concurred", "echoed by", "no one pushed back", "nobody pushed back", "no one challenged",
		"nobody challenged", "no one contested", "nobody contested", "no one opposed", "nobody opposed",
		"without objection", "none of us", "none of them", "not one of us", "not a single (?:one|person|participant|analyst|member)",
		"lone (?:voice|dissenter|dissent|holdout|skeptic|sceptic|critic|supporter|advocate|proponent)", "holdout", "hold-out", "sole dissenter", "the only one (?:who|to)", "alone in (?:thinking|arguing|saying|believing)",
		"by a (?:wide|narrow|slim|large|clear) margin", "the popular (?:choice|option|view)", "most popular",
		"crowd favou?rite", "favou?rite among", "prevailing (?:view|opinion)", "dominant view", "mainstream view",
		"we agreed", "we agree", "we concluded", "we decided", "we all", "general consensus",
		"agreed across the (?:board|table)", "to a (?:man|person)", "with one voice"},
	RepetitionAdverbs: []string{"repeatedly", "again and again", "over and over", "time and again",
		"time after time", "twice", "thrice", "more than once", "once again", "again", "often", "frequently",
		"constantly", "continually", "persistently", "several times", "many times", "multiple times",
		"numerous times", "a few times", "a couple of times", "\\d+ times", "(?:two|three|four|five|six|seven|eight|nine|ten) times",
		"at every turn", "throughout", "each time", "every time", "in every turn", "in several turns",
		"in (?:two|three|four|five|\\d+) turns", "\\d+x", "x\\d+",
		"on several occasions", "on (?:two|three|four|five|many|multiple|numerous) occasions", "in turn after turn"},
	RepetitionVerbs: []string{"reiterated", "reiterates", "reiterating", "echoed", "echoes", "echoing",
		"kept saying", "kept stressing", "kept repeating", "kept coming back", "kept raising", "kept insisting",
		"kept pointing out", "keeps saying", "keeps coming up", "kept coming up", "a recurring", "recurring theme",
		"recurring point", "recurring concern", "recurring complaint", "common refrain", "a common theme",
		"most[- ]cited", "most[- ]mentioned", "most frequently (?:cited|mentioned|raised)", "most often (?:cited|mentioned|raised)",
		"widely cited", "frequently cited", "often cited", "commonly cited", "repeated concern", "repeated point",
		"repeated claim", "repeated warning", "repeatedly",
		"as (?:mentioned|noted|said|stated|raised|discussed|argued|pointed out|stressed) (?:before|earlier|above|previously)",
		"(?:was|were|been) (?:mentioned|raised|noted|said|stated|cited) (?:before|earlier|previously)",
		"came up (?:before|earlier|again)"},
	Attributions: []string{"a participant", "one participant", "a speaker", "one speaker", "an analyst",
		"one analyst", "an agent", "one agent", "a member", "one member", "a colleague", "one colleague",
		"someone", "somebody", "a reviewer", "one reviewer", "an expert", "one expert", "one of us",
		"one of them", "one of the analysts", "one of the participants", "a debater", "one debater",
		"a panelist", "a panellist", "a contributor", "a teammate", "one person", "a person", "a voice"},
	FurtherAttributions: []string{"another participant", "another speaker", "another analyst", "another agent",
		"another member", "another colleague", "another reviewer", "another expert", "another debater",
		"another one", "another of us", "someone else", "somebody else", "a second (?:participant|analyst|speaker|agent|member|person|reviewer|expert)",
		"a third (?:participant|analyst|speaker|agent|member|person|reviewer|expert)",
		"the other (?:participants?|analysts?|speakers?|agents?|members?|reviewers?|experts?)",
		"the others", "others agreed", "others said", "others added", "others noted", "others argued",
		"others disagreed", "others too", "as well as (?:a|another) (?:participant|analyst|speaker|agent)",
		"by others", "from others", "others felt", "others thought", "others concurred", "others worried",
		"(?:the|a) (?:second|third|fourth|fifth|last|final) (?:participant|analyst|speaker|agent|member|person|reviewer|expert|debater|colleague)",
		"one more (?:participant|analyst|speaker|agent|member|person|voice)", "yet another"},
}

// countLexicons are the languages the validator knows. A summary is
// checked against every one of them.
var countLexicons = []CountLexicon{englishCounts}

// countPattern is one compiled leak pattern and the rule it reports. It
// runs only on sentences that hold a word of every set in needs: Go's
// regexp walks every alternative at every byte, so the word check keeps
// long texts fast.
type countPattern struct {
	rule  string
	re    *regexp.Regexp
	needs []map[string]bool
}

var compiledCounts = compileCounts(countLexicons)

func alt(items []string) string {
	parts := make([]string, 0, len(items))
	for _, it := range items {
		// A space in a list entry matches any run of white space.
		parts = append(parts, strings.ReplaceAll(it, " ", `\s+`))
	}
	// Longest first, so "a few" wins over "few".
	sort.SliceStable(parts, func(i, j int) bool { return len(parts[i]) > len(parts[j]) })
	return `(?:` + strings.Join(parts, "|") + `)`
}

func compileCounts(ls []CountLexicon) []countPattern {
	var out []countPattern
	for _, l := range ls {
		number := `(?:\d+|` + alt(l.Numbers) + `)`
		quant := alt(l.Quantifiers)
		people := alt(l.People)
		part := alt(l.Partitive)
		det := alt(l.Determiners)
		speech := alt(l.SpeechVerbs)
		opinion := alt(l.OpinionVerbs)
		add := func(rule, expr string, needs ...map[string]bool) {
			out = append(out, countPattern{rule, regexp.MustCompile(`(?i)(?:^|[^\p{L}\p{N}_])(` + expr + `)(?:$|[^\p{L}\p{N}_])`), needs})
		}
		numbers := triggers(l.Numbers, []string{`\d+`, "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"})
		peopleW := triggers(l.People)
		quantW := triggers(l.Quantifiers)
		speechW := triggers(l.SpeechVerbs)
		opinionW := triggers(l.OpinionVerbs)
		// CLASS: a count of people, "3 agents", "three of us", "two out of
		// the four reviewers", "2 said", "a 3-1 vote".
		add(RuleTally, number+`(?:\s+`+part+`(?:\s+`+det+`)?(?:\s+`+number+`)?)?(?:\s+[\p{L}-]+)?\s+`+people, numbers, peopleW)
		add(RuleTally, `(?:\d{1,3}|`+alt(l.Numbers)+`)(?:\s+of\s+(?:us|them))?(?:\s+[\p{L}-]+)?\s+`+opinion, numbers, opinionW)
		add(RuleTally, `\d+\s+votes?|votes?\s*[:=]\s*\d+|\d+\s*[-–:/]\s*\d+\s+(?:vote|votes|split|majority|decision|verdict)`, numbers, triggers([]string{"votes?", "split", "majority", "decision", "verdict"}))
		add(RuleTally, `(?:all|the)\s+(?:two|three|four|five|six|seven|eight|nine|ten|\d+)\s+(?:of\s+(?:us|them)|`+people+`)`, numbers, peopleW)
		add(RuleTally, `(?:of|among|between)\s+(?:the\s+|us\s+|them\s+)?(?:two|three|four|five|six|seven|eight|nine|ten|\d{1,2})(?:\s+of\s+(?:us|them))?(?:\s*[.,;:)!?]|\s*$)`, numbers)
		add(RuleTally, people+`\s*\(\s*\d+\s*\)`, peopleW)
		add(RuleTally, `(?:by|voted|vote\s+of|split)\s+(?:\d+|two|three|four|five|six)\s*(?:to|-|–|:)\s*(?:\d+|one|two|three|four|five|zero|nil)`, numbers)
		add(RuleQuantifier, `(?:by|from|among|with)\s+(?:`+quant+`|`+number+`)(?:\s+of\s+(?:us|them))?(?:\s*[.,;:)!?]|\s*$)`, quantW)
		add(RuleTally, `(?:two|three|four|five|six|seven|eight|nine|ten|\d+)(?:\s+or\s+(?:two|three|four|five|\d+))?\s+(?:voices?|hands?|heads?|votes?)`, numbers, triggers([]string{"voices?", "hands?", "heads?", "votes?"}))
		// CLASS: a group quantifier on people or on a view, "both of us",
		// "most of the team", "several analysts", "many agreed", "we both".
		add(RuleQuantifier, quant+`(?:\s+`+part+`)?(?:\s+`+det+`)?(?:\s+[\p{L}-]+)?\s+`+people, quantW, peopleW)
		add(RuleQuantifier, quant+`\s+`+opinion, quantW, opinionW)
		add(RuleQuantifier, alt(l.GroupPronouns)+`\s+(?:both|all|each)`, triggers([]string{"both", "all", "each"}))
		// CLASS: unanimity, consensus, majority.
		add(RuleMajority, alt(l.Unanimity), triggers(l.Unanimity))
		// CLASS: repetition of a view: an adverb next to a speech verb, in
		// either order, or a verb that means "said again".
		rep := alt(l.RepetitionAdverbs)
		repW := triggers(l.RepetitionAdverbs)
		add(RuleRepetition, speech+`(?:\s+[\p{L}-]+)?\s+`+rep, speechW, repW)
		add(RuleRepetition, rep+`(?:\s+[\p{L}-]+)?\s+`+speech, speechW, repW)
		add(RuleRepetition, alt(l.RepetitionVerbs), triggers(l.RepetitionVerbs))
		// CLASS: anonymous attributions that add up: "another analyst",
		// "someone else".
		add(RuleAttribution, alt(l.FurtherAttributions), triggers(l.FurtherAttributions))
	}
	return out
}

// attributionPatterns finds single anonymous attributions, which leak a
// count only when a sentence holds two or more.
var attributionPatterns = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, l := range countLexicons {
		out = append(out, regexp.MustCompile(`(?i)(?:^|[^\p{L}\p{N}_])(`+alt(l.Attributions)+`)(?:$|[^\p{L}\p{N}_])`))
	}
	return out
}()

// CountFinding is one count leak: its kind (a Rule* constant) and where it
// is in the text (byte offsets of the matched phrase).
type CountFinding struct {
	Rule       string
	Match      string
	Start, End int
}

// FindCounts returns every count leak in text, in text order: numbers,
// quantifiers, unanimity and majority words, repetition of a view, and
// anonymous attributions that add up to a count (two in one sentence, or
// one that implies an earlier one).
func FindCounts(text string) []CountFinding {
	var out []CountFinding
	for _, sp := range sentenceSpans(text) {
		sentence := text[sp[0]:sp[1]]
		toks := tokenSet(sentence)
		for _, p := range compiledCounts {
			if !hasAll(toks, p.needs) {
				continue
			}
			for _, loc := range p.re.FindAllStringSubmatchIndex(sentence, -1) {
				out = append(out, CountFinding{Rule: p.rule, Match: normSpace(sentence[loc[2]:loc[3]]), Start: sp[0] + loc[2], End: sp[0] + loc[3]})
			}
		}
		if !hasAll(toks, []map[string]bool{attributionWords}) {
			continue
		}
		var hits [][]int
		for _, re := range attributionPatterns {
			for _, loc := range re.FindAllStringSubmatchIndex(sentence, -1) {
				hits = append(hits, []int{sp[0] + loc[2], sp[0] + loc[3]})
			}
		}
		if len(hits) >= 2 {
			for _, h := range hits {
				out = append(out, CountFinding{Rule: RuleAttribution, Match: normSpace(text[h[0]:h[1]]), Start: h[0], End: h[1]})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

var attributionWords = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range countLexicons {
		for w := range triggers(l.Attributions) {
			m[w] = true
		}
	}
	return m
}()

// tokenSet is the lower-cased words of s; "#num" stands for any number.
func tokenSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '-'
	}) {
		m[w] = true
		if w[0] >= '0' && w[0] <= '9' {
			m["#num"] = true
		}
		if strings.Contains(w, "-") {
			for _, part := range strings.Split(w, "-") {
				m[part] = true
			}
		}
	}
	return m
}

func hasAll(toks map[string]bool, needs []map[string]bool) bool {
	for _, set := range needs {
		small, big := toks, set
		if len(set) < len(toks) {
			small, big = set, toks
		}
		found := false
		for w := range small {
			if big[w] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// triggers returns the words a sentence must hold for an entry of the
// lists to match: each entry's last word, with its small regexp forms
// ("agents?", "emphasi[sz]ed", "(?:two|three)", "\d+") spelled out.
func triggers(lists ...[]string) map[string]bool {
	m := map[string]bool{}
	for _, list := range lists {
		for _, e := range list {
			fields := strings.Fields(e)
			for _, w := range expandWord(fields[len(fields)-1]) {
				m[w] = true
			}
		}
	}
	return m
}

// expandWord spells out the regexp forms used in the lexicons: literals,
// "x?" and "x+", "[ab]", "(?:a|b)" and "\d+" (as "#num").
func expandWord(p string) []string {
	out := []string{""}
	for i := 0; i < len(p); {
		var atom []string
		switch {
		case strings.HasPrefix(p[i:], `\d+`):
			atom, i = []string{"#num"}, i+3
		case p[i] == '[':
			j := strings.IndexByte(p[i:], ']') + i
			for _, c := range p[i+1 : j] {
				atom = append(atom, string(c))
			}
			i = j + 1
		case strings.HasPrefix(p[i:], "(?:"):
			depth, j := 0, i
			for ; j < len(p); j++ {
				if p[j] == '(' {
					depth++
				} else if p[j] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			for _, a := range strings.Split(p[i+3:j], "|") {
				atom = append(atom, expandWord(a)...)
			}
			i = j + 1
		default:
			atom, i = []string{string(p[i])}, i+1
		}
		if i < len(p) && p[i] == '?' {
			atom, i = append(atom, ""), i+1
		} else if i < len(p) && p[i] == '+' {
			var twice []string
			for _, a := range atom {
				twice = append(twice, a, a+a)
			}
			atom, i = twice, i+1
		}
		var next []string
		for _, o := range out {
			for _, a := range atom {
				next = append(next, o+a)
			}
		}
		out = next
	}
	for i, w := range out {
		if strings.Contains(w, "#num") {
			out[i] = "#num"
		}
	}
	return out
}

// sentenceSpans splits text at sentence ends and line breaks.
func sentenceSpans(text string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := c == '\n' || ((c == '.' || c == '!' || c == '?' || c == ';') && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n'))
		if end {
			out = append(out, [2]int{start, i + 1})
			start = i + 1
		}
	}
	if start < len(text) {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

func normSpace(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

func matchesOf(text string, rules ...string) []string {
	var out []string
	for _, f := range FindCounts(text) {
		for _, r := range rules {
			if f.Rule == r {
				out = append(out, f.Match)
				break
			}
		}
	}
	return out
}

// Tallies returns the supporter counts, group quantifiers and repetitions
// found in text ("3 agents", "both of us", "said 4 times"), lower-cased.
func Tallies(text string) []string {
	return matchesOf(text, RuleTally, RuleQuantifier, RuleRepetition, RuleAttribution)
}

// MajorityPhrases returns the appeals to a majority found in text
// ("everyone agreed", "the majority", "nobody disagreed", "consensus").
func MajorityPhrases(text string) []string { return matchesOf(text, RuleMajority) }

// IntroducedTallies returns the count leaks that occur more often in out
// than in in: what a compaction added.
func IntroducedTallies(in, out string) []string {
	seen := map[string]int{}
	for _, f := range FindCounts(in) {
		seen[f.Match]++
	}
	var added []string
	for _, f := range FindCounts(out) {
		if seen[f.Match] > 0 {
			seen[f.Match]--
			continue
		}
		added = append(added, f.Match)
	}
	return added
}

// leadInPatterns find a reporting lead-in at the front of a sentence ("2
// analysts said that", "everyone agreed", "a participant is right that")
// or at its end (", a participant said."), per language.
var leadInPatterns, leadOutPatterns, parenthetical = func() ([]*regexp.Regexp, []*regexp.Regexp, *regexp.Regexp) {
	var in, out []*regexp.Regexp
	for _, l := range countLexicons {
		verbs := alt(append(append([]string{}, l.SpeechVerbs...), `(?:is|was|are|were)\s+right`, `(?:is|was|are|were)\s+correct`,
			`made\s+the\s+point`, `(?:is|was|are|were)\s+(?:convinced|sure|worried|concerned)`))
		in = append(in, regexp.MustCompile(`(?i)^(.{0,80}?)(?:^|[^\p{L}\p{N}_])`+verbs+`(?:\s+(?:it|this|again|also|too))?(?:\s+(?:that|how)\b|\s*[:,]|\s+)\s*`))
		in = append(in, regexp.MustCompile(`(?i)^(?:as|like|according\s+to)\s+(.{0,60}?)(?:\s+`+verbs+`)?\s*,\s*`))
		out = append(out, regexp.MustCompile(`(?i)\s*[,;(-]\s*(?:as\s+)?(.{0,60}?)\s+`+verbs+`(?:\s+[\p{L}-]+)?\s*\)?\s*([.!?]*)$`))
	}
	return in, out, regexp.MustCompile(`\s*\([^()]*\)`)
}()

// repetitionAdverbs finds the adverbs of a repetition finding, so they can
// be cut while the verb stays.
var repetitionAdverbs = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, l := range countLexicons {
		out = append(out, regexp.MustCompile(`(?i)\s*\b`+alt(l.RepetitionAdverbs)+`\b`))
	}
	return out
}()

// holderPatterns match a whole phrase that is people or a bare count.
var holderPatterns = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, l := range countLexicons {
		out = append(out,
			regexp.MustCompile(`(?i)^(?:(?:the|our|we|they|i|you|he|she|a|an|some|other|others|`+alt(l.Quantifiers)+`)\s+)*(?:`+alt(l.People)+`|we|they|i|he|she|others|participant|everyone|everybody|nobody|no one|someone)$`),
			regexp.MustCompile(`(?i)^(?:\d{1,3}|`+alt(l.Numbers)+`|`+alt(l.Quantifiers)+`)(?:\s+of\s+(?:us|them))?$`))
	}
	return out
}()

// holderFiller are the words a holder phrase may hold besides counts,
// attributions and people ("and", "the", "of", "who").
var holderFiller = wordSet(`and or the a an of that who which also too we they i us them you he she some other others
	in view opinion according to as like per earlier later then again still all both on with from by among`)

// holderPhrase reports whether s names who held a view rather than what
// the view is: counts, quantifiers, attributions and people, and nothing
// else but filler words.
func holderPhrase(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	for _, re := range holderPatterns {
		if re.MatchString(s) {
			return true
		}
	}
	rest := []byte(s)
	found := false
	for _, f := range FindCounts(s) {
		found = true
		for i := f.Start; i < f.End; i++ {
			rest[i] = ' '
		}
	}
	for _, re := range attributionPatterns {
		for _, loc := range re.FindAllStringSubmatchIndex(s, -1) {
			found = true
			for i := loc[2]; i < loc[3]; i++ {
				rest[i] = ' '
			}
		}
	}
	if !found {
		return false
	}
	for _, w := range words(string(rest)) {
		if !holderFiller[w] && !holderPatterns[0].MatchString(w) {
			return false
		}
	}
	return true
}

// countClause is a comma-delimited clause ("EcoBox, which three of us
// tested, broke") or a trailing attribution ("... according to most of us").
var trailingHolder = regexp.MustCompile(`(?i)\s+(?:according\s+to|in\s+the\s+(?:view|opinion)\s+of|per|for)\s+(.{1,60}?)\s*([.!?]*)$`)

// dropCountClauses removes the comma clauses of s that hold a count leak,
// and a trailing "according to" holder, keeping the rest of the sentence.
func dropCountClauses(s string) string {
	if m := trailingHolder.FindStringSubmatchIndex(s); m != nil && holderPhrase(s[m[2]:m[3]]) {
		s = s[:m[0]] + s[m[4]:m[5]]
	}
	// Clauses end at ", " (a comma in "1,000" is not a clause break).
	parts := strings.Split(s, ", ")
	if len(parts) < 2 {
		return s
	}
	var b strings.Builder
	kept, dropped := 0, false
	for _, p := range parts {
		if len(FindCounts(p)) > 0 {
			dropped = true
			continue
		}
		if kept > 0 {
			if dropped {
				b.WriteString(" ") // an appositive went: "EcoBox broke"
			} else {
				b.WriteString(", ")
			}
		}
		b.WriteString(strings.TrimSpace(p))
		kept++
		dropped = false
	}
	if kept == 0 {
		return s
	}
	out := strings.TrimSpace(b.String())
	if last := parts[len(parts)-1]; len(FindCounts(last)) > 0 {
		// The dropped clause ended the sentence: keep its end mark.
		if end := strings.TrimRight(last, " "); strings.HasSuffix(end, ".") && !strings.HasSuffix(out, ".") {
			out += "."
		}
	}
	return out
}

// StripCounts removes from one sentence whatever says who or how many held
// its claim, and keeps the claim: "2 analysts said EcoBox is not reliable
// in winter" becomes "EcoBox is not reliable in winter". ok is false when
// a count leak is left that cannot be cut without the claim.
func StripCounts(s string) (string, bool) {
	orig := s
	s = parenthetical.ReplaceAllStringFunc(s, func(p string) string {
		if holderPhrase(strings.Trim(strings.TrimSpace(p), "()")) || len(FindCounts(p)) > 0 {
			return ""
		}
		return p
	})
	for _, re := range leadInPatterns {
		if m := re.FindStringSubmatchIndex(s); m != nil && holderPhrase(s[m[2]:m[3]]) {
			s = s[m[1]:]
			break
		}
	}
	for _, re := range leadOutPatterns {
		if m := re.FindStringSubmatchIndex(s); m != nil && holderPhrase(s[m[2]:m[3]]) {
			s = s[:m[0]] + s[m[4]:m[5]]
			break
		}
	}
	if len(FindCounts(s)) > 0 {
		s = dropCountClauses(s)
	}
	for _, f := range FindCounts(s) {
		if f.Rule != RuleRepetition {
			continue
		}
		span := s[f.Start:f.End]
		for _, re := range repetitionAdverbs {
			span = re.ReplaceAllString(span, "")
		}
		s = s[:f.Start] + span + s[f.End:]
		break
	}
	s = strings.TrimSpace(s)
	if s != orig && len(strings.Fields(s)) < 2 {
		// What is left ("BoxWest.") is a vote, not a claim.
		return "", false
	}
	if s != orig && len(FindCounts(s)) > 0 {
		return StripCounts(s)
	}
	return s, len(FindCounts(s)) == 0
}
