package manifesttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// registration finds a metric registered with the OTel API in the
// product's Go source: the instrument kind, its name and the rest of the
// line (which holds metric.WithUnit when it has a unit).
var registration = regexp.MustCompile(`\.(Int64Counter|Float64Counter|Int64Histogram|Float64Histogram|Int64ObservableGauge|Float64ObservableGauge|Int64Gauge|Float64Gauge|Int64UpDownCounter)\("(jetcompact\.[a-z0-9_.]+)"(.*)`)

var unitOption = regexp.MustCompile(`metric\.WithUnit\("([^"]+)"\)`)

// exportedMetrics lists the Prometheus names of every metric the product
// registers in telemetry/ and jetstream/, as the OTel Prometheus exporter
// writes them: dots to underscores, the unit as a suffix (s: _seconds),
// _total for counters, _bucket/_sum/_count for histograms.
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, dir := range []string{"telemetry", "jetstream"} {
		files, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go source in %s: %v", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range registration.FindAllStringSubmatch(string(src), -1) {
				kind, name := m[1], strings.ReplaceAll(m[2], ".", "_")
				if u := unitOption.FindStringSubmatch(m[3]); u != nil {
					suffix := map[string]string{"s": "_seconds", "By": "_bytes", "ms": "_milliseconds"}[u[1]]
					if suffix != "" && !strings.HasSuffix(name, suffix) {
						name += suffix
					}
				}
				switch {
				case strings.HasSuffix(kind, "Histogram"):
					out[name+"_bucket"], out[name+"_sum"], out[name+"_count"] = true, true, true
				case strings.HasSuffix(kind, "Counter") && !strings.Contains(kind, "UpDown"):
					out[name+"_total"] = true
				default:
					out[name] = true
				}
			}
		}
	}
	// Names the README and the chart rely on; a registration change that
	// drops one must fail here, not in a dashboard.
	for _, want := range []string{"jetcompact_segment_documents_total", "jetcompact_segment_dead_letters_total", "jetcompact_segment_errors_total", "jetcompact_node_duration_seconds_bucket", "jetcompact_build_info"} {
		if !out[want] {
			t.Fatalf("the product registers no %s (found %v)", want, keys(out))
		}
	}
	return out
}

// selector finds a metric selector in PromQL: a name followed by {.
// Every expression of the chart writes its selectors with braces.
var selector = regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\{`)

var anyJetcompactName = regexp.MustCompile(`jetcompact_[a-zA-Z0-9_]+`)

// metricNames returns the metrics a PromQL expression selects, and fails
// when it mentions a jetcompact_ name outside a selector (unchecked).
func metricNames(t *testing.T, expr string) []string {
	t.Helper()
	var names []string
	for _, m := range selector.FindAllStringSubmatch(expr, -1) {
		names = append(names, m[1])
	}
	for _, n := range anyJetcompactName.FindAllString(expr, -1) {
		if !slices.Contains(names, n) {
			t.Errorf("%s appears in %q outside a selector name{...}", n, expr)
		}
	}
	if len(names) == 0 {
		t.Errorf("no metric selector in %q", expr)
	}
	return names
}

const natsPendingMetric = "jetstream_consumer_num_pending"

// Every metric the dashboard and the alert rules use is one the worker
// exports (found in its Go source), except consumer lag, which comes from
// the NATS exporter under metrics.natsConsumerPendingMetric.
func TestDashboardAndRulesUseExportedMetrics(t *testing.T) {
	exported := exportedMetrics(t)
	m := render(t, "--set", "grafanaDashboard.enabled=true", "--set", "prometheusRule.enabled=true")
	check := func(where, expr string) {
		t.Helper()
		for _, n := range metricNames(t, expr) {
			if n == natsPendingMetric {
				continue
			}
			if !exported[n] {
				t.Errorf("%s uses %s, which the worker does not export", where, n)
			}
		}
	}

	rules := Of[*PrometheusRule](m)
	if len(rules) != 1 {
		t.Fatalf("PrometheusRules = %d, want 1", len(rules))
	}
	alerts := map[string]Rule{}
	for _, g := range rules[0].Spec.Groups {
		for _, r := range g.Rules {
			alerts[r.Alert] = r
			check("alert "+r.Alert, r.Expr)
		}
	}
	for alert, metric := range map[string]string{
		"JetcompactConsumerLag":        natsPendingMetric,
		"JetcompactDeadLetters":        "jetcompact_segment_dead_letters_total",
		"JetcompactDeadLettersDropped": "jetcompact_segment_dead_letters_dropped_total",
		"JetcompactErrorRate":          "jetcompact_segment_errors_total",
	} {
		r, ok := alerts[alert]
		if !ok || !strings.Contains(r.Expr, metric+"{") {
			t.Errorf("alert %s = %+v, want one on %s", alert, r, metric)
		}
		if r.Labels["severity"] == "" {
			t.Errorf("alert %s has no severity", alert)
		}
	}
	if lag := alerts["JetcompactConsumerLag"].Expr; !strings.Contains(lag, `consumer_name=~"jc_.*"`) {
		t.Errorf("the lag alert is not scoped to the fleet's consumers: %s", lag)
	}
	if dl := alerts["JetcompactDeadLetters"].Expr; !strings.Contains(dl, `namespace="`+namespace+`"`) {
		t.Errorf("the dead-letter alert is not scoped to the release's namespace: %s", dl)
	}

	var cm *corev1.ConfigMap
	for _, c := range Of[*corev1.ConfigMap](m) {
		if c.Labels["grafana_dashboard"] == "1" {
			cm = c
		}
	}
	if cm == nil {
		t.Fatal("no ConfigMap with the Grafana sidecar label grafana_dashboard: \"1\"")
	}
	var dash struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal([]byte(cm.Data["jetcompact.json"]), &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	used := map[string]bool{}
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			check("panel "+p.Title, tg.Expr)
			for _, n := range metricNames(t, tg.Expr) {
				used[n] = true
			}
		}
	}
	for _, want := range []string{"jetcompact_segment_documents_total", "jetcompact_segment_errors_total", "jetcompact_segment_dead_letters_total", natsPendingMetric, "jetcompact_node_duration_seconds_bucket"} {
		if !used[want] {
			t.Errorf("the dashboard has no panel on %s", want)
		}
	}

	// The exporter's name is a value; the dashboard and the rule follow it.
	o := render(t, "--set", "grafanaDashboard.enabled=true", "--set", "prometheusRule.enabled=true", "--set", "metrics.natsConsumerPendingMetric=nats_jetstream_consumer_num_pending")
	if !strings.Contains(o.Text, "nats_jetstream_consumer_num_pending{") || strings.Contains(strings.ReplaceAll(o.Text, "nats_jetstream_consumer_num_pending", ""), natsPendingMetric) {
		t.Error("metrics.natsConsumerPendingMetric does not rename the lag metric everywhere")
	}
}

// Both are off by default.
func TestMonitoringOffByDefault(t *testing.T) {
	m := render(t)
	if n := len(Of[*PrometheusRule](m)); n != 0 {
		t.Errorf("%d PrometheusRules by default", n)
	}
	for _, c := range Of[*corev1.ConfigMap](m) {
		if _, ok := c.Labels["grafana_dashboard"]; ok {
			t.Errorf("dashboard ConfigMap %s rendered by default", c.Name)
		}
	}
}
