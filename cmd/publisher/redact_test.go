package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/redact"
	"github.com/jetcompact/jetcompact/redact/redacttest"
)

// requests returns what each request sent the model: its system and user
// messages.
func (r *recordingLLM) requests() []string {
	var out []string
	for _, c := range r.recorded() {
		out = append(out, c.System+"\n"+c.User)
	}
	return out
}

// TestPlantedSecretsNeverReachTheModel is issue 15 item 10: secrets of
// every kind planted in a log, a debate, an evidence request and a
// session are absent from every request the model receives (llm_summary
// and the transcript prompts alike), and present in the user's output
// while the redact node is off; with it on, the output has none either and
// the report counts them by kind.
func TestPlantedSecretsNeverReachTheModel(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 10))
	secrets := redacttest.Planted(r)
	doc := redacttest.Text(r, secrets)
	for len(doc) < 3000 { // above the summary threshold
		doc += "2025-01-01 11:00:00 INFO idle\n"
	}
	llm := newRecordingLLM(t, func(int, recordedCall) string {
		return "Summary: workers processed batches; credentials were used."
	})
	t.Setenv("OPENAI_API_KEY", "test-key")
	cfg := writeFile(t, "c.yaml", "llm:\n  base_url: "+llm.srv.URL+"/v1\n  model: fake\n  cache_ttl: 0s\n")
	file := writeFile(t, "planted.log", doc)

	// llm_summary.
	if _, _, err := runPublisher(t, "", "--local", "--mode", "llm", "--config", cfg, file); err != nil {
		t.Fatal(err)
	}
	afterSummary := len(llm.requests())
	// The debate and evidence prompts, and session compaction.
	var answers []map[string]any
	for i := range 4 {
		var b strings.Builder
		for j := 0; b.Len() < 18000; j++ {
			fmt.Fprintf(&b, "Line %d of answer %d: rotate the keys.\n", j, i)
			if j%50 == 10 {
				b.WriteString(secrets[(j/50+i)%len(secrets)].Line + "\n")
			}
		}
		answers = append(answers, map[string]any{"model": fmt.Sprint("m", i), "priority": i, "review_scores": []float64{float64(i), 1}, "response_raw": b.String()})
	}
	debate, _ := json.Marshal(map[string]any{"question": "Which key leaked?", "mode": "debate", "answers": answers})
	var turns []map[string]string
	for i, s := range secrets {
		turns = append(turns, map[string]string{"speaker": fmt.Sprint("agent", i%3), "text": "I found this in the logs: " + s.Line + ". Option A is safer."})
	}
	evidence, _ := json.Marshal(map[string]any{"decision": "Rotate now?", "options": []string{"A", "B"}, "criteria": []string{"risk"}, "transcript": turns})
	var msgs []map[string]string
	for i := range 12 {
		msgs = append(msgs, map[string]string{"id": fmt.Sprint(i + 1), "role": "user", "kind": "prose", "text": strings.Repeat("deploy it. ", 20) + secrets[i%len(secrets)].Line})
	}
	session, _ := json.Marshal(msgs)
	var entries []map[string]string
	var background strings.Builder
	for i := range 10 {
		entries = append(entries, map[string]string{"agent": fmt.Sprint("agent", i%3), "content": strings.Repeat(fmt.Sprintf("point %d about the rollout. ", i), 300) + secrets[i%len(secrets)].Line})
	}
	for background.Len() < 20000 {
		for _, s := range secrets {
			background.WriteString("Background notes on the incident. " + s.Line + "\n")
		}
	}
	meeting, _ := json.Marshal(map[string]any{"state": map[string]any{"topic": "Rollout", "round": 2, "scratchpad": entries, "background": background.String()}, "for": "chair"})
	for _, args := range [][]string{
		{"--debate", writeFile(t, "d.json", string(debate)), "--mode", "llm"},
		// Algorithmic mode never calls a model (design.md, Pipeline): ask for it.
		{"--meeting", writeFile(t, "mt.json", string(meeting)), "--mode", "llm"},
		{"--evidence", writeFile(t, "e.json", string(evidence)), "--mode", "llm"},
		{"--session", "s1", "--messages", writeFile(t, "m.json", string(session)), "--compact-now", "--mode", "llm"},
	} {
		before := len(llm.requests())
		if _, _, err := runPublisher(t, "", append([]string{"--local", "--config", cfg}, args...)...); err != nil {
			t.Fatalf("%v: %v", args[0], err)
		}
		if len(llm.requests()) == before {
			t.Errorf("%s never called the model", args[0])
		}
	}
	reqs := llm.requests()
	if afterSummary == 0 || len(reqs) <= afterSummary {
		t.Fatalf("requests: %d for the summary, %d in all: a path never called the model", afterSummary, len(reqs))
	}
	for i, body := range reqs {
		for _, s := range secrets {
			if strings.Contains(body, s.Value) || strings.Contains(body, jsonEscaped(s.Value)) {
				t.Errorf("request %d carries a %s", i, s.Kind)
			}
		}
	}
	if !strings.Contains(strings.Join(reqs, ""), "[REDACTED:") {
		t.Error("no redaction marker in any request")
	}

	// The user's output: the secrets while the redact node is off...
	out, _, err := runPublisher(t, "", "--local", "--no-llm", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		shown := s.Value
		if s.Kind == redact.KindPrivateKey {
			// structured folds the key's base64 body; its armour stays.
			shown = "-----BEGIN RSA PRIVATE KEY-----"
		}
		if !strings.Contains(out, shown) {
			t.Errorf("redact node off: the %s is missing from the output", s.Kind)
		}
	}
	// ...and none when it is on, counted by kind in the report.
	on := writeFile(t, "on.yaml", "pipeline:\n  nodes:\n    redact:\n      enabled: true\n")
	out, report, err := runPublisher(t, "", "--local", "--no-llm", "--report", "--config", on, file)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if strings.Contains(out, s.Value) || strings.Contains(report, s.Value) || strings.Contains(out, "PRIVATE KEY-----") {
			t.Errorf("redact node on: the %s is in the output or the report", s.Kind)
		}
	}
	if !strings.Contains(report, "redacted ") || !strings.Contains(report, "private_key=1") {
		t.Errorf("report does not count redactions:\n%s", report)
	}
	// The fleet too, where a one-line document makes the guard fall back
	// to the original.
	for _, text := range []string{doc, secrets[0].Line + "\n"} {
		fleet, _, err := runPublisher(t, text, "--no-llm", "--config", on, "-")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if strings.Contains(fleet, s.Value) {
				t.Errorf("fleet, redact node on: the %s is in the output", s.Kind)
			}
		}
	}
}

func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}
