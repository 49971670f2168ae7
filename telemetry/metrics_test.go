package telemetry

import (
	"context"
	"io"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

type instantNode struct{}

func (instantNode) Key() stages.Key { return stages.KeyDedup }
func (instantNode) Apply(_ context.Context, in stages.Input) (stages.Outcome, error) {
	return stages.Outcome{Text: in.Text}, nil
}

// scrape serves one Prometheus scrape of p.
func scrape(t *testing.T, p *Providers) string {
	t.Helper()
	rec := httptest.NewRecorder()
	p.MetricsHandler.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}

// TestDurationHistogramHasSubSecondBuckets: a fast node's observations land
// in a bucket below 10 ms, not in OTel's default first bucket of 5.
func TestDurationHistogramHasSubSecondBuckets(t *testing.T) {
	p, err := Setup(context.Background(), DefaultConfig(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	wrap, err := Decorator(p.TracerProvider, p.MeterProvider)
	if err != nil {
		t.Fatal(err)
	}
	n := wrap(instantNode{})
	for range 20 {
		if _, err := n.Apply(context.Background(), stages.Input{Text: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	body := scrape(t, p)
	for _, want := range []string{
		`jetcompact_node_errors_total{node="dedup"} 0`, // zero-initialised, labelled "node"
		"process_resident_memory_bytes",
		"go_goroutine_count",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("scrape lacks %s", want)
		}
	}
	bucket := regexp.MustCompile(`(?m)^jetcompact_node_duration_seconds_bucket\{[^}]*le="([0-9.e+-]+)"[^}]*\} (\d+)`)
	found := false
	for _, m := range bucket.FindAllStringSubmatch(body, -1) {
		le, _ := strconv.ParseFloat(m[1], 64)
		count, _ := strconv.Atoi(m[2])
		if le < 0.01 && count > 0 {
			found = true
		}
	}
	if !found {
		t.Fatalf("no duration bucket below 0.01 s holds an observation:\n%s", grepLines(body, "duration"))
	}
}

// TestScrapeHasBuildInfoAndNoScopeLabels: the scrape names the build and
// carries no otel_scope_* labels.
func TestScrapeHasBuildInfoAndNoScopeLabels(t *testing.T) {
	p, err := Setup(context.Background(), DefaultConfig(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	c, err := p.MeterProvider.Meter("test").Int64Counter("jetcompact.test")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(context.Background(), 1)
	body := scrape(t, p)
	if !regexp.MustCompile(`(?m)^jetcompact_build_info\{.*go_version="go[^"]+".*\} 1$`).MatchString(body) {
		t.Errorf("no jetcompact_build_info gauge:\n%s", grepLines(body, "build_info"))
	}
	if strings.Contains(body, "otel_scope_") {
		t.Errorf("scrape carries otel_scope labels:\n%s", grepLines(body, "otel_scope_"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
