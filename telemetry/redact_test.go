package telemetry

import (
	"context"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestRedactNodeSpanCountsByKind: the redact node's span carries the
// counts by kind, never the secret.
func TestRedactNodeSpanCountsByKind(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	deco, err := Decorator(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)), metricnoop.NewMeterProvider())
	if err != nil {
		t.Fatal(err)
	}
	secret := "AKIA" + strings.Repeat("Q7", 8)
	text := "deploy with " + secret + " and password=Hunter2Hunter2\n"
	node, err := stages.New(stages.KeyRedact, stages.DefaultOptions(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := deco(node).Apply(context.Background(), stages.Input{Text: text}); err != nil {
		t.Fatal(err)
	}
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	got := ""
	for _, a := range spans[0].Attributes() {
		if strings.Contains(a.Value.String(), secret) || strings.Contains(a.Value.String(), "Hunter2") {
			t.Errorf("attribute %s carries a secret", a.Key)
		}
		if a.Key == AttrRedactions {
			got = a.Value.AsString()
		}
	}
	if got != "aws_access_key=1 secret_value=1" {
		t.Errorf("%s = %q", AttrRedactions, got)
	}
}
