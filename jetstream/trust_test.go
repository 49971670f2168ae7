package jetstream

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/internal/poll"
	"github.com/jetcompact/jetcompact/llm"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/transcripts"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
)

// The tests in this file attack the fleet through its own subjects, as a
// client with publish rights on them would: it owns documents of its own
// (so it knows their nonces) and knows the victim's document id.

// llmSpy is a chat-completions endpoint that records every prompt.
type llmSpy struct {
	mu      sync.Mutex
	prompts []string
}

func newLLMSpy(t *testing.T) (*llmSpy, string) {
	spy := &llmSpy{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		spy.mu.Lock()
		spy.prompts = append(spy.prompts, string(body))
		spy.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c1","object":"chat.completion","created":1700000000,"model":"m",
"choices":[{"index":0,"message":{"role":"assistant","content":"a short summary"},"finish_reason":"stop"}],
"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`)
	}))
	t.Cleanup(srv.Close)
	return spy, srv.URL + "/v1"
}

func (s *llmSpy) saw(secret string) (calls int, leaked bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.prompts {
		leaked = leaked || strings.Contains(p, secret)
	}
	return len(s.prompts), leaked
}

// trustFleet is a fleet whose LLM stage is on (hybrid, every length) and
// talks to spy.
func trustFleet(t *testing.T, cfg Config, base string) *fleet {
	t.Helper()
	f := startFleet(t, cfg)
	lc := llm.DefaultConfig()
	lc.BaseURL, lc.Model, lc.Timeout, lc.MaxRetries = base, "test-model", 5*time.Second, 0
	summarizer, err := llm.New(lc, llm.WithLookupEnv(func(k string) (string, bool) {
		if k == llm.EnvAPIKey {
			return "sk-test", true
		}
		return "", false
	}))
	if err != nil {
		t.Fatal(err)
	}
	pc := pipeline.DefaultConfig()
	pc.Mode = stages.ModeHybrid
	pc.SetNode(stages.KeyLLMSummary, true)
	pc.Options.LLMSummary.Threshold = 1
	if f.pipe, err = pipeline.New(pc, stages.Deps{Summarizer: summarizer}); err != nil {
		t.Fatal(err)
	}
	f.worker(cfg.Segments)
	return f
}

// secretDoc is a document that carries secret and compacts to a text
// that still does.
func secretDoc(secret string, lines int) string {
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, "2024-05-01 12:%02d:%02d ERROR vault token %s rejected for user-%d\n", i/60%60, i%60, secret, i)
	}
	return b.String()
}

// wordSoup is n bytes of sentences no stage can shorten much.
func wordSoup(n int) string {
	words := []string{"amber", "quartz", "violet", "harbor", "meadow", "cobalt", "lantern", "orchid", "summit", "falcon", "granite", "willow"}
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < n {
		for range 8 {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		b.WriteString(".\n")
	}
	return b.String()
}

// attackHop publishes a work message with the envelope env and body.
func attackHop(t *testing.T, f *fleet, subject string, env Envelope, body string) {
	t.Helper()
	m := nats.NewMsg(subject)
	m.Data = []byte(body)
	if err := env.Write(m.Header); err != nil {
		t.Fatal(err)
	}
	if _, err := f.js.PublishMsg(context.Background(), m); err != nil {
		t.Fatal(err)
	}
}

// settle waits until every consumer of the fleet has handled all it holds.
func settle(t *testing.T, f *fleet) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := Names{f.cfg.Prefix}
	for _, stream := range []string{n.WorkStream(), n.OriginalsStream()} {
		st, err := f.js.Stream(ctx, stream)
		if err != nil {
			t.Fatal(err)
		}
		poll.Require(t, 30*time.Second, stream+" holds no work", func() bool {
			busy := false
			list := st.ListConsumers(ctx)
			for info := range list.Info() {
				busy = busy || info.NumPending+uint64(info.NumAckPending) > 0
			}
			return !busy
		})
	}
}

// storedResults returns the text of every stored result by document id.
func storedResults(t *testing.T, f *fleet) map[string]string {
	t.Helper()
	ctx := context.Background()
	n := Names{f.cfg.Prefix}
	st, err := f.js.Stream(ctx, n.ResultsStream())
	if err != nil {
		t.Fatal(err)
	}
	info, _ := st.Info(ctx)
	work, _ := f.js.ObjectStore(ctx, n.BlobBucket())
	out := map[string]string{}
	for seq := info.State.FirstSeq; info.State.Msgs > 0 && seq <= info.State.LastSeq; seq++ {
		raw, err := st.GetMsg(ctx, seq)
		if err != nil {
			continue
		}
		text := string(raw.Data)
		if name := raw.Header.Get(HeaderBlob); name != "" {
			data, _ := work.GetBytes(ctx, name)
			text = string(data)
		}
		out[strings.TrimPrefix(raw.Subject, n.Prefix+".result.")] = text
	}
	return out
}

// ownDocument stores a document of the attacker's, whose nonce it knows.
func ownDocument(t *testing.T, f *fleet, id, text string) Envelope {
	t.Helper()
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Compact(ctx, Document{ID: id, Text: text}); err != nil {
		t.Fatal(err)
	}
	raw, err := lastOriginal(ctx, Names{f.cfg.Prefix}, c.blobs, id)
	if err != nil {
		t.Fatal(err)
	}
	env, err := ReadEnvelope(raw.Header)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// resultTap records every result published from now on, by document id
// (a later result on a subject replaces an earlier one in the stream).
type resultTap struct {
	mu    sync.Mutex
	texts map[string][]string
}

func tapResults(t *testing.T, f *fleet) *resultTap {
	t.Helper()
	n := Names{f.cfg.Prefix}
	work, err := f.js.ObjectStore(context.Background(), n.BlobBucket())
	if err != nil {
		t.Fatal(err)
	}
	tap := &resultTap{texts: map[string][]string{}}
	sub, err := f.nc.Subscribe(n.Prefix+".result.>", func(m *nats.Msg) {
		text := string(m.Data)
		if name := m.Header.Get(HeaderBlob); name != "" {
			data, _ := work.GetBytes(context.Background(), name)
			text = string(data)
		}
		id := strings.TrimPrefix(m.Subject, n.Prefix+".result.")
		tap.mu.Lock()
		tap.texts[id] = append(tap.texts[id], text)
		tap.mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	return tap
}

// noLeak fails if secret is in any result but the victim's, or reached the LLM.
func noLeak(t *testing.T, f *fleet, tap *resultTap, spy *llmSpy, victim, secret string) {
	t.Helper()
	settle(t, f)
	_ = f.nc.Flush()
	tap.mu.Lock()
	defer tap.mu.Unlock()
	for id, texts := range tap.texts {
		for _, text := range texts {
			if id != victim && strings.Contains(text, secret) {
				t.Errorf("the victim's secret is in a result of %s", id)
			}
		}
	}
	if _, leaked := spy.saw(secret); leaked {
		t.Error("the victim's secret reached the LLM")
	}
}

// secretSoup is wordSoup with secret on every line: large enough to move
// through work blobs after every stage.
func secretSoup(secret string, n int) string {
	return strings.ReplaceAll(wordSoup(n), ".\n", secret+" .\n")
}

// TestHopCannotReadAnotherDocument: a hop of the attacker's own document
// that names the victim's original, or the victim's work blob, gets
// neither into the attacker's result nor to the LLM.
func TestHopCannotReadAnotherDocument(t *testing.T) {
	const secret = "S3CRET-victim-4411"
	cfg := DefaultConfig()
	cfg.Segments = SplitSegments()
	cfg.InlineMaxBytes = 4096 // the victim's text moves through work blobs
	spy, base := newLLMSpy(t)
	f := trustFleet(t, cfg, base)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	own := ownDocument(t, f, "attacker-doc", "my own short text")
	victimText := secretSoup(secret, 40<<10)
	if _, err := c.Compact(ctx, Document{ID: "victim-doc", Text: victimText}); err != nil {
		t.Fatal(err)
	}
	tap := tapResults(t, f)
	n := Names{cfg.Prefix}
	first := cfg.Segments[0][0]
	hop := own
	hop.Attempt, hop.Blob, hop.AllowLLM, hop.Kind, hop.OrigChars, hop.OrigBytes = 1, originalBlobPrefix+"victim-doc", true, stages.KindProse, 1<<20, 1<<20
	attackHop(t, f, n.WorkSubject(first), hop, "")
	// Work blobs under the names a hop of the victim's would use, as
	// they were before names carried a digest.
	for i, k := range ChainKeys()[1:] {
		hop.Attempt, hop.Blob = 10+i, msgID("victim-doc", 0, k)
		attackHop(t, f, n.WorkSubject(k), hop, "")
	}
	noLeak(t, f, tap, spy, "victim-doc", secret)
}

// TestHopCannotUseWildcards: subject wildcards and tokens in a reference
// or an id reach no other document.
func TestHopCannotUseWildcards(t *testing.T) {
	const secret = "S3CRET-wild-9020"
	cfg := DefaultConfig()
	spy, base := newLLMSpy(t)
	f := trustFleet(t, cfg, base)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	own := ownDocument(t, f, "wild-attacker", "my own short text")
	if _, err := c.Compact(ctx, Document{ID: "wild-victim", Text: secretDoc(secret, 50)}); err != nil {
		t.Fatal(err)
	}
	tap := tapResults(t, f)
	n := Names{cfg.Prefix}
	for i, ref := range []string{">", "*", "wild-victim.>", "*.wild-victim", "task.>", "wild-attacker.>", " wild-victim", "wild-victim\t"} {
		hop := own
		hop.Attempt, hop.Blob, hop.AllowLLM, hop.Kind, hop.OrigChars, hop.OrigBytes = 1+i, originalBlobPrefix+ref, true, stages.KindProse, 1<<20, 1<<20
		attackHop(t, f, n.WorkSubject(cfg.Segments[0][0]), hop, "")
	}
	for i, id := range []string{">", "*", "wild-victim.>", "wild-*"} {
		m := nats.NewMsg(n.WorkSubject(cfg.Segments[0][0]))
		_ = own.Write(m.Header)
		m.Header.Set(HeaderDocID, id)
		m.Header.Set(HeaderAttempt, fmt.Sprint(20+i))
		m.Header.Set(HeaderBlob, originalBlobPrefix+id)
		if _, err := f.js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	noLeak(t, f, tap, spy, "wild-victim", secret)
}

// TestHopCannotEnableTheLLM: a document published with the LLM off stays
// off whatever its later hops claim, its own publisher's included.
func TestHopCannotEnableTheLLM(t *testing.T) {
	const secret = "S3CRET-nollm-5150"
	cfg := DefaultConfig()
	spy, base := newLLMSpy(t)
	f := trustFleet(t, cfg, base)
	text := secretDoc(secret, 50)
	own := ownDocument(t, f, "llm-off", text)
	if calls, _ := spy.saw(secret); calls != 0 {
		t.Fatalf("the LLM was called %d times for a document published with it off", calls)
	}
	n := Names{cfg.Prefix}
	for i, mode := range []stages.Mode{stages.ModeLLM, stages.ModeHybrid} {
		hop := own
		hop.Attempt, hop.AllowLLM, hop.Mode = 1+i, true, mode
		hop.Blob = originalBlobPrefix + own.DocID
		attackHop(t, f, n.WorkSubject(stages.KeyLLMSummary), hop, "")
		hop.Blob = ""
		hop.Attempt += 10
		attackHop(t, f, n.WorkSubject(stages.KeyLLMSummary), hop, text)
	}
	settle(t, f)
	if calls, leaked := spy.saw(secret); calls != 0 || leaked {
		t.Errorf("a hop turned the LLM on: %d calls (secret sent: %v)", calls, leaked)
	}
}

// TestResultCannotBeForged: a guard hop with the victim's id and a higher
// attempt, and a result published on another subject naming the victim,
// replace nothing and are accepted by no waiting client.
func TestResultCannotBeForged(t *testing.T) {
	cfg := DefaultConfig()
	f := startFleet(t, cfg)
	f.worker(cfg.Segments)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := Names{cfg.Prefix}
	const forged = "FORGED by the attacker"
	victim := Document{ID: "forge-victim", Text: testDocs(1)[0]}
	genuine, err := c.Compact(ctx, victim)
	if err != nil {
		t.Fatal(err)
	}
	for _, attempt := range []int{0, 1, 7, 1 << 40} {
		env := Envelope{DocID: victim.ID, OrigChars: 1 << 20, OrigBytes: 1 << 20, OrigRef: n.OriginalSubject(victim.ID), Attempt: attempt, Pass: "passthrough: forged"}
		attackHop(t, f, n.WorkSubject(stages.KeyGuard), env, forged)
		env.Pass = ""
		attackHop(t, f, n.WorkSubject(stages.KeyGuard), env, forged)
	}
	settle(t, f)
	again, err := c.Compact(ctx, victim)
	if err != nil || again.Text != genuine.Text {
		t.Errorf("republishing the victim: err %v, forged %v", err, strings.Contains(again.Text, forged))
	}
	if got := storedResults(t, f)[victim.ID]; got != genuine.Text {
		t.Errorf("the victim's stored result was replaced (forged: %v)", strings.Contains(got, forged))
	}

	// A client waiting for a new document takes no result that merely
	// names it, on another subject or with another attempt.
	next := Document{ID: "forge-next", Text: testDocs(2)[1]}
	wait, err := c.expect(ctx, next.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	for subject, attempt := range map[string]int{n.ResultSubject("forge-other"): 0, n.ResultSubject(next.ID) + ".x": 0} {
		m := nats.NewMsg(subject)
		m.Data = []byte(forged)
		env := Envelope{DocID: next.ID, OrigChars: 5, OrigBytes: 5, Attempt: attempt}
		_ = env.Write(m.Header)
		m.Header.Set(HeaderGuard, pipeline.GuardKeptResult)
		if _, err := f.js.PublishMsg(ctx, m); err != nil && !strings.Contains(err.Error(), "no response") {
			t.Fatal(err)
		}
	}
	if _, err := c.submit(ctx, next, 0, ""); err != nil {
		t.Fatal(err)
	}
	res, err := wait(ctx)
	if err != nil || res.Text == forged {
		t.Errorf("waiting client: err %v, took the forged result %v", err, res.Text == forged)
	}
}

// TestNonceHolderCannotFeedItsOwnText: whoever reads a document's nonce
// from its stored original (any client of an open server; a publisher
// under the role permissions) may re-run the document through the entry
// subjects, the replay's and a task's, but never make its own text, inline
// or in a work blob, or a passthrough, that document's result.
func TestNonceHolderCannotFeedItsOwnText(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Tasks = []string{"echo"}
	f := startFleet(t, cfg)
	f.worker(cfg.Segments, WithTasks(map[string]TaskFunc{
		"echo": func(_ context.Context, r TaskRequest) ([]byte, []pipeline.NodeReport, error) { return r.Body, nil, nil },
	}))
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := Names{cfg.Prefix}
	const forged = "FORGED by the attacker"
	victim := Document{ID: "nonce-victim", Text: testDocs(1)[0]}
	if _, err := c.Compact(ctx, victim); err != nil {
		t.Fatal(err)
	}
	st, err := f.js.Stream(ctx, n.OriginalsStream())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := st.GetLastMsgForSubject(ctx, n.OriginalSubject(victim.ID))
	if err != nil {
		t.Fatal(err)
	}
	nonce := raw.Header.Get(HeaderNonce)
	tap := tapResults(t, f)
	work, _ := f.js.ObjectStore(ctx, n.BlobBucket())
	for i, subject := range []string{n.WorkSubject(cfg.Segments[0][0]), n.TaskSubject("echo")} {
		hop := stages.Key(strings.TrimPrefix(subject, n.Prefix+".work."))
		if hop == "task.echo" {
			hop = "task_echo"
		}
		base := Envelope{DocID: victim.ID, OrigChars: 1 << 20, OrigBytes: 1 << 20, OrigRef: n.OriginalSubject(victim.ID), Nonce: nonce}
		inline, pass, blob := base, base, base
		inline.Attempt = 7 + 10*i
		pass.Attempt, pass.Pass, pass.Blob = 8+10*i, "passthrough: forged", originalBlobPrefix+victim.ID
		blob.Attempt = 9 + 10*i
		blob.Blob = blobName(msgID(victim.ID, blob.Attempt, hop), []byte(forged))
		if _, err := work.PutString(ctx, blob.Blob, forged); err != nil {
			t.Fatal(err)
		}
		attackHop(t, f, subject, inline, forged)
		attackHop(t, f, subject, pass, forged)
		attackHop(t, f, subject, blob, "")
	}
	settle(t, f)
	_ = f.nc.Flush()
	tap.mu.Lock()
	defer tap.mu.Unlock()
	if len(tap.texts[victim.ID]) == 0 {
		t.Error("no result for the victim's re-runs; the test proves nothing")
	}
	for _, text := range tap.texts[victim.ID] {
		if strings.Contains(text, forged) {
			t.Errorf("the attacker's text became the victim's result: %.80q", text)
		}
	}
	if got := storedResults(t, f)[victim.ID]; strings.Contains(got, forged) {
		t.Error("the victim's stored result is the attacker's text")
	}
}

// TestUsedWorkBlobsAreDeleted: once the next hop holds a large text, the
// work blob the last one read is gone; only the result's blob stays.
func TestUsedWorkBlobsAreDeleted(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Segments = SplitSegments()
	cfg.InlineMaxBytes = 4096
	f := startFleet(t, cfg)
	f.worker(cfg.Segments)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Compact(ctx, Document{ID: "blob-used", Text: wordSoup(40 << 10)}); err != nil {
		t.Fatal(err)
	}
	settle(t, f)
	work, err := f.js.ObjectStore(ctx, Names{cfg.Prefix}.BlobBucket())
	if err != nil {
		t.Fatal(err)
	}
	// A hop deletes the blob it read after its ack: under load that may
	// come a moment after the streams drained.
	var names []string
	onlyResult := func() bool {
		list, err := work.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		names = names[:0]
		for _, o := range list {
			names = append(names, o.Name)
		}
		return len(names) == 1 && strings.HasPrefix(names[0], msgID("blob-used", 0, "result")+".")
	}
	if !poll.Until(10*time.Second, onlyResult) {
		t.Errorf("work blobs left after the document completed: %v, want only its result's", names)
	}
}

// TestBlobCannotBeOverwritten: the objects of a large result and a large
// original, overwritten by name, are never served as the document's.
func TestBlobCannotBeOverwritten(t *testing.T) {
	cfg := DefaultConfig()
	cfg.InlineMaxBytes = 4096
	f := startFleet(t, cfg)
	f.worker(cfg.Segments)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := Names{cfg.Prefix}
	victim := Document{ID: "blob-victim", Text: wordSoup(40 << 10)}
	genuine, err := c.Compact(ctx, victim)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.js.Stream(ctx, n.ResultsStream())
	raw, err := st.GetLastMsgForSubject(ctx, n.ResultSubject(victim.ID))
	if err != nil {
		t.Fatal(err)
	}
	resultBlob := raw.Header.Get(HeaderBlob)
	if resultBlob == "" {
		t.Fatal("the victim's result is inline; the test needs it in a blob")
	}
	forged := strings.Repeat("FORGED ", 1000)
	work, _ := f.js.ObjectStore(ctx, n.BlobBucket())
	if _, err := work.PutString(ctx, resultBlob, forged); err != nil {
		t.Fatal(err)
	}
	if _, err := work.PutString(ctx, msgID(victim.ID, 0, "result"), forged); err != nil { // the name before digests
		t.Fatal(err)
	}
	again, err := c.Compact(ctx, victim)
	if err == nil && again.Text != genuine.Text {
		t.Errorf("a result blob overwritten by name was served (forged: %v)", strings.Contains(again.Text, "FORGED"))
	}
	orig, _ := f.js.Stream(ctx, n.OriginalsStream())
	rawOrig, err := orig.GetLastMsgForSubject(ctx, n.OriginalSubject(victim.ID))
	if err != nil {
		t.Fatal(err)
	}
	objects, _ := f.js.ObjectStore(ctx, n.OriginalBlobBucket())
	if _, err := objects.PutString(ctx, rawOrig.Header.Get(HeaderBlob), forged); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Original(ctx, victim.ID); err == nil && got != victim.Text {
		t.Errorf("an original blob overwritten by name was served (forged: %v)", strings.Contains(got, "FORGED"))
	}
}

// TestOriginalCannotBeReplacedRaw: a raw publish to a stored original's
// subject, without the client's expected-sequence header, is refused.
func TestOriginalCannotBeReplacedRaw(t *testing.T) {
	cfg := DefaultConfig()
	f := startFleet(t, cfg)
	f.worker(cfg.Segments)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := Names{cfg.Prefix}
	victim := Document{ID: "orig-victim", Text: testDocs(1)[0]}
	genuine, err := c.Compact(ctx, victim)
	if err != nil {
		t.Fatal(err)
	}
	m := nats.NewMsg(n.OriginalSubject(victim.ID))
	env := Envelope{DocID: victim.ID, OrigChars: 8, OrigBytes: 8, OrigRef: n.OriginalSubject(victim.ID)}
	_ = env.Write(m.Header)
	m.Data = []byte("TAMPERED")
	if _, err := f.js.PublishMsg(ctx, m); err == nil {
		t.Error("a raw publish onto a stored original was accepted")
	}
	if got, err := c.Original(ctx, victim.ID); err != nil || got != victim.Text {
		t.Errorf("the original was replaced: err %v", err)
	}
	again, err := c.Replay(ctx, victim.ID, Document{})
	if err != nil || again.Text != genuine.Text {
		t.Errorf("replay after the attempt: err %v", err)
	}
}

// TestPoisonCannotStallTheFleet: 300 messages whose headers make a copy
// of them unpublishable (Nats-Expected-Stream of their own stream), then
// 300 whose Jc-Report is just under the server's payload limit, each into
// the intake and into a later segment; a legitimate document published
// after them still completes in its normal time.
func TestPoisonCannotStallTheFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: hundreds of poison messages; runs without -short")
	}
	const poison, maxPayload = 300, 64 << 10
	for _, kind := range []string{"nats-header", "oversized-report", "no-original"} {
		t.Run(kind, func(t *testing.T) {
			cfg := DefaultConfig()
			if kind != "no-original" {
				cfg.MaxDeliver = 1 // the first failure is final: straight to the dead letter
			}
			srv := secureServer(t, func(o *server.Options) { o.MaxPayload = maxPayload })
			f := fleetOn(t, srv, cfg)
			f.worker(cfg.Segments)
			c := f.client()
			n := Names{cfg.Prefix}
			// Under -race on a loaded box the 600 oversized messages alone
			// take 15-25 s; a stall shows in the delivery count below.
			wait := 20 * time.Second
			if raceEnabled {
				wait = 90 * time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute+wait)
			defer cancel()
			for i := range poison {
				for _, target := range []struct{ subject, stream string }{
					{n.OriginalSubject(fmt.Sprintf("poison-%d", i)), n.OriginalsStream()},
					{n.WorkSubject(stages.KeyLLMSummary), n.WorkStream()},
				} {
					id := fmt.Sprintf("poison-%d", i)
					m := nats.NewMsg(target.subject)
					env := Envelope{DocID: id, OrigChars: 4, OrigBytes: 4, OrigRef: n.OriginalSubject(id)}
					_ = env.Write(m.Header)
					m.Data = []byte("text")
					switch kind {
					case "nats-header":
						m.Header.Set("Nats-Expected-Stream", target.stream)
						m.Header.Del(HeaderAllowLLM) // a bad envelope: permanent at once
					case "no-original":
						// A valid envelope without a nonce, for a document
						// never stored (the intake's copy is one).
						m.Header.Set("Nats-Expected-Stream", target.stream)
						m.Header.Set(HeaderDocID, "ghost-"+id)
					default:
						// 40 bytes short of the limit: no copy of it with a
						// header more (a reason, more reports) fits.
						head := `[{"key":"x","chars_in":1,"chars_out":1,"reason":"`
						pad := maxPayload - 40 - wireSize(m) - len(HeaderReport+": \r\n") - len(head+`"}]`)
						m.Header.Set(HeaderReport, head+strings.Repeat("r", pad)+`"}]`)
					}
					if _, err := f.js.PublishMsgAsync(m); err != nil {
						t.Fatal(err)
					}
				}
			}
			select {
			case <-f.js.PublishAsyncComplete():
			case <-ctx.Done():
				t.Fatal("poison not published")
			}
			start := time.Now()
			dctx, dcancel := context.WithTimeout(ctx, wait)
			defer dcancel()
			res, err := c.Compact(dctx, Document{ID: "legit", Text: testDocs(1)[0]})
			if err != nil || res.Error != "" {
				t.Fatalf("a legitimate document after %d poison messages: err %v, error %q", poison, err, res.Error)
			}
			t.Logf("legitimate document done %s after the poison", time.Since(start).Round(time.Millisecond))
			settle(t, f)
			// Each poison hop was settled on its first delivery: none was
			// retried while holding a max_ack_pending slot.
			cons, err := f.js.Consumer(ctx, n.WorkStream(), n.Consumer(stages.KeyLLMSummary))
			if err != nil {
				t.Fatal(err)
			}
			if got := cons.CachedInfo().Delivered.Consumer; got > poison+1 {
				t.Errorf("the LLM segment made %d deliveries of %d poison hops and one legitimate: poison was retried", got, poison)
			}
		})
	}
}

// wireSize is a message's size as the server counts it against max_payload.
func wireSize(m *nats.Msg) int {
	n := len("NATS/1.0\r\n\r\n") + len(m.Data)
	for k, vs := range m.Header {
		for _, v := range vs {
			n += len(k) + len(": ") + len(v) + len("\r\n")
		}
	}
	return n
}

// fleetOn is startFleet on a given server.
func fleetOn(t *testing.T, srv *server.Server, cfg Config) *fleet {
	t.Helper()
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := njs.New(nc)
	if err := EnsureTopology(context.Background(), js, cfg); err != nil {
		t.Fatal(err)
	}
	pipe, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	return &fleet{t: t, srv: srv, nc: nc, js: js, cfg: cfg, pipe: pipe}
}

// TestOriginalsBecomeAppendOnceOnUpdate: a topology made before originals
// were append-once at the server is updated in place.
func TestOriginalsBecomeAppendOnceOnUpdate(t *testing.T) {
	cfg := DefaultConfig()
	f := startFleet(t, cfg)
	ctx := context.Background()
	n := Names{cfg.Prefix}
	st, err := f.js.Stream(ctx, n.OriginalsStream())
	if err != nil {
		t.Fatal(err)
	}
	old := st.CachedInfo().Config
	old.DiscardNewPerSubject = false
	if _, err := f.js.UpdateStream(ctx, old); err != nil {
		t.Fatal(err)
	}
	if _, err := f.js.Publish(ctx, n.OriginalSubject("before"), []byte("first")); err != nil {
		t.Fatal(err)
	}
	if err := EnsureTopology(ctx, f.js, cfg); err != nil {
		t.Fatal(err)
	}
	st, _ = f.js.Stream(ctx, n.OriginalsStream())
	if !st.CachedInfo().Config.DiscardNewPerSubject {
		t.Fatal("the originals stream was not updated to discard new per subject")
	}
	_, err = f.js.Publish(ctx, n.OriginalSubject("before"), []byte("second"))
	if !isWrongLastSequence(err) {
		t.Errorf("a second original on a subject: err = %v, want the server's refusal", err)
	}
	if raw, err := st.GetLastMsgForSubject(ctx, n.OriginalSubject("before")); err != nil || string(raw.Data) != "first" {
		t.Errorf("the stored original changed: %v", err)
	}
}

// TestRolePermissionsRunTheFleetAndRefuseTheAttacks: a server whose users
// have RolePermissions runs the fleet (setup, one user per segment, a
// publisher), and a publisher's attacks on work subjects, results, blobs
// and originals are refused by the server.
func TestRolePermissionsRunTheFleetAndRefuseTheAttacks(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: a whole fleet under role permissions; runs without -short")
	}
	cfg := DefaultConfig()
	cfg.Tasks = []string{"debate", "session"}
	cfg.InlineMaxBytes = 4096
	perms := RolePermissions(cfg)
	// The server runs the config PermissionsConfig prints.
	dir := t.TempDir()
	for role := range perms {
		_, env := RoleUser(cfg.Prefix, role)
		t.Setenv(env, "pw-"+strings.ReplaceAll(role, " ", "-"))
	}
	conf := fmt.Sprintf("listen: 127.0.0.1:-1\njetstream { store_dir: %q }\n%s", filepath.Join(dir, "js"), PermissionsConfig(cfg))
	path := filepath.Join(dir, "server.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatalf("the printed permissions do not load: %v", err)
	}
	if len(opts.Users) != len(perms) {
		t.Fatalf("%d users loaded, want %d", len(opts.Users), len(perms))
	}
	srv := secureServer(t, func(o *server.Options) {
		o.Users = opts.Users
		o.StoreDir = filepath.Join(dir, "js")
	})
	connect := func(role string) (*nats.Conn, njs.JetStream) {
		t.Helper()
		user, _ := RoleUser(cfg.Prefix, role)
		nc, err := Connect(ConnectOptions{URL: srv.ClientURL(), User: user, Password: "pw-" + strings.ReplaceAll(role, " ", "-"), InboxPrefix: perms[role].Inbox})
		if err != nil {
			t.Fatalf("%s: %v", role, err)
		}
		t.Cleanup(nc.Close)
		js, _ := njs.New(nc)
		return nc, js
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, setup := connect(RoleSetup)
	if err := EnsureTopology(ctx, setup, cfg); err != nil {
		t.Fatalf("setup role: %v", err)
	}
	pipe, _ := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	var segNC *nats.Conn
	var segJS njs.JetStream
	for _, seg := range cfg.Segments {
		nc, js := connect("segment " + string(seg[0]))
		segNC, segJS = nc, js
		// Only the segment that runs llm_summary may open the LLM cache.
		llm := slices.Contains(seg, stages.KeyLLMSummary)
		wait := time.Second // a refused request only times out
		if llm {
			wait = 10 * time.Second
		}
		cctx, ccancel := context.WithTimeout(ctx, wait)
		_, cerr := NewLLMCache(cctx, js, Names{cfg.Prefix}.LLMCacheBucket(), time.Hour, 1)
		ccancel()
		if llm != (cerr == nil) {
			t.Errorf("segment %s opening the LLM cache: %v", seg[0], cerr)
		}
		w, err := NewWorker(ctx, js, cfg, pipe)
		if err != nil {
			t.Fatalf("segment %s: %v", seg[0], err)
		}
		wctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- w.Run(wctx, [][]stages.Key{seg}, 5*time.Second) }()
		t.Cleanup(func() { stop(); <-done })
	}
	// Every task role opens the LLM cache and keeps transcript sessions.
	for _, task := range cfg.Tasks {
		_, js := connect("task " + task)
		if _, err := NewLLMCache(ctx, js, Names{cfg.Prefix}.LLMCacheBucket(), time.Hour, 1); err != nil {
			t.Errorf("task %s opening the LLM cache: %v", task, err)
		}
		store, err := NewSessionStore(ctx, js, SessionStoreConfigFor(cfg))
		if err != nil {
			t.Errorf("task %s opening the session store: %v", task, err)
			continue
		}
		if _, err := store.Append(ctx, "perm-"+task, transcripts.Message{ID: "m1", Role: "user", Text: "hello"}); err != nil {
			t.Errorf("task %s appending to a session: %v", task, err)
		}
		if snap, err := store.Load(ctx, "perm-"+task); err != nil || len(snap.Messages) != 1 {
			t.Errorf("task %s loading its session: %d messages, %v", task, len(snap.Messages), err)
		}
	}
	pnc, pjs := connect(RolePublisher)
	c, err := NewClient(ctx, pjs, cfg)
	if err != nil {
		t.Fatalf("publisher: %v", err)
	}
	defer c.Close()
	small := Document{ID: "perm-small", Text: testDocs(1)[0]}
	large := Document{ID: "perm-large", Text: wordSoup(20 << 10)}

	// A segment's worker serves the micro service; a publisher calls it,
	// a large text both ways through the object stores.
	svcClient, err := NewClient(ctx, segJS, cfg)
	if err != nil {
		t.Fatalf("service client under a segment role: %v", err)
	}
	defer svcClient.Close()
	svc, err := NewService(svcClient, "").Serve(segNC, "1.0.0")
	if err != nil {
		t.Fatalf("service under a segment role: %v", err)
	}
	defer func() { _ = svc.Stop() }()
	sc, err := NewServiceClient(ctx, pnc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	svcLarge := wordSoup(24 << 10)
	srep, err := sc.Compact(ctx, CompactRequest{Text: svcLarge})
	if err != nil {
		t.Fatalf("the service's compact under the permissions: %v", err)
	}
	if got, err := sc.Get(ctx, srep.DocID); err != nil || got != svcLarge {
		t.Fatalf("the service's get under the permissions: %v", err)
	}
	if info, err := pnc.Request("$SRV.INFO."+ServiceName, nil, 5*time.Second); err == nil {
		t.Errorf("a publisher may not discover the service's internals, got %q", info.Data)
	}
	results := map[string]Result{}
	for _, doc := range []Document{small, large} {
		res, err := c.Compact(ctx, doc)
		if err != nil {
			t.Fatalf("compact %s under the publisher role: %v", doc.ID, err)
		}
		results[doc.ID] = res
		if got, err := c.Original(ctx, doc.ID); err != nil || got != doc.Text {
			t.Fatalf("original %s: %v", doc.ID, err)
		}
		again, err := c.Replay(ctx, doc.ID, Document{})
		if err != nil || again.Text != res.Text {
			t.Fatalf("replay %s: %v", doc.ID, err)
		}
	}

	// A replay hop that does not refer to its original is dead-lettered
	// by the first segment, and only the guard writes its result.
	n := Names{cfg.Prefix}
	stored, err := lastOriginal(ctx, n, c.blobs, small.ID)
	if err != nil {
		t.Fatal(err)
	}
	wait, err := c.expect(ctx, small.ID, 99)
	if err != nil {
		t.Fatal(err)
	}
	first := cfg.Segments[0][0]
	broken := nats.NewMsg(n.WorkSubject(first))
	missing := Envelope{DocID: small.ID, OrigChars: 1, OrigBytes: 1, Attempt: 99, Nonce: stored.Header.Get(HeaderNonce),
		Blob: msgID(small.ID, 99, first) + "." + strings.Repeat("0", 32)}
	_ = missing.Write(broken.Header)
	if _, err := pjs.PublishMsg(ctx, broken); err != nil {
		t.Fatal(err)
	}
	res, err := wait(ctx)
	if err != nil || res.Text != small.Text || !strings.Contains(res.Error, "must refer to its stored original") {
		t.Errorf("a dead-lettered replay under the permissions: err %v, error %q, original %v", err, res.Error, res.Text == small.Text)
	}
	results[small.ID] = res // a replay's result replaces the first

	// The attacker holds publisher credentials.
	_, ajs := connect(RolePublisher)
	refused := func(what string, m *nats.Msg) {
		t.Helper()
		actx, acancel := context.WithTimeout(ctx, time.Second)
		defer acancel()
		if _, err := ajs.PublishMsg(actx, m); err == nil {
			t.Errorf("%s: accepted", what)
		}
	}
	for _, k := range ChainKeys()[1:] {
		m := nats.NewMsg(n.WorkSubject(k))
		env := Envelope{DocID: small.ID, OrigChars: 1 << 20, OrigBytes: 1 << 20, Attempt: 7, Pass: "forged", Blob: originalBlobPrefix + large.ID}
		_ = env.Write(m.Header)
		refused("a hop into "+string(k), m)
	}
	forged := nats.NewMsg(n.ResultSubject(small.ID))
	forged.Data = []byte("FORGED")
	refused("a raw result", forged)
	refused("a dead letter", nats.NewMsg(n.DeadSubject("guard")))
	replace := nats.NewMsg(n.OriginalSubject(small.ID))
	replace.Data = []byte("TAMPERED")
	refused("a second original", replace)
	work, err := ajs.ObjectStore(ctx, n.BlobBucket())
	if err != nil {
		t.Fatal(err)
	}
	octx, ocancel := context.WithTimeout(ctx, 2*time.Second)
	if _, err := work.PutString(octx, "anything", "FORGED"); err == nil {
		t.Error("a publisher wrote a work blob")
	}
	ocancel()
	for _, doc := range []Document{small, large} {
		again, err := c.Compact(ctx, doc)
		if err != nil || again.Text != results[doc.ID].Text {
			t.Errorf("%s after the attacks: err %v, changed %v", doc.ID, err, err == nil && again.Text != results[doc.ID].Text)
		}
	}
}

// TestOperatorModeCapsTheDocumentsMode: --mode wins over a document's LLM
// mode, a pipeline configured without the LLM runs none, and a document
// may always ask for no LLM.
func TestOperatorModeCapsTheDocumentsMode(t *testing.T) {
	A, L, H := stages.ModeAlgorithmic, stages.ModeLLM, stages.ModeHybrid
	for _, tc := range []struct {
		configured, operator, doc, want stages.Mode
	}{
		{A, "", L, A}, {A, "", H, A}, {A, "", A, A}, {A, "", "", ""},
		{H, "", L, L}, {H, "", A, A},
		{H, A, L, A}, {H, A, H, A}, {H, A, "", A},
		{A, L, H, L}, {A, H, L, H}, {A, L, A, A},
	} {
		pc := pipeline.DefaultConfig()
		pc.Mode = tc.configured
		pipe, err := pipeline.New(pc, stages.Deps{})
		if err != nil {
			t.Fatal(err)
		}
		w := &Worker{pipe: pipe, mode: tc.operator}
		if got := w.capMode(tc.doc); got != tc.want {
			t.Errorf("configured %q, --mode %q, document %q: ran %q, want %q", tc.configured, tc.operator, tc.doc, got, tc.want)
		}
	}
}
