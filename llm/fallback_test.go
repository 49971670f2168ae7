package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/stages"
)

func TestModelFromEnvWhenConfigNamesNone(t *testing.T) {
	h := newHarness(t, always("s"), func(c *Config) { c.Model, c.SummaryModel = "", "" },
		WithLookupEnv(func(k string) (string, bool) { return "env-model", k == EnvModel }))
	if m, ok := h.client.Model(); !ok || m != "env-model" {
		t.Fatalf("Model() = %q, %v", m, ok)
	}
	if _, _, err := summarize(t, h.client, longText("e")); err != nil {
		t.Fatal(err)
	}
	if got := h.fake.req(0).Body.Model; got != "env-model" {
		t.Errorf("request model %q", got)
	}
	// A model in the config wins over the environment.
	h = newHarness(t, always("s"), nil, WithLookupEnv(func(k string) (string, bool) { return "env-model", k == EnvModel }))
	if m, _ := h.client.Model(); m != "chat-model" {
		t.Errorf("config model lost to the environment: %q", m)
	}
}

// A summary_model that fails at run time is tried once with model.
func TestFailingSummaryModelFallsBackToModel(t *testing.T) {
	h := newHarness(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n < 2 {
			apiError(w, http.StatusInternalServerError, "overloaded")
			return
		}
		reply(w, "summary from the chat model")
	}, func(c *Config) { c.SummaryModel, c.MaxRetries = "cheap-model", 1 })
	got, usage, err := summarize(t, h.client, longText("f"))
	if err != nil || got != "summary from the chat model" {
		t.Fatalf("got %q, %v", got, err)
	}
	var models []string
	for i := 0; i < h.fake.count(); i++ {
		models = append(models, h.fake.req(i).Body.Model)
	}
	if strings.Join(models, ",") != "cheap-model,cheap-model,chat-model" || usage.Model != "chat-model" {
		t.Errorf("models asked %v, usage model %q", models, usage.Model)
	}
	if !strings.Contains(h.log.String(), "level=WARN") || !strings.Contains(h.log.String(), "kind=\"http 500\"") {
		t.Errorf("failure not logged at WARN with its kind:\n%s", h.log.String())
	}
	if strings.Contains(h.log.String(), "deploy of service") {
		t.Errorf("the log carries the text:\n%s", h.log.String())
	}

	// Both fail: one error naming both, and exactly one fallback request.
	h = newHarness(t, func(w http.ResponseWriter, r *http.Request, n int) { apiError(w, http.StatusBadGateway, "down") },
		func(c *Config) { c.SummaryModel, c.MaxRetries = "cheap-model", 0 })
	if _, _, err := summarize(t, h.client, longText("f")); err == nil || !strings.Contains(err.Error(), "fallback to model chat-model") || h.fake.count() != 2 {
		t.Errorf("err %v after %d requests", err, h.fake.count())
	}
}

// A hung endpoint costs at most call_timeout per text, retries and the
// fallback included. The defaults keep that at 30 s.
func TestHangIsBoundedByCallTimeout(t *testing.T) {
	if d := DefaultConfig(); d.CallTimeout > 30*time.Second || d.CallTimeout < d.Timeout {
		t.Fatalf("defaults: timeout %s, call_timeout %s", d.Timeout, d.CallTimeout)
	}
	block := func(w http.ResponseWriter, r *http.Request, _ int) { <-r.Context().Done() }
	h := newHarness(t, block, func(c *Config) {
		c.SummaryModel, c.MaxRetries = "cheap-model", 5
		c.Timeout, c.CallTimeout = 300*time.Millisecond, 900*time.Millisecond
	}, WithSleep(sleepCtx))
	start := time.Now()
	_, _, err := summarize(t, h.client, longText("h"))
	if err == nil {
		t.Fatal("a hung endpoint returned a summary")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a hang cost %s with call_timeout 900ms", d)
	}
	if h.fake.req(h.fake.count()-1).Body.Model != "chat-model" {
		t.Errorf("no time was left for the fallback")
	}
}

func TestRedactionOnlyWholeLongKeys(t *testing.T) {
	short := secretPattern("x")
	if got := redactText("context deadline exceeded", short); got != "context deadline exceeded" {
		t.Errorf("a 1-char key mangled the message: %q", got)
	}
	long := secretPattern("sk-abc12345")
	for in, want := range map[string]string{
		"bad key sk-abc12345 given":     "bad key [REDACTED] given",
		"key=sk-abc12345":               "key=[REDACTED]",
		"sk-abc12345,sk-abc12345":       "[REDACTED],[REDACTED]",
		"sk-abc123456789 is not it":     "sk-abc123456789 is not it",
		"xsk-abc12345 is not it either": "xsk-abc12345 is not it either",
	} {
		if got := redactText(in, long); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
	err := redact(errors.New("Post: context deadline exceeded"), secretPattern("x"))
	if err.Error() != "Post: context deadline exceeded" {
		t.Errorf("short key: %q", err)
	}
}

func TestNoModelIsOneClearLine(t *testing.T) {
	h := newHarness(t, always("s"), func(c *Config) { c.Model, c.SummaryModel = "", "" })
	node := stages.NewLLMSummary(stages.DefaultLLMSummaryOptions(), h.client)
	for i := 0; i < 3; i++ {
		if _, err := node.Apply(context.Background(), stages.Input{Text: longText("n"), Mode: stages.ModeLLM, AllowLLM: true}); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(h.log.String(), "\n"); n != 1 || !strings.Contains(h.log.String(), "$OPENAI_MODEL or --model") {
		t.Errorf("want one line saying how to set a model, got:\n%s", h.log.String())
	}
}

// Gate skips of the node are logged at WARN, once per gate.
func TestGateSkipsLoggedOncePerGate(t *testing.T) {
	h := newHarness(t, always("s"), nil)
	node := stages.NewLLMSummary(stages.DefaultLLMSummaryOptions(), h.client)
	for i := 0; i < 3; i++ {
		for _, in := range []stages.Input{
			{Text: longText("g"), Mode: stages.ModeAlgorithmic, AllowLLM: true}, // gate 2
			{Text: "short", Mode: stages.ModeLLM, AllowLLM: true},               // gate 3
		} {
			if _, err := node.Apply(context.Background(), in); err != nil {
				t.Fatal(err)
			}
		}
	}
	log := h.log.String()
	if strings.Count(log, "gate=2") != 1 || strings.Count(log, "gate=3") != 1 || strings.Count(log, "level=WARN") != 2 {
		t.Errorf("want one WARN per gate:\n%s", log)
	}
	if h.fake.count() != 0 {
		t.Errorf("%d requests", h.fake.count())
	}
}
