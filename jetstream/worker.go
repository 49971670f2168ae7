package jetstream

import (
	"cmp"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/jetcompact/jetcompact/failure"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/jetcompact/jetcompact/telemetry"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"golang.org/x/sync/semaphore"
)

// Worker consumes one or more segments and runs their stages. Its ack
// policy: ack only after the downstream publish is acknowledged; Nak with
// backoff on transient errors; dead-letter and Term on permanent errors and
// after MaxDeliver deliveries.
type Worker struct {
	js       njs.JetStream
	cfg      Config
	names    Names
	pipe     *pipeline.Pipeline
	mode     stages.Mode // worker's mode override, "" = config
	blobs    *blobs
	log      *slog.Logger
	tracer   trace.Tracer
	prop     propagation.TextMapPropagator
	m        *telemetry.SegmentMetrics
	tasks    map[string]TaskFunc
	pullWait time.Duration
	ready    atomic.Bool
	inflight *semaphore.Weighted // bytes of the texts in process; nil = unbounded
	// deadLetterFailures counts failed dead-letter publishes per message.
	deadLetterMu       sync.Mutex
	deadLetterFailures map[string]int
	// testHookPublish runs just before (published false) and just after
	// (true) each downstream publish, all before the ack.
	testHookPublish func(docID string, published bool)
}

// WorkerOption configures a Worker.
type WorkerOption func(*Worker) error

// WithLogger sets the logger (default: slog.Default()).
func WithLogger(l *slog.Logger) WorkerOption {
	return func(w *Worker) error { w.log = l; return nil }
}

// WithTracerProvider sets where segment spans go (default: none).
func WithTracerProvider(tp trace.TracerProvider) WorkerOption {
	return func(w *Worker) error { w.tracer = tp.Tracer(tracerName); return nil }
}

// WithMeterProvider sets where worker metrics go (default: none).
func WithMeterProvider(mp metric.MeterProvider) WorkerOption {
	return func(w *Worker) (err error) {
		w.m, err = telemetry.NewSegmentMetrics(mp)
		return err
	}
}

// WithPullWait sets how long an idle pull waits (default 1s). A short-lived
// embedded fleet uses less, so that it shuts down at once.
func WithPullWait(d time.Duration) WorkerOption {
	return func(w *Worker) error {
		if d < 10*time.Millisecond {
			return fmt.Errorf("pull wait %s below 10ms", d)
		}
		w.pullWait = d
		return nil
	}
}

// WithMode overrides the configured mode for documents that name none.
func WithMode(m stages.Mode) WorkerOption {
	return func(w *Worker) error {
		if m != "" && !m.Valid() {
			return fmt.Errorf("unknown mode %q", m)
		}
		w.mode = m
		return nil
	}
}

const tracerName = "github.com/jetcompact/jetcompact/jetstream"

// NewWorker builds a worker. The topology must exist (EnsureTopology).
func NewWorker(ctx context.Context, js njs.JetStream, cfg Config, pipe *pipeline.Pipeline, opts ...WorkerOption) (*Worker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &Worker{
		js: js, cfg: cfg, names: Names{cfg.Prefix}, pipe: pipe,
		log:      slog.Default(),
		tracer:   tracenoop.NewTracerProvider().Tracer(tracerName),
		prop:     propagation.TraceContext{},
		pullWait: defaultPullWait,
	}
	var err error
	if w.m, err = telemetry.NewSegmentMetrics(metricnoop.NewMeterProvider()); err != nil {
		return nil, err
	}
	for _, o := range opts {
		if err := o(w); err != nil {
			return nil, err
		}
	}
	if w.blobs, err = openBlobs(ctx, js, w.names); err != nil {
		return nil, err
	}
	if cfg.MaxInflightBytes > 0 {
		w.inflight = semaphore.NewWeighted(cfg.MaxInflightBytes)
	}
	return w, nil
}

// Ready reports whether every segment's consumer is bound.
func (w *Worker) Ready() bool { return w.ready.Load() }

// binding is one durable consumer and what to do with its messages.
type binding struct {
	stream   string // the stream the consumer reads
	consumer string // durable consumer name
	label    string // segment keys or task name, for spans, logs and dead letters
	name     string // short name, for metrics and span names (Config.SegmentName, or task_NAME)
	dead     string // dead-letter subject
	intake   bool   // the messages are the stored originals themselves
	// viaGuard: a segment before the guard's hands the result of a
	// document it dead-letters to the guard (only the guard writes results).
	viaGuard bool
	process  func(ctx context.Context, env Envelope, msg njs.Msg) error
}

// segmentBindings returns the segment's work consumer and, for the first
// segment, the intake: new documents arrive as their stored originals.
func (w *Worker) segmentBindings(seg []stages.Key) []binding {
	entry := seg[0] == w.cfg.Segments[0][0] // only clients publish here: replays
	work := binding{
		stream:   w.names.WorkStream(),
		consumer: w.names.Consumer(seg[0]),
		label:    joinKeys(seg),
		name:     w.cfg.SegmentName(seg),
		dead:     w.names.DeadSubject(string(seg[0])),
		viaGuard: seg[len(seg)-1] != stages.KeyGuard,
		process: func(ctx context.Context, env Envelope, msg njs.Msg) error {
			env, stored, err := w.verifyHop(ctx, env)
			if errors.Is(err, errOriginalMissing) && env.Pass == outcomeNoOriginal && seg[len(seg)-1] == stages.KeyGuard {
				// A dead letter's hop for a document with no original.
				return w.publishResult(ctx, env, "", outcomeNoOriginal, env.Error)
			}
			if err != nil {
				return err
			}
			if entry {
				if env, err = entryHop(env); err != nil {
					return err
				}
			}
			text, err := w.body(ctx, env, msg, seg[0], stored)
			if err != nil {
				return err
			}
			return w.process(ctx, seg, env, text)
		},
	}
	if seg[0] != w.cfg.Segments[0][0] {
		return []binding{work}
	}
	intake := work
	intake.stream, intake.consumer, intake.intake = w.names.OriginalsStream(), w.names.IntakeConsumer(), true
	intake.process = func(ctx context.Context, env Envelope, msg njs.Msg) error {
		// The message is the stored original: its envelope is the record,
		// if it is stored under its own id.
		if msg.Subject() != w.names.OriginalSubject(env.DocID) {
			return fmt.Errorf("%w: an original stored on %s names document %s", errForged, msg.Subject(), env.DocID)
		}
		text, err := originalText(ctx, w.blobs, env.DocID, msg.Headers(), msg.Data())
		if err != nil {
			return err
		}
		env.Blob, env.Attempt, env.Mode = "", 0, w.capMode(env.Mode)
		return w.process(ctx, seg, env, text)
	}
	return []binding{intake, work}
}

// Run consumes segs (and every task given WithTasks) until ctx ends, then
// stops pulling and drains in-flight work for at most drain.
func (w *Worker) Run(ctx context.Context, segs [][]stages.Key, drain time.Duration) error {
	var bindings []binding
	for _, seg := range segs {
		if err := ValidateSegmentIn(w.cfg.Segments, seg); err != nil {
			return err
		}
		bindings = append(bindings, w.segmentBindings(seg)...)
	}
	bindings = append(bindings, w.taskBindings()...)
	work := context.WithoutCancel(ctx) // in-flight messages finish after ctx ends
	var inflight, loops sync.WaitGroup
	// Bind every consumer before pulling from any, so a stop that comes
	// while work is held never finds a binding half done.
	consumers := make([]njs.Consumer, len(bindings))
	for i, b := range bindings {
		cons, err := w.js.Consumer(ctx, b.stream, b.consumer)
		if err != nil {
			return fmt.Errorf("bind consumer %s: %w", b.consumer, err)
		}
		consumers[i] = cons
	}
	for i, b := range bindings {
		w.m.Start(b.name)
		loops.Go(func() { w.pull(ctx, work, b, consumers[i], &inflight) })
	}
	w.ready.Store(true)
	<-ctx.Done()
	w.ready.Store(false)
	done := make(chan struct{})
	go func() {
		loops.Wait() // no more pulls
		inflight.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-time.After(drain):
		return fmt.Errorf("drain: in-flight work did not finish within %s; it will be redelivered", drain)
	}
}

// ack acknowledges msg: at once while the worker runs, and confirmed by
// the server while it drains, so that Run returns only when the server
// holds every ack of the work it finished (a worker stopped and started
// again gets none of it again).
func (w *Worker) ack(ctx context.Context, msg njs.Msg) error {
	if w.ready.Load() {
		return msg.Ack()
	}
	return msg.DoubleAck(ctx)
}

// defaultPullWait bounds one pull request: how long shutdown waits for
// it, and how soon a consumer whose leader moved to another cluster node
// (pull requests are not replicated) is pulled again.
const defaultPullWait = time.Second

// pullExpiry bounds the pull requests of the client's result watch, for the
// same reason, instead of nats.go's default of 30s.
const pullExpiry = 5 * time.Second

// pull fetches only as many messages as there are free handlers, so no
// message waits in a client buffer while its ack wait runs out; each one
// is handled at once, with InProgress heartbeats while it runs.
func (w *Worker) pull(ctx, work context.Context, b binding, cons njs.Consumer, inflight *sync.WaitGroup) {
	slots := make(chan struct{}, w.cfg.Concurrency)
	for ctx.Err() == nil {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		free := 1
		for free < w.cfg.Concurrency && free < w.cfg.PullBatch {
			select {
			case slots <- struct{}{}:
				free++
				continue
			default:
			}
			break
		}
		// Take what is there for every free handler at once; when nothing
		// is, wait for the next message with a single slot, so handlers
		// freed meanwhile are not left idle behind a half-filled pull.
		msgs, err := collect(cons.FetchNoWait(free))
		if err == nil && len(msgs) == 0 {
			for range free - 1 {
				<-slots
			}
			free = 1
			msgs, err = collect(cons.Fetch(1, njs.FetchMaxWait(w.pullWait)))
		}
		if err != nil && len(msgs) == 0 {
			for range free {
				<-slots
			}
			if ctx.Err() == nil {
				w.log.Warn("pull", "segment", b.label, "error", err.Error())
				time.Sleep(100 * time.Millisecond)
			}
			continue
		}
		for _, msg := range msgs {
			inflight.Add(1)
			go func() {
				defer func() { <-slots; inflight.Done() }()
				defer func() {
					// A bug must not take the worker down: leave the message
					// unsettled so it is redelivered after the ack wait.
					if r := recover(); r != nil {
						w.log.Error("handler panicked; message left for redelivery", "segment", b.label, "panic", fmt.Sprint(r))
					}
				}()
				w.handle(work, b, msg)
			}()
		}
		for range free - len(msgs) {
			<-slots
		}

	}
}

// collect reads a pull's messages. A timeout with no messages is no error.
func collect(batch njs.MessageBatch, err error) ([]njs.Msg, error) {
	if err != nil {
		return nil, err
	}
	var msgs []njs.Msg
	for m := range batch.Messages() {
		msgs = append(msgs, m)
	}
	if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, njs.ErrNoMessages) {
		return msgs, err
	}
	return msgs, nil
}

// ValidateSegmentIn checks that seg is one of the configured segments.
func ValidateSegmentIn(configured [][]stages.Key, seg []stages.Key) error {
	_, err := SelectSegments(configured, joinKeys(seg))
	return err
}

// handle processes one message and settles it exactly once.
func (w *Worker) handle(ctx context.Context, b binding, msg njs.Msg) {
	segName := b.label
	meta, err := msg.Metadata()
	if err != nil {
		w.log.Warn("message without metadata", "segment", segName, "error", err.Error())
		_ = msg.Term()
		return
	}
	ctx = w.prop.Extract(ctx, headerCarrier(msg.Headers()))
	ctx, span := w.tracer.Start(ctx, telemetry.SegmentSpanName(b.name), trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(telemetry.AttrSegment.String(b.label), telemetry.AttrDelivery.Int(int(meta.NumDelivered))))
	defer span.End()
	w.m.Received(ctx, b.name, meta.NumDelivered)

	env, err := ReadEnvelope(msg.Headers())
	if id := msg.Headers().Get(HeaderDocID); err != nil && ValidDocID(id) {
		env.DocID = id // a message without a valid envelope still comes out, as its original
	}
	if err == nil && int(meta.NumDelivered) > w.cfg.MaxDeliver {
		err = fmt.Errorf("%w: delivered %d times, max_deliver is %d", errPermanent, meta.NumDelivered, w.cfg.MaxDeliver)
	}
	if err == nil {
		span.SetAttributes(telemetry.AttrDocID.String(env.DocID))
		err = w.processKeptAlive(ctx, b, env, msg)
	}
	switch {
	case err == nil && !b.intake && env.Blob != "" && !strings.HasPrefix(env.Blob, originalBlobPrefix):
		// The next hop holds the text now: once our ack is confirmed, no
		// redelivery needs the blob we read.
		if ackErr := msg.DoubleAck(ctx); ackErr != nil {
			w.log.Warn("ack failed; the message will be redelivered and deduplicated", "segment", segName, "doc", env.DocID, "error", ackErr.Error())
		} else if delErr := w.blobs.work.Delete(ctx, env.Blob); delErr != nil && !errors.Is(delErr, njs.ErrObjectNotFound) {
			w.log.Warn("delete used blob; it expires with max_age", "segment", segName, "doc", env.DocID, "error", delErr.Error())
		}
	case err == nil:
		if ackErr := w.ack(ctx, msg); ackErr != nil {
			w.log.Warn("ack failed; the message will be redelivered and deduplicated", "segment", segName, "doc", env.DocID, "error", ackErr.Error())
		}
	case IsPermanent(err):
		span.SetStatus(codes.Error, "dead letter")
		span.SetAttributes(telemetry.AttrDeadLetterReason.String(err.Error()))
		w.deadLetter(ctx, b, env, msg, err)
	default:
		span.SetStatus(codes.Error, "retry")
		w.m.Retried(ctx, b.name)
		// A server that said when to come back (a model's Retry-After) is
		// waited for, within maxRetryAfter.
		delay := max(backoff(int(meta.NumDelivered)), min(failure.RetryAfter(err), maxRetryAfter))
		w.log.Warn("transient error; will retry", "segment", segName, "doc", env.DocID, "delivery", meta.NumDelivered, "retry_in", delay.String(), "error", err.Error())
		_ = msg.NakWithDelay(delay)
	}
}

// maxRetryAfter bounds the wait a transient error may ask for.
const maxRetryAfter = time.Minute

// backoff grows with each delivery: 1s, 2s, 4s ... capped at 30s, with jitter.
func backoff(delivery int) time.Duration {
	d := time.Second << min(max(delivery-1, 0), 5)
	d = min(d, 30*time.Second)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// processKeptAlive runs b.process while keepAlive holds the message. The
// keep-alive stops however process ends, a panic included, so that the
// message is redelivered after the ack wait.
func (w *Worker) processKeptAlive(ctx context.Context, b binding, env Envelope, msg njs.Msg) error {
	stop := w.keepAlive(msg)
	defer stop()
	return b.process(ctx, env, msg)
}

// hold waits until a text of n bytes fits in max_inflight_bytes. The
// weight is the text as loaded, never a header's claim.
func (w *Worker) hold(ctx context.Context, n int) (release func(), err error) {
	if w.inflight == nil {
		return func() {}, nil
	}
	weight := min(max(int64(n), 1), w.cfg.MaxInflightBytes)
	if err := w.inflight.Acquire(ctx, weight); err != nil {
		return nil, err
	}
	return func() { w.inflight.Release(weight) }, nil
}

// keepAlive sends InProgress while long work runs, so it never outlives the ack wait.
func (w *Worker) keepAlive(msg njs.Msg) func() {
	done := make(chan struct{})
	every := max(w.cfg.AckWait/3, 100*time.Millisecond)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = msg.InProgress()
			}
		}
	}()
	return func() { close(done) }
}

// process runs the segment's stages on one document and publishes the
// outcome downstream. Only after that publish is acknowledged may the
// caller ack.
func (w *Worker) process(ctx context.Context, seg []stages.Key, env Envelope, text string) error {
	nodeKeys := seg
	guard := seg[len(seg)-1] == stages.KeyGuard
	if guard {
		nodeKeys = seg[:len(seg)-1]
	}
	if env.Pass == "" && len(nodeKeys) > 0 {
		release, err := w.hold(ctx, len(text))
		if err != nil {
			return err
		}
		defer release()
		req := pipeline.Request{Text: text, Kind: env.Kind, Mode: env.Mode, AllowLLM: env.AllowLLM, Log: env.Log}
		in, pass := w.pipe.Prepare(req)
		env.Kind, env.Mode, env.Log = in.Kind, in.Mode, in.Log
		if pass != "" {
			env.Pass = pass
		} else {
			out, reports, err := w.pipe.RunSegment(telemetry.WithCharsMemo(ctx), nodeKeys, in)
			if err != nil {
				return err // cancelled: redeliver
			}
			text = out
			env.Reports = append(env.Reports, reports...)
		}
	}
	if guard {
		return w.finish(ctx, env, text)
	}
	next, err := w.nextSegment(seg)
	if err != nil {
		return err
	}
	return w.forward(ctx, env, text, next, seg)
}

func (w *Worker) nextSegment(seg []stages.Key) (stages.Key, error) {
	last := seg[len(seg)-1]
	chain := ChainKeys()
	for i, k := range chain {
		if k == last && i+1 < len(chain) {
			return chain[i+1], nil
		}
	}
	return "", fmt.Errorf("%w: no segment after %s", errPermanent, last)
}

// verifyHop checks a work message against its document's stored
// original, the record, and returns the envelope to run with and the
// stored message. The hop must carry the original's nonce. Kind and mode
// may be the hop's (a replay may change them; the mode is capped by the
// operator's), the LLM is allowed only where the publisher allowed it,
// and the sizes are the original's.
func (w *Worker) verifyHop(ctx context.Context, hop Envelope) (Envelope, *njs.RawStreamMsg, error) {
	raw, err := lastOriginal(ctx, w.names, w.blobs, hop.DocID)
	if errors.Is(err, errOriginalMissing) && hop.Nonce == "" {
		// Every hop the fleet makes carries its original's nonce: one
		// without it has no original to wait for, and retrying it would
		// only hold the consumer (max_ack_pending) for max_deliver rounds.
		return hop, nil, fmt.Errorf("%w: %w", errPermanent, err)
	}
	if err != nil {
		return hop, nil, err
	}
	if subtle.ConstantTimeCompare([]byte(hop.Nonce), []byte(raw.Header.Get(HeaderNonce))) != 1 {
		return hop, nil, fmt.Errorf("%w: a hop of %s does not carry its original's nonce", errForged, hop.DocID)
	}
	stored, err := ReadEnvelope(raw.Header)
	if err != nil || stored.DocID != hop.DocID {
		if hop.Pass != "" {
			// A dead letter's hop of an original stored without an
			// envelope: it comes out as itself, and no stage runs.
			hop.AllowLLM = false
			return hop, raw, nil
		}
		return hop, nil, fmt.Errorf("%w: the stored original of %s has no envelope to check a hop against", errForged, hop.DocID)
	}
	env := hop
	env.Kind = cmp.Or(hop.Kind, stored.Kind)
	env.Mode = w.capMode(cmp.Or(hop.Mode, stored.Mode))
	env.AllowLLM = hop.AllowLLM && stored.AllowLLM
	env.OrigChars, env.OrigBytes, env.OrigRef = stored.OrigChars, stored.OrigBytes, stored.OrigRef
	env.Budget = cmp.Or(hop.Budget, stored.Budget) // a replay may change it, like the kind
	return env, raw, nil
}

// entryHop checks a hop a client published, a replay or a task's run:
// it must refer to its own stored original, and what only a later hop
// carries (a passthrough, an error, reports, a log analysis) is dropped.
// Whoever knows a document's nonce (a publisher may read originals) can
// so re-run it, never make a text of its own that document's result.
func entryHop(env Envelope) (Envelope, error) {
	switch {
	case env.Blob == originalBlobPrefix+env.DocID:
	case strings.HasPrefix(env.Blob, originalBlobPrefix):
		return env, fmt.Errorf("%w: a hop of %s refers to another original %q", errForged, env.DocID, truncate(env.Blob, 200))
	default:
		return env, fmt.Errorf("%w: a replay or task hop of %s must refer to its stored original (%s%s), not carry a text", errPermanent, env.DocID, originalBlobPrefix, env.DocID)
	}
	env.Pass, env.Error, env.Reports, env.Log = "", "", nil, logs.Layout{}
	return env, nil
}

// capMode applies the operator's mode to a document's: --mode wins over a
// document's LLM mode, a pipeline configured without the LLM runs every
// document without it, and a document may always ask for no LLM.
func (w *Worker) capMode(m stages.Mode) stages.Mode {
	configured := cmp.Or(w.mode, w.pipe.Config().Mode)
	switch {
	case m == "":
		return w.mode // "" = the pipeline's
	case !m.UsesLLM():
		return m
	case !configured.UsesLLM():
		return configured
	case w.mode != "":
		return w.mode
	}
	return m
}

// body returns the message text: inline, the document's own stored
// original, or a blob that belongs to this hop (hop is the consuming
// segment's first stage or task). The text shares the payload's buffer
// (payloadText), whatever its source.
func (w *Worker) body(ctx context.Context, env Envelope, msg njs.Msg, hop stages.Key, stored *njs.RawStreamMsg) (string, error) {
	switch {
	case env.Blob == "":
		return payloadText(msg.Data()), nil
	case env.Blob == originalBlobPrefix+env.DocID:
		// The first hop refers to the stored original instead of copying it.
		return originalText(ctx, w.blobs, env.DocID, stored.Header, stored.Data)
	case strings.HasPrefix(env.Blob, originalBlobPrefix):
		return "", fmt.Errorf("%w: a hop of %s refers to another original %q", errForged, env.DocID, truncate(env.Blob, 200))
	}
	owner := msgID(env.DocID, env.Attempt, hop)
	if env.Blob == owner && env.Nonce == "" {
		// A hop in flight from before names carried a digest (its
		// original has no nonce either): its own name, unchecked.
		data, err := w.blobs.work.GetBytes(ctx, env.Blob)
		if errors.Is(err, njs.ErrObjectNotFound) {
			return "", fmt.Errorf("%w: blob %s not found", errPermanent, env.Blob)
		}
		return payloadText(data), err
	}
	data, err := w.blobs.get(ctx, w.blobs.work, env.Blob, owner)
	return payloadText(data), err
}

// outgoing builds a message carrying env and text, moving a large text to
// the object store under a name of owner and the text's digest.
func (w *Worker) outgoing(ctx context.Context, subject string, env Envelope, text string, owner string) (*nats.Msg, error) {
	m := nats.NewMsg(subject)
	env.Blob = ""
	if len(text) > w.cfg.InlineMaxBytes {
		name := blobName(owner, textPayload(text))
		if err := w.blobs.put(ctx, w.blobs.work, name, textPayload(text)); err != nil {
			return nil, err
		}
		env.Blob = name
	} else {
		m.Data = textPayload(text)
	}
	if err := env.Write(m.Header); err != nil {
		return nil, fmt.Errorf("%w: %v", errPermanent, err)
	}
	w.prop.Inject(ctx, headerCarrier(m.Header))
	return m, nil
}

func (w *Worker) forward(ctx context.Context, env Envelope, text string, next stages.Key, seg []stages.Key) error {
	id := msgID(env.DocID, env.Attempt, next)
	m, err := w.outgoing(ctx, w.names.WorkSubject(next), env, text, id)
	if err != nil {
		return err
	}
	w.hookPublish(env.DocID, false)
	if _, err := w.js.PublishMsg(ctx, m, njs.WithMsgID(id)); err != nil {
		return fmt.Errorf("publish to %s: %w", next, err)
	}
	w.hookPublish(env.DocID, true)
	return nil
}

// finish applies the guard and publishes the result.
func (w *Worker) finish(ctx context.Context, env Envelope, text string) error {
	_, span := w.tracer.Start(ctx, telemetry.SpanName(stages.KeyGuard))
	defer span.End()
	outcome := pipeline.GuardKeptResult
	switch {
	case env.Pass != "":
		outcome = env.Pass // the text is the original, untouched
	case !pipeline.ShorterThan(text, env.OrigChars, env.OrigBytes):
		orig, err := w.Original(ctx, env.DocID)
		if err != nil {
			return err
		}
		outcome, text = pipeline.GuardKeptOriginal, w.pipe.KeptOriginal(orig) // decoded, as in process
	}
	// The budget applies after the guard, as in process (pipeline.Run),
	// here in the last segment, so fused and split fleets agree; a text
	// that passed through gets none.
	var budget *pipeline.BudgetReport
	if n := cmp.Or(env.Budget, w.pipe.Config().BudgetTokens); n > 0 && env.Pass == "" {
		var b pipeline.BudgetReport
		text, b = pipeline.FitBudget(text, n, env.Kind, 0)
		budget = &b
	}
	if span.IsRecording() {
		span.SetAttributes(
			telemetry.AttrCharsIn.Int(env.OrigChars),
			telemetry.AttrCharsOut.Int(stages.Chars(text)),
			telemetry.AttrGuard.String(outcome),
		)
	}
	return w.publishResultWith(ctx, env, text, outcome, env.Error, budget)
}

// publishResult writes a document's result without replacing another
// writer's: a first run's only where none is stored (a "no original"
// placeholder aside), a replay's over the result it read. Results are
// readable by publishers, so they never carry the nonce.
func (w *Worker) publishResult(ctx context.Context, env Envelope, text, outcome, permanentErr string) error {
	return w.publishResultWith(ctx, env, text, outcome, permanentErr, nil)
}

// publishResultWith is publishResult with what the budget folded, if any.
func (w *Worker) publishResultWith(ctx context.Context, env Envelope, text, outcome, permanentErr string, budget *pipeline.BudgetReport) error {
	env.Nonce = ""
	id := msgID(env.DocID, env.Attempt, "result")
	subject := w.names.ResultSubject(env.DocID)
	m, err := w.outgoing(ctx, subject, env, text, id)
	if err != nil {
		return err
	}
	m.Header.Set(HeaderGuard, outcome)
	if budget != nil {
		b, err := json.Marshal(budget)
		if err != nil {
			return fmt.Errorf("%w: %v", errPermanent, err)
		}
		m.Header.Set(HeaderBudgetReport, string(b))
	}
	if permanentErr != "" {
		m.Header.Set(HeaderError, truncate(permanentErr, maxReasonBytes))
	}
	var last uint64
	if env.Attempt > 0 {
		switch raw, err := w.blobs.resultsStream.GetLastMsgForSubject(ctx, subject); {
		case err == nil:
			last = raw.Sequence
		case !errors.Is(err, njs.ErrMsgNotFound):
			return fmt.Errorf("read result of %s: %w", env.DocID, err)
		}
	}
	w.hookPublish(env.DocID, false)
	for try := 0; ; try++ {
		_, err = w.js.PublishMsg(ctx, m, njs.WithMsgID(id), njs.WithExpectLastSequencePerSubject(last))
		if !isWrongLastSequence(err) || try == 3 {
			break
		}
		raw, gerr := w.blobs.resultsStream.GetLastMsgForSubject(ctx, subject)
		if gerr != nil {
			return fmt.Errorf("read result of %s: %w", env.DocID, gerr)
		}
		if env.Attempt == 0 && raw.Header.Get(HeaderGuard) != outcomeNoOriginal {
			err = nil // the stored result stands
			break
		}
		last = raw.Sequence
	}
	if err != nil {
		return fmt.Errorf("publish result: %w", err)
	}
	w.hookPublish(env.DocID, true)
	return nil
}

func (w *Worker) hookPublish(docID string, published bool) {
	if w.testHookPublish != nil {
		w.testHookPublish(docID, published)
	}
}

// outcomeNoOriginal marks the result of a dead-lettered document whose
// original is not stored: it has no text, only its error.
const outcomeNoOriginal = "failed, no original stored"

// errOriginalMissing: no original is stored (or visible) under an id.
var errOriginalMissing = errors.New("original missing")

// Original fetches a stored original by document id.
func (w *Worker) Original(ctx context.Context, docID string) (string, error) {
	return fetchOriginal(ctx, w.names, w.blobs, docID)
}

func fetchOriginal(ctx context.Context, n Names, b *blobs, docID string) (string, error) {
	text, _, err := fetchStoredOriginal(ctx, n, b, docID)
	return text, err
}

// fetchStoredOriginal returns a stored original's text and headers (its
// envelope as published).
func fetchStoredOriginal(ctx context.Context, n Names, b *blobs, docID string) (string, nats.Header, error) {
	raw, err := lastOriginal(ctx, n, b, docID)
	if err != nil {
		return "", nil, err
	}
	text, err := originalText(ctx, b, docID, raw.Header, raw.Data)
	return text, raw.Header, err
}

// lastOriginal returns the stored original message of a valid docID.
func lastOriginal(ctx context.Context, n Names, b *blobs, docID string) (*njs.RawStreamMsg, error) {
	if !ValidDocID(docID) {
		return nil, fmt.Errorf("%w: invalid document id %q", errForged, truncate(docID, 200))
	}
	var raw *njs.RawStreamMsg
	var err error
	// A pipeline document's original first, then a task's.
	for _, subject := range []string{n.OriginalSubject(docID), n.TaskOriginalSubject(docID)} {
		if raw, err = b.originalsStream.GetLastMsgForSubject(ctx, subject); !errors.Is(err, njs.ErrMsgNotFound) {
			break
		}
	}
	if errors.Is(err, njs.ErrMsgNotFound) {
		// Not permanent for a worker: a lagging replica may answer a direct
		// get, or a hop may overtake its original. Redelivery retries it;
		// after max_deliver the message is dead-lettered.
		return nil, fmt.Errorf("%w: original of %s not found (not visible yet, expired, or never stored)", errOriginalMissing, docID)
	}
	if err != nil {
		return nil, fmt.Errorf("get original %s: %w", docID, err)
	}
	return raw, nil
}

// originalText is the text of docID's stored original: its body, or the
// object its Jc-Blob header names in the originals object store, which
// must be docID's.
func originalText(ctx context.Context, b *blobs, docID string, h nats.Header, data []byte) (string, error) {
	if name := h.Get(HeaderBlob); name != "" {
		blob, err := b.get(ctx, b.originals, name, docID)
		return payloadText(blob), err
	}
	return payloadText(data), nil
}

// payloadText is a received payload as text, without copying it: nats.go
// gives every message (and every object read) a buffer of its own, and
// nothing here writes to one, so the text may share it.
func payloadText(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// textPayload is a text as a payload to publish, without copying it:
// publishing, hashing and storing only read a payload.
func textPayload(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// deadLetter records a message no retry can fix, with its reason, then
// emits the original as the document's result so nothing is lost, and
// terminates the message. Only a message that is its document's own (the
// stored original, or a hop with its nonce) makes a result. A dead letter
// that cannot be published is retried deadLetterTries times, then the
// message is terminated anyway, so no message can hold a consumer.
func (w *Worker) deadLetter(ctx context.Context, b binding, env Envelope, msg njs.Msg, cause error) {
	segName := b.label
	reason := truncate(cause.Error(), maxReasonBytes)
	dl := nats.NewMsg(b.dead)
	copyDeadLetterHeaders(dl.Header, msg.Headers())
	dl.Header.Set(HeaderReason, reason)
	dl.Header.Set(HeaderStage, b.label)
	if len(msg.Data()) <= w.cfg.InlineMaxBytes {
		dl.Data = msg.Data()
	}
	meta, _ := msg.Metadata()
	var opts []njs.PublishOpt
	key := ""
	if meta != nil {
		key = "dead:" + meta.Stream + ":" + strconv.FormatUint(meta.Sequence.Stream, 10)
		opts = append(opts, njs.WithMsgID(key))
	}
	if _, err := w.js.PublishMsg(ctx, dl, opts...); err != nil {
		if w.deadLetterFailed(key) < deadLetterTries {
			w.log.Warn("dead letter publish failed; will retry", "segment", segName, "doc", env.DocID, "error", err.Error())
			_ = msg.NakWithDelay(backoff(2))
			return
		}
		w.m.DeadLetterDropped(ctx, b.name)
		w.log.Error("dead letter could not be published; message terminated", "segment", segName, "doc", env.DocID,
			"tries", deadLetterTries, "reason", truncate(reason, 200), "error", err.Error())
	} else {
		w.m.DeadLettered(ctx, b.name)
		w.log.Warn("dead-lettered", "segment", segName, "doc", env.DocID, "reason", reason)
	}
	if env.DocID != "" && !errors.Is(cause, errForged) && b.viaGuard {
		if err := w.deadLetterToGuard(ctx, b, env, msg, reason); err != nil {
			w.log.Warn("result after dead letter failed; will retry", "doc", env.DocID, "error", err.Error())
			_ = msg.NakWithDelay(backoff(2))
			return
		}
	} else if env.DocID != "" && !errors.Is(cause, errForged) {
		// The document still comes out once: as its original, marked with
		// the error, or as the error alone when no original is stored.
		orig, stored, err := fetchStoredOriginal(ctx, w.names, w.blobs, env.DocID)
		outcome := "kept original: " + reason
		switch {
		case errors.Is(err, errOriginalMissing):
			orig, outcome, err = "", outcomeNoOriginal, nil
		case err == nil && !w.ownMessage(b, env.DocID, msg, stored):
			w.log.Warn("no result for a message that is not its document's own", "segment", segName, "doc", env.DocID)
			w.settleDead(msg, key, reason)
			return
		}
		if err == nil {
			err = w.publishResult(ctx, env, orig, outcome, reason)
		}
		if err != nil && !errors.Is(err, errPermanent) {
			w.log.Warn("result after dead letter failed; will retry", "doc", env.DocID, "error", err.Error())
			_ = msg.NakWithDelay(backoff(2))
			return
		}
	}
	w.settleDead(msg, key, reason)
}

// deadLetterToGuard hands the guard a hop that makes the dead-lettered
// document come out as its stored original, marked with reason (or as the
// error alone when no original is stored). A message that is not its
// document's own makes none.
func (w *Worker) deadLetterToGuard(ctx context.Context, b binding, env Envelope, msg njs.Msg, reason string) error {
	hop := Envelope{DocID: env.DocID, Attempt: env.Attempt, Blob: originalBlobPrefix + env.DocID, Pass: "kept original: " + reason, Error: reason}
	raw, err := lastOriginal(ctx, w.names, w.blobs, env.DocID)
	switch {
	case errors.Is(err, errOriginalMissing):
		hop.Blob, hop.Pass = "", outcomeNoOriginal
	case err != nil:
		return err
	case !w.ownMessage(b, env.DocID, msg, raw.Header):
		w.log.Warn("no result for a message that is not its document's own", "segment", b.label, "doc", env.DocID)
		return nil
	default:
		hop.Nonce = raw.Header.Get(HeaderNonce)
		if stored, err := ReadEnvelope(raw.Header); err == nil {
			hop.OrigChars, hop.OrigBytes, hop.OrigRef = stored.OrigChars, stored.OrigBytes, stored.OrigRef
		}
	}
	m := nats.NewMsg(w.names.WorkSubject(stages.KeyGuard))
	if err := hop.Write(m.Header); err != nil {
		return err
	}
	if _, err := w.js.PublishMsg(ctx, m, njs.WithMsgID(msgID(env.DocID, env.Attempt, stages.KeyGuard)+":dead")); err != nil {
		return fmt.Errorf("publish to %s: %w", stages.KeyGuard, err)
	}
	return nil
}

// ownMessage reports whether msg is docID's: its stored original itself,
// or a hop with the stored original's nonce.
func (w *Worker) ownMessage(b binding, docID string, msg njs.Msg, stored nats.Header) bool {
	if b.intake {
		return msg.Subject() == w.names.OriginalSubject(docID)
	}
	return subtle.ConstantTimeCompare([]byte(msg.Headers().Get(HeaderNonce)), []byte(stored.Get(HeaderNonce))) == 1
}

func (w *Worker) settleDead(msg njs.Msg, key, reason string) {
	w.deadLetterMu.Lock()
	delete(w.deadLetterFailures, key)
	w.deadLetterMu.Unlock()
	_ = msg.TermWithReason(truncate(reason, 200))
}

// deadLetterTries bounds the publishes of one dead letter.
const deadLetterTries = 3

// deadLetterFailed counts a failed dead-letter publish of the message key
// names and returns how many there were.
func (w *Worker) deadLetterFailed(key string) int {
	if key == "" {
		return deadLetterTries
	}
	w.deadLetterMu.Lock()
	defer w.deadLetterMu.Unlock()
	if w.deadLetterFailures == nil || len(w.deadLetterFailures) > 10000 {
		w.deadLetterFailures = map[string]int{}
	}
	w.deadLetterFailures[key]++
	return w.deadLetterFailures[key]
}

// Bounds of what a dead letter copies: a reason, each header value, and
// all headers together.
const (
	maxReasonBytes          = 1 << 10
	maxDeadHeaderValueBytes = 4 << 10
	maxDeadHeaderBytes      = 16 << 10
)

// copyDeadLetterHeaders copies a message's Jc-* headers but its nonce,
// within the bounds above: nothing a sender adds (Nats-Expected-*, a huge
// Jc-Report) can make the dead letter's own publish fail.
func copyDeadLetterHeaders(dst, src nats.Header) {
	total := 0
	for k, vs := range src {
		if !strings.HasPrefix(k, "Jc-") || k == HeaderNonce || len(vs) != 1 || len(vs[0]) > maxDeadHeaderValueBytes {
			continue
		}
		if total += len(k) + len(vs[0]); total > maxDeadHeaderBytes {
			return
		}
		dst[k] = vs
	}
}

func truncate(s string, n int) string { return stages.TruncateBytes(s, n) }

// headerCarrier adapts NATS headers to OpenTelemetry propagation with exact,
// case-sensitive names (http.Header would canonicalise them).
type headerCarrier nats.Header

func (c headerCarrier) Get(key string) string {
	if v := c[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c headerCarrier) Set(key, value string) { c[key] = []string{value} }

func (c headerCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}
