package telemetry

import (
	"context"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
	"go.opentelemetry.io/otel/attribute"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

type llmNode struct{}

func (llmNode) Key() stages.Key { return stages.KeyLLMSummary }
func (llmNode) Apply(_ context.Context, in stages.Input) (stages.Outcome, error) {
	return stages.Outcome{Text: "short", LLM: &stages.LLMUsage{Model: "m", PromptTokens: 120, CompletionTokens: 7, Retries: 1, CacheHit: false, LatencyMS: 42}}, nil
}

func TestDecoratorRecordsCountsAndUsageButNoText(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	deco, err := Decorator(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), metricnoop.NewMeterProvider())
	if err != nil {
		t.Fatal(err)
	}
	secretText := "the quick brown fox is a secret"
	if _, err := deco(llmNode{}).Apply(context.Background(), stages.Input{Text: secretText, Kind: stages.KindProse}); err != nil {
		t.Fatal(err)
	}
	spans := rec.Ended()
	if len(spans) != 1 || spans[0].Name() != SpanName(stages.KeyLLMSummary) {
		t.Fatalf("spans = %v", spans)
	}
	attrs := map[attribute.Key]attribute.Value{}
	for _, a := range spans[0].Attributes() {
		attrs[a.Key] = a.Value
		if a.Value.Type() == attribute.STRING && a.Value.AsString() == secretText {
			t.Errorf("attribute %s carries the text", a.Key)
		}
	}
	want := map[attribute.Key]int64{AttrCharsIn: int64(stages.Chars(secretText)), AttrCharsOut: 5, AttrPromptT: 120, AttrComplT: 7, AttrRetries: 1, AttrLatency: 42}
	for k, v := range want {
		if attrs[k].AsInt64() != v {
			t.Errorf("%s = %v, want %d", k, attrs[k].String(), v)
		}
	}
}
