package jetstream

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
)

// Source output headers, besides Jc-Doc-Id and Jc-Guard.
const (
	HeaderSource    = "Jc-Source"
	HeaderKey       = "Jc-Key"
	HeaderFirstSeq  = "Jc-First-Seq"
	HeaderLastSeq   = "Jc-Last-Seq"
	HeaderEvents    = "Jc-Events"
	HeaderFirstTime = "Jc-First-Time"
	HeaderLastTime  = "Jc-Last-Time"
)

// Why a window closed, as metrics name it.
const (
	closedBySize   = "size"
	closedByEvents = "events"
	closedByAge    = "age"
	closedByMemory = "memory"
	closedByStop   = "stop"
	closedByOrder  = "order"
)

// Names of the source consumer and of the window record bucket.
func (n Names) SourceConsumer(source string) string { return n.Prefix + "_source_" + source }
func (n Names) WindowBucket() string                { return n.upper() + "_WINDOWS" }

// windowRecord is the durable record of a closed window: written after its
// original is stored and before its events are acked, so a redelivered
// event is known to belong to it; Done once its result went out.
type windowRecord struct {
	DocID     string      `json:"doc_id"`
	Key       string      `json:"key"`
	Seqs      [][2]uint64 `json:"seqs"` // stream sequences, as inclusive runs
	Events    int         `json:"events"`
	FirstTime time.Time   `json:"first_time"`
	LastTime  time.Time   `json:"last_time"`
	Closed    time.Time   `json:"closed"`
	Done      bool        `json:"done"`
	// Stream is the incarnation of the user's stream the sequences belong
	// to (streamIncarnation); empty in records written before it existed.
	Stream string `json:"stream,omitempty"`
}

func (r windowRecord) firstSeq() uint64 { return r.Seqs[0][0] }
func (r windowRecord) lastSeq() uint64  { return r.Seqs[len(r.Seqs)-1][1] }

// window is a key's open window.
type window struct {
	key    string
	msgs   []njs.Msg
	seqs   []uint64
	times  []time.Time
	bytes  int
	opened time.Time
	// redelivered: its events came again after a crash. Such events never
	// share a window with first deliveries, so ranges stay apart.
	redelivered bool
}

// SourceRunner compacts one source's raw events in windows. See
// SourceConfig; delivery guarantees are in the README ("Sources").
type SourceRunner struct {
	src    SourceConfig
	key    sourceKey
	js     njs.JetStream
	client *Client
	names  Names
	log    *slog.Logger
	pull   time.Duration

	cons    njs.Consumer
	records njs.KeyValue
	watcher njs.KeyWatcher

	mu sync.Mutex
	// stream is the incarnation attached to: records of another one say
	// nothing of its sequences, which start again at 1.
	stream    string
	open      map[string]*window
	closing   map[*window]bool   // taken from open, events not yet acked
	openSeqs  map[uint64]*window // events held now, by stream sequence
	held      int64
	heldMsgs  int
	committed map[uint64]string      // seq → doc id of a recorded window
	ranges    map[string][][2]uint64 // key → the recorded windows' sequence ranges, sorted
	inflight  sync.WaitGroup
	// deliveries is cancelled when Run has waited long enough for results
	// at stop: what is not out by then goes out at the next start.
	deliveries  context.Context
	stopDeliver context.CancelFunc

	events, closed metric.Int64Counter
	lag            int64
}

// SourceOption configures a SourceRunner.
type SourceOption func(*SourceRunner)

// WithSourceLogger sets the logger (default slog.Default()).
func WithSourceLogger(l *slog.Logger) SourceOption { return func(r *SourceRunner) { r.log = l } }

// WithSourceMeterProvider sets where source metrics go.
func WithSourceMeterProvider(mp metric.MeterProvider) SourceOption {
	return func(r *SourceRunner) { r.initMetrics(mp) }
}

// NewSourceRunner prepares src: its durable consumer on the user's stream
// (the stream itself is left as it is) and the window record bucket.
// client submits the windows and waits for their results.
func NewSourceRunner(ctx context.Context, js njs.JetStream, client *Client, src SourceConfig, opts ...SourceOption) (*SourceRunner, error) {
	src = src.WithDefaults()
	if err := src.Validate(0); err != nil {
		return nil, err
	}
	key, _ := parseSourceKey(src.Key)
	r := &SourceRunner{
		src: src, key: key, js: js, client: client, names: client.names, log: slog.Default(),
		open: map[string]*window{}, closing: map[*window]bool{}, openSeqs: map[uint64]*window{}, committed: map[uint64]string{}, ranges: map[string][][2]uint64{},
		pull: min(time.Second, max(50*time.Millisecond, src.Window.MaxAge/4)),
	}
	r.deliveries, r.stopDeliver = context.WithCancel(context.Background())
	r.initMetrics(metricnoop.NewMeterProvider())
	for _, o := range opts {
		o(r)
	}
	err := r.attach(ctx)
	switch {
	case errors.Is(err, njs.ErrStreamNotFound):
		r.log.Warn("source stream not found; Run waits for it (jetcompact never creates it)", "source", src.Name, "stream", src.Stream)
	case err != nil:
		return nil, err
	}
	storage := njs.FileStorage
	if client.cfg.Storage == "memory" {
		storage = njs.MemoryStorage
	}
	r.records, err = js.CreateOrUpdateKeyValue(ctx, njs.KeyValueConfig{
		Bucket: r.names.WindowBucket(), Description: "jetcompact: closed source windows",
		History: 1, TTL: 24 * time.Hour, Storage: storage, Replicas: client.cfg.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("source %s: window records: %w", src.Name, err)
	}
	return r, nil
}

// attach adds the source's durable consumer to the user's stream, and
// refuses an output subject that stream would capture.
func (r *SourceRunner) attach(ctx context.Context) error {
	stream, err := r.js.Stream(ctx, r.src.Stream)
	if err != nil {
		return fmt.Errorf("source %s: stream %s: %w (sources read an existing stream; jetcompact never creates it)", r.src.Name, r.src.Stream, err)
	}
	if err := r.windowFits(stream.CachedInfo().Config); err != nil {
		return err
	}
	out := r.src.outputPattern(r.names.Prefix)
	for _, f := range stream.CachedInfo().Config.Subjects {
		if subjectsIntersect(out, f) {
			return fmt.Errorf("source %s: output %s falls in stream %s (subjects %s): results would change the user's stream", r.src.Name, out, r.src.Stream, f)
		}
	}
	cons, err := stream.CreateOrUpdateConsumer(ctx, njs.ConsumerConfig{
		Durable:        r.names.SourceConsumer(r.src.Name),
		FilterSubjects: r.src.Subjects,
		AckPolicy:      njs.AckExplicitPolicy,
		DeliverPolicy:  njs.DeliverAllPolicy,
		AckWait:        sourceAckWait,
		MaxAckPending:  r.src.MaxAckPending,
		MaxDeliver:     -1,
	})
	if err != nil {
		return fmt.Errorf("source %s: consumer on %s: %w", r.src.Name, r.src.Stream, err)
	}
	r.mu.Lock()
	r.cons, r.stream = cons, streamIncarnation(stream.CachedInfo())
	r.mu.Unlock()
	return nil
}

// streamIncarnation names one life of a stream: its creation time, which a
// stream deleted and made again under the same name does not share.
func streamIncarnation(info *njs.StreamInfo) string {
	return info.Created.UTC().Format(time.RFC3339Nano)
}

// windowFits refuses a window limit fleet.max_document_bytes cannot take.
// A window closes once it holds window.max_bytes, so it passes that by at
// most one event, which the stream's max_msg_size bounds, or else the
// server's max_payload. A window over the limit could never be submitted:
// its events would come back for ever.
func (r *SourceRunner) windowFits(stream njs.StreamConfig) error {
	event, bound := int64(stream.MaxMsgSize), "max_msg_size of stream "+stream.Name
	if event <= 0 {
		event, bound = r.js.Conn().MaxPayload(), "the server's max_payload"
	}
	if limit := r.client.cfg.MaxDocumentBytes; int64(r.src.Window.MaxBytes)+event > limit {
		return fmt.Errorf("source %s: window.max_bytes %d plus one event of up to %d bytes (%s) is above fleet.max_document_bytes %d: lower window.max_bytes or raise max_document_bytes",
			r.src.Name, r.src.Window.MaxBytes, event, bound, limit)
	}
	return nil
}

// awaitStream attaches once the user's stream exists, or fails when ctx
// ends first.
func (r *SourceRunner) awaitStream(ctx context.Context) error {
	for {
		err := r.attach(ctx)
		if err == nil || !errors.Is(err, njs.ErrStreamNotFound) || ctx.Err() != nil {
			return err
		}
		sleepCtx(ctx, sourceStreamRetry)
	}
}

// sourceStreamRetry is how often a runner looks for a missing stream.
var sourceStreamRetry = 2 * time.Second

func (r *SourceRunner) initMetrics(mp metric.MeterProvider) {
	m := mp.Meter(tracerName)
	attrs := metric.WithAttributes(attribute.String("source", r.src.Name))
	r.events, _ = m.Int64Counter("jetcompact.source.events", metric.WithDescription("Raw events read from the source"))
	r.closed, _ = m.Int64Counter("jetcompact.source.windows_closed", metric.WithDescription("Windows closed, by reason"))
	_, _ = m.Int64ObservableGauge("jetcompact.source.open_windows", metric.WithDescription("Windows open now"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			o.Observe(int64(len(r.open)), attrs)
			return nil
		}))
	_, _ = m.Int64ObservableGauge("jetcompact.source.held_bytes", metric.WithUnit("By"), metric.WithDescription("Event bytes held in open windows"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			o.Observe(r.held, attrs)
			return nil
		}))
	_, _ = m.Int64ObservableGauge("jetcompact.source.lag", metric.WithDescription("Events in the source not yet read (consumer pending)"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			o.Observe(r.lag, attrs)
			return nil
		}))
}

// sourceAckWait is the source consumer's ack wait; held events are kept
// alive every sourceAckWait/3, so a window may stay open (or wait for
// max_backlog) for as long as it takes.
var sourceAckWait = time.Minute

// Run waits for the user's stream when it is missing, reads events until
// ctx ends, then closes the open windows it holds
// and waits for their results to go out.
func (r *SourceRunner) Run(ctx context.Context) error {
	if r.cons == nil {
		if err := r.awaitStream(ctx); err != nil {
			if ctx.Err() != nil {
				return nil // stopped while waiting
			}
			return err
		}
		r.log.Info("source stream found", "source", r.src.Name, "stream", r.src.Stream)
	}
	pending, err := r.watchRecords(ctx)
	if err != nil {
		return err
	}
	if err := r.redeliver(ctx, pending); err != nil {
		return err
	}
	keepAlive, stopKeepAlive := context.WithCancel(context.WithoutCancel(ctx))
	defer stopKeepAlive()
	go r.keepHeldAlive(keepAlive)
	batch := min(512, r.src.MaxAckPending/4+1)
	r.catchUp(ctx, batch)
	var refreshed time.Time
	for ctx.Err() == nil {
		failed := r.pullOnce(ctx, batch)
		if (failed || time.Since(refreshed) > 2*time.Second) && ctx.Err() == nil {
			refreshed = time.Now()
			if gone := r.refresh(ctx); gone {
				if err := r.reattach(ctx); err != nil && ctx.Err() == nil {
					return err
				}
			}
		}
	}
	// Stopping: close what is open, so nothing waits for redelivery, and
	// give the results a moment to go out.
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), sourceDrain)
	defer cancel()
	for _, w := range r.oldestFirst() {
		if err := r.closeWindow(stop, w, closedByStop); err != nil {
			r.log.Warn("source window not closed at stop; its events will be redelivered", "source", r.src.Name, "error", err.Error())
		}
	}
	done := make(chan struct{})
	go func() { r.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-stop.Done():
		r.log.Warn("source results still pending at stop; they go out at the next start", "source", r.src.Name)
	}
	r.stopDeliver()
	r.inflight.Wait()
	return nil
}

// pullOnce fetches one batch, adds its events and closes the windows due.
// It reports a failed pull (after a pause, so retries are not a tight loop).
func (r *SourceRunner) pullOnce(ctx context.Context, batch int) (failed bool) {
	msgs, err := r.cons.Fetch(batch, njs.FetchMaxWait(r.pull))
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("source fetch failed; retrying", "source", r.src.Name, "error", err.Error())
			sleepCtx(ctx, time.Second)
		}
		return true
	}
	for m := range msgs.Messages() {
		if err := r.add(ctx, m); err != nil {
			r.log.Warn("source event not taken; it will be redelivered", "source", r.src.Name, "error", err.Error())
		}
	}
	if err := msgs.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && ctx.Err() == nil {
		r.log.Warn("source fetch ended", "source", r.src.Name, "error", err.Error())
		// The consumer is gone, or going: refresh looks next.
		failed = errors.Is(err, nats.ErrNoResponders) || errors.Is(err, njs.ErrConsumerDeleted)
	}
	if err := r.closeDue(ctx, time.Now()); err != nil && ctx.Err() == nil {
		r.log.Warn("source window not closed; its events will be redelivered", "source", r.src.Name, "error", err.Error())
	}
	if failed {
		sleepCtx(ctx, r.pull)
	}
	return failed
}

// reattach follows the user's stream once the source's consumer is gone
// (deleted, or its stream deleted and perhaps made again). Open windows
// are closed first: their text is kept, though their events can no longer
// be acked. Then the runner attaches again, waiting for the stream. On a
// new incarnation the recorded ranges are dropped and the records read
// again, keeping only the new incarnation's.
func (r *SourceRunner) reattach(ctx context.Context) error {
	r.log.Warn("source consumer gone; closing open windows and attaching again", "source", r.src.Name, "stream", r.src.Stream)
	for _, w := range r.oldestFirst() {
		if err := r.closeWindow(ctx, w, closedByStop); err != nil && ctx.Err() == nil {
			r.log.Warn("source window of a gone consumer not closed", "source", r.src.Name, "error", err.Error())
		}
	}
	r.mu.Lock()
	before := r.stream
	r.mu.Unlock()
	if err := r.awaitStream(ctx); err != nil {
		return err
	}
	r.mu.Lock()
	renewed := r.stream != before
	if renewed {
		r.committed, r.ranges = map[uint64]string{}, map[string][][2]uint64{}
	}
	r.mu.Unlock()
	if !renewed {
		return nil
	}
	r.log.Info("source stream made again; its sequences start a new incarnation", "source", r.src.Name, "stream", r.src.Stream)
	_ = r.watcher.Stop()
	_, err := r.watchRecords(ctx)
	return err
}

// sourceDrain bounds the wait at stop for windows to close and their
// results to go out.
var sourceDrain = 15 * time.Second

// add puts one event in its key's window, or acks it when a recorded
// window holds it already (redelivered after a crash).
func (r *SourceRunner) add(ctx context.Context, m njs.Msg) error {
	meta, err := m.Metadata()
	if err != nil {
		return m.Term()
	}
	seq := meta.Sequence.Stream
	if meta.NumDelivered > 1 {
		r.mu.Lock()
		if w := r.openSeqs[seq]; w != nil { // held already: ack the newest delivery
			for i, s := range w.seqs {
				if s == seq {
					w.msgs[i] = m
				}
			}
			r.mu.Unlock()
			return nil
		}
		r.mu.Unlock()
		if r.isCommitted(seq) {
			return m.Ack()
		}
	}
	r.events.Add(ctx, 1, metric.WithAttributes(attribute.String("source", r.src.Name)))
	key := r.key.of(m.Subject(), m.Headers())
	r.mu.Lock()
	w := r.open[key]
	again := meta.NumDelivered > 1
	if w != nil && (r.outOfOrder(w, seq) || w.redelivered != again) {
		r.mu.Unlock()
		if err := r.closeWindow(ctx, w, closedByOrder); err != nil {
			_ = m.NakWithDelay(time.Second)
			return err
		}
		r.mu.Lock()
		w = r.open[key]
	}
	if w == nil {
		w = &window{key: key, opened: time.Now(), redelivered: again}
		r.open[key] = w
	}
	size := len(m.Data()) + 1
	w.msgs, w.seqs, w.times = append(w.msgs, m), append(w.seqs, seq), append(w.times, meta.Timestamp)
	w.bytes += size
	r.openSeqs[seq] = w
	r.held += int64(size)
	r.heldMsgs++
	full := ""
	switch {
	case w.bytes >= r.src.Window.MaxBytes:
		full = closedBySize
	case r.src.Window.MaxEvents > 0 && len(w.msgs) >= r.src.Window.MaxEvents:
		full = closedByEvents
	}
	r.mu.Unlock()
	if full != "" {
		return r.closeWindow(ctx, w, full)
	}
	return r.closeForMemory(ctx)
}

// outOfOrder reports that seq cannot join w without two windows' sequence
// ranges overlapping: it is older than w's last event (an event redelivered
// after a crash), or a recorded window of the key lies between them.
func (r *SourceRunner) outOfOrder(w *window, seq uint64) bool {
	last := w.seqs[len(w.seqs)-1]
	if seq < last {
		return true
	}
	rs := r.ranges[w.key]
	i := sort.Search(len(rs), func(i int) bool { return rs[i][0] > last })
	return i < len(rs) && rs[i][1] < seq
}

// closeForMemory closes the oldest windows while the held bytes or events
// are over their bounds.
func (r *SourceRunner) closeForMemory(ctx context.Context) error {
	for {
		r.mu.Lock()
		over := r.held > r.src.MaxHeldBytes || r.heldMsgs >= r.src.MaxAckPending*3/4
		r.mu.Unlock()
		if !over {
			return nil
		}
		ws := r.oldestFirst()
		if len(ws) == 0 {
			return nil
		}
		if err := r.closeWindow(ctx, ws[0], closedByMemory); err != nil {
			return err
		}
	}
}

// closeDue closes the windows whose first event waited max_age.
func (r *SourceRunner) closeDue(ctx context.Context, now time.Time) error {
	for _, w := range r.oldestFirst() {
		if now.Sub(w.opened) < r.src.Window.MaxAge {
			break
		}
		if err := r.closeWindow(ctx, w, closedByAge); err != nil {
			return err
		}
	}
	return nil
}

func (r *SourceRunner) oldestFirst() []*window {
	r.mu.Lock()
	defer r.mu.Unlock()
	ws := make([]*window, 0, len(r.open))
	for _, w := range r.open {
		ws = append(ws, w)
	}
	for i := 1; i < len(ws); i++ { // few windows: insertion sort
		for j := i; j > 0 && ws[j].opened.Before(ws[j-1].opened); j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
		}
	}
	return ws
}

// WindowDocID derives a window's document id from the source, the stream's
// incarnation, the key and its first and last stream sequences, so a window
// formed again after a crash is the same document, and one of a stream made
// again under the same name is another.
func WindowDocID(source, stream, key string, first, last uint64) string {
	h := sha256.Sum256([]byte(source + "\x00" + stream + "\x00" + key + "\x00" + strconv.FormatUint(first, 10) + "\x00" + strconv.FormatUint(last, 10)))
	return "src-" + hex.EncodeToString(h[:15])
}

// closeWindow turns w into a document: its original is stored (and the
// fleet takes it from there), then its record is written, then its events
// are acked; its result goes out in the background. When that cannot be
// done before ctx ends (or cannot be done at all) the events are handed
// back, to be redelivered.
func (r *SourceRunner) closeWindow(ctx context.Context, w *window, reason string) error {
	r.mu.Lock()
	if r.open[w.key] != w {
		r.mu.Unlock()
		return nil
	}
	delete(r.open, w.key)
	r.closing[w] = true
	r.held -= int64(w.bytes)
	r.heldMsgs -= len(w.msgs)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.closing, w)
		for _, s := range w.seqs {
			delete(r.openSeqs, s)
		}
		r.mu.Unlock()
	}()
	r.closed.Add(ctx, 1, metric.WithAttributes(attribute.String("source", r.src.Name), attribute.String("reason", reason)))

	var text strings.Builder
	text.Grow(w.bytes)
	for i, m := range w.msgs {
		if i > 0 {
			text.WriteByte('\n')
		}
		text.Write(eventLine(m.Data()))
	}
	r.mu.Lock()
	stream := r.stream
	r.mu.Unlock()
	rec := windowRecord{
		DocID: WindowDocID(r.src.Name, stream, w.key, w.seqs[0], w.seqs[len(w.seqs)-1]),
		Key:   w.key, Seqs: runsOf(w.seqs), Events: len(w.msgs),
		FirstTime: w.times[0], LastTime: w.times[len(w.times)-1], Closed: time.Now(),
		Stream: stream,
	}
	doc := Document{ID: rec.DocID, Text: text.String(), Kind: r.src.Kind}
	// A failed attempt is retried while the runner holds the events (kept
	// alive, nothing newer pulled): handed back, they would come again
	// after newer events and a later window's range would span them.
	for delay := 100 * time.Millisecond; ; delay = min(2*delay, 5*time.Second) {
		wait, dup, err := r.commitWindow(ctx, rec, doc)
		if err == nil {
			for _, m := range w.msgs {
				_ = m.Ack() // a lost ack is redelivered and then found in the record
			}
			if dup {
				r.client.offerStoredResult(ctx, doc.ID)
			}
			r.inflight.Add(1)
			go func() {
				defer r.inflight.Done()
				r.deliver(r.deliveries, rec, doc.Text, wait)
			}()
			return nil
		}
		if errors.Is(err, errPermanent) || ctx.Err() != nil {
			r.nakAll(w)
			return err
		}
		if delay == 100*time.Millisecond {
			r.log.Warn("source window not closed; retrying while holding its events", "source", r.src.Name, "doc", doc.ID, "error", err.Error())
		}
		sleepCtx(ctx, delay)
	}
}

// commitWindow is one attempt to store a window's original, start it on
// the fleet and write its record; after an error nothing waits for it.
func (r *SourceRunner) commitWindow(ctx context.Context, rec windowRecord, doc Document) (wait func(context.Context) (Result, error), dup bool, err error) {
	wait, err = r.client.expect(ctx, doc.ID, 0)
	if err != nil {
		return nil, false, err
	}
	if dup, err = r.client.submit(ctx, doc, 0, ""); err != nil {
		err = fmt.Errorf("window %s: %w", doc.ID, err)
	} else {
		err = r.putRecord(ctx, rec)
	}
	if err != nil {
		r.client.forget(doc.ID)
		return nil, false, err
	}
	return wait, dup, nil
}

// deliver waits for the window's result and publishes it to the output
// subject, with the window's headers and its document id as message id.
// Its fold markers reference lines of the window's original (the whole
// window id: a cluster resolves whole ids); original "" is fetched from
// the originals stream, and when that fails the markers stay bare.
func (r *SourceRunner) deliver(ctx context.Context, rec windowRecord, original string, wait func(context.Context) (Result, error)) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	res, err := wait(ctx)
	if err != nil {
		r.log.Warn("source window result not received; retried at the next start", "source", r.src.Name, "doc", rec.DocID, "error", err.Error())
		return
	}
	if original == "" {
		original, err = r.client.Original(ctx, rec.DocID)
	}
	if err == nil && res.Error == "" {
		res.Text = pipeline.AddRefs(original, res.Text, rec.DocID)
	}
	m := nats.NewMsg(r.src.outputSubject(r.names.Prefix, rec.Key))
	m.Data = []byte(res.Text)
	m.Header.Set(HeaderDocID, rec.DocID)
	m.Header.Set(HeaderGuard, res.Report.Guard)
	m.Header.Set(HeaderSource, r.src.Name)
	m.Header.Set(HeaderKey, rec.Key)
	m.Header.Set(HeaderFirstSeq, strconv.FormatUint(rec.firstSeq(), 10))
	m.Header.Set(HeaderLastSeq, strconv.FormatUint(rec.lastSeq(), 10))
	m.Header.Set(HeaderEvents, strconv.Itoa(rec.Events))
	m.Header.Set(HeaderFirstTime, rec.FirstTime.UTC().Format(time.RFC3339Nano))
	m.Header.Set(HeaderLastTime, rec.LastTime.UTC().Format(time.RFC3339Nano))
	if res.Error != "" {
		m.Header.Set(HeaderError, res.Error)
	}
	if err := r.publishOutput(ctx, m, rec.DocID); err != nil {
		r.log.Warn("source result not published; retried at the next start", "source", r.src.Name, "doc", rec.DocID, "error", err.Error())
		return
	}
	rec.Done = true
	if err := r.putRecord(ctx, rec); err != nil {
		r.log.Warn("source window record not updated", "source", r.src.Name, "doc", rec.DocID, "error", err.Error())
	}
}

// publishOutput publishes through JetStream when a stream captures the
// output subject (the message id drops a repeat), else once on core NATS.
// The stream is looked up first: a JetStream publish that no stream acks
// would still reach core subscribers, at every retry.
func (r *SourceRunner) publishOutput(ctx context.Context, m *nats.Msg, id string) error {
	for delay := 100 * time.Millisecond; ; delay = min(2*delay, 5*time.Second) {
		_, err := r.js.StreamNameBySubject(ctx, m.Subject)
		if errors.Is(err, njs.ErrStreamNotFound) {
			return r.js.Conn().PublishMsg(m)
		}
		if err == nil {
			_, err = r.js.PublishMsg(ctx, m, njs.WithMsgID(id))
		}
		if err == nil || ctx.Err() != nil {
			return err
		}
		sleepCtx(ctx, delay)
	}
}

func (r *SourceRunner) recordKey(docID string) string { return r.src.Name + "." + docID }

func (r *SourceRunner) putRecord(ctx context.Context, rec windowRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := r.records.Put(ctx, r.recordKey(rec.DocID), data); err != nil {
		return fmt.Errorf("window record %s: %w", rec.DocID, err)
	}
	r.remember(rec)
	return nil
}

func (r *SourceRunner) remember(rec windowRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rec.Stream != "" && rec.Stream != r.stream {
		return
	}
	span := [2]uint64{rec.firstSeq(), rec.lastSeq()}
	rs := r.ranges[rec.Key]
	i := sort.Search(len(rs), func(i int) bool { return rs[i][0] >= span[0] })
	if i == len(rs) || rs[i] != span {
		r.ranges[rec.Key] = slices.Insert(rs, i, span)
	}
	for _, run := range rec.Seqs {
		for s := run[0]; s <= run[1]; s++ {
			r.committed[s] = rec.DocID
		}
	}
}

func (r *SourceRunner) isCommitted(seq uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.committed[seq]
	return ok
}

// watchRecords reads this source's window records, and keeps reading the
// ones other workers write: the events they hold are taken. It returns the
// records whose result did not go out (a crash), to be delivered again.
func (r *SourceRunner) watchRecords(ctx context.Context) ([]windowRecord, error) {
	w, err := r.records.WatchFiltered(ctx, []string{r.src.Name + ".>"}, njs.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("source %s: window records: %w", r.src.Name, err)
	}
	r.watcher = w
	var pending []windowRecord
	for e := range w.Updates() {
		if e == nil {
			break // the records stored so far are read
		}
		if rec, ok := parseRecord(e); ok {
			r.remember(rec)
			if !rec.Done {
				pending = append(pending, rec)
			}
		}
	}
	go func() {
		defer w.Stop()
		for e := range w.Updates() {
			if rec, ok := parseRecord(e); ok {
				r.remember(rec)
			}
		}
	}()
	return pending, nil
}

func parseRecord(e njs.KeyValueEntry) (windowRecord, bool) {
	var rec windowRecord
	if e == nil || json.Unmarshal(e.Value(), &rec) != nil || len(rec.Seqs) == 0 {
		return rec, false
	}
	return rec, true
}

// redeliver sends the results of windows recorded but not delivered.
func (r *SourceRunner) redeliver(ctx context.Context, pending []windowRecord) error {
	for _, rec := range pending {
		wait, err := r.client.expect(ctx, rec.DocID, 0)
		if err != nil {
			return err
		}
		r.client.offerStoredResult(ctx, rec.DocID)
		r.inflight.Add(1)
		go func() {
			defer r.inflight.Done()
			r.deliver(r.deliveries, rec, "", wait)
		}()
	}
	return nil
}

// catchUp runs before the first plain pull when the consumer counts
// events delivered and not acked (a runner died holding them). Those come
// back in the order their ack waits ran out, not in stream order, mixed
// with newer events; so every event is taken and kept, until all the
// consumer's pending events are in hand (at most the ack wait and a
// quarter, or max_held_bytes), and then added in stream order. A key's
// windows then never span one another's sequences.
func (r *SourceRunner) catchUp(ctx context.Context, batch int) {
	info, err := r.cons.Info(ctx)
	if err != nil || info.NumAckPending == 0 {
		return
	}
	pending := int(info.NumAckPending)
	taken := map[uint64]njs.Msg{}
	size := int64(0)
	deadline := time.Now().Add(sourceAckWait + sourceAckWait/4)
	touched := time.Now()
	for ctx.Err() == nil && time.Now().Before(deadline) && size < r.src.MaxHeldBytes {
		msgs, err := r.cons.Fetch(batch, njs.FetchMaxWait(r.pull))
		if err != nil {
			sleepCtx(ctx, r.pull) // reconnecting: no tight loop
			continue
		}
		for m := range msgs.Messages() {
			size += r.take(taken, m)
		}
		if time.Since(touched) >= sourceAckWait/3 {
			touched = time.Now()
			for _, m := range taken {
				_ = m.InProgress()
			}
		}
		if info, err := r.cons.Info(ctx); err == nil {
			if pending = int(info.NumAckPending); pending <= len(taken) {
				break
			}
		}
	}
	if pending > len(taken) && ctx.Err() == nil {
		r.log.Warn("source events held elsewhere did not come back in time; windows of their keys may overlap", "source", r.src.Name, "pending", pending, "in_hand", len(taken))
	}
	for _, seq := range slices.Sorted(maps.Keys(taken)) {
		if err := r.add(ctx, taken[seq]); err != nil {
			r.log.Warn("source event not taken; it will be redelivered", "source", r.src.Name, "error", err.Error())
		}
	}
}

// take keeps m in taken, by stream sequence (a later delivery of the same
// event replaces the earlier), or acks it when a recorded window holds it.
// It returns the bytes added.
func (r *SourceRunner) take(taken map[uint64]njs.Msg, m njs.Msg) int64 {
	meta, err := m.Metadata()
	if err != nil {
		_ = m.Term()
		return 0
	}
	seq := meta.Sequence.Stream
	if meta.NumDelivered > 1 && r.isCommitted(seq) {
		_ = m.Ack()
		return 0
	}
	_, again := taken[seq]
	taken[seq] = m
	if again {
		return 0
	}
	return int64(len(m.Data()))
}

// keepHeldAlive tells the server, every third of the ack wait, that the
// events held in open and closing windows are still being worked on.
func (r *SourceRunner) keepHeldAlive(ctx context.Context) {
	t := time.NewTicker(sourceAckWait / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r.mu.Lock()
		var msgs []njs.Msg
		for _, w := range r.open {
			msgs = append(msgs, w.msgs...)
		}
		for w := range r.closing {
			msgs = append(msgs, w.msgs...)
		}
		r.mu.Unlock()
		for _, m := range msgs {
			_ = m.InProgress()
		}
	}
}

// refresh reads the consumer's lag, and forgets the records of windows
// whose events all lie below the ack floor: they cannot come again. It
// reports the consumer gone, deleted or with its stream.
func (r *SourceRunner) refresh(ctx context.Context) (gone bool) {
	info, err := r.cons.Info(ctx)
	if err != nil {
		return errors.Is(err, njs.ErrConsumerNotFound) || errors.Is(err, njs.ErrStreamNotFound)
	}
	floor := info.AckFloor.Stream
	r.mu.Lock()
	r.lag = int64(info.NumPending)
	for s := range r.committed {
		if s <= floor {
			delete(r.committed, s)
		}
	}
	for k, rs := range r.ranges {
		i := 0
		for i < len(rs) && rs[i][1] <= floor {
			i++
		}
		if i == len(rs) {
			delete(r.ranges, k)
		} else {
			r.ranges[k] = rs[i:]
		}
	}
	r.mu.Unlock()
	return false
}

func (r *SourceRunner) nakAll(w *window) {
	for _, m := range w.msgs {
		_ = m.NakWithDelay(time.Second)
	}
}

// runsOf compresses ascending sequences into inclusive runs.
func runsOf(seqs []uint64) [][2]uint64 {
	var out [][2]uint64
	for _, s := range seqs {
		if n := len(out); n > 0 && out[n-1][1]+1 == s {
			out[n-1][1] = s
			continue
		}
		out = append(out, [2]uint64{s, s})
	}
	return out
}

// eventLine is an event's payload as a window line: without its final
// newline, and a JSON value spread over lines made compact, so that a JSON
// event stays one line.
func eventLine(b []byte) []byte {
	b = trimOneNewline(b)
	if bytes.IndexByte(b, '\n') < 0 || !json.Valid(b) {
		return b
	}
	var one bytes.Buffer
	if json.Compact(&one, b) != nil {
		return b
	}
	return one.Bytes()
}

func trimOneNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n > 1 && b[n-2] == '\r' {
			b = b[:n-2]
		}
	}
	return b
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}
