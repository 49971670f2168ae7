package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func debateJSON(t *testing.T) string {
	t.Helper()
	type answer struct {
		Model        string    `json:"model"`
		Priority     int       `json:"priority"`
		ReviewScores []float64 `json:"review_scores"`
		ResponseRaw  string    `json:"response_raw"`
	}
	var answers []answer
	for i := 0; i < 4; i++ {
		var b strings.Builder
		for j := 0; b.Len() < 18000; j++ {
			fmt.Fprintf(&b, "Line %d of answer %d: the cache should be sharded by tenant.\n", j, i)
			if j == 40 {
				b.WriteString("```go\nfunc shard(id int) int { return id % 8 }\n```\n")
			}
		}
		answers = append(answers, answer{Model: fmt.Sprintf("m%d", i), Priority: i, ReviewScores: []float64{float64(i), 1}, ResponseRaw: b.String()})
	}
	data, err := json.Marshal(map[string]any{"question": "How do we cut latency?", "mode": "debate", "answers": answers})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestDebateLocalAndFleet(t *testing.T) {
	file := writeFile(t, "debate.json", debateJSON(t))
	local, report, err := runPublisher(t, "", "--local", "--report", "--debate", file)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Answers []struct {
			Model              string `json:"model"`
			ResponseRaw        string `json:"response_raw"`
			ResponseCompressed string `json:"response_compressed"`
		} `json:"answers"`
	}
	if err := json.Unmarshal([]byte(local), &out); err != nil {
		t.Fatal(err)
	}
	// Debate mode seats by total review score: m3 and m2 stay verbatim.
	for _, a := range out.Answers {
		top := a.Model == "m3" || a.Model == "m2"
		if top != (a.ResponseCompressed == "") {
			t.Errorf("%s: compressed=%v", a.Model, a.ResponseCompressed != "")
		}
		if !strings.Contains(a.ResponseRaw, "```go\nfunc shard") {
			t.Errorf("%s: raw modified", a.Model)
		}
		if a.ResponseCompressed != "" && !strings.Contains(a.ResponseCompressed, "```go\nfunc shard(id int) int { return id % 8 }\n```") {
			t.Errorf("%s: code block lost", a.Model)
		}
	}
	if !strings.Contains(report, "debate.gate") {
		t.Errorf("report:\n%s", report)
	}
	fleet, _, err := runPublisher(t, "", "--debate", file)
	if err != nil {
		t.Fatal(err)
	}
	if fleet != local {
		t.Error("fleet debate output differs from --local")
	}
}

func TestEvidenceLocalAndFleet(t *testing.T) {
	req := `{"decision":"Pick a supplier","options":["PackPro","BoxWest"],"criteria":["price"],
"transcript":[{"speaker":"Maria Lopez","text":"PackPro is cheaper than BoxWest."},{"speaker":"Chen Wei","text":"BoxWest ships faster. Everyone agreed PackPro had damaged boxes."}]}`
	file := writeFile(t, "ev.json", req)
	local, _, err := runPublisher(t, "", "--local", "--evidence", file)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Summary string `json:"summary"`
		Source  string `json:"source"`
	}
	if err := json.Unmarshal([]byte(local), &res); err != nil {
		t.Fatal(err)
	}
	if res.Source != "extractive" || !strings.Contains(res.Summary, "| option | for | against |") {
		t.Errorf("evidence without a model: %+v", res)
	}
	for _, name := range []string{"Maria", "Lopez", "Chen", "Everyone agreed"} {
		if strings.Contains(res.Summary, name) {
			t.Errorf("summary carries %q", name)
		}
	}
	fleet, _, err := runPublisher(t, "", "--evidence", file)
	if err != nil || fleet != local {
		t.Errorf("fleet evidence differs: %v", err)
	}
	if _, _, err := runPublisher(t, "", "--local", "--evidence", writeFile(t, "bad.json", `{"options":[]}`)); err == nil {
		t.Error("invalid request accepted")
	}
}

// fakeLLM answers every chat completion with a fixed text.
func fakeLLM(t *testing.T, answer string) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"x","object":"chat.completion","model":"fake","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%q}}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`, answer)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestSessionCompactionWithAModel(t *testing.T) {
	srv, calls := fakeLLM(t, "Summary: the user wants a blue landing page.")
	t.Setenv("OPENAI_API_KEY", "test-key")
	cfg := writeFile(t, "c.yaml", "llm:\n  base_url: "+srv.URL+"/v1\n  model: fake\n")
	var msgs []map[string]string
	for i := 0; i < 12; i++ {
		msgs = append(msgs, map[string]string{"id": fmt.Sprint(i + 1), "role": "user", "kind": "prose", "text": strings.Repeat("please make it bluer. ", 20)})
	}
	msgs = append(msgs, map[string]string{"id": "13", "role": "assistant", "kind": "state", "text": "<page>blue</page>"})
	data, _ := json.Marshal(msgs)
	mfile := writeFile(t, "m.json", string(data))
	for _, local := range []bool{true, false} {
		args := []string{"--config", cfg, "--session", "chat-1", "--messages", mfile, "--compact-now"}
		if local {
			args = append(args, "--local")
		}
		out, _, err := runPublisher(t, "", args...)
		if err != nil {
			t.Fatal(err)
		}
		var resp struct {
			Result struct{ Outcome string }      `json:"result"`
			View   []struct{ Kind, Text string } `json:"view"`
		}
		if err := json.Unmarshal([]byte(out), &resp); err != nil {
			t.Fatal(err)
		}
		if resp.Result.Outcome != "applied" || len(resp.View) == 0 || resp.View[0].Kind != "summary" {
			t.Errorf("local=%v: %s", local, out)
		}
		last := resp.View[len(resp.View)-1]
		if last.Kind != "state" || last.Text != "<page>blue</page>" {
			t.Errorf("local=%v: the state message must stay selected, got %+v", local, last)
		}
	}
	if calls.Load() == 0 {
		t.Error("the model was never called")
	}
}

func TestMeetingContextLocalAndFleet(t *testing.T) {
	var entries []map[string]string
	for i := 0; i < 10; i++ {
		entries = append(entries, map[string]string{"agent": fmt.Sprintf("agent%d", i%3), "content": strings.Repeat(fmt.Sprintf("point %d about the rollout plan. ", i), 400)})
	}
	req, _ := json.Marshal(map[string]any{
		"state": map[string]any{"topic": "Rollout", "round": 2, "scratchpad": entries},
		"for":   "chair",
	})
	file := writeFile(t, "meeting.json", string(req))
	local, _, err := runPublisher(t, "", "--local", "--meeting", file)
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Context string `json:"context"`
		Report  struct {
			Whiteboard struct{ Level int } `json:"whiteboard"`
		} `json:"report"`
	}
	if err := json.Unmarshal([]byte(local), &resp); err != nil {
		t.Fatal(err)
	}
	// 10 entries of ~12k chars blow the 6000-token budget: level 1 keeps
	// the two most recent whole and cuts the others to 200 characters.
	if resp.Report.Whiteboard.Level != 1 || !strings.Contains(resp.Context, "## Whiteboard (round 2)") {
		t.Errorf("level %d, context head %q", resp.Report.Whiteboard.Level, resp.Context[:min(len(resp.Context), 200)])
	}
	if !strings.Contains(resp.Context, entries[9]["content"]) || strings.Contains(resp.Context, entries[0]["content"]) {
		t.Error("recent entry not whole, or early entry not truncated")
	}
	fleet, _, err := runPublisher(t, "", "--meeting", file)
	if err != nil || fleet != local {
		t.Errorf("fleet meeting differs: %v", err)
	}
}
