package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// fakeLLM is an httptest.Server speaking the chat-completions protocol. Each
// request is recorded and answered by handle, given its 0-based index.
type fakeLLM struct {
	srv    *httptest.Server
	handle func(w http.ResponseWriter, r *http.Request, n int)

	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	Path   string
	Query  string
	Header http.Header
	Body   openai.ChatCompletionRequest
	Fields map[string]json.RawMessage // to check which fields were sent
}

func newFake(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int)) *fakeLLM {
	t.Helper()
	f := &fakeLLM{handle: handle}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		rec := recorded{Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone()}
		_ = json.Unmarshal(raw, &rec.Body)
		_ = json.Unmarshal(raw, &rec.Fields)
		f.mu.Lock()
		n := len(f.reqs)
		f.reqs = append(f.reqs, rec)
		f.mu.Unlock()
		f.handle(w, r, n)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeLLM) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

func (f *fakeLLM) req(i int) recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reqs[i]
}

// reply writes a chat completion.
func reply(w http.ResponseWriter, content string) {
	replyFull(w, content, "stop", 120, 30)
}

func replyFull(w http.ResponseWriter, content, finish string, prompt, completion int) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"served-model",
"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":%q}],
"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, content, finish, prompt, completion, prompt+completion)
}

// apiError writes an OpenAI-style error body.
func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":"test_error","code":null}}`, msg)
}

// always answers every request with the same summary.
func always(content string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) { reply(w, content) }
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// sleeps records the waits asked of the injected sleep, which returns at
// once.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// logBuf is a concurrency-safe log sink.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func noEnv(string) (string, bool) { return "", false }

// harness is a client wired to a fake server, a fake clock, recorded sleeps
// and a captured log.
type harness struct {
	fake   *fakeLLM
	client *Client
	clock  *fakeClock
	sleeps *sleeps
	log    *logBuf
}

func testConfig(baseURL string) Config {
	c := DefaultConfig()
	c.BaseURL = baseURL + "/v1"
	c.Model = "chat-model"
	c.Timeout = 5 * time.Second
	c.Backoff = BackoffConfig{Base: 100 * time.Millisecond, Max: 10 * time.Second}
	return c
}

func newHarness(t *testing.T, handle func(http.ResponseWriter, *http.Request, int), mutate func(*Config), opts ...Option) *harness {
	t.Helper()
	h := &harness{fake: newFake(t, handle), clock: newClock(), sleeps: &sleeps{}, log: &logBuf{}}
	cfg := testConfig(h.fake.srv.URL)
	if mutate != nil {
		mutate(&cfg)
	}
	base := []Option{
		WithHTTPClient(h.fake.srv.Client()),
		WithClock(h.clock.Now),
		WithSleep(h.sleeps.Sleep),
		WithLogger(slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug}))),
		WithLookupEnv(noEnv),
	}
	c, err := New(cfg, append(base, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h.client = c
	return h
}

// longText is prose above the node's default threshold of 500 characters.
func longText(tag string) string {
	return strings.Repeat("The deploy of service "+tag+" failed twice at step 3 because /etc/app/config.yaml was missing. ", 8)
}
