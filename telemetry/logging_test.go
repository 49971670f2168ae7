package telemetry

import (
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
)

// TestLoggerIsTheOneFormat: with --log-format json, slog's default logger
// and OpenTelemetry's exporter errors both come out as JSON lines, and
// --log-level filters.
func TestLoggerIsTheOneFormat(t *testing.T) {
	prev := slog.Default()
	defer slog.SetDefault(prev)
	var buf strings.Builder
	if _, err := (LogFlags{Format: "json", Level: "warn"}).NewLogger(&buf); err != nil {
		t.Fatal(err)
	}
	slog.Info("below the level")
	slog.Warn("[Compression] llm_summary: skipped", "reason", "no model")
	otel.Handle(errors.New("otlp: connection refused"))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %d:\n%s", len(lines), buf.String())
	}
	for _, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec["level"] != "WARN" {
			t.Errorf("not a JSON WARN record: %s (%v)", l, err)
		}
	}
	if !strings.Contains(lines[1], "telemetry export failed") {
		t.Errorf("exporter error not routed through slog: %s", lines[1])
	}
	for _, bad := range []LogFlags{{Format: "xml", Level: "info"}, {Format: "text", Level: "loud"}} {
		if _, err := bad.NewLogger(&buf); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
