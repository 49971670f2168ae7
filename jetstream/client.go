package jetstream

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/telemetry"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// originalBlobPrefix marks a body that is the stored original itself.
const originalBlobPrefix = "orig:"

// Client publishes documents to the fleet and collects their results.
type Client struct {
	js     njs.JetStream
	cfg    Config
	names  Names
	blobs  *blobs
	tracer trace.Tracer
	prop   propagation.TextMapPropagator

	mu      sync.Mutex
	waiters map[string]chan offer
	watch   njs.ConsumeContext
	backlog backlogGate
	// nonce makes each original's nonce (tests fix it).
	nonce func() string
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithClientTracerProvider sets where publish spans go.
func WithClientTracerProvider(tp trace.TracerProvider) ClientOption {
	return func(c *Client) { c.tracer = tp.Tracer(tracerName) }
}

// NewClient returns a publisher client. The topology must exist: a client
// never creates or changes it, so a publisher's config cannot reset a fleet's.
func NewClient(ctx context.Context, js njs.JetStream, cfg Config, opts ...ClientOption) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Client{
		js: js, cfg: cfg, names: Names{cfg.Prefix},
		tracer:  tracenoop.NewTracerProvider().Tracer(tracerName),
		prop:    propagation.TraceContext{},
		waiters: map[string]chan offer{},
		nonce:   newNonce,
	}
	for _, o := range opts {
		o(c)
	}
	var err error
	if c.blobs, err = openBlobs(ctx, js, c.names); err != nil {
		if errors.Is(err, njs.ErrStreamNotFound) || errors.Is(err, njs.ErrBucketNotFound) {
			err = fmt.Errorf("%w: no topology under prefix %q; workers create it (or `worker --setup-only` with the fleet's config)", err, cfg.Prefix)
		}
		return nil, err
	}
	if cfg.MaxBacklog > 0 {
		intake, err := js.Consumer(ctx, c.names.OriginalsStream(), c.names.IntakeConsumer())
		if err != nil {
			return nil, fmt.Errorf("consumer %s: %w", c.names.IntakeConsumer(), err)
		}
		c.backlog = backlogGate{intake: intake, max: cfg.MaxBacklog}
	}
	return c, nil
}

// Stall says why a document may not have come back, from the intake
// consumer: no worker pulling from it, or how much it holds; "" when the
// intake cannot be read. ctx may have ended already (a --timeout).
func (c *Client) Stall(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	cons, err := c.js.Consumer(ctx, c.names.OriginalsStream(), c.names.IntakeConsumer())
	if err != nil {
		return ""
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return ""
	}
	if info.NumWaiting == 0 && info.NumAckPending == 0 {
		return fmt.Sprintf("no worker is pulling from consumer %s (documents waiting: %d): start workers with this fleet's config", info.Name, info.NumPending)
	}
	return fmt.Sprintf("consumer %s: documents not yet taken %d, in progress %d: the fleet is slower than --timeout allows", info.Name, info.NumPending, info.NumAckPending)
}

// backlogGate holds submissions back while fleet.max_backlog documents
// wait for the first segment. It reads the intake consumer's pending and
// unacknowledged counts now and then and counts its own admissions in
// between, so clients overshoot by at most what is in flight at a reading
// plus what the others submit between two.
type backlogGate struct {
	intake  njs.Consumer
	max     int
	mu      sync.Mutex
	waiting uint64
	checked time.Time
}

// The intake is read at most every backlogRefresh, or every backlogRecheck
// while the bound holds submissions back.
const (
	backlogRefresh = 200 * time.Millisecond
	backlogRecheck = 50 * time.Millisecond
)

// admit returns once the backlog is below max_backlog, or when ctx ends.
// An intake that cannot be read does not block: the originals stream's own
// limits still apply.
func (g *backlogGate) admit(ctx context.Context) error {
	if g.max <= 0 {
		return nil
	}
	delay := 10 * time.Millisecond
	for {
		g.mu.Lock()
		if age := time.Since(g.checked); age >= backlogRefresh || (g.waiting >= uint64(g.max) && age >= backlogRecheck) {
			info, err := g.intake.Info(ctx)
			if err != nil {
				waiting := g.waiting
				g.mu.Unlock()
				if ctx.Err() != nil {
					return g.waitErr(ctx, waiting)
				}
				return nil
			}
			g.waiting, g.checked = info.NumPending+uint64(info.NumAckPending), time.Now()
		}
		waiting := g.waiting
		if waiting < uint64(g.max) {
			g.waiting++
			g.mu.Unlock()
			return nil
		}
		g.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return g.waitErr(ctx, waiting)
		}
		delay = min(2*delay, backlogRecheck)
	}
}

func (g *backlogGate) waitErr(ctx context.Context, waiting uint64) error {
	return fmt.Errorf("%d documents wait for the fleet (max_backlog %d): %w", waiting, g.max, ctx.Err())
}

// Document is one text to compact.
type Document struct {
	ID       string // "" = derived from the text and the settings (DocumentID)
	Text     string
	Kind     stages.Kind
	Mode     stages.Mode
	AllowLLM bool
	// BudgetTokens caps the result's estimated tokens (pipeline.FitBudget),
	// applied by the fleet after the guard; 0 = the workers' budget_tokens.
	BudgetTokens int
	// Salt names what else shapes the result: the pipeline's config and
	// release (config.File.Fingerprint). The derived id covers it, so that
	// a changed config is a new document rather than a duplicate.
	Salt string
}

// Settings are everything but the text that shapes a document's result.
// The derived document id covers them all: the same text compacted in
// another mode, as another kind, with or without the LLM, by a task, or
// under another config is another document, never the earlier result.
type Settings struct {
	Kind     stages.Kind
	Mode     stages.Mode
	AllowLLM bool
	Task     string // "" = the pipeline
	Config   string // the pipeline's config and release (Document.Salt)
	Budget   int    // BudgetTokens: another budget is another result
	// Nonce, when set, makes the id unique (a session operation is never
	// a duplicate of an earlier one).
	Nonce string
}

// Settings returns the settings doc is compacted with by task ("" = the
// pipeline).
func (d Document) Settings(task string) Settings {
	return Settings{Kind: d.Kind, Mode: d.Mode, AllowLLM: d.AllowLLM, Task: task, Config: d.Salt, Budget: d.BudgetTokens}
}

// canonical encodes s unambiguously: one quoted value per field, in a
// fixed order, under a version tag.
func (s Settings) canonical() []byte {
	b := []byte("jetcompact document settings v1\n")
	for _, v := range []string{string(s.Kind), string(s.Mode), strconv.FormatBool(s.AllowLLM), s.Task, s.Config, s.Nonce, strconv.Itoa(s.Budget)} {
		b = strconv.AppendQuote(b, v)
		b = append(b, '\n')
	}
	return b
}

// DocumentID derives a stable id from the text and the settings it is
// compacted with: the same text under the same settings is the same
// document, which makes republishing idempotent.
func DocumentID(text string, s Settings) string {
	h := sha256.New()
	h.Write(s.canonical())
	h.Write([]byte{0})
	h.Write(textPayload(text))
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// Result is what the guard published for a document.
type Result struct {
	DocID  string
	Text   string
	Report pipeline.Report
	// Error is set when the document hit a permanent error; Text is then the original.
	Error string
}

// Compact submits doc and waits for its result.
func (c *Client) Compact(ctx context.Context, doc Document) (Result, error) {
	if doc.ID == "" {
		doc.ID = DocumentID(doc.Text, doc.Settings(""))
	}
	return c.run(ctx, doc, "")
}

// run registers for doc's result, submits it (to task, or to the pipeline
// when task is "") and waits for the result.
func (c *Client) run(ctx context.Context, doc Document, task string) (Result, error) {
	wait, err := c.expect(ctx, doc.ID, 0)
	if err != nil {
		return Result{}, err
	}
	dup, err := c.submit(ctx, doc, 0, task)
	if err != nil {
		c.forget(doc.ID)
		return Result{}, err
	}
	if dup {
		// Published before: its result may exist already.
		c.offerStoredResult(ctx, doc.ID)
	}
	return wait(ctx)
}

// Submit stores the original once; the first segment takes it from
// there. attempt > 0 re-runs a stored document (replay) through a work
// message that refers to the original.
func (c *Client) Submit(ctx context.Context, doc Document, attempt int) error {
	_, err := c.submit(ctx, doc, attempt, "")
	return err
}

// submit writes a document into the fleet once. A pipeline document's
// original, stored with the envelope, is itself the first hop (the intake
// consumer reads it); a task's original is stored aside and a work message
// refers to it, as does a replay. dup reports that the original was stored
// before (a republished document).
func (c *Client) submit(ctx context.Context, doc Document, attempt int, task string) (dup bool, err error) {
	if !ValidDocID(doc.ID) {
		return false, fmt.Errorf("%w: invalid document id %q (want 1-128 of A-Z a-z 0-9 _ -)", errPermanent, doc.ID)
	}
	if int64(len(doc.Text)) > c.cfg.MaxDocumentBytes {
		return false, fmt.Errorf("%w: document %s is %d bytes, above max_document_bytes %d", errPermanent, doc.ID, len(doc.Text), c.cfg.MaxDocumentBytes)
	}
	if doc.BudgetTokens != 0 {
		if _, err := ParseBudget(strconv.Itoa(doc.BudgetTokens)); err != nil {
			return false, fmt.Errorf("%w: budget of document %s: %v", errPermanent, doc.ID, err)
		}
	}
	chars := stages.Chars(doc.Text)
	ctx, span := c.tracer.Start(ctx, telemetry.PublishSpanName, trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(telemetry.AttrDocID.String(doc.ID), telemetry.AttrCharsIn.Int(chars)))
	defer span.End()
	origSubject := c.names.OriginalSubject(doc.ID)
	if task != "" {
		origSubject = c.names.TaskOriginalSubject(doc.ID)
	}
	env := Envelope{
		DocID: doc.ID, Kind: doc.Kind, Mode: doc.Mode, AllowLLM: doc.AllowLLM,
		OrigChars: chars, OrigBytes: len(doc.Text),
		OrigRef: origSubject, Attempt: attempt, Budget: doc.BudgetTokens,
	}
	if attempt == 0 {
		if task == "" {
			if err := c.backlog.admit(ctx); err != nil {
				return false, err
			}
		}
		if dup, env.Nonce, err = c.storeOriginal(ctx, doc, env); err != nil || task == "" {
			return dup, err
		}
	} else {
		// A replay's hop proves itself with the stored original's nonce.
		raw, err := lastOriginal(ctx, c.names, c.blobs, doc.ID)
		if err != nil {
			return false, err
		}
		env.Nonce = raw.Header.Get(HeaderNonce)
	}
	subject, hop := c.names.WorkSubject(c.cfg.Segments[0][0]), string(c.cfg.Segments[0][0])
	if task != "" {
		subject, hop = c.names.TaskSubject(task), "task_"+task
	}
	m := nats.NewMsg(subject)
	env.Blob = originalBlobPrefix + doc.ID
	if err := env.Write(m.Header); err != nil {
		return dup, err
	}
	c.prop.Inject(ctx, headerCarrier(m.Header))
	if _, err := c.publish(ctx, []outgoingMsg{{msg: m, id: msgID(doc.ID, attempt, stages.Key(hop))}}); err != nil {
		return dup, fmt.Errorf("publish %s: %w", doc.ID, err)
	}
	return dup, nil
}

// storeOriginal writes doc's original, with env and a new nonce in its
// headers, unless the stream holds it already (dup). It returns the
// stored original's nonce. An id that holds a different text is refused:
// an original is never replaced (the stream itself refuses a second
// message on a subject). A large text goes to the object store under a
// name of its content, so a refused one cannot overwrite the stored one's
// object either.
func (c *Client) storeOriginal(ctx context.Context, doc Document, env Envelope) (dup bool, nonce string, err error) {
	orig := nats.NewMsg(env.OrigRef)
	env.Nonce = c.nonce()
	if len(doc.Text) > c.cfg.InlineMaxBytes {
		env.Blob = blobName(doc.ID, textPayload(doc.Text))
		if err := c.blobs.put(ctx, c.blobs.originals, env.Blob, textPayload(doc.Text)); err != nil {
			return false, "", err
		}
	} else {
		orig.Data = textPayload(doc.Text)
	}
	if err := env.Write(orig.Header); err != nil {
		return false, "", err
	}
	c.prop.Inject(ctx, headerCarrier(orig.Header))
	acks, err := c.publish(ctx, []outgoingMsg{{msg: orig, id: doc.ID + ":original", firstOnSubject: true}})
	switch {
	case isWrongLastSequence(err):
		dup = true
	case err != nil:
		return false, "", fmt.Errorf("store original %s: %w", doc.ID, err)
	default:
		dup = acks[0].Duplicate
	}
	if !dup {
		return false, env.Nonce, nil
	}
	stored, header, err := fetchStoredOriginal(ctx, c.names, c.blobs, doc.ID)
	if err != nil {
		return true, "", fmt.Errorf("compare with the stored original %s: %w", doc.ID, err)
	}
	if stored != doc.Text {
		if env.Blob != "" && env.Blob != header.Get(HeaderBlob) {
			_ = c.blobs.originals.Delete(ctx, env.Blob) // ours: its name is our text's
		}
		return true, "", fmt.Errorf("%w: document id %s already holds a different original (%d bytes stored, %d given); originals are never replaced, so use another id",
			errPermanent, doc.ID, len(stored), len(doc.Text))
	}
	return true, header.Get(HeaderNonce), nil
}

// isWrongLastSequence reports the server refusing a publish whose subject
// already holds a message: an expected-sequence check (code 10071, or
// 10164 on a replicated stream), or a stream that keeps the first message
// per subject (discard new per subject).
func isWrongLastSequence(err error) bool {
	var apiErr *njs.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	return apiErr.ErrorCode == njs.JSErrCodeStreamWrongLastSequence || apiErr.ErrorCode == njs.JSErrCodeStreamWrongLastSequenceConstant ||
		(apiErr.ErrorCode == jsErrCodeStreamStoreFailed && strings.Contains(apiErr.Description, "maximum messages per subject exceeded"))
}

// jsErrCodeStreamStoreFailed is the server's code for a message it could
// not store, a full subject among the reasons.
const jsErrCodeStreamStoreFailed njs.ErrorCode = 10077

type outgoingMsg struct {
	msg *nats.Msg
	id  string
	// firstOnSubject publishes only if the subject holds no message yet.
	firstOnSubject bool
}

// ackTimeout bounds the wait for one publish acknowledgement before the
// publish is repeated (a lost reply, a dropped connection).
const ackTimeout = 5 * time.Second

// publish sends msgs together and waits for every acknowledgement. Until ctx
// ends it repeats the whole set after a failure, a full stream (JetStream
// limits slow the publisher down instead of a buffer growing) or a lost
// acknowledgement: message ids make every repeat idempotent.
func (c *Client) publish(ctx context.Context, msgs []outgoingMsg) ([]*njs.PubAck, error) {
	delay := 100 * time.Millisecond
	for {
		acks, err := c.publishOnce(ctx, msgs)
		if err == nil {
			return acks, nil
		}
		if ctx.Err() != nil || errors.Is(err, nats.ErrMaxPayload) || errors.Is(err, nats.ErrBadSubject) || isWrongLastSequence(err) {
			return nil, err
		}
		select {
		case <-time.After(delay/2 + time.Duration(rand.Int64N(int64(delay/2)))):
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
		}
		delay = min(2*delay, 5*time.Second)
	}
}

func (c *Client) publishOnce(ctx context.Context, msgs []outgoingMsg) ([]*njs.PubAck, error) {
	futures := make([]njs.PubAckFuture, 0, len(msgs))
	for _, m := range msgs {
		opts := []njs.PublishOpt{njs.WithMsgID(m.id)}
		if m.firstOnSubject {
			opts = append(opts, njs.WithExpectLastSequencePerSubject(0))
		}
		f, err := c.js.PublishMsgAsync(m.msg, opts...)
		if err != nil {
			return nil, err
		}
		futures = append(futures, f)
	}
	timer := time.NewTimer(ackTimeout)
	defer timer.Stop()
	acks := make([]*njs.PubAck, 0, len(futures))
	for _, f := range futures {
		select {
		case ack := <-f.Ok():
			acks = append(acks, ack)
		case err := <-f.Err():
			return nil, err
		case <-timer.C:
			return nil, errors.New("no publish acknowledgement within " + ackTimeout.String())
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return acks, nil
}

// offer is a result handed to a waiter: one just published, or the one
// stored for a republished document (of whatever attempt: a replay's
// result replaces the first).
type offer struct {
	raw    *njs.RawStreamMsg
	stored bool
}

// expect registers interest in docID's result before it is published, and
// returns a function that waits for the result of exactly attempt (or the
// stored one, when offered), on docID's own result subject.
func (c *Client) expect(ctx context.Context, docID string, attempt int) (func(context.Context) (Result, error), error) {
	if err := c.startWatch(ctx); err != nil {
		return nil, err
	}
	ch := make(chan offer, 4)
	c.mu.Lock()
	c.waiters[docID] = ch
	c.mu.Unlock()
	return func(ctx context.Context) (Result, error) {
		defer c.forget(docID)
		for {
			select {
			case <-ctx.Done():
				return Result{}, fmt.Errorf("waiting for result of %s: %w", docID, ctx.Err())
			case o := <-ch:
				if o.raw.Subject != c.names.ResultSubject(docID) {
					continue // another document's result naming this one
				}
				res, got, err := c.decodeResult(ctx, o.raw)
				if (got != attempt && !o.stored) || (err == nil && res.DocID != docID) {
					continue
				}
				return res, err
			}
		}
	}, nil
}

// offerStoredResult hands an already stored result of docID to its waiter.
func (c *Client) offerStoredResult(ctx context.Context, docID string) {
	raw, err := c.blobs.resultsStream.GetLastMsgForSubject(ctx, c.names.ResultSubject(docID))
	if err != nil {
		return
	}
	c.mu.Lock()
	ch := c.waiters[docID]
	c.mu.Unlock()
	if ch != nil {
		select {
		case ch <- offer{raw: raw, stored: true}:
		default:
		}
	}
}

func (c *Client) forget(docID string) {
	c.mu.Lock()
	delete(c.waiters, docID)
	c.mu.Unlock()
}

func (c *Client) startWatch(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.watch != nil {
		return nil
	}
	cons, err := c.js.OrderedConsumer(ctx, c.names.ResultsStream(), njs.OrderedConsumerConfig{
		FilterSubjects: []string{c.names.Prefix + ".result.>"},
		DeliverPolicy:  njs.DeliverNewPolicy,
	})
	if err != nil {
		return fmt.Errorf("watch results: %w", err)
	}
	cc, err := cons.Consume(func(msg njs.Msg) {
		id := msg.Headers().Get(HeaderDocID)
		c.mu.Lock()
		ch := c.waiters[id]
		c.mu.Unlock()
		if ch == nil {
			return
		}
		raw := &njs.RawStreamMsg{Subject: msg.Subject(), Header: msg.Headers(), Data: msg.Data()}
		select {
		case ch <- offer{raw: raw}:
		default:
		}
	}, njs.PullExpiry(pullExpiry)) // a watch on a failed node is replaced within pullExpiry
	if err != nil {
		return fmt.Errorf("watch results: %w", err)
	}
	c.watch = cc
	return nil
}

// Close stops watching results.
func (c *Client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.watch != nil {
		c.watch.Stop()
		c.watch = nil
	}
}

func (c *Client) decodeResult(ctx context.Context, raw *njs.RawStreamMsg) (Result, int, error) {
	env, err := ReadEnvelope(raw.Header)
	if err != nil {
		return Result{}, 0, err
	}
	if raw.Header.Get(HeaderGuard) == outcomeNoOriginal {
		return Result{}, env.Attempt, fmt.Errorf("%w: document %s failed and no original is stored under its id: %s", errPermanent, env.DocID, raw.Header.Get(HeaderError))
	}
	text := string(raw.Data)
	if env.Blob != "" {
		data, err := c.blobs.get(ctx, c.blobs.work, env.Blob, msgID(env.DocID, env.Attempt, "result"))
		if err != nil {
			return Result{}, 0, err
		}
		text = string(data)
	}
	rep := pipeline.Report{
		Kind: env.Kind, Mode: env.Mode, Nodes: env.Reports,
		CharsIn: env.OrigChars, CharsOut: stages.Chars(text), Guard: raw.Header.Get(HeaderGuard),
	}
	if b := raw.Header.Get(HeaderBudgetReport); b != "" {
		var budget pipeline.BudgetReport
		if err := json.Unmarshal([]byte(b), &budget); err != nil {
			return Result{}, 0, fmt.Errorf("%w: %s: %v", errBadEnvelope, HeaderBudgetReport, err)
		}
		rep.Budget = &budget
	}
	return Result{DocID: env.DocID, Text: text, Report: rep, Error: raw.Header.Get(HeaderError)}, env.Attempt, nil
}

// RunTask sends doc to the named whole-document task (see WithTasks) and
// waits for its result. The document's original is stored like any other.
func (c *Client) RunTask(ctx context.Context, task string, doc Document) (Result, error) {
	if !slices.Contains(c.cfg.Tasks, task) {
		return Result{}, fmt.Errorf("unknown task %q (configured: %v)", task, c.cfg.Tasks)
	}
	if doc.ID == "" {
		doc.ID = DocumentID(doc.Text, doc.Settings(task))
	}
	return c.run(ctx, doc, task)
}

// Original returns a stored original, unchanged.
func (c *Client) Original(ctx context.Context, docID string) (string, error) {
	if !ValidDocID(docID) {
		return "", fmt.Errorf("invalid document id %q", docID)
	}
	text, err := fetchOriginal(ctx, c.names, c.blobs, docID)
	if errors.Is(err, errOriginalMissing) {
		return "", fmt.Errorf("%w: %w", errPermanent, err)
	}
	return text, err
}

// Replay re-runs a stored original through the current pipeline and
// waits for the new result. The original is not modified.
func (c *Client) Replay(ctx context.Context, docID string, doc Document) (Result, error) {
	text, header, err := fetchStoredOriginal(ctx, c.names, c.blobs, docID)
	if err != nil {
		return Result{}, err
	}
	doc.ID, doc.Text = docID, text
	if stored, err := ReadEnvelope(header); err == nil {
		// As published, unless the caller says otherwise; a replay never
		// lets the LLM see a document its publisher kept from it.
		doc.Kind = cmp.Or(doc.Kind, stored.Kind)
		doc.Mode = cmp.Or(doc.Mode, stored.Mode)
		doc.AllowLLM = doc.AllowLLM && stored.AllowLLM
		doc.BudgetTokens = cmp.Or(doc.BudgetTokens, stored.Budget)
	}
	attempt := int(time.Now().UnixMilli() % (1 << 40))
	wait, err := c.expect(ctx, docID, attempt)
	if err != nil {
		return Result{}, err
	}
	if err := c.Submit(ctx, doc, attempt); err != nil {
		c.forget(docID)
		return Result{}, err
	}
	return wait(ctx)
}

// DeadLetter is one message the fleet gave up on.
type DeadLetter struct {
	DocID, Stage, Reason string
	Sequence             uint64
}

// DeadLetters lists the dead-letter stream.
func (c *Client) DeadLetters(ctx context.Context) ([]DeadLetter, error) {
	st, err := c.js.Stream(ctx, c.names.DeadStream())
	if err != nil {
		return nil, err
	}
	info, err := st.Info(ctx)
	if err != nil {
		return nil, err
	}
	var out []DeadLetter
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		raw, err := st.GetMsg(ctx, seq)
		if errors.Is(err, njs.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, DeadLetter{DocID: raw.Header.Get(HeaderDocID), Stage: raw.Header.Get(HeaderStage), Reason: raw.Header.Get(HeaderReason), Sequence: seq})
	}
	return out, nil
}
