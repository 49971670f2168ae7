// Package telemetry records what the compaction nodes do: a decorator that
// wraps any node in a span and metrics, and the providers behind them.
package telemetry

import (
	"context"
	"sync"
	"time"

	"github.com/jetcompact/jetcompact/stages"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

const scope = "github.com/jetcompact/jetcompact/telemetry"

// Span attribute keys. No text ever goes into a span: counts, keys and reasons only.
const (
	AttrNode = attribute.Key("jetcompact.node")
	// MetricNode labels node metrics: short, as Prometheus labels are.
	MetricNode   = attribute.Key("node")
	AttrCharsIn  = attribute.Key("jetcompact.chars_in")
	AttrCharsOut = attribute.Key("jetcompact.chars_out")
	AttrSkipped  = attribute.Key("jetcompact.skipped")
	AttrReason   = attribute.Key("jetcompact.skip_reason")
	AttrKind     = attribute.Key("jetcompact.kind")
	AttrMode     = attribute.Key("jetcompact.mode")
	AttrModel    = attribute.Key("jetcompact.llm.model")
	AttrPromptT  = attribute.Key("jetcompact.llm.prompt_tokens")
	AttrComplT   = attribute.Key("jetcompact.llm.completion_tokens")
	AttrRetries  = attribute.Key("jetcompact.llm.retries")
	AttrCacheHit = attribute.Key("jetcompact.llm.cache_hit")
	AttrLatency  = attribute.Key("jetcompact.llm.latency_ms")
	// AttrRedactions counts secrets replaced, by kind ("kind=n ..."): by
	// the redact node, or before an LLM request.
	AttrRedactions = attribute.Key("jetcompact.redactions")
)

// SpanName is the span name of a node.
func SpanName(k stages.Key) string { return "jetcompact.node " + string(k) }

// Decorator returns a function that wraps a node so each Apply records a
// span (characters in and out, skipped and why) and node metrics.
func Decorator(tp trace.TracerProvider, mp metric.MeterProvider) (func(stages.Node) stages.Node, error) {
	tracer := tp.Tracer(scope)
	m := mp.Meter(scope)
	charsIn, err := m.Int64Counter("jetcompact.node.chars_in", metric.WithDescription("Characters into a node"))
	if err != nil {
		return nil, err
	}
	charsOut, err := m.Int64Counter("jetcompact.node.chars_out", metric.WithDescription("Characters out of a node"))
	if err != nil {
		return nil, err
	}
	errs, err := m.Int64Counter("jetcompact.node.errors", metric.WithDescription("Node errors (input passed on unchanged)"))
	if err != nil {
		return nil, err
	}
	dur, err := m.Float64Histogram("jetcompact.node.duration", metric.WithUnit("s"), metric.WithDescription("Time in a node"))
	if err != nil {
		return nil, err
	}
	return func(n stages.Node) stages.Node {
		// Series start at zero, so a rate over a node's errors exists before its first one.
		errs.Add(context.Background(), 0, metric.WithAttributes(MetricNode.String(string(n.Key()))))
		return &tracedNode{next: n, tracer: tracer, charsIn: charsIn, charsOut: charsOut, errs: errs, dur: dur,
			nodeAttr: metric.WithAttributes(MetricNode.String(string(n.Key())))}
	}, nil
}

type tracedNode struct {
	next              stages.Node
	tracer            trace.Tracer
	charsIn, charsOut metric.Int64Counter
	errs              metric.Int64Counter
	dur               metric.Float64Histogram
	nodeAttr          metric.MeasurementOption // the node's label, made once
}

func (t *tracedNode) Key() stages.Key { return t.next.Key() }

func (t *tracedNode) Apply(ctx context.Context, in stages.Input) (stages.Outcome, error) {
	key := t.next.Key()
	ctx, span := t.tracer.Start(ctx, SpanName(key), trace.WithAttributes(
		AttrNode.String(string(key)), AttrKind.String(string(in.Kind)), AttrMode.String(string(in.Mode)),
	))
	defer span.End()
	start := time.Now()
	// Counting runes reads the whole text: only when a span or the
	// counters take the count.
	counted := span.IsRecording() || t.charsIn.Enabled(ctx) || t.charsOut.Enabled(ctx)
	memo, _ := ctx.Value(charsMemoKey{}).(*charsMemo)
	cin := 0
	if counted {
		cin = memo.chars(in.Text)
	}
	out, err := t.next.Apply(ctx, in)
	nodeAttr := t.nodeAttr
	t.dur.Record(ctx, time.Since(start).Seconds(), nodeAttr)
	if err != nil {
		t.errs.Add(ctx, 1, nodeAttr)
		if counted {
			t.charsIn.Add(ctx, int64(cin), nodeAttr)
			span.SetAttributes(AttrCharsIn.Int(cin))
		}
		span.SetStatus(codes.Error, "node error")
		return out, err
	}
	if counted {
		cout := cin
		if out.Text != in.Text {
			cout = out.Chars
			if cout == 0 {
				cout = stages.Chars(out.Text)
				out.Chars = cout // the pipeline's report need not count it again
			}
		}
		memo.keep(out.Text, cout)
		t.charsIn.Add(ctx, int64(cin), nodeAttr)
		t.charsOut.Add(ctx, int64(cout), nodeAttr)
		span.SetAttributes(AttrCharsIn.Int(cin), AttrCharsOut.Int(cout))
	}
	span.SetAttributes(AttrSkipped.Bool(out.Skipped))
	if out.Reason != "" {
		span.SetAttributes(AttrReason.String(out.Reason))
	}
	if u := out.LLM; u != nil {
		span.SetAttributes(AttrModel.String(u.Model), AttrPromptT.Int(u.PromptTokens), AttrComplT.Int(u.CompletionTokens),
			AttrRetries.Int(u.Retries), AttrCacheHit.Bool(u.CacheHit), AttrLatency.Int64(u.LatencyMS))
		if u.Redactions != "" {
			span.SetAttributes(AttrRedactions.String(u.Redactions))
		}
	}
	if out.Redactions != "" {
		span.SetAttributes(AttrRedactions.String(out.Redactions))
	}
	return out, nil
}

type charsMemoKey struct{}

// charsMemo carries a node's output count to the next node's input.
type charsMemo struct {
	mu    sync.Mutex
	text  string
	count int
}

// WithCharsMemo lets the decorated nodes of one document's run, applied
// in turn, take each input's character count from the previous node's
// output instead of counting the text again.
func WithCharsMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, charsMemoKey{}, &charsMemo{count: -1})
}

func (m *charsMemo) chars(text string) int {
	if m != nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.count >= 0 && m.text == text { // usually the very string: equal pointers compare at once
			return m.count
		}
	}
	return stages.Chars(text)
}

func (m *charsMemo) keep(text string, count int) {
	if m != nil {
		m.mu.Lock()
		m.text, m.count = text, count
		m.mu.Unlock()
	}
}
