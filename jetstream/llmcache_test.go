package jetstream

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"

	"github.com/jetcompact/jetcompact/internal/natstest"
	"github.com/jetcompact/jetcompact/llm"
	"github.com/jetcompact/jetcompact/stages"
)

var _ llm.Cache = (*LLMCache)(nil)

// llmCacheServer starts an embedded JetStream server on a loopback port.
func llmCacheServer(t *testing.T) *server.Server { return natstest.Start(t, nil) }

// llmCacheConnect opens a new TCP connection to s, as a worker process would.
func llmCacheConnect(t *testing.T, s *server.Server) njs.JetStream {
	t.Helper()
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := njs.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// llmCacheJS is a server and one connection to it.
func llmCacheJS(t *testing.T) njs.JetStream {
	t.Helper()
	return llmCacheConnect(t, llmCacheServer(t))
}

func TestLLMCacheGetPut(t *testing.T) {
	ctx := context.Background()
	js := llmCacheJS(t)
	c, err := NewLLMCache(ctx, js, "llm_cache", time.Hour, 1)
	if err != nil {
		t.Fatal(err)
	}
	key := llm.CacheKey("text", "model", "v1", "prompt")
	if _, ok, err := c.Get(ctx, key); ok || err != nil {
		t.Fatalf("empty bucket: %v, %v", ok, err)
	}
	if err := c.Put(ctx, key, "summary"); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := c.Get(ctx, key); !ok || err != nil || v != "summary" {
		t.Fatalf("get: %q, %v, %v", v, ok, err)
	}
	// Opening it again with another TTL updates the bucket and keeps data.
	c2, err := NewLLMCache(ctx, js, "llm_cache", 2*time.Hour, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok, _ := c2.Get(ctx, key); !ok || v != "summary" {
		t.Errorf("after update: %q, %v", v, ok)
	}
	kv, err := js.KeyValue(ctx, "llm_cache")
	if err != nil {
		t.Fatal(err)
	}
	st, err := kv.Status(ctx)
	if err != nil || st.TTL() != 2*time.Hour {
		t.Errorf("bucket ttl = %v, %v", st.TTL(), err)
	}
}

func TestLLMCacheRejects(t *testing.T) {
	ctx := context.Background()
	if _, err := NewLLMCache(ctx, nil, "b", time.Hour, 1); err == nil {
		t.Error("nil JetStream accepted")
	}
	js := llmCacheJS(t)
	for _, b := range []string{"", "bad name"} {
		if _, err := NewLLMCache(ctx, js, b, time.Hour, 1); err == nil {
			t.Errorf("bucket %q accepted", b)
		}
	}
	if _, err := NewLLMCache(ctx, js, "b", -time.Second, 1); err == nil {
		t.Error("negative ttl accepted")
	}
}

// Two workers, each with its own llm.Client, share the bucket: a summary
// paid for by one is a cache hit for the other.
func TestLLMCacheSharedByTwoWorkers(t *testing.T) {
	ctx := context.Background()
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Build failed: missing go.sum entry."},"finish_reason":"stop"}],"usage":{"prompt_tokens":90,"completion_tokens":9,"total_tokens":99}}`)
	}))
	defer srv.Close()

	cfg := llm.DefaultConfig()
	cfg.BaseURL = srv.URL + "/v1"
	cfg.Model = "m"
	noEnv := func(string) (string, bool) { return "", false }
	ns := llmCacheServer(t)
	worker := func() *llm.Client {
		// Each worker has its own connection to the bucket, as separate
		// processes would.
		cache, err := NewLLMCache(ctx, llmCacheConnect(t, ns), "llm_shared", time.Hour, 1)
		if err != nil {
			t.Fatal(err)
		}
		c, err := llm.New(cfg, llm.WithCache(cache), llm.WithHTTPClient(srv.Client()), llm.WithLookupEnv(noEnv))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	w1, w2 := worker(), worker()

	req := stages.SummaryRequest{Text: "go build ./... failed: missing go.sum entry for module x", MaxOutputTokens: 64}
	s1, u1, err := w1.Summarize(ctx, req)
	if err != nil || u1.CacheHit {
		t.Fatalf("worker 1: %q, %+v, %v", s1, u1, err)
	}
	s2, u2, err := w2.Summarize(ctx, req)
	if err != nil || !u2.CacheHit || s2 != s1 {
		t.Fatalf("worker 2: %q, %+v, %v", s2, u2, err)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests to the model, want 1", n)
	}
}
