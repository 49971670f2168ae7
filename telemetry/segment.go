package telemetry

import (
	"context"
	"errors"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Span attribute keys of the fleet's segment and guard spans.
const (
	AttrSegment          = attribute.Key("jetcompact.segment")
	AttrDelivery         = attribute.Key("jetcompact.delivery")
	AttrDocID            = attribute.Key("jetcompact.doc_id")
	AttrDeadLetterReason = attribute.Key("jetcompact.dead_letter_reason")
	AttrGuard            = attribute.Key("jetcompact.guard")
	// MetricSegment labels segment metrics with the segment's short name.
	MetricSegment = attribute.Key("segment")
)

// PublishSpanName is the span of a document's publish.
const PublishSpanName = "jetcompact.publish"

// SegmentSpanName is the span name of one message a segment handles.
func SegmentSpanName(segment string) string { return "jetcompact.segment " + segment }

// SegmentMetrics counts what a worker does with each segment's messages,
// labelled by the segment's short name (MetricSegment).
type SegmentMetrics struct {
	documents, redeliveries, retries, deadLetters, deadLettersDropped metric.Int64Counter
	labels                                                            sync.Map // segment name -> metric.MeasurementOption
}

// label is a segment's metric label, made once per segment.
func (m *SegmentMetrics) label(segment string) metric.MeasurementOption {
	if o, ok := m.labels.Load(segment); ok {
		return o.(metric.MeasurementOption)
	}
	o, _ := m.labels.LoadOrStore(segment, metric.WithAttributes(MetricSegment.String(segment)))
	return o.(metric.MeasurementOption)
}

// NewSegmentMetrics creates the segment counters on mp.
func NewSegmentMetrics(mp metric.MeterProvider) (*SegmentMetrics, error) {
	m := mp.Meter(scope)
	var sm SegmentMetrics
	var errs [5]error
	sm.documents, errs[0] = m.Int64Counter("jetcompact.segment.documents", metric.WithDescription("Documents (messages) a segment received, redeliveries included"))
	sm.redeliveries, errs[1] = m.Int64Counter("jetcompact.segment.redeliveries", metric.WithDescription("Documents a segment received more than once"))
	sm.retries, errs[2] = m.Int64Counter("jetcompact.segment.errors", metric.WithDescription("Transient errors of a segment; each message was retried with backoff"))
	sm.deadLetters, errs[3] = m.Int64Counter("jetcompact.segment.dead_letters", metric.WithDescription("Dead letters a segment published (permanent errors)"))
	sm.deadLettersDropped, errs[4] = m.Int64Counter("jetcompact.segment.dead_letters_dropped", metric.WithDescription("Dead letters a segment could not publish; their messages were terminated"))
	return &sm, errors.Join(errs[:]...)
}

// Start zero-initialises a segment's series, so that a rate over its
// errors and dead letters exists before the first one.
func (m *SegmentMetrics) Start(segment string) {
	attrs := m.label(segment)
	for _, c := range []metric.Int64Counter{m.documents, m.redeliveries, m.retries, m.deadLetters, m.deadLettersDropped} {
		c.Add(context.Background(), 0, attrs)
	}
}

// Received counts a message; delivery is its delivery count.
func (m *SegmentMetrics) Received(ctx context.Context, segment string, delivery uint64) {
	attrs := m.label(segment)
	m.documents.Add(ctx, 1, attrs)
	if delivery > 1 {
		m.redeliveries.Add(ctx, 1, attrs)
	}
}

// Retried counts a transient error.
func (m *SegmentMetrics) Retried(ctx context.Context, segment string) {
	m.retries.Add(ctx, 1, m.label(segment))
}

// DeadLettered counts a published dead letter.
func (m *SegmentMetrics) DeadLettered(ctx context.Context, segment string) {
	m.deadLetters.Add(ctx, 1, m.label(segment))
}

// DeadLetterDropped counts a dead letter that could not be published.
func (m *SegmentMetrics) DeadLetterDropped(ctx context.Context, segment string) {
	m.deadLettersDropped.Add(ctx, 1, m.label(segment))
}
