package transcripts

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/jetcompact/jetcompact/stages"
)

// Fact is one line of the extractive summary.
type Fact struct {
	Text string `json:"text"`
	// Supports and Hurts name the options the fact speaks for and against,
	// judged by keyword cues; an option the fact mentions without a clear
	// direction is in neither.
	Supports []string `json:"supports,omitempty"`
	Hurts    []string `json:"hurts,omitempty"`
	Turns    []int    `json:"turns"` // 1-based source turns
}

// Extractive is the deterministic summary used when no model summary passes.
type Extractive struct {
	Summary      string
	Facts        []Fact
	Trace        map[int][]int
	DroppedFacts int
}

var (
	sentenceEnd = regexp.MustCompile(`[.!?]+(?:["')\]]+)?\s+`)
	thanWord    = regexp.MustCompile(`\bthan\b`)
	listMarker  = regexp.MustCompile(`^\s*(?:[-*•]|\d{1,3}[.)])\s+`)
)

// sentences splits a turn into trimmed sentences, one list item or line at
// least per sentence.
func sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = listMarker.ReplaceAllString(line, "")
		rest := line
		for {
			loc := sentenceEnd.FindStringIndex(rest)
			if loc == nil {
				break
			}
			if s := strings.TrimSpace(rest[:loc[1]]); s != "" {
				out = append(out, s)
			}
			rest = rest[loc[1]:]
		}
		if s := strings.TrimSpace(rest); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// ExtractiveSummary builds the fallback summary without a model: every
// sentence that mentions an option becomes a fact, with speaker names
// scrubbed and crowd lead-ins ("everyone agreed that") cut; sentences that
// still count supporters are left out. Duplicates are merged (their source
// turns joined). Each fact is marked with the options it supports and hurts
// by keyword cues, and the for/against table follows when c.Table is set.
// Under MaxSummaryChars, facts are dropped from the end until it fits.
func ExtractiveSummary(req EvidenceRequest, c EvidenceConfig) Extractive {
	names := speakerNames(req.Transcript, protectedTerms(req)...)
	var facts []Fact
	index := map[string]int{}
	for ti, turn := range req.Transcript {
		for _, s := range sentences(turn.Text) {
			s = names.scrub(s, "a participant")
			s = turnLabel.ReplaceAllString(s, "an earlier point")
			s, ok := StripCounts(s)
			if !ok {
				continue
			}
			s = capitalise(strings.TrimSpace(s))
			supports, hurts, mentioned := judge(s, req.Options)
			if !mentioned {
				continue
			}
			key := normalise(s)
			if i, ok := index[key]; ok {
				if t := facts[i].Turns; t[len(t)-1] != ti+1 {
					facts[i].Turns = append(facts[i].Turns, ti+1)
				}
				continue
			}
			index[key] = len(facts)
			facts = append(facts, Fact{Text: s, Supports: supports, Hurts: hurts, Turns: []int{ti + 1}})
		}
	}
	ex := Extractive{Facts: facts}
	for {
		ex.Summary = renderFacts(ex.Facts, req.Options, c.Table)
		if c.MaxSummaryChars == 0 || stages.Chars(ex.Summary) <= c.MaxSummaryChars || len(ex.Facts) == 0 {
			break
		}
		ex.Facts = ex.Facts[:len(ex.Facts)-1]
		ex.DroppedFacts++
	}
	ex.Trace = make(map[int][]int, len(ex.Facts))
	for i, f := range ex.Facts {
		ex.Trace[i+1] = f.Turns
	}
	return ex
}

func capitalise(s string) string {
	for i, r := range s {
		return s[:i] + string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}

func normalise(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}), " ")
}

func renderFacts(facts []Fact, options []string, table bool) string {
	var b strings.Builder
	b.WriteString("Facts:\n")
	if len(facts) == 0 {
		b.WriteString("(no statement about the options was found)\n")
	}
	forIdx := map[string][]string{}
	againstIdx := map[string][]string{}
	for i, f := range facts {
		n := strconv.Itoa(i + 1)
		fmt.Fprintf(&b, "%s. %s (for: %s; against: %s)\n", n, f.Text, listOrDash(f.Supports), listOrDash(f.Hurts))
		for _, o := range f.Supports {
			forIdx[o] = append(forIdx[o], n)
		}
		for _, o := range f.Hurts {
			againstIdx[o] = append(againstIdx[o], n)
		}
	}
	if table {
		b.WriteString("\n| option | for | against |\n| --- | --- | --- |\n")
		for _, o := range options {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", o, listOrDash(forIdx[o]), listOrDash(againstIdx[o]))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func listOrDash(ss []string) string {
	if len(ss) == 0 {
		return "-"
	}
	return strings.Join(ss, ", ")
}

// Keyword cues for the direction of a fact. They are deliberately simple:
// the extractive summary is the fallback, and its table is a rough guide.
// The lists are English; other languages get facts without a direction.
var (
	positiveCues = wordSet(`affordable benefit benefits best better certified cheap cheaper cheapest consistent
		discount discounts durable excellent experienced fast faster fastest flexible good great
		advantage advantages on-time positive praised proven punctual quick quicker recommended
		reliable reliably responsive safe safer secure strong stronger sturdy trusted well
		damage-free delay-free intact robust efficient accurate lightweight sustainable recyclable
		recycled eco-friendly green greener compliant insured guaranteed`)
	negativeCues = wordSet(`bad breakage broke broken complaint complaints concern concerns costly crushed
		damage damaged damages defect defective defects delay delayed delays dented downside
		drawback drawbacks expensive fail failed failure failures fails inconsistent issue issues late
		lawsuit missing negative penalty poor poorly pricey pricier problem problems recall
		risk risks risky shortage slow slower slowest surcharge unreliable weak weaker worse worst
		leak leaks leaking torn crack cracked cracks errors error returns refunds overdue backlog
		fragile flimsy lost`)
	negators = wordSet(`not no never without hardly lacks lack isn't aren't wasn't weren't doesn't don't didn't cannot can't won't zero none nor`)
	// lowWords and highWords give a measure its direction: "the lowest
	// damage rate" is good, "a higher price" is bad.
	lowWords  = wordSet(`low lower lowest less least fewer fewest reduced minimal minimum small smaller smallest short shorter shortest dropped fell decreased declining down cut`)
	highWords = wordSet(`high higher highest more most increased rose rising long longer longest large larger largest up grew growing`)
	// badMeasures are quantities where less is better (price, damage rate);
	// alone they carry no direction. goodMeasures are the reverse.
	badMeasures  = wordSet(`price prices pricing cost costs charge charges fee fees rate rates quote quotes time times latency turnaround lead-time wait`)
	goodMeasures = wordSet(`rating ratings reliability quality score scores capacity durability satisfaction uptime speed margin margins availability stock`)
	// lessWords before a cue flip it: "less reliable", "fewer delays".
	lessWords = wordSet(`less least fewer fewest lower lowest reduced`)
	// clauseBreak separates clauses that can judge different options.
	clauseBreak  = regexp.MustCompile(`(?i)\s*(?:;|\bbut\b|\bhowever\b|\bwhereas\b|\bwhile\b|\balthough\b|\bthough\b|\byet\b|\bon the other hand\b|\bmeanwhile\b)\s*`)
	asComparison = regexp.MustCompile(`(?i)\bas\s+[\p{L}-]+\s+as\b`)
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '\'' && r != '-'
	})
}

// polarity sums the cues of ws. A negator up to three words before a cue
// flips it, as does "less" or "fewer" right before it. A measure (price,
// damage rate, rating) takes its direction from a low or high word in the
// same clause; a bad event (damage, delays) next to a low word is good news.
func polarity(ws []string) int {
	low, high := false, false
	for _, w := range ws {
		low = low || lowWords[w]
		high = high || highWords[w]
	}
	p := 0
	for i := range ws {
		if v := cueValue(ws, i, low, high); v != 0 {
			p += flipped(ws, i, v, low)
		}
	}
	return p
}

// cueValue is the direction of word i before negation: a cue's own, or a
// measure's from the clause's low or high words.
func cueValue(ws []string, i int, low, high bool) int {
	w := ws[i]
	switch {
	case positiveCues[w]:
		return 1
	case negativeCues[w]:
		if low && !high {
			return 1 // "the lowest damage", "fewer delays"
		}
		return -1
	case badMeasures[w] && (w != "time" && w != "times" || isDeliveryTime(ws, i)):
		if low != high {
			return map[bool]int{true: 1, false: -1}[low]
		}
	case goodMeasures[w]:
		if low != high {
			return map[bool]int{true: -1, false: 1}[low]
		}
	}
	return 0
}

// isDeliveryTime reports "time" or "times" after a word that makes it a
// duration to keep short ("lead time", "delivery times").
func isDeliveryTime(ws []string, i int) bool {
	if i == 0 {
		return false
	}
	switch ws[i-1] {
	case "lead", "delivery", "shipping", "transit", "turnaround":
		return true
	}
	return false
}

// flipped is v after the words before cue i: "less" or "fewer" right
// before a cue, or a negator up to three words before it.
func flipped(ws []string, i, v int, low bool) int {
	w := ws[i]
	if i > 0 && lessWords[ws[i-1]] && (positiveCues[w] || negativeCues[w]) && !(negativeCues[w] && low) {
		v = -v
	}
	for j := max(0, i-3); j < i; j++ {
		if negators[ws[j]] {
			return -v
		}
	}
	return v
}

// judge returns the options sentence s supports and hurts, and whether it
// mentions any option. Each clause ("A is cheap, but B is late") judges the
// options it names by its own cues; a clause that names none ("... but it
// breaks in winter") judges the options named before it. In a comparison
// ("A is cheaper than B", "A is as fast as B") the options after "than" or
// the second "as" take the opposite direction. An option judged both ways
// by different clauses is listed on both sides.
func judge(s string, options []string) (supports, hurts []string, mentioned bool) {
	type hit struct {
		option string
		at     int
	}
	var current []hit
	score := map[string][2]bool{} // option -> {for, against}
	var order []string
	for _, clause := range clauseBreak.Split(s, -1) {
		var hits []hit
		for _, o := range options {
			at := -1
			for _, alias := range []string{o, optionShortName(o)} {
				if loc := wordPattern(alias).FindStringIndex(clause); loc != nil {
					at = loc[0]
					break
				}
			}
			if at >= 0 {
				hits = append(hits, hit{o, at})
				if _, seen := score[o]; !seen {
					score[o] = [2]bool{}
					order = append(order, o)
				}
			}
		}
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].at < hits[j].at })
		pivot := -1
		if loc := thanWord.FindStringIndex(strings.ToLower(clause)); loc != nil {
			pivot = loc[0]
		} else if loc := asComparison.FindStringIndex(clause); loc != nil {
			pivot = loc[1] - 2
		}
		p := polarity(words(clause))
		if len(hits) == 0 {
			hits = current
			pivot = -1
		} else {
			current = hits
		}
		for _, h := range hits {
			d := p
			if pivot >= 0 && h.at > pivot {
				d = -d
			}
			sc := score[h.option]
			switch {
			case d > 0:
				sc[0] = true
			case d < 0:
				sc[1] = true
			}
			score[h.option] = sc
		}
	}
	for _, o := range order {
		if score[o][0] {
			supports = append(supports, o)
		}
		if score[o][1] {
			hurts = append(hurts, o)
		}
	}
	return supports, hurts, len(order) > 0
}

// traceLLMSummary estimates, for each numbered fact of a model summary, the
// turns it came from: the turns that hold at least half of the fact's
// content words, or else the one that holds most of them.
func traceLLMSummary(summary string, t Transcript) map[int][]int {
	turnWords := make([]map[string]bool, len(t))
	for i, turn := range t {
		turnWords[i] = map[string]bool{}
		for _, w := range words(turn.Text) {
			turnWords[i][w] = true
		}
	}
	trace := map[int][]int{}
	n := 0
	for _, line := range strings.Split(summary, "\n") {
		l := strings.TrimSpace(line)
		if !listMarker.MatchString(l) {
			continue
		}
		n++
		var content []string
		for _, w := range words(listMarker.ReplaceAllString(l, "")) {
			if len([]rune(w)) >= 4 {
				content = append(content, w)
			}
		}
		if len(content) == 0 {
			continue
		}
		best, bestHits := -1, 0
		var turns []int
		for i, tw := range turnWords {
			hits := 0
			for _, w := range content {
				if tw[w] {
					hits++
				}
			}
			if hits*2 >= len(content) {
				turns = append(turns, i+1)
			}
			if hits > bestHits {
				best, bestHits = i, hits
			}
		}
		if len(turns) == 0 && best >= 0 {
			turns = []int{best + 1}
		}
		if len(turns) > 0 {
			trace[n] = turns
		}
	}
	return trace
}
