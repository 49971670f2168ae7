package transcripts_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/transcripts"
)

// Algorithmic mode never calls a model, whatever the job; llm mode does,
// and logs every rejected answer and fallback at WARN without the text.
func TestJobsFollowTheModeGate(t *testing.T) {
	ctx := context.Background()
	bodies := map[string]string{
		transcripts.JobEvidence: `{"decision":"Pick","options":["PackPro","BoxWest"],"transcript":[{"speaker":"Maria Lopez","text":"PackPro is cheaper than BoxWest."}]}`,
		transcripts.JobMeeting:  `{"state":{"topic":"t","round":1,"background":"` + strings.Repeat("fact ", 3000) + `","scratchpad":[{"agent":"a","content":"` + strings.Repeat("point ", 6000) + `"},{"agent":"b","content":"x"},{"agent":"c","content":"y"}]},"for":"chair"}`,
		transcripts.JobSession:  `{"session":"s","force":true,"messages":[` + strings.Repeat(`{"role":"user","text":"hello there"},`, 9) + `{"role":"user","text":"last"}]}`,
	}
	for _, mode := range []stages.Mode{stages.ModeAlgorithmic, stages.ModeLLM} {
		var logs bytes.Buffer
		model := &fakeChat{answer: func(int, string, string) (string, error) { return "Maria Lopez says three of us agree.", nil }}
		jobs := transcripts.Jobs{Config: transcripts.DefaultConfig(), Model: model, Store: transcripts.NewMemoryStore(),
			Log: slog.New(slog.NewTextHandler(&logs, nil))}
		for name, body := range bodies {
			if _, _, err := jobs.Run(ctx, name, transcripts.JobRequest{Body: []byte(body), Mode: mode, AllowLLM: true}); err != nil {
				t.Fatalf("%s %s: %v", mode, name, err)
			}
		}
		if _, _, err := jobs.Run(ctx, transcripts.JobDecide, transcripts.JobRequest{Body: []byte(`{"task":"t","options":["A","B"],"summary":"s"}`), Mode: mode, AllowLLM: true}); (err == nil) != (mode == stages.ModeLLM) {
			t.Errorf("%s: decide err %v", mode, err)
		}
		calls := len(model.users)
		switch mode {
		case stages.ModeAlgorithmic:
			if calls != 0 || logs.Len() != 0 {
				t.Errorf("algorithmic mode: %d model calls, logs:\n%s", calls, logs.String())
			}
		default:
			if calls < 4 {
				t.Errorf("llm mode: only %d model calls", calls)
			}
			if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "extractive fallback used") {
				t.Errorf("llm mode: fallbacks not logged at WARN:\n%s", logs.String())
			}
			if strings.Contains(logs.String(), "Maria") || strings.Contains(logs.String(), "three of us") {
				t.Errorf("the log carries text:\n%s", logs.String())
			}
		}
	}
}

// A model that fails is not asked again within one job: the client already
// retried under its time budget, so a hang costs one budget per job.
func TestFailedModelIsNotAskedAgainInAJob(t *testing.T) {
	ctx := context.Background()
	failing := func() *fakeChat {
		return &fakeChat{answer: func(int, string, string) (string, error) { return "", context.DeadlineExceeded }}
	}
	var answers []string
	for i := 0; i < 5; i++ {
		answers = append(answers, `{"model":"m`+string(rune('a'+i))+`","priority":`+string(rune('1'+i))+`,"response_raw":"`+strings.Repeat("a line of reasoning\\n", 2000)+`"}`)
	}
	debate := `{"question":"q","answers":[` + strings.Join(answers, ",") + `]}`
	meeting := `{"state":{"topic":"t","round":1,"background":"` + strings.Repeat("fact ", 3000) + `","scratchpad":[{"agent":"a","content":"` + strings.Repeat("point ", 6000) + `"},{"agent":"b","content":"x"},{"agent":"c","content":"y"}]},"for":"chair"}`
	for name, body := range map[string]string{transcripts.JobDebate: debate, transcripts.JobMeeting: meeting} {
		model := failing()
		jobs := transcripts.Jobs{Config: transcripts.DefaultConfig(), Model: model, Log: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))}
		if _, _, err := jobs.Run(ctx, name, transcripts.JobRequest{Body: []byte(body), Mode: stages.ModeLLM, AllowLLM: true}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(model.users) != 1 {
			t.Errorf("%s: %d calls to a failing model, want 1", name, len(model.users))
		}
	}
}
