package jetstream

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/internal/poll"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/telemetry"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestOneTracePerDocumentWithNodeSpans: split into a consumer per stage
// or fused into one, a document yields one trace from publisher to guard,
// with one span per node carrying the right character counts, and the same
// node spans either way.
func TestOneTracePerDocumentWithNodeSpans(t *testing.T) {
	counts := map[string]map[string][2]int64{}
	for name, segs := range map[string][][]stages.Key{"split": SplitSegments(), "fused": FusedSegments()} {
		t.Run(name, func(t *testing.T) { counts[name] = traceOneDocument(t, segs) })
	}
	if len(counts["split"]) == 0 || !reflect.DeepEqual(counts["split"], counts["fused"]) {
		t.Errorf("node spans differ between split and fused:\nsplit %v\nfused %v", counts["split"], counts["fused"])
	}
}

// traceOneDocument runs one document through a fleet of segs, checks its
// trace and returns each node span's characters in and out.
func traceOneDocument(t *testing.T, segs [][]stages.Key) map[string][2]int64 {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	cfg := DefaultConfig()
	cfg.Segments = segs
	f := startFleet(t, cfg)
	deco, err := telemetry.Decorator(tp, metricnoop.NewMeterProvider())
	if err != nil {
		t.Fatal(err)
	}
	f.pipe, err = pipeline.New(pipeline.DefaultConfig(), stages.Deps{}, pipeline.WithDecorator(deco))
	if err != nil {
		t.Fatal(err)
	}
	f.worker(cfg.Segments, WithTracerProvider(tp))
	c, err := NewClient(context.Background(), f.js, cfg, WithClientTracerProvider(tp))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	text := testDocs(1)[0]
	res, err := c.Compact(ctx, Document{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	// The guard span ends after its publish, each segment's after its ack.
	poll.Require(t, 5*time.Second, "guard and segment spans ended", func() bool {
		guard, segments := false, 0
		for _, s := range rec.Ended() {
			guard = guard || s.Name() == "jetcompact.node "+string(stages.KeyGuard)
			if strings.HasPrefix(s.Name(), "jetcompact.segment ") {
				segments++
			}
		}
		return guard && segments >= len(cfg.Segments)
	})
	spans := rec.Ended()
	var root sdktrace.ReadOnlySpan
	nodeSpans := map[string]sdktrace.ReadOnlySpan{}
	segments := 0
	for _, s := range spans {
		switch {
		case s.Name() == "jetcompact.publish":
			root = s
		case strings.HasPrefix(s.Name(), "jetcompact.node "):
			if _, dup := nodeSpans[s.Name()]; dup {
				t.Errorf("two spans named %s", s.Name())
			}
			nodeSpans[s.Name()] = s
		case strings.HasPrefix(s.Name(), "jetcompact.segment "):
			segments++
		}
	}
	if root == nil {
		t.Fatal("no publish span")
	}
	if segments != len(cfg.Segments) {
		t.Errorf("%d segment spans, want %d", segments, len(cfg.Segments))
	}
	for _, s := range spans {
		if s.SpanContext().TraceID() != root.SpanContext().TraceID() {
			t.Errorf("span %s is in another trace", s.Name())
		}
	}
	byKey := map[stages.Key]pipeline.NodeReport{}
	for _, n := range res.Report.Nodes {
		byKey[n.Key] = n
	}
	for _, spec := range stages.Specs() {
		rep := byKey[spec.Key]
		s, ok := nodeSpans[telemetry.SpanName(spec.Key)]
		if rep.Reason == "disabled in config" {
			if ok {
				t.Errorf("disabled node %s has a span", spec.Key)
			}
			continue
		}
		if !ok {
			t.Errorf("no span for node %s", spec.Key)
			continue
		}
		attrs := map[string]int64{}
		for _, a := range s.Attributes() {
			attrs[string(a.Key)] = a.Value.AsInt64()
		}
		if attrs[string(telemetry.AttrCharsIn)] != int64(rep.CharsIn) || attrs[string(telemetry.AttrCharsOut)] != int64(rep.CharsOut) {
			t.Errorf("%s span chars %d->%d, report %d->%d", spec.Key, attrs[string(telemetry.AttrCharsIn)], attrs[string(telemetry.AttrCharsOut)], rep.CharsIn, rep.CharsOut)
		}
		for _, a := range s.Attributes() {
			if a.Value.Type().String() == "STRING" && len(a.Value.AsString()) > 200 {
				t.Errorf("%s span attribute %s looks like raw text", spec.Key, a.Key)
			}
		}
	}
	if _, ok := nodeSpans[telemetry.SpanName(stages.KeyGuard)]; !ok {
		t.Error("no guard span")
	}
	counts := map[string][2]int64{}
	for name, s := range nodeSpans {
		attrs := map[string]int64{}
		for _, a := range s.Attributes() {
			attrs[string(a.Key)] = a.Value.AsInt64()
		}
		counts[name] = [2]int64{attrs[string(telemetry.AttrCharsIn)], attrs[string(telemetry.AttrCharsOut)]}
	}
	return counts
}
