package transcripts_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/transcripts"
)

// TestDeciderSeesOnlyTaskOptionsAndSummary: the decider is a separate call
// whose prompt holds the task, the options and the summary, and nothing of
// the transcript or its speakers.
func TestDeciderSeesOnlyTaskOptionsAndSummary(t *testing.T) {
	req := transcripts.EvidenceRequest{
		Decision: "Pick a supplier",
		Options:  []string{"PackPro", "BoxWest"},
		Transcript: transcripts.Transcript{
			{Speaker: "Maria Lopez", Text: "PackPro is cheaper than BoxWest, trust me."},
			{Speaker: "Chen Wei", Text: "BoxWest ships in 3 days."},
		},
	}
	s, err := transcripts.NewEvidenceSummarizer(transcripts.DefaultEvidenceConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Summarize(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	model := &fakeChat{answer: func(int, string, string) (string, error) { return "PackPro", nil }}
	got, err := transcripts.Decide(context.Background(), model, req.Decision, req.Options, res.Summary, true, 0)
	if err != nil || got != "PackPro" {
		t.Fatalf("decide: %q %v", got, err)
	}
	if len(model.users) != 1 {
		t.Fatalf("%d calls, want one separate call", len(model.users))
	}
	prompt := model.users[0]
	for _, want := range []string{req.Decision, "PackPro", "BoxWest", strings.TrimSpace(res.Summary), "count the facts for and the facts against"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("decider prompt lacks %q", want)
		}
	}
	for _, banned := range []string{"Maria", "Lopez", "Chen", "Wei"} {
		if strings.Contains(prompt, banned) {
			t.Errorf("decider prompt carries %q from the transcript", banned)
		}
	}
	if _, err := transcripts.Decide(context.Background(), nil, "x", req.Options, "s", false, 0); !errors.Is(err, transcripts.ErrNoDecider) {
		t.Errorf("without a model: %v", err)
	}
}
