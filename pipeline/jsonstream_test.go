package pipeline

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/stages"
)

// TestIndentedJSONRecordsReadAsLines: a log of indented JSON records
// (jq's output, loggers that indent) compacts like the same records as
// JSON lines: the pipeline reads it as lines, says so in the report, and
// keeps every template and alert.
func TestIndentedJSONRecordsReadAsLines(t *testing.T) {
	f := zoo2Format{name: "indented JSON", render: func(e zooEvent, o zooOpts) []string {
		rec := map[string]string{"time": o.ts(e.at, time.RFC3339Nano), "level": strings.ToLower(e.level()), "msg": e.message()}
		j, _ := json.MarshalIndent(rec, "", "  ")
		return strings.Split(string(j), "\n")
	}}
	lines := zoo2Format{name: "JSON lines", render: func(e zooEvent, o zooOpts) []string {
		j, _ := json.Marshal(map[string]string{"time": o.ts(e.at, time.RFC3339Nano), "level": strings.ToLower(e.level()), "msg": e.message()})
		return []string{string(j)}
	}}
	events := zoo2Events(f.templates(), 3000, 5)
	indented, templates, alerts, oracle := zoo2Render(f, events, defaultZooOpts)
	plain, _, _, _ := zoo2Render(lines, events, defaultZooOpts)

	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.CompactAlgorithmic(context.Background(), indented)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Form != FormJSONStream || res.Report.Kind != stages.KindLog {
		t.Fatalf("report: form %q kind %s; want %q, log", res.Report.Form, res.Report.Kind, FormJSONStream)
	}
	m := measureZoo(t, indented, templates, alerts, oracle)
	if m.cov < 1 || m.alertCov < 1 {
		t.Errorf("coverage %.3f, alerts %.3f; missing %q", m.cov, m.alertCov, m.missing)
	}
	want, _ := compactLog(t, plain)
	if n, w := stages.Chars(res.Text), stages.Chars(want); n > w*11/10 {
		t.Errorf("indented records compact to %d characters, the same as JSON lines to %d", n, w)
	}
}
