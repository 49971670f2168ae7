package llm_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/jetcompact/jetcompact/llm"
	"github.com/jetcompact/jetcompact/stages"
)

func ExampleNew() {
	// A stand-in for an OpenAI-compatible server such as vLLM or Ollama.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"choices":[{"message":{"role":"assistant","content":"Tests pass; release v1.2 on Friday."},"finish_reason":"stop"}],
"usage":{"prompt_tokens":812,"completion_tokens":11}}`)
	}))
	defer srv.Close()

	cfg := llm.DefaultConfig()
	cfg.BaseURL = srv.URL + "/v1"
	cfg.Model = "qwen2.5:3b"
	client, err := llm.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The client is the Summarizer behind the llm_summary node.
	deps := stages.Deps{Summarizer: client}

	summary, usage, err := deps.Summarizer.Summarize(context.Background(), stages.SummaryRequest{
		Text:            "... a long chat history ...",
		MaxOutputTokens: 256,
	})
	fmt.Println(summary, err)
	fmt.Println(usage.Model, usage.PromptTokens, usage.CompletionTokens, usage.CacheHit)
	// Output:
	// Tests pass; release v1.2 on Friday. <nil>
	// qwen2.5:3b 812 11 false
}
