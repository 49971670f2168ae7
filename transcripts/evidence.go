package transcripts

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/stages"
)

// The rules a Violation can name.
const (
	RuleEmpty  = "empty"
	RuleName   = "author name"
	RuleLabel  = "turn label"
	RuleTable  = "missing table"
	RuleLength = "too long"
)

// Violation is one reason a summary was rejected, by kind (Rule). Match is
// the offending text; for RuleName it is a speaker's name, so it is never
// shown to a model or a decider, and output drops it (WithoutMatches)
// unless an operator asks for it (--debug).
type Violation struct {
	Rule  string `json:"rule"`
	Match string `json:"match,omitempty"`
}

// neutralLabel names turn i (0-based) in everything a model reads.
func neutralLabel(i int) string { return "Turn " + strconv.Itoa(i+1) }

var turnLabel = regexp.MustCompile(`(?i)\bturns?\s+\d+\b`)

// RenderTranscript writes t with neutral labels ("Turn 1: ...") and every
// speaker name in the turns' text replaced by "another participant", so no
// author name reaches the summarizer.
func RenderTranscript(req EvidenceRequest) string {
	names := speakerNames(req.Transcript, protectedTerms(req)...)
	var b strings.Builder
	for i, t := range req.Transcript {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(neutralLabel(i))
		b.WriteString(": ")
		b.WriteString(names.scrub(t.Text, "another participant"))
	}
	return b.String()
}

func protectedTerms(req EvidenceRequest) []string {
	return append(append([]string{req.Decision}, req.Options...), req.Criteria...)
}

const summarizerSystem = `You write a neutral summary of a discussion for the person who will make the final decision. That person did not see the discussion and will read only your summary. You never recommend an option.`

// SummarizerPrompt returns the system and user messages that ask a model for
// an evidence-balanced summary of req under c. The transcript is rendered
// by RenderTranscript: the prompt carries no speaker name.
func SummarizerPrompt(req EvidenceRequest, c EvidenceConfig) (system, user string) {
	docs := []stages.PromptDoc{
		{Label: "decision", Text: req.Decision},
		{Label: "options", Text: strings.Join(quoteAll(req.Options), ", ")},
	}
	if len(req.Criteria) > 0 {
		docs = append(docs, stages.PromptDoc{Label: "criteria", Text: strings.Join(req.Criteria, ", ")})
	}
	docs = append(docs, stages.PromptDoc{Label: "discussion", Text: RenderTranscript(req)})
	var b strings.Builder
	rules := []string{
		"Put every distinct fact about the options on its own numbered line.",
		"After each fact, say which option it supports and which option it counts against.",
		"Keep conditions, uncertainty and disagreement: when claims conflict, record each claim and the conditions under which it holds.",
		"Do not drop a fact because it looks secondary or off-topic, or because it came up only once.",
	}
	if c.StrictInconvenientFacts {
		rules = append(rules, "Facts that count against an option carry the same weight as facts in its favour. List every one of them, even when a single turn raised it and the rest of the discussion went the other way. When unsure whether a fact matters, keep it.")
	}
	rules = append(rules, `Do not say who said what: no names, no turn numbers, no "a participant said". Never reveal how many people held a view: no numbers attached to people ("three of us", "2 analysts"), no "both", "all", "most", "many", "several" or "few" about people, no "everyone agreed", "nobody disagreed", "the majority" or "consensus", no "repeatedly" or "said twice". One fact, one line.`)
	if c.Table {
		rules = append(rules, "After the facts, end with a markdown table whose header is | option | for | against |, with one row per option listing the numbers of the facts for and against it.")
	} else {
		rules = append(rules, "Write the facts only, with no table.")
	}
	rules = append(rules, "Draw no conclusion and make no recommendation.")
	if c.MaxSummaryChars > 0 {
		rules = append(rules, fmt.Sprintf("Keep the whole summary under %d characters.", c.MaxSummaryChars))
	}
	b.WriteString("<Rules>\n")
	for i, r := range rules {
		fmt.Fprintf(&b, "%d. %s\n", i+1, r)
	}
	b.WriteString("</Rules>")
	intro := "Summarise the discussion below for the final decision. The decision, the options, the criteria and the discussion are documents."
	return stages.SystemPrompt(summarizerSystem), stages.UserPrompt(intro, docs, b.String())
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// ValidateSummary checks a summary meant for the decider: it must be
// non-empty, name no speaker of the transcript, carry no turn label, no
// supporter count and no majority phrasing, end with an
// option | for | against table that lists every option when c.Table is set,
// and fit c.MaxSummaryChars when that is set.
func ValidateSummary(req EvidenceRequest, c EvidenceConfig, summary string) []Violation {
	var v []Violation
	if strings.TrimSpace(summary) == "" {
		return []Violation{{Rule: RuleEmpty}}
	}
	names := speakerNames(req.Transcript, protectedTerms(req)...)
	if n, ok := names.find(summary); ok {
		v = append(v, Violation{Rule: RuleName, Match: n})
	}
	for _, m := range turnLabel.FindAllString(summary, 1) {
		v = append(v, Violation{Rule: RuleLabel, Match: m})
	}
	for _, f := range FindCounts(summary) {
		v = append(v, Violation{Rule: f.Rule, Match: f.Match})
	}
	if c.Table {
		if missing := tableProblem(summary, req.Options); missing != "" {
			v = append(v, Violation{Rule: RuleTable, Match: missing})
		}
	}
	if c.MaxSummaryChars > 0 {
		if n := stages.Chars(summary); n > c.MaxSummaryChars {
			v = append(v, Violation{Rule: RuleLength, Match: fmt.Sprintf("%d > %d chars", n, c.MaxSummaryChars)})
		}
	}
	return v
}

// tableProblem returns "" when summary holds an option | for | against
// table with a row for every option, and what is missing otherwise.
func tableProblem(summary string, options []string) string {
	lines := strings.Split(summary, "\n")
	header := -1
	for i, l := range lines {
		cells := tableCells(l)
		if len(cells) >= 3 && strings.Contains(strings.ToLower(cells[0]), "option") &&
			strings.Contains(strings.ToLower(cells[1]), "for") && strings.Contains(strings.ToLower(cells[2]), "against") {
			header = i
			break
		}
	}
	if header < 0 {
		return "no option | for | against header"
	}
	var rows []string
	for _, l := range lines[header+1:] {
		if tableCells(l) == nil {
			break
		}
		rows = append(rows, l)
	}
	for _, o := range options {
		found := false
		for _, r := range rows {
			if first := tableCells(r)[0]; containsWord(first, o) || containsWord(first, optionShortName(o)) {
				found = true
				break
			}
		}
		if !found {
			return "no table row for option " + strconv.Quote(o)
		}
	}
	return ""
}

// tableCells returns the cells of a markdown table row, or nil.
func tableCells(line string) []string {
	l := strings.TrimSpace(line)
	if !strings.HasPrefix(l, "|") {
		return nil
	}
	l = strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|")
	cells := strings.Split(l, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// optionShortName is an option without a trailing parenthesis:
// "PackPro (Chicago)" is also called "PackPro".
func optionShortName(o string) string {
	if i := strings.Index(o, " ("); i > 0 {
		return strings.TrimSpace(o[:i])
	}
	return strings.TrimSpace(o)
}

// ruleFeedback says, for each rule, what a rejected summary did.
var ruleFeedback = map[string]string{
	RuleEmpty:       "it was empty",
	RuleName:        "it named a participant",
	RuleLabel:       "it referred to turn numbers",
	RuleTally:       "it counted the people who held a view",
	RuleQuantifier:  "it said how many held a view (words like both, all, most, many, several, few)",
	RuleMajority:    "it appealed to agreement, consensus or a majority",
	RuleRepetition:  "it said a point was made repeatedly or several times",
	RuleAttribution: "it attributed a point to more than one anonymous participant",
	RuleTable:       "the closing table was missing or incomplete",
	RuleLength:      "it was too long",
}

// feedback tells the model why its summary was rejected, by kind only:
// never a name, never the matched text.
func feedback(v []Violation) string {
	seen := map[string]bool{}
	var parts []string
	for _, x := range v {
		if seen[x.Rule] {
			continue
		}
		seen[x.Rule] = true
		if why, ok := ruleFeedback[x.Rule]; ok {
			parts = append(parts, why)
		}
	}
	return "Your previous summary was rejected because " + strings.Join(parts, "; ") + ". Write it again following every rule."
}

// EvidenceAttempt records one model call.
type EvidenceAttempt struct {
	Attempt    int         `json:"attempt"`
	Error      string      `json:"error,omitempty"`
	Violations []Violation `json:"violations,omitempty"`
}

// The sources of an EvidenceResult.
const (
	SourceLLM        = "llm"
	SourceExtractive = "extractive"
)

// EvidenceResult is a summary for the decider and its bookkeeping. Only
// Summary goes to the decider; Trace is for audit.
type EvidenceResult struct {
	Summary string `json:"summary"`
	// Source is "llm" or "extractive".
	Source   string            `json:"source"`
	Attempts []EvidenceAttempt `json:"attempts,omitempty"`
	// Facts is the extractive summary's fact list (empty for "llm").
	Facts []Fact `json:"facts,omitempty"`
	// Trace maps a fact number (1-based, as numbered in Summary) to the
	// numbers of the turns it came from (1-based, as in "Turn 1"). For an
	// LLM summary it is a word-overlap estimate.
	Trace map[int][]int `json:"trace"`
	// DroppedFacts is how many extractive facts MaxSummaryChars cut.
	DroppedFacts int `json:"dropped_facts,omitempty"`
	// Violations is non-empty only if the returned summary still breaks a
	// rule (possible only for the extractive summary under a tight limit).
	Violations []Violation `json:"violations,omitempty"`
}

// WithoutMatches returns r with every violation's matched text removed, so
// only the kinds remain: what output carries unless an operator debugs.
func (r EvidenceResult) WithoutMatches() EvidenceResult {
	strip := func(vs []Violation) []Violation {
		if vs == nil {
			return nil
		}
		out := make([]Violation, len(vs))
		for i, v := range vs {
			out[i] = Violation{Rule: v.Rule}
		}
		return out
	}
	r.Attempts = append([]EvidenceAttempt(nil), r.Attempts...)
	for i := range r.Attempts {
		r.Attempts[i].Violations = strip(r.Attempts[i].Violations)
	}
	r.Violations = strip(r.Violations)
	return r
}

// EvidenceSummarizer writes evidence-balanced summaries. Safe for concurrent use.
type EvidenceSummarizer struct {
	cfg   EvidenceConfig
	model ChatModel
}

// NewEvidenceSummarizer validates c. model may be nil: every summary is then extractive.
func NewEvidenceSummarizer(c EvidenceConfig, model ChatModel) (*EvidenceSummarizer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &EvidenceSummarizer{cfg: c, model: model}, nil
}

// Summarize asks the model for a summary and validates it; a rejected
// summary is asked for again up to Retries times, with the reasons, and
// then replaced by the extractive summary. A failed call goes straight to
// the extractive summary: the model client has retried it already. Only an invalid request or
// ctx yield an error.
func (s *EvidenceSummarizer) Summarize(ctx context.Context, req EvidenceRequest) (EvidenceResult, error) {
	if err := req.Validate(); err != nil {
		return EvidenceResult{}, err
	}
	var res EvidenceResult
	if s.model != nil {
		system, user := SummarizerPrompt(req, s.cfg)
		maxTokens := s.cfg.MaxTokens
		if maxTokens == 0 {
			maxTokens = stages.MaxSummaryTokens(user)
		}
		prompt := user
		for i := 0; i <= s.cfg.Retries; i++ {
			att := EvidenceAttempt{Attempt: i + 1}
			out, err := s.model.Complete(ctx, system, prompt, maxTokens)
			if err != nil {
				if ctxErr := ctx.Err(); ctxErr != nil {
					return EvidenceResult{}, ctxErr
				}
				// The client already retried what a retry can fix, under its
				// own time budget: asking again would only multiply a hang.
				att.Error = err.Error()
				res.Attempts = append(res.Attempts, att)
				break
			}
			out = strings.TrimSpace(out)
			att.Violations = ValidateSummary(req, s.cfg, out)
			res.Attempts = append(res.Attempts, att)
			if len(att.Violations) == 0 {
				res.Summary, res.Source = out, SourceLLM
				res.Trace = traceLLMSummary(out, req.Transcript)
				return res, nil
			}
			prompt = user + "\n\n" + feedback(att.Violations)
		}
	}
	ex := ExtractiveSummary(req, s.cfg)
	res.Summary, res.Source = ex.Summary, SourceExtractive
	res.Facts, res.Trace, res.DroppedFacts = ex.Facts, ex.Trace, ex.DroppedFacts
	res.Violations = ValidateSummary(req, s.cfg, ex.Summary)
	return res, nil
}

// DeciderPrompt is the separate decider call's prompt: the task, the options
// and the summary, nothing else. With showBalance the decider first counts
// the facts for and against each option and shows the difference, so a
// skewed summary shows instead of dissolving into the answer.
func DeciderPrompt(task string, options []string, summary string, showBalance bool) string {
	var opts strings.Builder
	for i, o := range options {
		fmt.Fprintf(&opts, "%d. %s\n", i+1, o)
	}
	docs := []stages.PromptDoc{
		{Label: "task", Text: task},
		{Label: "options", Text: opts.String()},
		{Label: "summary of the evidence", Text: strings.TrimSpace(summary)},
	}
	var rules string
	if showBalance {
		rules = "Before choosing, count the facts for and the facts against each option in the summary, and show for each option the number for, the number against and the difference. Then choose one option and explain what tipped the balance."
	} else {
		rules = "Choose one option and explain your choice."
	}
	rules += " Name the chosen option exactly as it is written in the options document."
	return stages.UserPrompt("You are making a decision. The task, the options and a summary of the evidence are below.", docs, rules)
}

// deciderSystem is the decider call's system prompt.
var deciderSystem = stages.SystemPrompt("You choose between options using only the evidence summary you are given.")

// ErrNoDecider is returned by Decide without a model.
var ErrNoDecider = errors.New("no decider model")

// Decide is the separate decider call: the model sees only the task, the
// options and the summary (DeciderPrompt), never the transcript or who
// said what. maxTokens 0 lets the server choose.
func Decide(ctx context.Context, m ChatModel, task string, options []string, summary string, showBalance bool, maxTokens int) (string, error) {
	if m == nil {
		return "", ErrNoDecider
	}
	return m.Complete(ctx, deciderSystem, DeciderPrompt(task, options, summary, showBalance), maxTokens)
}
