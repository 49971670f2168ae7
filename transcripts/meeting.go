package transcripts

import (
	"context"
	"fmt"
	"strings"

	"github.com/jetcompact/jetcompact/stages"
)

// MeetingTokens is the meeting token estimator of design.md, Meetings:
// characters in U+4E00–U+9FFF and U+3400–U+4DBF count 1.5 characters per
// token, every other character 4, and the sum is truncated. The meeting
// levels and the background threshold use it, since that is their spec.
// Everything else in jetcompact uses stages.EstimateTokens, which also
// counts kana, Hangul and the other Han blocks (Ext-B, radicals) as CJK.
func MeetingTokens(text string) int {
	cjk, other := 0, 0
	for _, r := range text {
		if r >= 0x4e00 && r <= 0x9fff || r >= 0x3400 && r <= 0x4dbf {
			cjk++
		} else {
			other++
		}
	}
	return int(float64(cjk)/1.5 + float64(other)/4.0)
}

// ScratchpadEntry is one agent's contribution to a meeting's whiteboard.
type ScratchpadEntry struct {
	Agent   string `json:"agent"`
	Content string `json:"content"`
}

// MeetingState is what the context manager reads of a meeting.
type MeetingState struct {
	Topic string `json:"topic"`
	// Background is the material the meeting started from;
	// BackgroundSummary its summary, once SummarizeBackground made one.
	Background        string            `json:"background,omitempty"`
	BackgroundSummary string            `json:"background_summary,omitempty"`
	Round             int               `json:"round"` // 0 is the first round
	Scratchpad        []ScratchpadEntry `json:"scratchpad"`
}

// Whiteboard is a scratchpad made to fit the budget.
type Whiteboard struct {
	Text string `json:"text"`
	// Level is 0 (everything), 1 (earlier entries truncated) or 2 (earlier
	// entries summarised by the model).
	Level      int `json:"level"`
	FullTokens int `json:"full_tokens"`
	Tokens     int `json:"tokens"`
	// Note says why a level was not reached, e.g. level 2 without a model.
	Note string `json:"note,omitempty"`
}

// BackgroundResult is the outcome of SummarizeBackground.
type BackgroundResult struct {
	// Summary is empty when the background is short enough or could not be
	// summarised; Note then says which.
	Summary string `json:"summary,omitempty"`
	Tokens  int    `json:"tokens"`
	Note    string `json:"note,omitempty"`
	// ModelFailed: the model was called and failed.
	ModelFailed bool `json:"model_failed,omitempty"`
}

// MeetingReport says how one context was built.
type MeetingReport struct {
	Whiteboard Whiteboard `json:"whiteboard"`
	// Background is "none", "full" or "summary".
	Background string `json:"background"`
}

// ContextManager keeps a meeting's context under budget. Safe for concurrent use.
type ContextManager struct {
	cfg   MeetingConfig
	model ChatModel
}

// NewContextManager validates c. model may be nil: level 2 then falls back
// to level 1 and backgrounds are never summarised.
func NewContextManager(c MeetingConfig, model ChatModel) (*ContextManager, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &ContextManager{cfg: c, model: model}, nil
}

const scratchpadSummarySystem = `Turn the meeting discussion below into a structured briefing in bullet points.
Keep the key arguments, the disagreements, the decisions taken and the open questions.
Leave out rhetoric, illustrative examples and repetition. Do not invent anything.`

const backgroundSummarySystem = `Turn the background material below into a structured briefing in bullet points.
Keep the key facts, requirements, constraints and goals, with their numbers and names.
Leave out long explanations, examples and repetition. Do not invent anything.`

func formatEntries(entries []ScratchpadEntry) string {
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = "[" + e.Agent + "]: " + e.Content
	}
	return strings.Join(lines, "\n")
}

// CompactScratchpad fits entries into the token budget, trying each level
// in turn: 0, the full text; 1, earlier entries cut to TruncateChars
// characters and the recent ones whole; 2, earlier entries summarised by the
// model and the recent ones whole. Without a model, or when the model
// fails, level 2 falls back to the level 1 text and says so in Note.
func (m *ContextManager) CompactScratchpad(ctx context.Context, entries []ScratchpadEntry) (Whiteboard, error) {
	if len(entries) == 0 {
		return Whiteboard{Text: "No discussion yet."}, nil
	}
	full := formatEntries(entries)
	wb := Whiteboard{FullTokens: MeetingTokens(full)}
	if wb.FullTokens <= m.cfg.BudgetTokens {
		wb.Text, wb.Tokens = full, wb.FullTokens
		return wb, nil
	}
	recent := m.cfg.RecentEntries
	if len(entries) <= recent {
		// Few entries: only the last stays whole, so there is something to compress.
		recent = min(1, len(entries)-1)
	}
	early, late := entries[:len(entries)-recent], entries[len(entries)-recent:]
	recentText := formatEntries(late)
	earlyBudget := max(0, m.cfg.BudgetTokens-MeetingTokens(recentText))

	cut := make([]ScratchpadEntry, len(early))
	for i, e := range early {
		cut[i] = e
		if stages.Chars(e.Content) > m.cfg.TruncateChars {
			cut[i].Content = cutRunes(e.Content, m.cfg.TruncateChars) + "..."
		}
	}
	level1 := joinNonEmpty("\n", formatEntries(cut), recentText)
	if earlyBudget > 0 && MeetingTokens(formatEntries(cut)) <= earlyBudget {
		wb.Level, wb.Text = 1, level1
		wb.Tokens = MeetingTokens(wb.Text)
		return wb, nil
	}

	fallback := func(why string) (Whiteboard, error) {
		wb.Level, wb.Text = 1, level1
		wb.Tokens = MeetingTokens(wb.Text)
		wb.Note = "level 2 needed but " + why + ": level 1 text returned, over budget"
		return wb, nil
	}
	if m.model == nil {
		return fallback("no model is configured")
	}
	user := stages.UserPrompt("The meeting discussion to summarise is below.", []stages.PromptDoc{{Label: "discussion", Text: formatEntries(early)}}, "")
	summary, err := m.model.Complete(ctx, stages.SystemPrompt(scratchpadSummarySystem), user, m.cfg.ScratchpadSummaryTokens)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Whiteboard{}, ctxErr
		}
		return fallback("the model failed (" + err.Error() + ")")
	}
	if summary = strings.TrimSpace(summary); summary == "" {
		return fallback("the model returned nothing")
	}
	wb.Level = 2
	if recentText != "" {
		wb.Text = "[Earlier discussion, summarised]\n" + summary + "\n\n[Recent entries]\n" + recentText
	} else {
		wb.Text = "[Discussion, summarised]\n" + summary
	}
	wb.Tokens = MeetingTokens(wb.Text)
	return wb, nil
}

func joinNonEmpty(sep string, parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}

// SummarizeBackground summarises background material of more than
// BackgroundTokens tokens. Shorter material, a missing model or a failing
// model leave Summary empty, and the background is then sent in full.
func (m *ContextManager) SummarizeBackground(ctx context.Context, background string) (BackgroundResult, error) {
	res := BackgroundResult{Tokens: MeetingTokens(background)}
	switch {
	case background == "":
		res.Note = "no background"
		return res, nil
	case res.Tokens <= m.cfg.BackgroundTokens:
		res.Note = fmt.Sprintf("%d tokens <= %d: sent in full", res.Tokens, m.cfg.BackgroundTokens)
		return res, nil
	case m.model == nil:
		res.Note = fmt.Sprintf("%d tokens > %d but no model is configured: sent in full", res.Tokens, m.cfg.BackgroundTokens)
		return res, nil
	}
	user := stages.UserPrompt("The background material to summarise is below.", []stages.PromptDoc{{Label: "background", Text: background}}, "")
	summary, err := m.model.Complete(ctx, stages.SystemPrompt(backgroundSummarySystem), user, m.cfg.BackgroundSummaryTokens)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return BackgroundResult{}, ctxErr
		}
		res.Note = "the model failed (" + err.Error() + "): sent in full"
		res.ModelFailed = true
		return res, nil
	}
	res.Summary = strings.TrimSpace(summary)
	if res.Summary == "" {
		res.Note = "the model returned nothing: sent in full"
	}
	return res, nil
}

// PrepareBackground fills s.BackgroundSummary when it is empty and the
// background needs one.
func (m *ContextManager) PrepareBackground(ctx context.Context, s *MeetingState) (BackgroundResult, error) {
	if s.BackgroundSummary != "" {
		return BackgroundResult{Summary: s.BackgroundSummary, Tokens: MeetingTokens(s.Background), Note: "already summarised"}, nil
	}
	res, err := m.SummarizeBackground(ctx, s.Background)
	if err == nil && res.Summary != "" {
		s.BackgroundSummary = res.Summary
	}
	return res, err
}

// ChairContext builds the chair's (PM's) message: the topic, the full
// background in round 0 and its summary afterwards (the full text when
// there is no summary), and the whiteboard headed by the round number.
func (m *ContextManager) ChairContext(ctx context.Context, s MeetingState) (string, MeetingReport, error) {
	var rep MeetingReport
	parts := []string{"## Meeting topic\n\n" + s.Topic + "\n"}
	switch {
	case s.Background == "" && s.BackgroundSummary == "":
		rep.Background = "none"
	case s.Round == 0 && s.Background != "", s.BackgroundSummary == "":
		rep.Background = "full"
		parts = append(parts, "## Background\n\n"+s.Background+"\n")
	default:
		rep.Background = "summary"
		parts = append(parts, "## Background (summary)\n\n"+s.BackgroundSummary+"\n")
	}
	wb, err := m.CompactScratchpad(ctx, s.Scratchpad)
	if err != nil {
		return "", MeetingReport{}, err
	}
	rep.Whiteboard = wb
	parts = append(parts, fmt.Sprintf("## Whiteboard (round %d)\n\n%s", s.Round, wb.Text))
	return strings.Join(parts, "\n"), rep, nil
}

// AgentContext builds one agent's message: the background summary (or the
// background when there is none), the compacted whiteboard and the chair's
// question to this agent.
func (m *ContextManager) AgentContext(ctx context.Context, s MeetingState, question string) (string, MeetingReport, error) {
	var rep MeetingReport
	var parts []string
	switch {
	case s.BackgroundSummary != "":
		rep.Background = "summary"
		parts = append(parts, "[Background]\n"+s.BackgroundSummary+"\n")
	case s.Background != "":
		rep.Background = "full"
		parts = append(parts, "[Background]\n"+s.Background+"\n")
	default:
		rep.Background = "none"
	}
	wb, err := m.CompactScratchpad(ctx, s.Scratchpad)
	if err != nil {
		return "", MeetingReport{}, err
	}
	rep.Whiteboard = wb
	parts = append(parts, wb.Text)
	if question != "" {
		parts = append(parts, "\n[Chair's question]\n"+question)
	}
	return strings.Join(parts, "\n"), rep, nil
}
