package jetstream

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/failure"
	"github.com/jetcompact/jetcompact/internal/natstest"
	"github.com/jetcompact/jetcompact/internal/poll"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
)

type fleet struct {
	t    testing.TB
	srv  *server.Server
	nc   *nats.Conn
	js   njs.JetStream
	cfg  Config
	pipe *pipeline.Pipeline
}

func startFleet(t testing.TB, cfg Config) *fleet {
	t.Helper()
	srv := startServer(t)
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := njs.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := EnsureTopology(ctx, js, cfg); err != nil {
		t.Fatal(err)
	}
	pipe, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	return &fleet{t: t, srv: srv, nc: nc, js: js, cfg: cfg, pipe: pipe}
}

// worker starts a worker on its own connection, stopped at test end. Its
// idle pulls are short, as an embedded fleet's, so that it stops at once.
func (f *fleet) worker(segs [][]stages.Key, opts ...WorkerOption) *Worker {
	f.t.Helper()
	opts = append([]WorkerOption{WithPullWait(100 * time.Millisecond)}, opts...)
	nc, err := nats.Connect(f.srv.ClientURL())
	if err != nil {
		f.t.Fatal(err)
	}
	js, _ := njs.New(nc)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := NewWorker(ctx, js, f.cfg, f.pipe, opts...)
	if err != nil {
		f.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, segs, 10*time.Second) }()
	f.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			f.t.Errorf("worker: %v", err)
		}
		nc.Close()
	})
	poll.Require(f.t, 20*time.Second, "worker ready", w.Ready)
	return w
}

func (f *fleet) client() *Client {
	c, err := NewClient(context.Background(), f.js, f.cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(c.Close)
	return c
}

func testDocs(n int) []string {
	docs := make([]string, n)
	for i := range docs {
		var b strings.Builder
		switch i % 4 {
		case 0:
			for j := 0; j < 200; j++ {
				fmt.Fprintf(&b, "2024-05-01 12:00:%02d INFO svc-%d handled request %d in %dms\n", j%60, i, j*31, j%17)
			}
			b.WriteString("2024-05-01 12:01:00 ERROR svc failed: /etc/app.conf missing\n")
		case 1:
			fmt.Fprintf(&b, `{"items":[`)
			for j := 0; j < 100; j++ {
				if j > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, `{"id":%d,"doc":%d,"name":"n%d"}`, j, i, j)
			}
			b.WriteString("]}")
		case 2:
			for j := 0; j < 30; j++ {
				fmt.Fprintf(&b, "Paragraph %d of doc %d.   Some   text with spaces.   \n\n\n", j%3, i)
			}
			b.WriteString("```go\nfmt.Println(  \"kept\"  )\n```\n")
		case 3:
			fmt.Fprintf(&b, "short doc %d", i)
		}
		docs[i] = b.String()
	}
	return docs
}

func (f *fleet) local(text string) string {
	res, err := f.pipe.Run(context.Background(), pipeline.Request{Text: text, AllowLLM: true})
	if err != nil {
		f.t.Fatal(err)
	}
	return res.Text
}

func TestFleetMatchesLocalForEverySegmentation(t *testing.T) {
	docs := testDocs(12)
	for name, segs := range map[string][][]stages.Key{
		"split":   SplitSegments(),
		"fused":   FusedSegments(),
		"default": DefaultSegments(),
	} {
		t.Run(name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Segments = segs
			f := startFleet(t, cfg)
			f.worker(segs)
			c := f.client()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for i, d := range docs {
				res, err := c.Compact(ctx, Document{Text: d, AllowLLM: true})
				if err != nil {
					t.Fatalf("doc %d: %v", i, err)
				}
				if want := f.local(d); res.Text != want {
					t.Fatalf("doc %d differs from local:\n--- fleet\n%s\n--- local\n%s", i, res.Text, want)
				}
				if stages.Chars(d) > 100 && len(res.Report.Nodes) != len(stages.Specs()) {
					t.Errorf("doc %d: report has %d nodes", i, len(res.Report.Nodes))
				}
			}
		})
	}
}

func TestTwoReplicasShareTheLoad(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Segments = FusedSegments()
	f := startFleet(t, cfg)
	var a, b atomic.Int64
	wa := f.worker(cfg.Segments)
	wa.testHookPublish = func(_ string, published bool) {
		if published {
			a.Add(1)
		}
	}
	wb := f.worker(cfg.Segments)
	wb.testHookPublish = func(_ string, published bool) {
		if published {
			b.Add(1)
		}
	}
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	docs := testDocs(200)
	var wg sync.WaitGroup
	errs := make(chan error, len(docs))
	for i, d := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.Compact(ctx, Document{ID: fmt.Sprintf("doc-%d", i), Text: d})
			if err == nil && res.Text != f.local(d) {
				err = fmt.Errorf("doc %d differs from local", i)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// The hook runs after the publish is acknowledged, which can trail the
	// client seeing the result.
	poll.Until(5*time.Second, func() bool { return a.Load()+b.Load() >= int64(len(docs)) })
	if a.Load() == 0 || b.Load() == 0 {
		t.Errorf("load not shared: %d / %d", a.Load(), b.Load())
	}
	if a.Load()+b.Load() != int64(len(docs)) {
		t.Errorf("processed %d, want %d", a.Load()+b.Load(), len(docs))
	}
	assertOneResultEach(t, f, len(docs))
}

func assertOneResultEach(t *testing.T, f *fleet, want int) {
	t.Helper()
	st, err := f.js.Stream(context.Background(), Names{f.cfg.Prefix}.ResultsStream())
	if err != nil {
		t.Fatal(err)
	}
	info, _ := st.Info(context.Background())
	if info.State.Msgs != uint64(want) {
		t.Errorf("results stream holds %d messages, want %d", info.State.Msgs, want)
	}
	if info.State.LastSeq != uint64(want) {
		t.Errorf("results stream received %d publishes, want %d (duplicates)", info.State.LastSeq, want)
	}
}

// TestRedeliveryProducesNoDuplicate: every document's worker "crashes"
// once at each of its three publishes (two hops and the result), half of
// them just before the publish and half just after it, before the ack.
// Nothing is lost (the ack waits for the publish), and the redelivered
// work publishes nothing twice (message ids from document and stage).
func TestRedeliveryProducesNoDuplicate(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: waits out an ack wait; runs without -short")
	}
	cfg := DefaultConfig()
	cfg.AckWait = time.Second
	f := startFleet(t, cfg)
	w := f.worker(cfg.Segments)
	var mu sync.Mutex
	calls := map[string]int{}
	var crashes atomic.Int64
	w.testHookPublish = func(doc string, published bool) {
		crashAfter := strings.HasSuffix(doc, "-after")
		if published != crashAfter {
			return
		}
		mu.Lock()
		calls[doc]++
		first := calls[doc]%2 == 1 // the first try at this publish
		mu.Unlock()
		if first {
			crashes.Add(1)
			panic(errSimulatedCrash)
		}
	}
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	docs := testDocs(4)
	var wg sync.WaitGroup
	errs := make(chan error, len(docs))
	for i, d := range docs {
		side := []string{"before", "after"}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.Compact(ctx, Document{ID: fmt.Sprintf("r-%d-%s", i, side), Text: d})
			if err == nil && res.Text != f.local(d) {
				err = fmt.Errorf("doc %d differs from local", i)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got, want := crashes.Load(), int64(3*len(docs)); got != want {
		t.Fatalf("%d crashes simulated, want %d", got, want)
	}
	// Redeliveries of the crashed hops happen and are deduplicated.
	settle(t, f)
	assertOneResultEach(t, f, len(docs))
	st, err := f.js.Stream(ctx, Names{cfg.Prefix}.WorkStream())
	if err != nil {
		t.Fatal(err)
	}
	hops := uint64(len(cfg.Segments)-1) * uint64(len(docs))
	if info, _ := st.Info(ctx); info.State.LastSeq != hops {
		t.Errorf("work stream received %d publishes, want %d: a redelivered hop was published again", info.State.LastSeq, hops)
	}
}

func TestPoisonMessageGoesToDeadLetters(t *testing.T) {
	cfg := DefaultConfig()
	f := startFleet(t, cfg)
	f.worker(cfg.Segments)
	ctx := context.Background()
	n := Names{cfg.Prefix}
	// No document id: no retry can fix this.
	m := nats.NewMsg(n.WorkSubject(stages.KeyStructured))
	m.Data = []byte("some text")
	m.Header.Set(HeaderKind, "log")
	if _, err := f.js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
	c := f.client()
	var dl []DeadLetter
	poll.Require(t, 10*time.Second, "the poison message in the dead-letter stream", func() bool {
		var err error
		if dl, err = c.DeadLetters(ctx); err != nil {
			t.Fatal(err)
		}
		return len(dl) == 1
	})
	if !strings.Contains(dl[0].Reason, HeaderDocID) || dl[0].Stage == "" {
		t.Errorf("dead letter %+v lacks a clear reason", dl[0])
	}
}

// TestPoisonOriginalComesOutAsItself: an original stored without an
// envelope (a foreign publisher) cannot be compacted. It is dead-lettered
// with the reason, and, having a document id, it still comes out once, as
// itself, marked with the error.
func TestPoisonOriginalComesOutAsItself(t *testing.T) {
	cfg := DefaultConfig()
	f := startFleet(t, cfg)
	f.worker(cfg.Segments)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const id = "no-envelope"
	wait, err := c.expect(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := nats.NewMsg(Names{cfg.Prefix}.OriginalSubject(id))
	m.Header.Set(HeaderDocID, id)
	m.Data = []byte("some text with no envelope")
	if _, err := f.js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
	res, err := wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != string(m.Data) || !strings.Contains(res.Error, HeaderAllowLLM) {
		t.Errorf("want the original with the reason, got %q (error %q)", res.Text, res.Error)
	}
	dl, err := c.DeadLetters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(dl) != 1 || dl[0].DocID != id || !strings.Contains(dl[0].Reason, HeaderAllowLLM) {
		t.Errorf("dead letters: %+v", dl)
	}
}

// TestDocumentsEnterThroughTheIntake: a document is written once on its
// way in. Its stored original is the first segment's input, so the work
// stream of a fused fleet never holds a message, and the intake ends with
// nothing pending.
func TestDocumentsEnterThroughTheIntake(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Segments = FusedSegments()
	f := startFleet(t, cfg)
	f.worker(cfg.Segments)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	docs := testDocs(8)
	for i, d := range docs {
		res, err := c.Compact(ctx, Document{ID: fmt.Sprintf("in-%d", i), Text: d})
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != f.local(d) {
			t.Fatalf("doc %d differs from local", i)
		}
	}
	n := Names{cfg.Prefix}
	for stream, want := range map[string]uint64{n.WorkStream(): 0, n.OriginalsStream(): uint64(len(docs))} {
		st, _ := f.js.Stream(ctx, stream)
		info, _ := st.Info(ctx)
		if info.State.LastSeq != want {
			t.Errorf("%s received %d messages, want %d", stream, info.State.LastSeq, want)
		}
	}
	cons, err := f.js.Consumer(ctx, n.OriginalsStream(), n.IntakeConsumer())
	if err != nil {
		t.Fatal(err)
	}
	// The ack follows the result's publish acknowledgement.
	var ci *njs.ConsumerInfo
	if !poll.Until(5*time.Second, func() bool {
		var err error
		if ci, err = cons.Info(ctx); err != nil {
			t.Fatal(err)
		}
		return ci.NumPending == 0 && ci.NumAckPending == 0 && ci.AckFloor.Stream == uint64(len(docs))
	}) {
		t.Fatalf("intake: %d pending, %d unacknowledged, ack floor %d", ci.NumPending, ci.NumAckPending, ci.AckFloor.Stream)
	}
	assertOneResultEach(t, f, len(docs))
}

// TestBacklogHoldsSubmissionsBack: with fleet.max_backlog documents
// waiting for the first segment, Submit waits instead of piling up more,
// and goes on once workers take the backlog.
func TestBacklogHoldsSubmissionsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a backlog to drain")
	}
	cfg := DefaultConfig()
	cfg.MaxBacklog = 5
	f := startFleet(t, cfg)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	docs := testDocs(cfg.MaxBacklog + 1)
	for i, d := range docs[:cfg.MaxBacklog] {
		if err := c.Submit(ctx, Document{ID: fmt.Sprintf("b-%d", i), Text: d}, 0); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2 * backlogRefresh) // past the client's own count, onto the consumer's
	short, cancelShort := context.WithTimeout(ctx, time.Second)
	err := c.Submit(short, Document{ID: "b-last", Text: docs[cfg.MaxBacklog]}, 0)
	cancelShort()
	if err == nil || !strings.Contains(err.Error(), "max_backlog 5") {
		t.Fatalf("submit past the backlog: want a wait that names max_backlog, got %v", err)
	}
	f.worker(cfg.Segments)
	start := time.Now()
	if err := c.Submit(ctx, Document{ID: "b-last", Text: docs[cfg.MaxBacklog]}, 0); err != nil {
		t.Fatal(err)
	}
	t.Logf("admitted %s after the worker started", time.Since(start).Round(time.Millisecond))
	poll.Require(t, 10*time.Second, "the backlog drained", func() bool {
		st, _ := f.js.Stream(ctx, Names{cfg.Prefix}.ResultsStream())
		info, _ := st.Info(ctx)
		return info != nil && info.State.Msgs == uint64(len(docs))
	})
	assertOneResultEach(t, f, len(docs))
}

// TestPrefixesShareACluster: two prefixes get topologies of their own, and
// a prefix whose stream names another prefix already holds is refused
// without touching that one's streams.
func TestPrefixesShareACluster(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Prefix = "tenant-a"
	f := startFleet(t, cfg)
	ctx := context.Background()
	other := DefaultConfig()
	other.Prefix = "tenant-b"
	if err := EnsureTopology(ctx, f.js, other); err != nil {
		t.Fatalf("a second prefix: %v", err)
	}
	clash := DefaultConfig()
	clash.Prefix = "tenant_a"
	if err := EnsureTopology(ctx, f.js, clash); err == nil || !strings.Contains(err.Error(), "another prefix") {
		t.Errorf("a prefix that maps onto tenant-a's streams: err = %v, want a refusal", err)
	}
	for prefix, stream := range map[string]string{"tenant-a": Names{"tenant-a"}.WorkStream(), "tenant-b": Names{"tenant-b"}.WorkStream()} {
		st, err := f.js.Stream(ctx, stream)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.CachedInfo().Config.Subjects; len(got) != 1 || got[0] != prefix+".work.>" {
			t.Errorf("%s subjects %v, want %s.work.>", stream, got, prefix)
		}
	}
}

func TestTopologyIsIdempotentAndUpdatable(t *testing.T) {
	cfg := DefaultConfig()
	f := startFleet(t, cfg)
	ctx := context.Background()
	n := Names{cfg.Prefix}
	before, _ := f.js.Stream(ctx, n.WorkStream())
	bi, _ := before.Info(ctx)
	if err := EnsureTopology(ctx, f.js, cfg); err != nil {
		t.Fatal(err)
	}
	after, _ := f.js.Stream(ctx, n.WorkStream())
	ai, _ := after.Info(ctx)
	if bi.Created != ai.Created || bi.Config.MaxAge != ai.Config.MaxAge {
		t.Error("second EnsureTopology changed the stream")
	}
	cfg.MaxAge = 2 * time.Hour
	cfg.MaxAckPending = 99
	if err := EnsureTopology(ctx, f.js, cfg); err != nil {
		t.Fatal(err)
	}
	updated, _ := f.js.Stream(ctx, n.WorkStream())
	ui, _ := updated.Info(ctx)
	if ui.Config.MaxAge != 2*time.Hour {
		t.Errorf("max age not updated: %s", ui.Config.MaxAge)
	}
	for stream, name := range map[string]string{n.WorkStream(): n.Consumer(stages.KeyStructured), n.OriginalsStream(): n.IntakeConsumer()} {
		cons, err := f.js.Consumer(ctx, stream, name)
		if err != nil {
			t.Fatal(err)
		}
		if ci := cons.CachedInfo(); ci.Config.MaxAckPending != 99 {
			t.Errorf("%s: max ack pending not updated: %d", name, ci.Config.MaxAckPending)
		}
	}
}

// TestChangedSegmentationStrandsNoWork: a config whose segmentation no
// longer names a consumer that still holds work is refused with that
// consumer's name, and accepted once it is empty.
func TestChangedSegmentationStrandsNoWork(t *testing.T) {
	split := DefaultConfig()
	split.Segments = SplitSegments()
	f := startFleet(t, split)
	ctx := context.Background()
	n := Names{split.Prefix}
	st, err := f.js.Stream(ctx, n.WorkStream())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.js.Publish(ctx, n.WorkSubject(stages.KeyDedup), []byte("stranded")); err != nil {
		t.Fatal(err)
	}
	fused := split
	fused.Segments = DefaultSegments()
	err = EnsureTopology(ctx, f.js, fused)
	if err == nil || !strings.Contains(err.Error(), n.Consumer(stages.KeyDedup)+" (1 messages)") {
		t.Fatalf("a consumer with work left: err = %v, want it named", err)
	}
	if _, err := st.Consumer(ctx, n.Consumer(stages.KeyDedup)); err != nil {
		t.Errorf("the consumer holding work went away: %v", err)
	}
	if err := st.Purge(ctx, njs.WithPurgeSubject(n.WorkSubject(stages.KeyDedup))); err != nil {
		t.Fatal(err)
	}
	if err := EnsureTopology(ctx, f.js, fused); err != nil {
		t.Fatalf("once drained: %v", err)
	}
}

// TestIntakeStartsWhereNothingIsSkipped: the intake made with the
// originals stream starts at its first message. One added to a stream that
// already holds originals (a topology from before the intake) starts one
// duplicate window back instead of running every retained original again;
// running the topology again keeps that start.
func TestIntakeStartsWhereNothingIsSkipped(t *testing.T) {
	cfg := DefaultConfig()
	f := startFleet(t, cfg)
	ctx := context.Background()
	n := Names{cfg.Prefix}
	cons, err := f.js.Consumer(ctx, n.OriginalsStream(), n.IntakeConsumer())
	if err != nil {
		t.Fatal(err)
	}
	if p := cons.CachedInfo().Config.DeliverPolicy; p != njs.DeliverAllPolicy {
		t.Errorf("new intake delivers %v, want all", p)
	}
	if err := f.js.DeleteConsumer(ctx, n.OriginalsStream(), n.IntakeConsumer()); err != nil {
		t.Fatal(err)
	}
	m := nats.NewMsg(n.OriginalSubject("old"))
	m.Header.Set(HeaderDocID, "old")
	if _, err := f.js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	if err := EnsureTopology(ctx, f.js, cfg); err != nil {
		t.Fatal(err)
	}
	cons, err = f.js.Consumer(ctx, n.OriginalsStream(), n.IntakeConsumer())
	if err != nil {
		t.Fatal(err)
	}
	first := cons.CachedInfo()
	start := first.Config.OptStartTime
	if first.Config.DeliverPolicy != njs.DeliverByStartTimePolicy || start == nil ||
		start.After(before.Add(-cfg.DuplicateWindow+time.Second)) || start.Before(before.Add(-cfg.DuplicateWindow-time.Minute)) {
		t.Fatalf("intake on a stream with originals: policy %v, start %v; want one duplicate window (%s) back", first.Config.DeliverPolicy, start, cfg.DuplicateWindow)
	}
	if err := EnsureTopology(ctx, f.js, cfg); err != nil {
		t.Fatal(err)
	}
	cons, _ = f.js.Consumer(ctx, n.OriginalsStream(), n.IntakeConsumer())
	if again := cons.CachedInfo(); !again.Created.Equal(first.Created) || !again.Config.OptStartTime.Equal(*start) {
		t.Error("running the topology again changed the intake")
	}
}

func TestOriginalsGetAndReplay(t *testing.T) {
	cfg := DefaultConfig()
	cfg.InlineMaxBytes = 4096
	f := startFleet(t, cfg)
	f.worker(cfg.Segments)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	small := testDocs(1)[0]
	large := strings.Repeat(small, 10) // moves by reference through the object store
	for _, text := range []string{small, large} {
		res, err := c.Compact(ctx, Document{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != f.local(text) {
			t.Fatal("result differs from local")
		}
		orig, err := c.Original(ctx, res.DocID)
		if err != nil || orig != text {
			t.Fatalf("original not retrievable unchanged: %v", err)
		}
		again, err := c.Replay(ctx, res.DocID, Document{})
		if err != nil {
			t.Fatal(err)
		}
		if again.Text != res.Text {
			t.Error("replay gave a different result under the same config")
		}
		if orig2, _ := c.Original(ctx, res.DocID); orig2 != text {
			t.Error("replay modified the original")
		}
	}
}

// overlapNode records how many documents are inside its Apply at once.
type overlapNode struct {
	stages.Node
	now, peak *atomic.Int64
}

func (o overlapNode) Apply(ctx context.Context, in stages.Input) (stages.Outcome, error) {
	n := o.now.Add(1)
	defer o.now.Add(-1)
	for p := o.peak.Load(); n > p && !o.peak.CompareAndSwap(p, n); p = o.peak.Load() {
	}
	time.Sleep(100 * time.Millisecond) // long enough for the others to arrive
	return o.Node.Apply(ctx, in)
}

// TestInflightBytesBoundLargeDocuments: documents whose sizes add up past
// max_inflight_bytes wait for each other; small ones still run together.
func TestInflightBytesBoundLargeDocuments(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Segments = FusedSegments()
	cfg.Concurrency = 4
	cfg.MaxInflightBytes = 1 << 20
	f := startFleet(t, cfg)
	var now, peak atomic.Int64
	pipe, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{}, pipeline.WithDecorator(func(n stages.Node) stages.Node {
		if n.Key() == stages.KeyStructured {
			return overlapNode{n, &now, &peak}
		}
		return n
	}))
	if err != nil {
		t.Fatal(err)
	}
	f.pipe = pipe
	f.worker(cfg.Segments)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name     string
		size     int
		wantPeak func(int64) bool
	}{
		{"600 KB each", 600 << 10, func(p int64) bool { return p == 1 }},
		{"100 KB each", 100 << 10, func(p int64) bool { return p > 1 }},
	} {
		peak.Store(0)
		var wg sync.WaitGroup
		for i := range 4 {
			text := strings.Repeat(testDocs(4)[i%4], tc.size/len(testDocs(4)[i%4])+1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Compact(ctx, Document{Text: text, Salt: tc.name}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if !tc.wantPeak(peak.Load()) {
			t.Errorf("%s: %d documents in process at once", tc.name, peak.Load())
		}
	}
}

// slowNode holds a document for a while, and says when it has one.
type slowNode struct {
	stages.Node
	entered chan struct{}
}

func (s slowNode) Apply(ctx context.Context, in stages.Input) (stages.Outcome, error) {
	select {
	case s.entered <- struct{}{}:
	default:
	}
	time.Sleep(time.Second)
	return s.Node.Apply(ctx, in)
}

// TestShutdownDrainsInflightWork: a worker told to stop while it holds a
// document finishes it, publishes its result and acks it before Run
// returns; nothing is left for redelivery.
func TestShutdownDrainsInflightWork(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Segments = FusedSegments()
	f := startFleet(t, cfg)
	entered := make(chan struct{}, 1)
	pipe, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{}, pipeline.WithDecorator(func(n stages.Node) stages.Node {
		if n.Key() == stages.KeyStructured {
			return slowNode{n, entered}
		}
		return n
	}))
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWorker(context.Background(), f.js, cfg, pipe, WithPullWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx, cfg.Segments, 10*time.Second) }()
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	text := testDocs(1)[0]
	results := make(chan error, 1)
	go func() {
		res, err := c.Compact(ctx, Document{ID: "drained", Text: text})
		if err == nil && res.Text != f.local(text) {
			err = errors.New("result differs from local")
		}
		results <- err
	}()
	<-entered
	stop() // SIGTERM: stop pulling, finish what is held
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	// Checked the moment Run returns: the drain finished the work first.
	st, err := f.js.Stream(ctx, Names{cfg.Prefix}.ResultsStream())
	if err != nil {
		t.Fatal(err)
	}
	if si, err := st.Info(ctx); err != nil || si.State.Msgs != 1 {
		t.Errorf("results when Run returned: %+v (%v), want the held document's", si.State, err)
	}
	cons, err := f.js.Consumer(ctx, Names{cfg.Prefix}.OriginalsStream(), Names{cfg.Prefix}.IntakeConsumer())
	if err != nil {
		t.Fatal(err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.NumAckPending != 0 || info.NumPending != 0 || info.NumRedelivered != 0 {
		t.Errorf("after the drain: %d unacknowledged, %d pending, %d redelivered; want none", info.NumAckPending, info.NumPending, info.NumRedelivered)
	}
	if err := <-results; err != nil {
		t.Fatal(err)
	}
}

// TestReplayKeepsHowTheDocumentWasPublished: a replay runs the original
// as its publisher sent it (kind, mode), unless the caller overrides, and
// never allows the LLM where the publisher did not.
func TestReplayKeepsHowTheDocumentWasPublished(t *testing.T) {
	cfg := DefaultConfig()
	f := startFleet(t, cfg)
	f.worker(cfg.Segments)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	text := testDocs(1)[0]
	if stages.Detect(text) == stages.KindProse {
		t.Fatal("the test document must not read as prose")
	}
	first, err := c.Compact(ctx, Document{ID: "as-prose", Text: text, Kind: stages.KindProse, Mode: stages.ModeAlgorithmic})
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Replay(ctx, "as-prose", Document{AllowLLM: true})
	if err != nil {
		t.Fatal(err)
	}
	if again.Report.Kind != stages.KindProse || again.Report.Mode != stages.ModeAlgorithmic || again.Text != first.Text {
		t.Errorf("replay ran as %s/%s (same text %v), want prose/algorithmic as published", again.Report.Kind, again.Report.Mode, again.Text == first.Text)
	}
	override, err := c.Replay(ctx, "as-prose", Document{Kind: stages.Detect(text)})
	if err != nil {
		t.Fatal(err)
	}
	if override.Report.Kind != stages.Detect(text) {
		t.Errorf("replay with a kind given ran as %s", override.Report.Kind)
	}

	// The budget too: kept as published, or the one given.
	budgeted, err := c.Compact(ctx, Document{ID: "budgeted", Text: serviceNotes(200), Kind: stages.KindProse, BudgetTokens: 300})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ given, want int }{{0, 300}, {120, 120}} {
		res, err := c.Replay(ctx, "budgeted", Document{BudgetTokens: tc.given})
		if err != nil {
			t.Fatal(err)
		}
		if res.Report.Budget == nil || res.Report.Budget.Tokens != tc.want || stages.EstimateTokens(res.Text) > tc.want {
			t.Errorf("replay with budget %d: report %+v, %d tokens; want a budget of %d", tc.given, res.Report.Budget, stages.EstimateTokens(res.Text), tc.want)
		}
		if tc.given == 0 && res.Text != budgeted.Text {
			t.Error("a replay without a budget differs from the budgeted original run")
		}
	}
}

// TestAnOriginalIsNeverReplaced: a document id that holds an original
// refuses a different text, inside the duplicate window and after it,
// inline and through the object store; the same text is a republish.
func TestAnOriginalIsNeverReplaced(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: waits out the duplicate window; runs without -short")
	}
	cfg := DefaultConfig()
	cfg.InlineMaxBytes = 64 << 10
	cfg.DuplicateWindow = time.Second
	f := startFleet(t, cfg)
	f.worker(cfg.Segments)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	docs := testDocs(2)
	for _, size := range []struct {
		name         string
		first, other string
	}{
		{"inline", docs[0], docs[1]},
		{"object", strings.Repeat(docs[0], 8), strings.Repeat(docs[1], 8)},
	} {
		for _, window := range []string{"inside", "after"} {
			id := size.name + "-" + window
			first, err := c.Compact(ctx, Document{ID: id, Text: size.first})
			if err != nil {
				t.Fatal(err)
			}
			if window == "after" {
				time.Sleep(cfg.DuplicateWindow + 500*time.Millisecond)
			}
			_, err = c.Compact(ctx, Document{ID: id, Text: size.other})
			if err == nil || !strings.Contains(err.Error(), "different original") {
				t.Errorf("%s: a different text under a used id: err = %v, want a refusal", id, err)
			}
			if orig, err := c.Original(ctx, id); err != nil || orig != size.first {
				t.Errorf("%s: the stored original changed (err %v)", id, err)
			}
			again, err := c.Compact(ctx, Document{ID: id, Text: size.first})
			if err != nil || again.Text != first.Text {
				t.Errorf("%s: republishing the same text: err %v, same result %v", id, err, err == nil && again.Text == first.Text)
			}
		}
	}
	objects, err := f.js.ObjectStore(ctx, Names{cfg.Prefix}.OriginalBlobBucket())
	if err != nil {
		t.Fatal(err)
	}
	list, err := objects.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Errorf("%d objects for the two large originals, want 2 (a refused text is not kept)", len(list))
	}
}

func TestSelectSegments(t *testing.T) {
	split := SplitSegments()
	for want, n := range map[string]int{"all": len(split), "structured,dedup": 2, "dedup, structured": 2, "guard": 1, "llm_summary,guard,headtail": 3} {
		got, err := SelectSegments(split, want)
		if err != nil || len(got) != n {
			t.Errorf("split, --segment %q: %d segments, %v; want %d", want, len(got), err, n)
		}
	}
	fused := DefaultSegments()
	if got, err := SelectSegments(fused, joinKeys(fused[0])+",guard"); err != nil || len(got) != 2 {
		t.Errorf("fused, first segment and guard: %v, %v", got, err)
	}
	for _, bad := range []string{"structured,dedup", "structured,nope", "nope"} {
		if _, err := SelectSegments(fused, bad); err == nil || !strings.Contains(err.Error(), "not a configured segment") {
			t.Errorf("fused, --segment %q: err = %v, want a refusal", bad, err)
		}
	}
}

func TestSegmentValidation(t *testing.T) {
	bad := [][][]stages.Key{
		{{stages.KeyDedup, stages.KeyStructured}},
		{{stages.KeyStructured}, {stages.KeyWhitespace}},
		{SplitSegments()[0]},
		append(FusedSegments(), []stages.Key{stages.KeyGuard}),
	}
	for _, segs := range bad {
		if err := ValidateSegments(segs); err == nil {
			t.Errorf("accepted %v", segs)
		}
	}
	for _, segs := range [][][]stages.Key{SplitSegments(), FusedSegments(), DefaultSegments()} {
		if err := ValidateSegments(segs); err != nil {
			t.Errorf("rejected %v: %v", segs, err)
		}
	}
}

// startServer runs a nats-server with JetStream on a free loopback port.
func startServer(t testing.TB) *server.Server { return natstest.Start(t, nil) }

func TestTasksRunOnTheFleet(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Tasks = []string{"upper"}
	f := startFleet(t, cfg)
	f.worker(cfg.Segments, WithTasks(map[string]TaskFunc{
		"upper": func(_ context.Context, req TaskRequest) ([]byte, []pipeline.NodeReport, error) {
			if strings.HasPrefix(string(req.Body), "bad") {
				return nil, nil, fmt.Errorf("%w: input starts with bad", failure.ErrPermanent)
			}
			out := strings.ToUpper(string(req.Body))
			return []byte(out), []pipeline.NodeReport{{Key: "upper", CharsIn: len(req.Body), CharsOut: len(out)}}, nil
		},
	}))
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.RunTask(ctx, "upper", Document{Text: "hello fleet"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "HELLO FLEET" || len(res.Report.Nodes) != 1 || res.Report.Nodes[0].Key != "upper" {
		t.Errorf("task result %q, report %+v", res.Text, res.Report.Nodes)
	}
	bad, err := c.RunTask(ctx, "upper", Document{Text: "bad input"})
	if err != nil {
		t.Fatal(err)
	}
	if bad.Text != "bad input" || !strings.Contains(bad.Error, "starts with bad") {
		t.Errorf("permanent task error: text %q, error %q", bad.Text, bad.Error)
	}
	dl, _ := c.DeadLetters(ctx)
	if len(dl) != 1 || dl[0].Stage != "task upper" {
		t.Errorf("dead letters: %+v", dl)
	}
	if _, err := c.RunTask(ctx, "nope", Document{Text: "x"}); err == nil {
		t.Error("unknown task accepted")
	}
}

// TestFleetBudgetMatchesLocal: a document's token budget travels in its
// envelope and is applied by the guard's segment, so split and fused
// fleets give byte for byte what the in-process pipeline gives.
func TestFleetBudgetMatchesLocal(t *testing.T) {
	docs := testDocs(8)
	// Twelve templates and their summaries: more than the budgets hold, so
	// whole lines fold, not only the summaries of what varied.
	events := []string{"cache warmed", "lease renewed", "snapshot taken", "peer joined", "index flushed", "queue drained",
		"token refreshed", "shard moved", "backup verified", "config reloaded", "socket opened", "timer fired"}
	for i := range 3 { // long enough that a budget folds lines of every class
		var b strings.Builder
		for j := range 400 {
			fmt.Fprintf(&b, "2024-05-01 12:%02d:%02d INFO worker-%d %s for step %d of job %d took %dms\n", j/60%60, j%60, j%7, events[(j+i)%len(events)], j, i, j*13%97)
			if j%53 == 0 {
				fmt.Fprintf(&b, "2024-05-01 12:%02d:%02d ERROR worker-%d job %d failed: exit status %d\n", j/60%60, j%60, j%7, i, j%5+1)
			}
		}
		docs = append(docs, b.String())
	}
	outs := map[string][]string{}
	for name, segs := range map[string][][]stages.Key{"split": SplitSegments(), "fused": FusedSegments()} {
		cfg := DefaultConfig()
		cfg.Segments = segs
		f := startFleet(t, cfg)
		f.worker(segs)
		c := f.client()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		for _, budget := range []int{40, 200} {
			for i, d := range docs {
				res, err := c.Compact(ctx, Document{Text: d, AllowLLM: true, BudgetTokens: budget, Salt: strconv.Itoa(budget)})
				if err != nil {
					t.Fatalf("%s, budget %d, doc %d: %v", name, budget, i, err)
				}
				local, err := f.pipe.Run(ctx, pipeline.Request{Text: d, AllowLLM: true, BudgetTokens: budget})
				if err != nil {
					t.Fatal(err)
				}
				if res.Text != local.Text {
					t.Fatalf("%s, budget %d, doc %d differs from local:\n--- fleet\n%s\n--- local\n%s", name, budget, i, res.Text, local.Text)
				}
				if local.Report.Budget == nil || res.Report.Budget == nil || !reflect.DeepEqual(*res.Report.Budget, *local.Report.Budget) {
					t.Errorf("%s, budget %d, doc %d: budget report %+v, local %+v", name, budget, i, res.Report.Budget, local.Report.Budget)
				}
				if tokens := stages.EstimateTokens(res.Text); tokens > budget && strings.Count(res.Text, "\n") > 1 {
					t.Errorf("%s, budget %d, doc %d: %d tokens", name, budget, i, tokens)
				}
				outs[name] = append(outs[name], res.Text)
			}
		}
	}
	if !reflect.DeepEqual(outs["split"], outs["fused"]) {
		t.Error("split and fused fleets differ under a budget")
	}
	folded := 0
	for _, o := range outs["fused"] {
		if strings.Contains(o, "lines folded]") {
			folded++
		}
	}
	if folded == 0 {
		t.Error("no budget folded anything: the test proves nothing")
	}
}
