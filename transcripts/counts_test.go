package transcripts_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/transcripts"
)

// Every phrase here tells a decider how many held a view, or that a view
// was the majority's (issue 16's list and new phrasings of each kind).
var countLeaks = map[string][]string{
	transcripts.RuleTally: {
		"Three of us", "2 analysts said", "two of the analysts", "3 out of 4 reviewers", "One analyst said",
		"four participants", "2 said", "a 3-1 vote", "all three of us", "the two of us", "five voices",
		"Two senior analysts", "10 members", "a dozen people", "each of the three said", "two of the four thought",
		"participants (3)", "by 3 to 1", "Half the room", "a couple of us",
	},
	transcripts.RuleQuantifier: {
		"Both of us", "Most of the team", "Several analysts", "Many participants", "Few people", "All of the agents",
		"a few colleagues", "we both", "they all", "most agreed", "many argued", "several preferred", "numerous members",
		"the other analysts", "the rest of us", "The whole team", "Every analyst", "supported by most:",
		"a view shared by several;", "Most felt",
	},
	transcripts.RuleMajority: {
		"Nobody disagreed that", "Everyone agreed", "the majority", "There was consensus", "unanimously",
		"no one objected", "It was agreed that", "broad agreement", "widely agreed", "the minority view",
		"an undisputed point", "overwhelmingly", "a shared view", "everybody", "No one pushed back on this:",
		"none of us doubted", "the lone skeptic", "by a wide margin", "the popular choice", "We agreed",
		"with one voice", "the prevailing view",
	},
	transcripts.RuleRepetition: {
		"Analysts repeatedly stressed", "(said twice)", "mentioned 3 times", "raised again and again",
		"came up several times", "reiterated", "was echoed", "kept coming back to", "the most-cited concern",
		"often mentioned", "stressed it repeatedly", "noted more than once", "as noted earlier",
		"was mentioned before", "came up again", "mentioned 3x", "raised on several occasions",
	},
	transcripts.RuleAttribution: {
		"A participant and a participant said", "another analyst agreed", "someone else noted",
		"One analyst, then a participant said", "a second participant", "the others", "the third analyst",
		"backed by others", "yet another participant", "one more voice",
	},
}

func TestValidatorRejectsEveryCountKind(t *testing.T) {
	req := supplierRequest()
	claims := []string{"PackPro is cheaper than BoxWest.", "EcoBox is not reliable in winter."}
	for rule, phrases := range countLeaks {
		for _, p := range phrases {
			for _, claim := range claims {
				// The phrase at the front, in the middle and at the end.
				for _, line := range []string{
					p + " " + claim,
					strings.TrimSuffix(claim, ".") + ", " + p + ".",
					"Note: " + strings.ToLower(p[:1]) + p[1:] + " " + claim,
				} {
					v := transcripts.ValidateSummary(req, transcripts.DefaultEvidenceConfig(), "1. "+line+"\n\n"+strings.SplitN(cleanSummary, "\n\n", 2)[1])
					if len(v) == 0 {
						t.Errorf("%s: %q accepted", rule, line)
					}
				}
			}
			if got := transcripts.FindCounts(p + " " + claims[0]); len(got) == 0 {
				t.Errorf("%q: no finding", p)
			} else if !hasRule(got, rule) {
				t.Errorf("%q: findings %+v, want a %q", p, got, rule)
			}
		}
	}
}

func hasRule(fs []transcripts.CountFinding, rule string) bool {
	for _, f := range fs {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

// Facts that hold numbers, quantities and the words both/all/most about
// things, not people, are not count leaks.
func TestValidatorAcceptsNumbersThatCountThings(t *testing.T) {
	for _, s := range []string{
		"EcoBox had damaged shipments in two audits.", "BoxWest ships from Denver in 3 days.",
		"PackPro quotes $0.42 per box.", "Both PackPro and BoxWest ship from the US.",
		"Most of the shipments were damaged.", "EcoBox offers three box models.",
		"A study in 2021 found EcoBox boxes crushed.", "PackPro is often late in winter.",
		"EcoBox's damage rate is 0.5%, the lowest.", "PackPro has two warehouses and ships to all states.",
		"All orders above 500 units get a 5% discount.", "Several pallets arrived dented.",
		"PackPro reported delays in March.", "EcoBox raised prices by 3% across the board.",
		"BoxWest is one of the three suppliers.", "PackPro ships as one consolidated pallet.",
		"The warehouse has room for 400 pallets.", "EcoBox was founded earlier than PackPro.",
		"Prices rose 2 to 3 percent.", "BoxWest delivered 3 of 4 orders on time.",
	} {
		if f := transcripts.FindCounts(s); len(f) > 0 {
			t.Errorf("%q: false finding %+v", s, f)
		}
	}
}

// The fallback keeps the fact and drops the count.
func TestStripCountsKeepsTheFact(t *testing.T) {
	for in, want := range map[string]string{
		"2 analysts said EcoBox is not reliable in winter":               "EcoBox is not reliable in winter",
		"Three of us think PackPro is cheaper.":                          "PackPro is cheaper.",
		"Nobody disagreed that EcoBox is green.":                         "EcoBox is green.",
		"A participant and a participant said PackPro is late.":          "PackPro is late.",
		"PackPro is cheap (said twice).":                                 "PackPro is cheap.",
		"PackPro is cheap, 2 said.":                                      "PackPro is cheap.",
		"Everyone agreed that EcoBox offers the only recycled material.": "EcoBox offers the only recycled material.",
		"Delays at PackPro were mentioned 3 times.":                      "Delays at PackPro were mentioned.",
		"EcoBox is late in winter, as a participant noted.":              "EcoBox is late in winter.",
		"According to several analysts, PackPro is cheaper.":             "PackPro is cheaper.",
		"Most of the team believes BoxWest ships faster.":                "BoxWest ships faster.",
	} {
		got, ok := transcripts.StripCounts(in)
		if !ok || got != want {
			t.Errorf("StripCounts(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	// A bare vote has no claim left to keep.
	if got, ok := transcripts.StripCounts("Most of the team preferred EcoBox."); ok {
		t.Errorf("a vote kept as %q", got)
	}
}

func TestExtractiveFallbackKeepsCountedFacts(t *testing.T) {
	req := transcripts.EvidenceRequest{
		Decision: "Pick a supplier", Options: []string{"PackPro", "BoxWest", "EcoBox"},
		Transcript: transcripts.Transcript{
			{Speaker: "Ann Ray", Text: "2 analysts said EcoBox is not reliable in winter. Both of us think PackPro is cheaper than BoxWest."},
			{Speaker: "Bo Li", Text: "Analysts repeatedly stressed that BoxWest ships faster. Nobody disagreed that PackPro had delays."},
			{Speaker: "Cy Oz", Text: "A participant and a participant said EcoBox has the lowest damage rate."},
		},
	}
	ex := transcripts.ExtractiveSummary(req, transcripts.DefaultEvidenceConfig())
	for _, fact := range []string{"EcoBox is not reliable in winter", "PackPro is cheaper than BoxWest", "BoxWest ships faster", "PackPro had delays", "EcoBox has the lowest damage rate"} {
		if !strings.Contains(ex.Summary, fact) {
			t.Errorf("fact %q lost:\n%s", fact, ex.Summary)
		}
	}
	if v := transcripts.ValidateSummary(req, transcripts.DefaultEvidenceConfig(), ex.Summary); len(v) > 0 {
		t.Errorf("extractive summary violates %+v:\n%s", v, ex.Summary)
	}
}

// Twenty statements of mixed polarity, each option judged by the clause
// that names it.
func TestDirectionsPerOption(t *testing.T) {
	opts := []string{"PackPro", "BoxWest", "EcoBox"}
	for _, tc := range []struct {
		s            string
		supp, hurtOf string
	}{
		{"EcoBox has a damage rate of 0.5%, the lowest.", "EcoBox", ""},
		{"PackPro had delays.", "", "PackPro"},
		{"PackPro is cheaper than BoxWest.", "PackPro", "BoxWest"},
		{"BoxWest is more expensive than EcoBox.", "EcoBox", "BoxWest"},
		{"EcoBox is not reliable in winter.", "", "EcoBox"},
		{"PackPro never missed a deadline and has no delays.", "PackPro", ""},
		{"BoxWest has fewer damaged boxes than PackPro.", "BoxWest", "PackPro"},
		{"EcoBox is cheap, but PackPro had damaged shipments.", "EcoBox", "PackPro"},
		{"BoxWest has a higher price.", "", "BoxWest"},
		{"PackPro has the lowest price.", "PackPro", ""},
		{"EcoBox has a low rating.", "", "EcoBox"},
		{"BoxWest has the highest rating.", "BoxWest", ""},
		{"PackPro is less reliable than EcoBox.", "EcoBox", "PackPro"},
		{"EcoBox ships faster, while BoxWest is slow.", "EcoBox", "BoxWest"},
		{"PackPro's lead time is longer than BoxWest's.", "BoxWest", "PackPro"},
		{"EcoBox had zero breakage in the audit.", "EcoBox", ""},
		{"BoxWest is sturdy; however, EcoBox arrived crushed.", "BoxWest", "EcoBox"},
		{"PackPro raised its surcharge.", "", "PackPro"},
		{"EcoBox is as reliable as PackPro.", "EcoBox", ""},
		{"BoxWest is cheap, but it breaks in winter and had late deliveries.", "BoxWest", "BoxWest"},
		{"PackPro charges more.", "", "PackPro"},
		{"EcoBox costs less than BoxWest.", "EcoBox", "BoxWest"},
		{"PackPro's delays were minimal.", "PackPro", ""},
		{"BoxWest is twice as expensive as EcoBox.", "EcoBox", "BoxWest"},
	} {
		req := transcripts.EvidenceRequest{Decision: "d", Options: opts, Transcript: transcripts.Transcript{{Speaker: "X", Text: tc.s}}}
		ex := transcripts.ExtractiveSummary(req, transcripts.EvidenceConfig{})
		if len(ex.Facts) != 1 {
			t.Errorf("%q: %d facts", tc.s, len(ex.Facts))
			continue
		}
		f := ex.Facts[0]
		if tc.supp != "" && !contains(f.Supports, tc.supp) {
			t.Errorf("%q: supports %v, want %s", tc.s, f.Supports, tc.supp)
		}
		if tc.hurtOf != "" && !contains(f.Hurts, tc.hurtOf) {
			t.Errorf("%q: hurts %v, want %s", tc.s, f.Hurts, tc.hurtOf)
		}
		for _, o := range f.Supports {
			if o != tc.supp && o != tc.hurtOf {
				t.Errorf("%q: also supports %s", tc.s, o)
			}
			if o == tc.hurtOf && tc.supp != tc.hurtOf {
				t.Errorf("%q: supports the option it hurts", tc.s)
			}
		}
		for _, o := range f.Hurts {
			if o == tc.supp && tc.supp != tc.hurtOf {
				t.Errorf("%q: hurts the option it supports", tc.s)
			}
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestOutputReportsViolationsByKindOnly(t *testing.T) {
	res := transcripts.EvidenceResult{
		Attempts:   []transcripts.EvidenceAttempt{{Attempt: 1, Violations: []transcripts.Violation{{Rule: transcripts.RuleName, Match: "Maria"}}}},
		Violations: []transcripts.Violation{{Rule: transcripts.RuleTally, Match: "three of us"}},
	}
	out := res.WithoutMatches()
	s := fmt.Sprintf("%+v", out)
	if strings.Contains(s, "Maria") || strings.Contains(s, "three of us") || !strings.Contains(s, transcripts.RuleName) {
		t.Errorf("redacted result %s", s)
	}
	if res.Attempts[0].Violations[0].Match != "Maria" {
		t.Error("WithoutMatches changed its receiver")
	}
}

func TestStripCountsInsideTheSentence(t *testing.T) {
	for in, want := range map[string]string{
		"EcoBox, which three of us tested, broke in winter.":   "EcoBox broke in winter.",
		"In the view of most analysts, PackPro is cheaper.":    "PackPro is cheaper.",
		"PackPro is cheaper, which everyone agreed on.":        "PackPro is cheaper.",
		"PackPro is cheaper according to both of us.":          "PackPro is cheaper.",
		"Three of us flagged EcoBox's breakage.":               "EcoBox's breakage.",
		"BoxWest, a point raised several times, ships faster.": "BoxWest ships faster.",
		"PackPro ships 1,000 units a day, as two of us noted.": "PackPro ships 1,000 units a day.",
	} {
		got, ok := transcripts.StripCounts(in)
		if !ok || got != want {
			t.Errorf("StripCounts(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
