package jetstream

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/llm"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/transcripts"
)

// TestTaskErrorsFollowTheRetryVocabulary: through the worker's ack policy,
// an invalid transcript request (transcripts.ErrInvalid) and a model's
// permanent refusal (a 400) are dead-lettered at the first delivery and
// come out as their originals; a model's transient failure (a 503) is
// retried, no sooner than its Retry-After, and then succeeds.
func TestTaskErrorsFollowTheRetryVocabulary(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out task retries")
	}
	var failFirst atomic.Bool
	var requests atomic.Int32
	var failedAt, retriedAt atomic.Int64
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		body := make([]byte, 4096)
		k, _ := r.Body.Read(body)
		switch {
		case strings.Contains(string(body[:k]), "refuse me"):
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"context too long","type":"invalid_request_error"}}`)
		case failFirst.Load() && n == 2:
			failedAt.Store(time.Now().UnixNano())
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"error":{"message":"overloaded","type":"server_error"}}`)
		default:
			retriedAt.Store(time.Now().UnixNano())
			fmt.Fprint(w, `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"answered"},"finish_reason":"stop"}]}`)
		}
	}))
	defer model.Close()
	lc := llm.DefaultConfig()
	lc.BaseURL, lc.Model, lc.MaxRetries = model.URL+"/v1", "m", 0
	lc.Breaker.Failures = 100
	client, err := llm.New(lc, llm.WithHTTPClient(model.Client()), llm.WithLookupEnv(func(string) (string, bool) { return "", false }))
	if err != nil {
		t.Fatal(err)
	}

	cfg := DefaultConfig()
	cfg.Tasks = []string{"ask", transcripts.JobDebate}
	f := startFleet(t, cfg)
	tasks := TranscriptTasks(transcripts.Jobs{Config: transcripts.DefaultConfig()})
	f.worker(cfg.Segments, WithTasks(map[string]TaskFunc{
		transcripts.JobDebate: tasks[transcripts.JobDebate],
		"ask": func(ctx context.Context, req TaskRequest) ([]byte, []pipeline.NodeReport, error) {
			out, err := client.Complete(ctx, "system", string(req.Body), 20)
			return []byte(out), nil, err
		},
	}))
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	invalid, err := c.RunTask(ctx, transcripts.JobDebate, Document{Text: "{not a debate"})
	if err != nil {
		t.Fatal(err)
	}
	if invalid.Text != "{not a debate" || !strings.Contains(invalid.Error, "invalid") {
		t.Errorf("invalid request: text %q, error %q", invalid.Text, invalid.Error)
	}
	refused, err := c.RunTask(ctx, "ask", Document{Text: "refuse me"})
	if err != nil {
		t.Fatal(err)
	}
	if refused.Text != "refuse me" || !strings.Contains(refused.Error, "HTTP 400") {
		t.Errorf("refused by the model: text %q, error %q", refused.Text, refused.Error)
	}
	dl, err := c.DeadLetters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(dl) != 2 {
		t.Fatalf("dead letters %+v, want the invalid request and the refused one", dl)
	}
	before := requests.Load()
	if before != 1 {
		t.Errorf("%d model requests before the transient case; a permanent refusal is sent once", before)
	}

	failFirst.Store(true)
	retried, err := c.RunTask(ctx, "ask", Document{Text: "overloaded at first"})
	if err != nil {
		t.Fatal(err)
	}
	if retried.Text != "answered" || retried.Error != "" {
		t.Errorf("transient failure: text %q, error %q; want the answer after a retry", retried.Text, retried.Error)
	}
	if n := requests.Load() - before; n != 2 {
		t.Errorf("%d model requests for the transient case, want 2 (a 503, then the redelivery)", n)
	}
	if wait := time.Duration(retriedAt.Load() - failedAt.Load()); wait < 1900*time.Millisecond {
		t.Errorf("redelivered %s after a 503 with Retry-After: 2", wait)
	}
	if dl, _ := c.DeadLetters(ctx); len(dl) != 2 {
		t.Errorf("a transient failure was dead-lettered: %+v", dl)
	}
}
