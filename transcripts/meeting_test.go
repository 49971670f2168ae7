package transcripts_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/transcripts"
)

func entries(n, size int) []transcripts.ScratchpadEntry {
	var out []transcripts.ScratchpadEntry
	for i := 1; i <= n; i++ {
		out = append(out, transcripts.ScratchpadEntry{
			Agent:   fmt.Sprintf("agent%d", i),
			Content: fmt.Sprintf("entry %d ", i) + strings.Repeat("w", size),
		})
	}
	return out
}

func manager(t *testing.T, budget int, model transcripts.ChatModel) *transcripts.ContextManager {
	t.Helper()
	c := transcripts.DefaultMeetingConfig()
	if budget > 0 {
		c.BudgetTokens = budget
	}
	m, err := transcripts.NewContextManager(c, model)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestScratchpadLevel0(t *testing.T) {
	m := manager(t, 0, nil)
	es := entries(5, 100)
	wb, err := m.CompactScratchpad(context.Background(), es)
	if err != nil {
		t.Fatal(err)
	}
	if wb.Level != 0 || !strings.HasPrefix(wb.Text, "[agent1]: entry 1 ") || strings.Count(wb.Text, "\n") != 4 {
		t.Errorf("level %d:\n%s", wb.Level, wb.Text)
	}
	empty, _ := m.CompactScratchpad(context.Background(), nil)
	if empty.Text != "No discussion yet." || empty.Level != 0 {
		t.Errorf("empty scratchpad: %+v", empty)
	}
}

func TestScratchpadLevel1(t *testing.T) {
	es := entries(6, 4000) // ~1000 tokens each, ~6000 in all
	m := manager(t, 3000, nil)
	wb, err := m.CompactScratchpad(context.Background(), es)
	if err != nil {
		t.Fatal(err)
	}
	if wb.Level != 1 || wb.FullTokens <= 3000 || wb.Tokens > 3000 {
		t.Fatalf("level %d, %d -> %d tokens", wb.Level, wb.FullTokens, wb.Tokens)
	}
	lines := strings.Split(wb.Text, "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines[:4] {
		content := strings.TrimPrefix(l, fmt.Sprintf("[agent%d]: ", i+1))
		if stages.Chars(content) != 203 || !strings.HasSuffix(content, "...") {
			t.Errorf("early entry %d: %d chars, want 200 + \"...\"", i+1, stages.Chars(content))
		}
	}
	for i, l := range lines[4:] {
		if l != "[agent"+fmt.Sprint(i+5)+"]: "+es[i+4].Content {
			t.Errorf("recent entry %d not whole", i+5)
		}
	}
}

func TestScratchpadFewEntriesKeepOnlyTheLast(t *testing.T) {
	es := entries(2, 30000) // 2 entries over budget: only the last stays whole
	m := manager(t, 8000, nil)
	wb, _ := m.CompactScratchpad(context.Background(), es)
	lines := strings.Split(wb.Text, "\n")
	if wb.Level != 1 || len(lines) != 2 || stages.Chars(lines[0]) != len("[agent1]: ")+203 || lines[1] != "[agent2]: "+es[1].Content {
		t.Errorf("level %d, lines %d, first %d chars", wb.Level, len(lines), stages.Chars(lines[0]))
	}
}

func TestScratchpadLevel2(t *testing.T) {
	// 40 early entries of 200+ chars cannot fit 500 tokens even truncated.
	es := entries(42, 1000)
	model := &fakeChat{answer: func(int, string, string) (string, error) { return "- they argued about caching", nil }}
	m := manager(t, 1200, model)
	wb, err := m.CompactScratchpad(context.Background(), es)
	if err != nil {
		t.Fatal(err)
	}
	want := "[Earlier discussion, summarised]\n- they argued about caching\n\n[Recent entries]\n[agent41]: " + es[40].Content + "\n[agent42]: " + es[41].Content
	if wb.Level != 2 || wb.Text != want {
		t.Errorf("level %d:\n%s", wb.Level, wb.Text)
	}
	if len(model.users) != 1 || !strings.Contains(model.users[0], "[agent40]: ") || strings.Contains(model.users[0], "[agent41]") {
		t.Errorf("the model was not given exactly the early entries")
	}
	if !strings.Contains(model.systems[0], "disagreements") {
		t.Errorf("scratchpad prompt: %s", model.systems[0])
	}

	// Without a model, or with a failing one: level 1 text, reported.
	for name, mm := range map[string]transcripts.ChatModel{
		"no model": nil,
		"failing":  &fakeChat{answer: func(int, string, string) (string, error) { return "", errors.New("down") }},
	} {
		wb, err := manager(t, 1200, mm).CompactScratchpad(context.Background(), es)
		if err != nil {
			t.Fatal(err)
		}
		if wb.Level != 1 || !strings.Contains(wb.Note, "level 2 needed") || !strings.HasSuffix(wb.Text, es[41].Content) {
			t.Errorf("%s: level %d, note %q", name, wb.Level, wb.Note)
		}
	}
}

func TestBackgroundSummaryAbove3000Tokens(t *testing.T) {
	model := &fakeChat{answer: func(int, string, string) (string, error) { return "- goal: ship by May", nil }}
	m := manager(t, 0, model)
	at := strings.Repeat("a", 12000)     // 3000 tokens: kept
	over := strings.Repeat("a", 12004)   // 3001 tokens: summarised
	cjk := strings.Repeat("会", 4500)     // 3000 tokens at 1.5 chars/token
	cjkOver := strings.Repeat("会", 4502) // 3001
	for _, tc := range []struct {
		name       string
		text       string
		summarised bool
	}{{"ascii 3000", at, false}, {"ascii 3001", over, true}, {"cjk 3000", cjk, false}, {"cjk 3001", cjkOver, true}} {
		res, err := m.SummarizeBackground(context.Background(), tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if (res.Summary != "") != tc.summarised {
			t.Errorf("%s (%d tokens): summarised=%v, want %v (%s)", tc.name, res.Tokens, res.Summary != "", tc.summarised, res.Note)
		}
	}
	if !strings.Contains(model.systems[0], "constraints") {
		t.Errorf("background prompt: %s", model.systems[0])
	}
	res, _ := manager(t, 0, nil).SummarizeBackground(context.Background(), over)
	if res.Summary != "" || !strings.Contains(res.Note, "no model") {
		t.Errorf("no model: %+v", res)
	}
}

func TestChairAndAgentContexts(t *testing.T) {
	model := &fakeChat{answer: func(int, string, string) (string, error) { return "- background in brief", nil }}
	m := manager(t, 0, model)
	s := transcripts.MeetingState{
		Topic:      "Pick a cache",
		Background: strings.Repeat("long background. ", 800), // > 3000 tokens
		Scratchpad: entries(3, 50),
	}
	if _, err := m.PrepareBackground(context.Background(), &s); err != nil || s.BackgroundSummary != "- background in brief" {
		t.Fatalf("prepare: %q %v", s.BackgroundSummary, err)
	}
	round0, rep, err := m.ChairContext(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Background != "full" || !strings.Contains(round0, "## Background\n\nlong background.") || !strings.Contains(round0, "## Whiteboard (round 0)") {
		t.Errorf("round 0 chair context:\n%.300s", round0)
	}
	s.Round = 2
	round2, rep, _ := m.ChairContext(context.Background(), s)
	if rep.Background != "summary" || strings.Contains(round2, "long background.") || !strings.Contains(round2, "## Background (summary)\n\n- background in brief") || !strings.Contains(round2, "## Whiteboard (round 2)") {
		t.Errorf("round 2 chair context:\n%s", round2)
	}
	agent, rep, _ := m.AgentContext(context.Background(), s, "What about eviction?")
	want := "[Background]\n- background in brief\n\n" + strings.Join([]string{
		"[agent1]: " + s.Scratchpad[0].Content, "[agent2]: " + s.Scratchpad[1].Content, "[agent3]: " + s.Scratchpad[2].Content,
	}, "\n") + "\n\n[Chair's question]\nWhat about eviction?"
	if agent != want || rep.Whiteboard.Level != 0 {
		t.Errorf("agent context:\n%s\nwant\n%s", agent, want)
	}
}
