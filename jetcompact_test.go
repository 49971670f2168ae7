package jetcompact

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

type fakeLLM struct{ calls atomic.Int32 }

func (*fakeLLM) Model() (string, bool) { return "fake", true }
func (f *fakeLLM) Summarize(context.Context, stages.SummaryRequest) (string, stages.LLMUsage, error) {
	f.calls.Add(1)
	return "The team agreed to ship on Friday.", stages.LLMUsage{Model: "fake"}, nil
}

// TestOptions: the LLM is called only when given and the mode uses it;
// per-call options override New's; bad options are errors, not panics.
func TestOptions(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	for i := range 120 {
		b.WriteString("Alice said the release is nearly ready and the last test fixed in sprint ")
		b.WriteString(strings.Repeat("x", i%5))
		b.WriteString(" needs one more review before Friday.\n")
	}
	prose := b.String()
	fake := &fakeLLM{}
	c, err := New(DefaultConfig(), WithLLM(fake), WithMode(ModeLLM), WithKind(KindProse))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Compact(ctx, prose)
	if err != nil {
		t.Fatal(err)
	}
	if fake.calls.Load() != 1 || !strings.Contains(res.Text, "ship on Friday") {
		t.Errorf("LLM mode with a model: %d calls, text %.80q", fake.calls.Load(), res.Text)
	}
	if _, err := c.Compact(ctx, prose, WithMode(ModeAlgorithmic)); err != nil || fake.calls.Load() != 1 {
		t.Errorf("a per-call algorithmic mode called the model: %d calls, %v", fake.calls.Load(), err)
	}
	if _, err := Compact(ctx, prose, WithMode(ModeLLM)); err != nil || fake.calls.Load() != 1 {
		t.Errorf("no model given, yet calls %d, %v", fake.calls.Load(), err)
	}
	if _, err := c.Compact(ctx, prose, WithLLM(fake)); err == nil {
		t.Error("WithLLM accepted on one call")
	}
	for name, opt := range map[string]Option{
		"kind": WithKind("yaml"), "mode": WithMode("turbo"), "budget": WithBudget(-1), "llm": WithLLM(nil),
	} {
		if _, err := Compact(ctx, prose, opt); err == nil {
			t.Errorf("bad %s accepted", name)
		}
	}
	// Uncompactable input passes through unchanged.
	short := "ok\n"
	if res, err := Compact(ctx, short); err != nil || res.Text != short {
		t.Errorf("short input: %q, %v", res.Text, err)
	}
}
