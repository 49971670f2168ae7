package transcripts

import (
	"regexp"
	"strings"
)

// Counting words and group nouns shared by the tally and majority patterns.
const (
	countWord = `(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|several|multiple)`
	groupNoun = `(?:agents?|analysts?|models?|people|persons?|participants?|debaters?|experts?|reviewers?|members?|speakers?|voters?|judges?|respondents?|panel+ists?|colleagues?|teammates?)`
)

// tallyPatterns find supporter counts: "3 agents", "two of the analysts",
// "said 4 times", "2 said", "a 3-1 vote".
var tallyPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b` + countWord + `\s+(?:out\s+of\s+` + countWord + `\s+)?(?:of\s+(?:the|us|them)\s+)?(?:[a-z-]+\s+)?` + groupNoun + `\b`),
	regexp.MustCompile(`(?i)\b(?:said|mentioned|repeated|raised|stated|cited|noted|argued|claimed)\s+(?:` + countWord + `\s+times|many\s+times|twice|thrice)\b`),
	regexp.MustCompile(`(?i)\b` + countWord + `\s+(?:of\s+(?:us|them)\s+)?(?:said|say|says|agreed|agree|voted|argued|thought|believe|believed|supported|preferred)\b`),
	regexp.MustCompile(`(?i)\b\d+\s+votes?\b|\bvotes?\s*[:=]\s*\d+`),
	regexp.MustCompile(`(?i)\b\d+\s*[-–:]\s*\d+\s+(?:vote|votes|split|majority|decision)\b`),
}

// majorityPatterns find appeals to the crowd: "everyone agreed", "the
// majority", "most people", "consensus".
var majorityPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(?:everyone|everybody|all\s+of\s+us|all\s+of\s+them|we\s+all|all\s+(?:the\s+)?` + groupNoun + `)\s+(?:agree|agrees|agreed|think|thinks|thought|believe|believes|believed|said|says|preferred|prefers|prefer|concluded|concurred)\b`),
	regexp.MustCompile(`(?i)\bthe\s+majority\b|\bmajority\s+(?:view|opinion|position|vote)\b`),
	regexp.MustCompile(`(?i)\bmost\s+(?:of\s+the\s+)?(?:` + groupNoun + `|of\s+us|of\s+them)\b`),
	regexp.MustCompile(`(?i)\b(?:consensus|unanimous(?:ly)?|widely\s+agreed|general\s+agreement)\b`),
}

// findAll returns every match of patterns in text, lower-cased and with
// runs of white space collapsed, in pattern order.
func findAll(patterns []*regexp.Regexp, text string) []string {
	var out []string
	for _, re := range patterns {
		for _, m := range re.FindAllString(text, -1) {
			out = append(out, strings.Join(strings.Fields(strings.ToLower(m)), " "))
		}
	}
	return out
}

// Tallies returns the supporter counts found in text ("3 agents", "two of
// the analysts", "said 4 times"), normalised to lower case.
func Tallies(text string) []string { return findAll(tallyPatterns, text) }

// MajorityPhrases returns the appeals to a majority found in text
// ("everyone agreed", "the majority", "most people", "consensus").
func MajorityPhrases(text string) []string { return findAll(majorityPatterns, text) }

// IntroducedTallies returns the tallies and majority phrases that occur more
// often in out than in in: what a compaction added.
func IntroducedTallies(in, out string) []string {
	seen := map[string]int{}
	for _, m := range Tallies(in) {
		seen[m]++
	}
	for _, m := range MajorityPhrases(in) {
		seen[m]++
	}
	var added []string
	for _, m := range append(Tallies(out), MajorityPhrases(out)...) {
		if seen[m] > 0 {
			seen[m]--
			continue
		}
		added = append(added, m)
	}
	return added
}
