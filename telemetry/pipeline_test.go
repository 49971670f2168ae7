package telemetry

import (
	"context"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestSpansCountTheTextAsItIs: nodes run with fenced code stashed, but a
// node's span counts the document as the report does, fences included.
func TestSpansCountTheTextAsItIs(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	deco, err := Decorator(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), metricnoop.NewMeterProvider())
	if err != nil {
		t.Fatal(err)
	}
	p, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{}, pipeline.WithDecorator(deco))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("2024-01-01 10:00:00 INFO served   request  in 3ms\n", 40) +
		"```go\nfunc main() {\n\tprintln(\"héllo   wörld\")\n}\n```\n" +
		strings.Repeat("2024-01-01 10:00:01 WARN slow  disk   on node-7\n", 40)
	res, err := p.Compact(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	spans := map[string]map[string]int64{}
	for _, s := range rec.Ended() {
		attrs := map[string]int64{}
		for _, a := range s.Attributes() {
			attrs[string(a.Key)] = a.Value.AsInt64()
		}
		spans[s.Name()] = attrs
	}
	ran := 0
	for _, n := range res.Report.Nodes {
		attrs, ok := spans[SpanName(n.Key)]
		if !ok {
			continue // disabled nodes have no span
		}
		ran++
		if attrs[string(AttrCharsIn)] != int64(n.CharsIn) || attrs[string(AttrCharsOut)] != int64(n.CharsOut) {
			t.Errorf("%s: span chars %d->%d, report %d->%d", n.Key, attrs[string(AttrCharsIn)], attrs[string(AttrCharsOut)], n.CharsIn, n.CharsOut)
		}
	}
	if ran < 5 || res.Report.CharsOut >= res.Report.CharsIn {
		t.Fatalf("%d node spans, %d -> %d chars: the document did not exercise the nodes", ran, res.Report.CharsIn, res.Report.CharsOut)
	}
}
