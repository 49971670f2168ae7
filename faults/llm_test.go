package faults

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/llm"
	"github.com/jetcompact/jetcompact/stages"
)

// hangingLLM speaks the chat-completions protocol. Its summary is a pure
// function of the request, so the fleet and the in-process pipeline agree;
// while hang is set it answers nothing until the client gives up.
type hangingLLM struct {
	srv      *httptest.Server
	hang     atomic.Bool
	requests atomic.Int64
	hung     atomic.Int64
}

func newHangingLLM(t *testing.T) *hangingLLM {
	h := &hangingLLM{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.requests.Add(1)
		body, _ := io.ReadAll(r.Body)
		if h.hang.Load() {
			h.hung.Add(1)
			select {
			case <-r.Context().Done():
			case <-time.After(30 * time.Second):
			}
			return
		}
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		sum := sha256.Sum256([]byte(req.Messages[len(req.Messages)-1].Content))
		content := "Summary " + hex.EncodeToString(sum[:8]) + ": errors and retries, see the original for details."
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"test-model",
"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],
"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120}}`, content)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// TestLLMHangsThenRecovers runs hybrid mode with llm_summary on against an
// endpoint that hangs past the 1s LLM timeout for a while, then answers
// again. Every document still comes out once: summarised, or unsummarised
// with the reason in its report. Long LLM calls send InProgress, so no
// message outlives the ack wait: no redeliveries.
func TestLLMHangsThenRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: real processes, faults and their recovery; runs without -short")
	}
	n := docCount(t)
	fake := newHangingLLM(t)
	t.Setenv(llm.EnvAPIKey, "test")
	ackWait := 2 * time.Second
	c := newCluster(t, setup{
		Segments: jetstream.DefaultSegments(), AckWait: ackWait,
		Env: []string{llm.EnvAPIKey + "=test"},
		Extra: fmt.Sprintf(`pipeline:
  mode: hybrid
  nodes:
    llm_summary:
      enabled: true
llm:
  base_url: %s/v1
  model: test-model
  timeout: 1s
  max_retries: 1
  breaker:
    open_for: 2s
`, fake.srv.URL),
	})
	c.startServers(1)
	c.startWorkers()
	docs := makeDocs(n, 5)
	plain := c.expected(docs, stages.Deps{}) // gate 4 closed: what a failed call leaves
	cl := c.client()

	var done atomic.Int64
	start := time.Now()
	chaos := make(chan string, 1)
	go func() {
		waitDone(&done, int64(n)/4, 2*time.Minute)
		at := done.Load()
		hungAt := time.Now()
		fake.hang.Store(true)
		time.Sleep(6 * time.Second)
		fake.hang.Store(false)
		chaos <- fmt.Sprintf("LLM hung from %s to %s (at %d/%d results); %d requests hung",
			hungAt.Sub(start).Round(100*time.Millisecond), time.Since(start).Round(100*time.Millisecond), at, n, fake.hung.Load())
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ps := c.publishAll(ctx, cl, docs, 64, float64(n)/15, &done)
	hangLine := <-chaos
	c.settle(30 * time.Second)

	// What a working LLM gives, computed after the hang is over.
	summarizer, err := llm.New(c.file.LLM)
	if err != nil {
		t.Fatal(err)
	}
	summarised := c.expected(docs, stages.Deps{Summarizer: summarizer})
	var gotSummary, gotPlain, gated, noReason int
	tl := c.check(docs, nil, func(i int, text string) bool {
		switch {
		case summarised[i] == plain[i]:
			gated++ // too short for the LLM, or the guard kept the original
			return text == plain[i]
		case text == summarised[i]:
			gotSummary++
			return true
		case text == plain[i]:
			gotPlain++
			if !skippedWithReason(ps.results[i]) {
				noReason++
			}
			return true
		}
		return false
	})
	redelivered := c.redeliveries()
	c.report("llm-hang", tl, ps, hangLine,
		fmt.Sprintf("summarised %d, unsummarised (LLM failed, reason in report) %d, not sent to the LLM %d; LLM requests %d; redelivered hops %.0f",
			gotSummary, gotPlain, gated, fake.requests.Load(), redelivered))
	if gotPlain == 0 || gotSummary == 0 {
		t.Errorf("want both summarised and unsummarised documents, got %d and %d: the hang did not overlap the stream", gotSummary, gotPlain)
	}
	if noReason > 0 {
		t.Errorf("%d unsummarised documents lack the llm_summary skip reason in their report", noReason)
	}
	if redelivered > 0 {
		// Before the worker pulled only for free handlers, messages queued
		// behind slow LLM calls got no InProgress and outlived the ack wait.
		t.Errorf("%.0f redelivered hops: a message outlived the ack wait of %s", redelivered, ackWait)
	}
}

// skippedWithReason reports whether the result's llm_summary node was
// skipped because the LLM failed.
func skippedWithReason(r jetstream.Result) bool {
	for _, nr := range r.Report.Nodes {
		if nr.Key == stages.KeyLLMSummary {
			return nr.Skipped && (strings.Contains(nr.Reason, "llm failed") || strings.Contains(nr.Reason, "circuit open"))
		}
	}
	return false
}
