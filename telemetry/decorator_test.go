package telemetry

import (
	"context"
	"slices"
	"strings"
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

// halfNode keeps the first half of its input's runes.
type halfNode struct{ key stages.Key }

func (h halfNode) Key() stages.Key { return h.key }
func (halfNode) Apply(_ context.Context, in stages.Input) (stages.Outcome, error) {
	r := []rune(in.Text)
	return stages.Outcome{Text: string(r[:len(r)/2])}, nil
}

// TestCharsMemoCountsAsWithout: nodes applied in turn under WithCharsMemo
// record the same counts as without it, also when an input is not the
// previous output (a memo never answers for another text), and the count
// the decorator made travels in Outcome.Chars.
func TestCharsMemoCountsAsWithout(t *testing.T) {
	counts := func(ctx context.Context, texts ...string) []int64 {
		rec := tracetest.NewSpanRecorder()
		deco, err := Decorator(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), metricnoop.NewMeterProvider())
		if err != nil {
			t.Fatal(err)
		}
		in := texts[0]
		for i, key := range []stages.Key{stages.KeyDedup, stages.KeyLogDedup, stages.KeyNumberNormalize} {
			if i < len(texts) && i > 0 {
				in = texts[i] // not the previous output
			}
			out, err := deco(halfNode{key}).Apply(ctx, stages.Input{Text: in})
			if err != nil {
				t.Fatal(err)
			}
			if out.Chars != stages.Chars(out.Text) {
				t.Errorf("%s: Outcome.Chars = %d, want %d", key, out.Chars, stages.Chars(out.Text))
			}
			in = out.Text
		}
		var got []int64
		for _, s := range rec.Ended() {
			for _, a := range s.Attributes() {
				if a.Key == AttrCharsIn || a.Key == AttrCharsOut {
					got = append(got, a.Value.AsInt64())
				}
			}
		}
		return got
	}
	text := strings.Repeat("héllo wörld ✓ ", 40)
	half := string([]rune(text)[:stages.Chars(text)/2])
	sameLength := strings.Repeat("a", len(half)) // as long as the memo's text, other runes
	for _, texts := range [][]string{{text}, {text, sameLength}, {text, text[:7], "é"}} {
		want := counts(context.Background(), texts...)
		if got := counts(WithCharsMemo(context.Background()), texts...); !slices.Equal(got, want) || len(got) != 6 {
			t.Errorf("counts with memo %v, without %v", got, want)
		}
	}
}
