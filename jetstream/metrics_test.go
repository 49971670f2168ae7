package jetstream

import (
	"context"
	"io"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/telemetry"
)

// TestSegmentMetricsScrape: a worker's metrics, scraped as Prometheus
// sees them, label each segment by its short name (its configured name,
// else its first stage; task_NAME for a task), start the error and dead-letter series at zero, and carry
// help texts that name what the metric counts.
func TestSegmentMetricsScrape(t *testing.T) {
	p, err := telemetry.Setup(context.Background(), telemetry.DefaultConfig(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	cfg := DefaultConfig()
	cfg.Tasks = []string{"upper"}
	cfg.SegmentNames = map[stages.Key]string{cfg.Segments[0][0]: "algorithmic"}
	f := startFleet(t, cfg)
	f.worker(cfg.Segments, WithMeterProvider(p.MeterProvider), WithTasks(map[string]TaskFunc{"upper": nil}))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := f.client().Compact(ctx, Document{Text: testDocs(1)[0]}); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	p.MetricsHandler.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()

	for i, seg := range cfg.Segments {
		first := string(seg[0])
		if i == 0 {
			first = "algorithmic" // its configured name
		}
		for _, want := range []string{
			`jetcompact_segment_documents_total{segment="` + first + `"}`,
			`jetcompact_segment_errors_total{segment="` + first + `"} 0`,
			`jetcompact_segment_dead_letters_total{segment="` + first + `"} 0`,
			`jetcompact_segment_dead_letters_dropped_total{segment="` + first + `"} 0`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("scrape lacks %s", want)
			}
		}
	}
	if !strings.Contains(body, `jetcompact_segment_dead_letters_total{segment="task_upper"} 0`) {
		t.Error("the task's dead-letter series is not zero-initialised as task_upper")
	}
	for _, m := range regexp.MustCompile(`segment="([^"]*)"`).FindAllStringSubmatch(body, -1) {
		if strings.Contains(m[1], ",") || len(m[1]) > 40 {
			t.Errorf("segment label %q is not a short name", m[1])
		}
	}
	for metric, noun := range map[string]string{
		"jetcompact_segment_documents_total":    "Documents",
		"jetcompact_segment_redeliveries_total": "more than once",
		"jetcompact_segment_errors_total":       "errors",
		"jetcompact_segment_dead_letters_total": "Dead letters",
	} {
		help := regexp.MustCompile(`(?m)^# HELP ` + metric + ` (.*)$`).FindStringSubmatch(body)
		if help == nil || !strings.Contains(help[1], noun) {
			t.Errorf("help of %s is %v, want it to say %q", metric, help, noun)
		}
	}
}

func TestSegmentNamesAreValidated(t *testing.T) {
	for name, names := range map[string]map[stages.Key]string{
		"not a first stage": {stages.KeyDedup: "x"},
		"bad name":          {stages.KeyStructured: "Fast Lane"},
		"used twice":        {stages.KeyStructured: "x", stages.KeyGuard: "x"},
	} {
		cfg := DefaultConfig()
		cfg.SegmentNames = names
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "fleet.segment_names") {
			t.Errorf("%s: %v", name, err)
		}
	}
	cfg := DefaultConfig()
	cfg.SegmentNames = map[stages.Key]string{stages.KeyGuard: "final-guard"}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := cfg.SegmentName([]stages.Key{stages.KeyGuard}); got != "final-guard" {
		t.Errorf("configured name %q", got)
	}
	if got := cfg.SegmentName([]stages.Key{stages.KeyLLMSummary}); got != string(stages.KeyLLMSummary) {
		t.Errorf("default name %q", got)
	}
}
