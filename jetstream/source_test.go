package jetstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/internal/poll"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/telemetry"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
)

// sourceBench is a fleet with a user's LOGS stream on logs.> and an OUT
// stream capturing the source's results.
type sourceBench struct {
	f       *fleet
	logs    njs.Stream
	out     njs.Stream
	events  map[uint64]string // stream sequence → service
	planted map[string]string // planted error message → service
	// tag ends each plain line, so events can differ from an earlier
	// round's at the same sequences.
	tag string
	// outFloor: results are read from OUT after this sequence.
	outFloor uint64
}

func newSourceBench(t *testing.T) *sourceBench {
	t.Helper()
	f := startFleet(t, DefaultConfig())
	f.worker(FusedSegments())
	ctx := context.Background()
	logs, err := f.js.CreateStream(ctx, njs.StreamConfig{Name: "LOGS", Subjects: []string{"logs.>"}, Storage: njs.FileStorage})
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.js.CreateStream(ctx, njs.StreamConfig{Name: "OUT", Subjects: []string{"jc.compacted.>"}, Duplicates: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return &sourceBench{f: f, logs: logs, out: out, events: map[uint64]string{}, planted: map[string]string{}}
}

// publish sends n events from three services, JSON lines and plain lines
// mixed, with five planted errors, and records each event's sequence.
func (b *sourceBench) publish(t *testing.T, n int) {
	t.Helper()
	services := []string{"api", "db", "web"}
	r := rand.New(rand.NewPCG(7, 11))
	plantAt := map[int]bool{n / 7: true, n / 3: true, n / 2: true, 2 * n / 3: true, n - 5: true}
	var futures []njs.PubAckFuture
	var svcOf []string
	settle := func() {
		for i, fut := range futures {
			select {
			case ack := <-fut.Ok():
				b.events[ack.Sequence] = svcOf[i]
			case err := <-fut.Err():
				t.Fatal(err)
			case <-time.After(30 * time.Second):
				t.Fatal("publish ack timed out")
			}
		}
		futures, svcOf = futures[:0], svcOf[:0]
	}
	for i := range n {
		if len(futures) == 1000 {
			settle()
		}
		svc := services[r.IntN(len(services))]
		var line string
		switch {
		case plantAt[i]:
			msg := fmt.Sprintf("ERROR %s: %s", svc, plantedErrors[len(b.planted)])
			line = fmt.Sprintf("2025-03-01T10:%02d:%02dZ %s%s", i/60%60, i%60, msg, b.tag)
			b.planted[msg] = svc // the message, whatever happens to the time
		case svc == "api":
			line = fmt.Sprintf(`{"time":"2025-03-01T10:%02d:%02dZ","level":"info","msg":"request served","path":"/v1/items/%d","status":200,"ms":%d}`, i/60%60, i%60, r.IntN(900), r.IntN(80))
		default:
			line = fmt.Sprintf("2025-03-01T10:%02d:%02dZ INFO %s heartbeat seq=%d load=%d%s", i/60%60, i%60, svc, i, r.IntN(100), b.tag)
		}
		fut, err := b.f.js.PublishAsync("logs."+svc, []byte(line+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		futures = append(futures, fut)
		svcOf = append(svcOf, svc)
	}
	settle()
}

// plantedErrors are five failures of different shapes.
var plantedErrors = []string{
	"disk quota exceeded on volume vol-7",
	"replica set lost quorum; writes refused",
	"TLS handshake with upstream billing failed: certificate expired",
	"panic: runtime error: index out of range [3] with length 3",
	"OutOfMemoryError while rendering report 42",
}

type outWindow struct {
	key         string
	first, last uint64
	docID       string
	text        string
}

// results reads every message of OUT.
func (b *sourceBench) results(t *testing.T) []outWindow {
	t.Helper()
	ctx := context.Background()
	info, err := b.out.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []outWindow
	for seq := max(info.State.FirstSeq, b.outFloor+1); seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := b.out.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		first, _ := strconv.ParseUint(m.Header.Get(HeaderFirstSeq), 10, 64)
		last, _ := strconv.ParseUint(m.Header.Get(HeaderLastSeq), 10, 64)
		out = append(out, outWindow{key: m.Header.Get(HeaderKey), first: first, last: last, docID: m.Header.Get(HeaderDocID), text: string(m.Data)})
	}
	return out
}

// covered waits until every event is in a result, then checks that each
// is in exactly one window of its key and that no window came out twice.
func (b *sourceBench) covered(t *testing.T, within time.Duration) []outWindow {
	t.Helper()
	var ws []outWindow
	missing := 0
	// Every 100 ms: each check reads every window out of the stream.
	if !poll.Every(100*time.Millisecond, within, func() bool {
		ws = b.results(t)
		missing = b.uncovered(t, ws)
		return missing == 0
	}) {
		t.Fatalf("%d of %d events in no window after %s (%d windows out)", missing, len(b.events), within, len(ws))
	}
	ids := map[string]bool{}
	for _, w := range ws {
		if ids[w.docID] {
			t.Fatalf("window %s came out twice", w.docID)
		}
		ids[w.docID] = true
	}
	return ws
}

// uncovered counts the events in no window of their key, and fails t on
// an event in two.
func (b *sourceBench) uncovered(t *testing.T, ws []outWindow) int {
	t.Helper()
	missing := 0
	for seq, svc := range b.events {
		n := 0
		for _, w := range ws {
			if w.key == svc && w.first <= seq && seq <= w.last {
				n++
			}
		}
		if n > 1 {
			for _, w := range ws {
				if w.key == svc && w.first <= seq && seq <= w.last {
					t.Logf("window %s %s [%d..%d]", w.docID, w.key, w.first, w.last)
				}
			}
			t.Fatalf("event %d (%s) is in %d windows", seq, svc, n)
		}
		if n == 0 {
			missing++
		}
	}
	return missing
}

func (b *sourceBench) checkContent(t *testing.T, ws []outWindow) {
	t.Helper()
	for line, svc := range b.planted {
		found := false
		for _, w := range ws {
			if w.key == svc && strings.Contains(w.text, line) {
				found = true
			}
		}
		if !found {
			t.Errorf("planted error of %s lost: %q", svc, line)
		}
	}
	client := b.f.client()
	refs := 0
	for i, w := range ws {
		refs += len(windowRef.FindAllString(w.text, -1))
		if i%3 != 0 { // a third of the windows is plenty
			continue
		}
		orig, err := client.Original(context.Background(), w.docID)
		if err != nil {
			t.Fatalf("original of window %s: %v", w.docID, err)
		}
		if want := pipeline.AddRefs(orig, b.f.local(orig), w.docID); want != w.text {
			t.Errorf("window %s: result differs from the pipeline run on its original, refs added", w.docID)
		}
		checkWindowRefs(t, w, orig)
	}
	if refs == 0 {
		t.Error("no window result carries a reference")
	}
}

var windowRef = regexp.MustCompile(` · ref (src-[0-9a-f]+):L(\d+)-(\d+)\]`)

// checkWindowRefs: every reference in a window's result names the window
// and resolves, as publisher get does, to lines of its original.
func checkWindowRefs(t *testing.T, w outWindow, orig string) {
	t.Helper()
	for _, m := range windowRef.FindAllStringSubmatch(w.text, -1) {
		if m[1] != w.docID {
			t.Errorf("window %s: a reference names %s", w.docID, m[1])
		}
		ref, err := pipeline.ParseRef(m[0][len(" · ref ") : len(m[0])-1])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pipeline.Lines(orig, ref.From, ref.To); err != nil {
			t.Errorf("window %s: %s does not resolve: %v", w.docID, m[0], err)
		}
	}
}

func testSource() SourceConfig {
	return SourceConfig{Name: "app", Stream: "LOGS", Subjects: []string{"logs.>"}, Key: "subject:1",
		Window: WindowConfig{MaxBytes: 64 << 10, MaxAge: 400 * time.Millisecond}}
}

// runSource starts a runner on its own connection; stop ends it as a
// crash would: the connection goes first, so nothing is acked on the way out.
func runSource(t *testing.T, b *sourceBench, src SourceConfig, opts ...SourceOption) (stop func(crash bool)) {
	t.Helper()
	return runSourceWith(t, b, src, nil, opts...)
}

// runSourceWith is runSource with prepare called on the runner before it
// runs.
func runSourceWith(t *testing.T, b *sourceBench, src SourceConfig, prepare func(*SourceRunner), opts ...SourceOption) (stop func(crash bool)) {
	t.Helper()
	nc, err := nats.Connect(b.f.srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	js, _ := njs.New(nc)
	client, err := NewClient(context.Background(), js, b.f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewSourceRunner(context.Background(), js, client, src, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := r.Run(ctx); err != nil {
			t.Errorf("source: %v", err)
		}
	}()
	var once sync.Once
	stop = func(crash bool) {
		once.Do(func() {
			if crash {
				nc.Close()
			}
			cancel()
			wg.Wait()
			client.Close()
			nc.Close()
		})
	}
	t.Cleanup(func() { stop(false) })
	return stop
}

// TestSourceWindowsCoverEveryEventOnce: 30,000 raw events of three
// services become windows whose sequence ranges cover each event once per
// key; planted errors survive; a window's result is the pipeline's result
// on its stored original; the user's stream is left as it was.
func TestSourceWindowsCoverEveryEventOnce(t *testing.T) {
	n := 30000
	if testing.Short() || raceEnabled {
		n = 6000
	}
	b := newSourceBench(t)
	b.publish(t, n)
	before, err := b.logs.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runSource(t, b, testSource())
	ws := b.covered(t, 2*time.Minute)
	b.checkContent(t, ws)
	after, err := b.logs.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	bs, as := before.State, after.State
	if !reflect.DeepEqual(before.Config, after.Config) || bs.Msgs != as.Msgs || bs.Bytes != as.Bytes || bs.FirstSeq != as.FirstSeq || bs.LastSeq != as.LastSeq {
		t.Errorf("the user's stream changed: %+v → %+v", before.State, after.State)
	}
}

// nextRound starts a round of events checked apart from those before:
// results are read from after OUT's last message, and the events published
// next end with tag.
func (b *sourceBench) nextRound(t *testing.T, tag string) {
	t.Helper()
	out, err := b.out.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b.outFloor = out.State.LastSeq
	b.events, b.planted, b.tag = map[uint64]string{}, map[string]string{}, tag
}

// TestSourceFollowsAStreamMadeAgain: the user's stream is deleted and made
// again under its name, so its sequences start at 1 again, once with the
// runner running through it and once with the runner restarted after it.
// Every new event comes out in exactly one window, under a document id the
// first stream's windows did not have: the first stream's records neither
// collide with the new windows nor take their events.
func TestSourceFollowsAStreamMadeAgain(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(map[bool]string{false: "running", true: "restarted"}[restart], func(t *testing.T) {
			ctx := context.Background()
			b := newSourceBench(t)
			b.publish(t, 3000)
			stop := runSource(t, b, testSource())
			first := b.covered(t, time.Minute)
			if restart {
				stop(false)
			}
			cfg := b.logs.CachedInfo().Config
			if err := b.f.js.DeleteStream(ctx, cfg.Name); err != nil {
				t.Fatal(err)
			}
			var err error
			if b.logs, err = b.f.js.CreateStream(ctx, cfg); err != nil {
				t.Fatal(err)
			}
			b.nextRound(t, " life=2")
			b.publish(t, 3000)
			if restart {
				runSource(t, b, testSource())
			}
			second := b.covered(t, time.Minute)
			b.checkContent(t, second)
			firstIDs := map[string]bool{}
			for _, w := range first {
				firstIDs[w.docID] = true
			}
			for _, w := range second {
				if firstIDs[w.docID] {
					t.Errorf("window %s [%d..%d] of the new stream has a first-stream id", w.docID, w.first, w.last)
				}
			}
		})
	}
}

// TestSourceLosesNothingWhenItsConsumerIsDeleted: with only the source's
// consumer deleted under a running runner, the runner attaches again and
// every event published afterwards still comes out in exactly one window.
func TestSourceLosesNothingWhenItsConsumerIsDeleted(t *testing.T) {
	ctx := context.Background()
	b := newSourceBench(t)
	b.publish(t, 3000)
	runSource(t, b, testSource())
	b.covered(t, time.Minute)
	if err := b.logs.DeleteConsumer(ctx, b.f.client().names.SourceConsumer("app")); err != nil {
		t.Fatal(err)
	}
	b.nextRound(t, " after=delete")
	b.publish(t, 3000)
	b.checkContent(t, b.covered(t, time.Minute))
}

// TestSourceSurvivesCrashes: the runner is cut off twice mid-run, as by a
// SIGKILL; every event is still in exactly one window and no result comes
// out twice.
func TestSourceSurvivesCrashes(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: waits out a source's ack wait after crashes; runs without -short")
	}
	defer func(ack, drain time.Duration) { sourceAckWait, sourceDrain = ack, drain }(sourceAckWait, sourceDrain)
	sourceAckWait, sourceDrain = 2*time.Second, 500*time.Millisecond
	n := 30000 // the first test's run
	if raceEnabled {
		n = 8000
	}
	b := newSourceBench(t)
	b.publish(t, n)
	src := testSource()
	src.Window.MaxBytes = 16 << 10
	for range 2 {
		stop := runSource(t, b, src)
		time.Sleep(300 * time.Millisecond)
		stop(true)
	}
	runSource(t, b, src)
	ws := b.covered(t, 2*time.Minute)
	b.checkContent(t, ws)
}

// TestSourceMaxAgeClosesAQuietKey: one event on a quiet key goes out
// within max_age plus a pull wait.
// TestSourceTakesRedeliveriesInStreamOrder: a dead runner's events come
// back in the order their ack waits run out, not in stream order. Here it
// hands back every other event at once and the rest wait out the ack
// wait, so they return as two interleaved runs; the restarted runner must
// still form windows whose ranges never overlap.
func TestSourceTakesRedeliveriesInStreamOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: waits out a source's ack wait; runs without -short")
	}
	defer func(ack time.Duration) { sourceAckWait = ack }(sourceAckWait)
	sourceAckWait = 2 * time.Second
	const n = 3000
	b := newSourceBench(t)
	b.publish(t, n)
	src := testSource()
	src.Window.MaxBytes = 16 << 10
	nc, err := nats.Connect(b.f.srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	js, _ := njs.New(nc)
	client, err := NewClient(context.Background(), js, b.f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	dead, err := NewSourceRunner(context.Background(), js, client, src)
	if err != nil {
		t.Fatal(err)
	}
	for taken := 0; taken < n; {
		msgs, err := dead.cons.Fetch(n-taken, njs.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for m := range msgs.Messages() {
			if taken%2 == 0 {
				if err := m.Nak(); err != nil {
					t.Fatal(err)
				}
			}
			taken++
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	client.Close()
	nc.Close()
	runSource(t, b, src)
	ws := b.covered(t, time.Minute)
	b.checkContent(t, ws)
}

// flakyRecords fails every third window record write.
type flakyRecords struct {
	njs.KeyValue
	puts, failed atomic.Int64
}

func (f *flakyRecords) Put(ctx context.Context, key string, value []byte) (uint64, error) {
	if f.puts.Add(1)%3 == 0 {
		f.failed.Add(1)
		return 0, errors.New("injected: window records unavailable")
	}
	return f.KeyValue.Put(ctx, key, value)
}

// TestSourceRetriesAWindowItCannotClose: a window whose record cannot be
// written is retried while the runner holds its events; none is handed
// back, since a redelivered event would come after newer ones of its key.
func TestSourceRetriesAWindowItCannotClose(t *testing.T) {
	const n = 3000
	b := newSourceBench(t)
	b.publish(t, n)
	src := testSource()
	src.Window.MaxBytes = 16 << 10
	flaky := &flakyRecords{}
	runSourceWith(t, b, src, func(r *SourceRunner) {
		flaky.KeyValue = r.records
		r.records = flaky
	})
	ws := b.covered(t, time.Minute)
	b.checkContent(t, ws)
	if flaky.failed.Load() == 0 {
		t.Fatal("no record write failed: the test did not exercise a retry")
	}
	cons, err := b.logs.Consumer(context.Background(), Names{b.f.cfg.Prefix}.SourceConsumer(src.Name))
	if err != nil {
		t.Fatal(err)
	}
	info, err := cons.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.Delivered.Consumer != n || info.NumRedelivered != 0 {
		t.Fatalf("%d deliveries of %d events (%d redelivered now), %d record writes failed: a failed window was handed back", info.Delivered.Consumer, n, info.NumRedelivered, flaky.failed.Load())
	}
}

func TestSourceMaxAgeClosesAQuietKey(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a window max_age")
	}
	b := newSourceBench(t)
	src := testSource()
	src.Window.MaxAge = time.Second
	runSource(t, b, src)
	cons, err := b.f.js.Consumer(context.Background(), src.Stream, Names{b.f.cfg.Prefix}.SourceConsumer(src.Name))
	if err != nil {
		t.Fatal(err)
	}
	poll.Require(t, 10*time.Second, "the runner pulling", func() bool {
		ci, err := cons.Info(context.Background())
		return err == nil && ci.NumWaiting > 0
	})
	start := time.Now()
	ack, err := b.f.js.Publish(context.Background(), "logs.quiet", []byte("2025-03-01T10:00:00Z WARN quiet: one event only"))
	if err != nil {
		t.Fatal(err)
	}
	b.events[ack.Sequence] = "quiet"
	b.covered(t, 10*time.Second)
	if took := time.Since(start); took > src.Window.MaxAge+2*time.Second {
		t.Errorf("quiet key's window went out after %s (max_age %s)", took, src.Window.MaxAge)
	}
}

// TestSourceMemoryBoundClosesWindowsEarly: with max_held_bytes far below
// a window's max_bytes, windows close by memory, small, and still cover
// every event once.
func TestSourceMemoryBoundClosesWindowsEarly(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: thousands of events; runs without -short")
	}
	b := newSourceBench(t)
	b.publish(t, 3000)
	src := testSource()
	src.Window.MaxBytes = 1 << 20
	src.Window.MaxAge = 3 * time.Second
	src.MaxHeldBytes = 8 << 10
	runSource(t, b, src)
	ws := b.covered(t, time.Minute)
	for _, w := range ws {
		if len(w.text) > 64<<10 {
			t.Errorf("window %s holds %d bytes with max_held_bytes 8 KiB", w.docID, len(w.text))
		}
	}
	if len(ws) < 5 {
		t.Errorf("only %d windows: the memory bound did not close any early", len(ws))
	}
}

// TestSourceMetricsScrape: per source, events in, windows closed by
// reason, open windows, bytes held and lag, as Prometheus scrapes them.
func TestSourceMetricsScrape(t *testing.T) {
	p, err := telemetry.Setup(context.Background(), telemetry.DefaultConfig(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	b := newSourceBench(t)
	b.publish(t, 300)
	src := testSource()
	src.Window.MaxEvents = 50
	runSource(t, b, src, WithSourceMeterProvider(p.MeterProvider))
	ws := b.covered(t, time.Minute)
	var body string
	scrape := func() bool {
		rec := httptest.NewRecorder()
		p.MetricsHandler.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		body = rec.Body.String()
		return strings.Contains(body, `jetcompact_source_lag{source="app"} 0`) // read every 2 s
	}
	if !poll.Every(100*time.Millisecond, 10*time.Second, scrape) {
		t.Errorf("no zero lag in the scrape:\n%s", body)
	}
	closed := 0
	for _, m := range regexp.MustCompile(`jetcompact_source_windows_closed_total\{reason="(\w+)",source="app"\} (\d+)`).FindAllStringSubmatch(body, -1) {
		n, _ := strconv.Atoi(m[2])
		closed += n
		if m[1] != "events" && m[1] != "age" {
			t.Errorf("windows closed by %s", m[1])
		}
	}
	if closed != len(ws) || !strings.Contains(body, `jetcompact_source_windows_closed_total{reason="events",source="app"}`) {
		t.Errorf("%d windows closed in the scrape, %d out", closed, len(ws))
	}
	for _, want := range []string{
		`jetcompact_source_events_total{source="app"} 300`,
		`jetcompact_source_open_windows{source="app"} 0`,
		`jetcompact_source_held_bytes{source="app"} 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %s", want)
		}
	}
}

// TestSourceCoreResultsOnce: with no stream on the output subjects, a
// subscriber gets each window's result once, and every window record is
// marked done (its result is not sent again at the next start).
func TestSourceCoreResultsOnce(t *testing.T) {
	b := newSourceBench(t)
	ctx := context.Background()
	if err := b.f.js.DeleteStream(ctx, "OUT"); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(b.f.srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync("jc.compacted.>")
	if err != nil || nc.Flush() != nil {
		t.Fatal(err)
	}
	b.publish(t, 3000)
	runSource(t, b, testSource())
	records, err := b.f.js.KeyValue(ctx, Names{b.f.cfg.Prefix}.WindowBucket())
	if err != nil {
		t.Fatal(err)
	}
	var ws []outWindow
	done := func() bool {
		for m, err := sub.NextMsg(0); err == nil; m, err = sub.NextMsg(0) {
			first, _ := strconv.ParseUint(m.Header.Get(HeaderFirstSeq), 10, 64)
			last, _ := strconv.ParseUint(m.Header.Get(HeaderLastSeq), 10, 64)
			ws = append(ws, outWindow{key: m.Header.Get(HeaderKey), first: first, last: last, docID: m.Header.Get(HeaderDocID), text: string(m.Data)})
		}
		if b.uncovered(t, ws) > 0 {
			return false
		}
		keys, err := records.ListKeys(ctx)
		if err != nil {
			return false
		}
		n := 0
		for k := range keys.Keys() {
			e, err := records.Get(ctx, k)
			if rec, ok := parseRecord(e); err != nil || !ok || !rec.Done {
				return false
			}
			n++
		}
		return n == len(ws)
	}
	if !poll.Every(100*time.Millisecond, time.Minute, done) {
		t.Fatalf("%d results, %d events in none, or a window record not done", len(ws), b.uncovered(t, ws))
	}
	if err := nc.Flush(); err != nil { // what was published before the records is here now
		t.Fatal(err)
	}
	done()
	ids := map[string]bool{}
	for _, w := range ws {
		if ids[w.docID] {
			t.Errorf("window %s came twice", w.docID)
		}
		ids[w.docID] = true
	}
}

// TestSourceWaitsForItsStream: a runner started before the user's stream
// exists waits for it, then compacts its events.
func TestSourceWaitsForItsStream(t *testing.T) {
	retry := sourceStreamRetry
	t.Cleanup(func() { sourceStreamRetry = retry }) // after the runner stops
	sourceStreamRetry = 100 * time.Millisecond
	b := newSourceBench(t)
	ctx := context.Background()
	if err := b.f.js.DeleteStream(ctx, "LOGS"); err != nil {
		t.Fatal(err)
	}
	runSource(t, b, testSource())
	logs, err := b.f.js.CreateStream(ctx, njs.StreamConfig{Name: "LOGS", Subjects: []string{"logs.>"}})
	if err != nil {
		t.Fatal(err)
	}
	b.logs = logs
	b.publish(t, 300)
	b.checkContent(t, b.covered(t, time.Minute))
}

// TestSourceRefusesOutputIntoItsStream: results whose subject the user's
// stream captures would change that stream (and be read back as events).
func TestSourceRefusesOutputIntoItsStream(t *testing.T) {
	b := newSourceBench(t)
	src := testSource()
	src.Output = "logs.compacted.{key}"
	_, err := NewSourceRunner(context.Background(), b.f.js, b.f.client(), src)
	if err == nil || !strings.Contains(err.Error(), "stream LOGS") {
		t.Fatalf("output into the user's stream: %v", err)
	}
	src.Output = "out.{source}.{key}"
	if _, err := NewSourceRunner(context.Background(), b.f.js, b.f.client(), src); err != nil {
		t.Fatal(err)
	}
}

// TestSourceEventLine: a JSON event spread over lines becomes one window
// line; other events keep their lines, less one final newline.
func TestSourceEventLine(t *testing.T) {
	for in, want := range map[string]string{
		"{\n  \"level\": \"error\",\n  \"msg\": \"disk full\"\n}\n": `{"level":"error","msg":"disk full"}`,
		`{"level":"info"}` + "\r\n":                                 `{"level":"info"}`,
		"panic: boom\n\tat main.go:12\n":                            "panic: boom\n\tat main.go:12",
		"{ not json\n}":                                             "{ not json\n}",
	} {
		if got := string(eventLine([]byte(in))); got != want {
			t.Errorf("eventLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSourceConfigValidation(t *testing.T) {
	good := testSource()
	if err := ValidateSources([]SourceConfig{good}); err != nil {
		t.Fatal(err)
	}
	for field, mutate := range map[string]func(*SourceConfig){
		"name":     func(s *SourceConfig) { s.Name = "a.b" },
		"stream":   func(s *SourceConfig) { s.Stream = "" },
		"subjects": func(s *SourceConfig) { s.Subjects = nil },
		"key":      func(s *SourceConfig) { s.Key = "subject:x" },
		"kind":     func(s *SourceConfig) { s.Kind = "csv" },
		"output":   func(s *SourceConfig) { s.Output = "out.>" },
	} {
		s := good
		mutate(&s)
		if err := ValidateSources([]SourceConfig{s}); err == nil || !strings.Contains(err.Error(), "sources[0]."+field) {
			t.Errorf("%s: %v", field, err)
		}
	}
	if err := ValidateSources([]SourceConfig{good, good}); err == nil {
		t.Error("a repeated name was accepted")
	}
	k, _ := parseSourceKey("subject:1")
	if got := k.of("logs.api.v2", nil); got != "api" {
		t.Errorf("subject:1 of logs.api.v2 = %q", got)
	}
	if got := k.of("logs", nil); got != "_" {
		t.Errorf("subject:1 of logs = %q", got)
	}
	h, _ := parseSourceKey("header:X-Service")
	if got := h.of("logs", nats.Header{"X-Service": {"billing"}}); got != "billing" {
		t.Errorf("header key = %q", got)
	}
	if got := h.of("logs.api", nats.Header{}); got != "_" {
		t.Errorf("key of an event without the header = %q", got)
	}
	if w := (SourceConfig{}).WithDefaults().Window; w.MaxBytes != 256<<10 || w.MaxAge != 10*time.Second || w.MaxEvents != 0 {
		t.Errorf("window defaults %+v, want 256 KiB, 10s, no count", w)
	}
	if got := good.outputSubject("jc", "a.b*c"); got != "jc.compacted.app.a_b_c" {
		t.Errorf("output subject = %q", got)
	}
	if got := good.outputPattern("jc"); got != "jc.compacted.app.*" {
		t.Errorf("output pattern = %q", got)
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"jc.compacted.app.*", "logs.>", false},
		{"logs.compacted.*", "logs.>", true},
		{"logs.*", "logs.api", true},
		{"logs.api", "logs.>", true},
		{"logs", "logs.>", false},
		{"logs.*", "logs.*.x", false},
		{"a.*.c", "a.b.*", true},
		{"a.b.c", "a.b.d", false},
	} {
		if got := subjectsIntersect(c.a, c.b); got != c.want {
			t.Errorf("subjectsIntersect(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

// TestSourceRefusesAWindowTheFleetCannotTake: a window passes
// window.max_bytes by up to one event, bounded by the stream's
// max_msg_size or else the server's max_payload; a window that could pass
// fleet.max_document_bytes would be refused at every attempt, so the
// runner refuses the configuration when it attaches.
func TestSourceRefusesAWindowTheFleetCannotTake(t *testing.T) {
	b := newSourceBench(t)
	ctx := context.Background()
	cfg := b.f.cfg
	cfg.MaxDocumentBytes, cfg.InlineMaxBytes = 512<<10, 64<<10
	client, err := NewClient(ctx, b.f.js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	payload := b.f.js.Conn().MaxPayload()
	if payload <= 512<<10 {
		t.Fatalf("the test needs a server max_payload above 512 KiB, got %d", payload)
	}
	src := testSource() // window.max_bytes 64 KiB
	_, err = NewSourceRunner(ctx, b.f.js, client, src)
	if err == nil || !strings.Contains(err.Error(), "max_payload") || !strings.Contains(err.Error(), "max_document_bytes 524288") {
		t.Fatalf("64 KiB windows, events up to max_payload %d, documents up to 512 KiB: %v", payload, err)
	}
	// The stream bounds its events: 64 KiB + 16 KiB fits.
	if _, err := b.f.js.UpdateStream(ctx, njs.StreamConfig{Name: "LOGS", Subjects: []string{"logs.>"}, Storage: njs.FileStorage, MaxMsgSize: 16 << 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := NewSourceRunner(ctx, b.f.js, client, src); err != nil {
		t.Fatalf("64 KiB windows, events up to 16 KiB, documents up to 512 KiB: %v", err)
	}
	// Exactly at the limit fits; one byte more does not.
	src.Window.MaxBytes = 512<<10 - 16<<10
	if _, err := NewSourceRunner(ctx, b.f.js, client, src); err != nil {
		t.Fatalf("a window that can just reach the limit: %v", err)
	}
	src.Window.MaxBytes++
	if _, err := NewSourceRunner(ctx, b.f.js, client, src); err == nil || !strings.Contains(err.Error(), "max_msg_size of stream LOGS") {
		t.Fatalf("a window one byte over: %v", err)
	}
}
