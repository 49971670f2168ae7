package transcripts_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/transcripts"
)

// supplierRequest is a packaging-supplier decision with named analysts
// who also name each other in their turns.
func supplierRequest() transcripts.EvidenceRequest {
	return transcripts.EvidenceRequest{
		Decision: "Choose a packaging supplier for a fragile product sold on Amazon",
		Options:  []string{"PackPro", "BoxWest", "EcoBox"},
		Criteria: []string{"price", "lead time", "damage rate"},
		Transcript: transcripts.Transcript{
			{Speaker: "Maria Lopez", Text: "PackPro quotes $0.42 per box, which is cheaper than BoxWest at $0.55. PackPro also had delays in March."},
			{Speaker: "Chen Wei", Text: "I disagree with Maria. BoxWest ships from Denver in 3 days, faster than EcoBox. Reviews praise BoxWest for sturdy corners."},
			{Speaker: "Olu Adebayo", Text: "EcoBox had damaged shipments in two audits. Chen Wei is right that BoxWest is fast. EcoBox is not reliable in winter."},
			{Speaker: "Maria Lopez", Text: "Everyone agreed that EcoBox offers the only recycled material. PackPro quotes $0.42 per box, which is cheaper than BoxWest at $0.55."},
		},
	}
}

var supplierNames = []string{"Maria Lopez", "Maria", "Lopez", "Chen Wei", "Chen", "Wei", "Olu Adebayo", "Olu", "Adebayo"}

func assertNoNames(t *testing.T, what, text string) {
	t.Helper()
	for _, n := range supplierNames {
		if containsWordFold(text, n) {
			t.Errorf("%s carries the name %q:\n%s", what, n, text)
		}
	}
}

func containsWordFold(text, w string) bool {
	lt, lw := strings.ToLower(text), strings.ToLower(w)
	for i := 0; ; {
		j := strings.Index(lt[i:], lw)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isWordByte(lt[j-1])
		end := j + len(lw)
		after := end == len(lt) || !isWordByte(lt[end])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 0x80
}

const cleanSummary = `1. PackPro quotes $0.42 per box. For: PackPro. Against: BoxWest.
2. PackPro had delays in March. For: -. Against: PackPro.
3. BoxWest ships from Denver in 3 days. For: BoxWest. Against: EcoBox.
4. EcoBox had damaged shipments in two audits. For: -. Against: EcoBox.

| option | for | against |
| --- | --- | --- |
| PackPro | 1 | 2 |
| BoxWest | 3 | 1 |
| EcoBox | - | 3, 4 |`

func TestValidatorCases(t *testing.T) {
	req := supplierRequest()
	on := transcripts.DefaultEvidenceConfig()
	off := on
	off.Table = false
	limited := on
	limited.MaxSummaryChars = 100
	for _, tc := range []struct {
		name    string
		cfg     transcripts.EvidenceConfig
		summary string
		rule    string // "" means accepted
	}{
		{"clean", on, cleanSummary, ""},
		{"clean without table", off, "1. PackPro is cheaper than BoxWest.", ""},
		{"empty", on, "  ", transcripts.RuleEmpty},
		{"full name", on, cleanSummary + "\nNote: Maria Lopez found the quote.", transcripts.RuleName},
		{"first name", on, "Chen thinks BoxWest is fast.\n" + cleanSummary, transcripts.RuleName},
		{"turn label", on, "Turn 2 says BoxWest is fast.\n" + cleanSummary, transcripts.RuleLabel},
		{"3 agents", on, "3 agents prefer PackPro.\n" + cleanSummary, transcripts.RuleTally},
		{"two of the analysts", on, "Two of the analysts flagged delays.\n" + cleanSummary, transcripts.RuleTally},
		{"N said", on, "PackPro is cheap, 2 said.\n" + cleanSummary, transcripts.RuleTally},
		{"said N times", on, "Delays were mentioned 3 times.\n" + cleanSummary, transcripts.RuleRepetition},
		{"everyone agreed", on, "Everyone agreed EcoBox is green.\n" + cleanSummary, transcripts.RuleMajority},
		{"the majority", on, "The majority favours BoxWest.\n" + cleanSummary, transcripts.RuleMajority},
		{"most people", on, "Most people like PackPro.\n" + cleanSummary, transcripts.RuleQuantifier},
		{"consensus", on, "There was consensus on EcoBox.\n" + cleanSummary, transcripts.RuleMajority},
		{"no table", on, "1. PackPro is cheaper than BoxWest.", transcripts.RuleTable},
		{"table misses an option", on, strings.Replace(cleanSummary, "| EcoBox | - | 3, 4 |", "", 1), transcripts.RuleTable},
		{"over the limit", limited, cleanSummary, transcripts.RuleLength},
	} {
		v := transcripts.ValidateSummary(req, tc.cfg, tc.summary)
		if tc.rule == "" {
			if len(v) > 0 {
				t.Errorf("%s: rejected %+v", tc.name, v)
			}
			continue
		}
		found := false
		for _, x := range v {
			found = found || x.Rule == tc.rule
		}
		if !found {
			t.Errorf("%s: violations %+v, want rule %q", tc.name, v, tc.rule)
		}
	}
}

func TestSummarizerPromptsCarryNoAuthorNames(t *testing.T) {
	req := supplierRequest()
	calls := 0
	model := &fakeChat{answer: func(n int, system, user string) (string, error) {
		calls++
		switch n {
		case 1:
			return "Maria Lopez showed PackPro is cheapest.\n" + cleanSummary, nil // rejected: name
		case 2:
			return "Three analysts prefer BoxWest.\n" + cleanSummary, nil // rejected: tally
		}
		return "", errors.New("HTTP 500") // a failed call ends the retries
	}}
	s, err := transcripts.NewEvidenceSummarizer(transcripts.DefaultEvidenceConfig(), model)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Summarize(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 {
		t.Errorf("%d model calls, want 1 + 2 retries", calls)
	}
	for i, p := range append(model.systems, model.users...) {
		assertNoNames(t, "prompt "+string(rune('0'+i)), p)
	}
	if !strings.Contains(model.users[0], "Turn 1: PackPro quotes") || !strings.Contains(model.users[0], "Turn 4:") {
		t.Errorf("transcript not rendered with neutral labels:\n%s", model.users[0])
	}
	if !strings.Contains(model.users[1], "it named a participant") {
		t.Errorf("retry prompt lacks the (name-free) reason:\n%s", model.users[1])
	}
	if res.Source != transcripts.SourceExtractive || len(res.Attempts) != 3 {
		t.Fatalf("source %s after %d attempts, want extractive after 3", res.Source, len(res.Attempts))
	}
	assertNoNames(t, "fallback summary", res.Summary)
	if v := transcripts.ValidateSummary(req, transcripts.DefaultEvidenceConfig(), res.Summary); len(v) > 0 || len(res.Violations) > 0 {
		t.Errorf("fallback summary breaks rules: %+v\n%s", v, res.Summary)
	}
}

func TestRetryAcceptsACleanSummary(t *testing.T) {
	model := &fakeChat{answer: func(n int, _, _ string) (string, error) {
		if n == 1 {
			return "The majority prefers PackPro.\n" + cleanSummary, nil
		}
		return cleanSummary, nil
	}}
	s, _ := transcripts.NewEvidenceSummarizer(transcripts.DefaultEvidenceConfig(), model)
	res, err := s.Summarize(context.Background(), supplierRequest())
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != transcripts.SourceLLM || res.Summary != cleanSummary || len(res.Attempts) != 2 {
		t.Fatalf("source %s, %d attempts", res.Source, len(res.Attempts))
	}
	if res.Attempts[0].Violations[0].Rule != transcripts.RuleMajority {
		t.Errorf("first attempt: %+v", res.Attempts[0])
	}
	// Trace: fact 1 ("PackPro quotes $0.42 per box") comes from turns 1 and 4.
	if got := res.Trace[1]; len(got) != 2 || got[0] != 1 || got[1] != 4 {
		t.Errorf("trace of fact 1: %v, want [1 4]", got)
	}
	if strings.Contains(res.Summary, "Turn") {
		t.Errorf("traceability leaked into the decider's text")
	}
}

func TestExtractiveSummary(t *testing.T) {
	req := supplierRequest()
	ex := transcripts.ExtractiveSummary(req, transcripts.DefaultEvidenceConfig())
	assertNoNames(t, "extractive summary", ex.Summary)
	byText := map[string]transcripts.Fact{}
	for _, f := range ex.Facts {
		byText[f.Text] = f
	}
	check := func(text string, supports, hurts []string, turns []int) {
		t.Helper()
		f, ok := byText[text]
		if !ok {
			t.Errorf("fact %q missing; facts: %+v", text, ex.Facts)
			return
		}
		if strings.Join(f.Supports, ",") != strings.Join(supports, ",") || strings.Join(f.Hurts, ",") != strings.Join(hurts, ",") {
			t.Errorf("%q: for %v against %v, want for %v against %v", text, f.Supports, f.Hurts, supports, hurts)
		}
		if turns != nil && (len(f.Turns) != len(turns) || f.Turns[0] != turns[0] || f.Turns[len(f.Turns)-1] != turns[len(turns)-1]) {
			t.Errorf("%q: turns %v, want %v", text, f.Turns, turns)
		}
	}
	// Comparison: the option after "than" takes the other side; the
	// repeated sentence is merged and traced to both turns.
	check("PackPro quotes $0.42 per box, which is cheaper than BoxWest at $0.55.", []string{"PackPro"}, []string{"BoxWest"}, []int{1, 4})
	check("PackPro also had delays in March.", nil, []string{"PackPro"}, nil)
	check("EcoBox is not reliable in winter.", nil, []string{"EcoBox"}, nil)
	// Names are scrubbed, the crowd lead-in is cut, the claim stays.
	check("BoxWest is fast.", []string{"BoxWest"}, nil, []int{3})
	check("EcoBox offers the only recycled material.", []string{"EcoBox"}, nil, []int{4})
	// "two audits" is not a supporter count, but "two of the analysts" would be.
	check("EcoBox had damaged shipments in two audits.", nil, []string{"EcoBox"}, nil)
	if !strings.Contains(ex.Summary, "| option | for | against |") || !strings.Contains(ex.Summary, "| EcoBox | 8 |") {
		t.Errorf("table missing:\n%s", ex.Summary)
	}
	for n, turns := range ex.Trace {
		if n < 1 || n > len(ex.Facts) || len(turns) == 0 {
			t.Errorf("trace %d -> %v", n, turns)
		}
	}
	// A length limit drops facts from the end, and says how many.
	c := transcripts.DefaultEvidenceConfig()
	c.MaxSummaryChars = 400
	short := transcripts.ExtractiveSummary(req, c)
	if short.DroppedFacts == 0 || len([]rune(short.Summary)) > 400 {
		t.Errorf("limit 400: %d chars, %d dropped", len([]rune(short.Summary)), short.DroppedFacts)
	}
}

func TestNoModelMeansExtractive(t *testing.T) {
	s, _ := transcripts.NewEvidenceSummarizer(transcripts.DefaultEvidenceConfig(), nil)
	res, err := s.Summarize(context.Background(), supplierRequest())
	if err != nil || res.Source != transcripts.SourceExtractive || len(res.Attempts) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	bad := supplierRequest()
	bad.Options = bad.Options[:1]
	if _, err := s.Summarize(context.Background(), bad); !errors.Is(err, transcripts.ErrInvalid) {
		t.Errorf("one option: %v, want ErrInvalid", err)
	}
}

func TestSummarizerPromptLevers(t *testing.T) {
	req := supplierRequest()
	c := transcripts.DefaultEvidenceConfig()
	_, base := transcripts.SummarizerPrompt(req, c)
	c.StrictInconvenientFacts, c.Table, c.MaxSummaryChars = true, false, 1500
	_, strict := transcripts.SummarizerPrompt(req, c)
	if !strings.Contains(base, "| option | for | against |") || strings.Contains(strict, "| option | for | against |") {
		t.Errorf("table lever not applied")
	}
	if strings.Contains(base, "same weight") || !strings.Contains(strict, "same weight") {
		t.Errorf("strict inconvenient-facts lever not applied")
	}
	if !strings.Contains(strict, "under 1500 characters") {
		t.Errorf("length lever not applied")
	}
	for _, want := range []string{req.Decision, `"PackPro", "BoxWest", "EcoBox"`, "price, lead time, damage rate"} {
		if !strings.Contains(base, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	assertNoNames(t, "prompt", base)
}

func TestDeciderPromptHoldsOnlyTaskOptionsSummary(t *testing.T) {
	req := supplierRequest()
	p := transcripts.DeciderPrompt(req.Decision, req.Options, cleanSummary, false)
	b := transcripts.DeciderPrompt(req.Decision, req.Options, cleanSummary, true)
	for _, x := range []string{p, b} {
		if !strings.Contains(x, req.Decision) || !strings.Contains(x, "3. EcoBox") || !strings.Contains(x, cleanSummary) {
			t.Errorf("decider prompt lacks task, options or summary")
		}
		if strings.Contains(x, "Denver in 3 days, faster") || strings.Contains(x, "Turn 1") {
			t.Errorf("decider prompt carries the transcript")
		}
		assertNoNames(t, "decider prompt", x)
	}
	if strings.Contains(p, "count the facts") || !strings.Contains(b, "count the facts for and the facts against each option") {
		t.Errorf("showBalance lever not applied")
	}
}

func TestTranscriptJSONForms(t *testing.T) {
	var turns, text transcripts.EvidenceRequest
	if err := json.Unmarshal([]byte(`{"decision":"d","options":["A","B"],"transcript":[{"speaker":"Ann","text":"A is cheap."},{"speaker":"Bo","text":"B is slow."}]}`), &turns); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"decision":"d","options":["A","B"],"transcript":"Ann: A is cheap.\nstill Ann\nBo: B is slow."}`), &text); err != nil {
		t.Fatal(err)
	}
	if len(turns.Transcript) != 2 || len(text.Transcript) != 2 || text.Transcript[0].Speaker != "Ann" || text.Transcript[0].Text != "A is cheap.\nstill Ann" || text.Transcript[1].Speaker != "Bo" {
		t.Errorf("turns %+v, text %+v", turns.Transcript, text.Transcript)
	}
	plain := transcripts.ParseTranscript("first paragraph\n\nsecond paragraph")
	if len(plain) != 2 || plain[0].Speaker != "" {
		t.Errorf("unlabelled transcript: %+v", plain)
	}
	rendered := transcripts.RenderTranscript(text)
	if rendered != "Turn 1: A is cheap.\nstill another participant\n\nTurn 2: B is slow." {
		t.Errorf("rendered %q", rendered)
	}
}

// A failed call is not asked again: the client retried it under its own
// time budget, so a hung endpoint costs one budget, not one per retry.
func TestFailedCallGoesStraightToExtractive(t *testing.T) {
	model := &fakeChat{answer: func(int, string, string) (string, error) { return "", context.DeadlineExceeded }}
	s, _ := transcripts.NewEvidenceSummarizer(transcripts.DefaultEvidenceConfig(), model)
	res, err := s.Summarize(context.Background(), supplierRequest())
	if err != nil {
		t.Fatal(err)
	}
	if len(model.users) != 1 || res.Source != transcripts.SourceExtractive || len(res.Attempts) != 1 {
		t.Errorf("%d calls, source %s, %d attempts", len(model.users), res.Source, len(res.Attempts))
	}
}
