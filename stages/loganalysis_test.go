package stages

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/logs"
)

// headerVariants writes the same events under headers of many shapes: the
// analysis must find records in each, whatever the header looks like.
func headerVariants() map[string]func(i int, msg string) string {
	return map[string]func(i int, msg string) string{
		"iso": func(i int, m string) string {
			return fmt.Sprintf("2024-03-01T10:%02d:%02d.%03dZ INFO %s", i/60%60, i%60, i%1000, m)
		},
		"prefix": func(i int, m string) string {
			return fmt.Sprintf("node-7.service.log.2024-03-01 %02d:%02d:%02d INFO %s", i/3600, i/60%60, i%60, m)
		},
		"level": func(i int, m string) string {
			return fmt.Sprintf("INFO  %02d:%02d:%02d,%03d %s", i/3600, i/60%60, i%60, i%1000, m)
		},
		"seq": func(i int, m string) string { return fmt.Sprintf("%d %s", 99990+i, m) },
		"pipes": func(i int, m string) string {
			return fmt.Sprintf("20240301-10:%02d:%02d:%03d|Sync|7001|%s", i/60%60, i%60, i%1000, m)
		},
		"compose": func(i int, m string) string {
			return fmt.Sprintf("web-1  | %02d:%02d:%02d %s", i/3600, i/60%60, i%60, m)
		},
		"kubectl": func(i int, m string) string { return fmt.Sprintf("[pod/api-7f9c/app] %05d %s", i, m) },
		"nostamp": func(i int, m string) string { return fmt.Sprintf("[api] worker=%d %s", i%4, m) },
		"ansi": func(i int, m string) string {
			return fmt.Sprintf("\x1b[2m%02d:%02d:%02d\x1b[0m %s", i/3600, i/60%60, i%60, m)
		},
		"bracketed": func(i int, m string) string { return fmt.Sprintf("[%d.%03d] %s", 1000+i, i%1000, m) },
	}
}

var analysisMessages = []string{
	"cache refresh took %d ms", "worker heartbeat seq %d", "GET /v1/items status 200 in %d ms",
	"connection from 10.0.0.%d accepted", "job %d finished",
}

func TestAnalyzeLogFindsRecordsUnderAnyHeader(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for name, hdr := range headerVariants() {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			for i := range 400 {
				m := fmt.Sprintf(analysisMessages[r.IntN(len(analysisMessages))], r.IntN(1000))
				b.WriteString(hdr(i, m) + "\n")
				if i == 200 {
					b.WriteString("java.lang.IllegalStateException: boom\n\tat a.B.c(B.java:1)\n\t... 3 more\n")
				}
			}
			lay := logs.Analyze(b.String())
			if !lay.Records {
				t.Fatalf("not a log of records: %+v", lay)
			}
			if Detect(b.String()) != KindLog {
				t.Errorf("Detect = %s", Detect(b.String()))
			}
			if lay.OpensRecord("java.lang.IllegalStateException: boom") || lay.OpensRecord("\tat a.B.c(B.java:1)") {
				t.Errorf("a stack trace line opens a record: %+v", lay)
			}
			if !lay.OpensRecord(hdr(7, "x")) {
				t.Errorf("a header line does not open a record: %+v", lay)
			}
		})
	}
}

func TestAnalyzeLogFields(t *testing.T) {
	var js, lf strings.Builder
	for i := range 50 {
		fmt.Fprintf(&js, `{"ts":"2024-03-01T10:00:%02dZ","level":"info","msg":"served","id":%d}`+"\n", i%60, i)
		fmt.Fprintf(&lf, "time=2024-03-01T10:00:%02dZ level=info msg=\"served in %dms\" id=%d\n", i%60, i, i)
	}
	if lay := logs.Analyze(js.String()); !lay.Records || lay.Fields != logs.FieldsJSON {
		t.Errorf("JSON lines: %+v", lay)
	}
	if Detect(js.String()) != KindLog {
		t.Errorf("JSON lines detected as %s", Detect(js.String()))
	}
	if lay := logs.Analyze(lf.String()); !lay.Records || lay.Fields != logs.FieldsLogfmt {
		t.Errorf("logfmt: %+v", lay)
	}
	if Detect(`{"a": 1, "b": [1, 2]}`) != KindJSON {
		t.Error("a JSON document read as JSON lines")
	}
}

// TestLogNodesKeepTheirDecisionAcrossRewrites: a log whose ids cross a
// width boundary (99999 -> 100000) stays a log of records for every node,
// since they work with the analysis of the original, not of the text an
// earlier node rewrote.
func TestLogNodesKeepTheirDecisionAcrossRewrites(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "%d node-%d state %d status running\n", 99850+i, i%4, 1100000000+7*i)
	}
	b.WriteString("100151 node-9 state 1100002107 maintenance window opened\n")
	text := b.String()
	lay := logs.Analyze(text)
	if !lay.Records {
		t.Fatalf("not records: %+v", lay)
	}
	out := text
	for _, n := range []Node{NewLogDedup(DefaultLogDedupOptions()), NewNearDup(DefaultNearDupOptions()),
		NewNumberNormalize(DefaultNumberNormalizeOptions()), NewKeywords(DefaultKeywordsOptions())} {
		o, err := n.Apply(context.Background(), Input{Text: out, Kind: KindLog, Log: lay})
		if err != nil {
			t.Fatal(err)
		}
		out = o.Text
	}
	if !strings.Contains(out, "maintenance window opened") || strings.Count(out, "\n") > 3 {
		t.Fatalf("rare event lost or repeats kept:\n%s", out)
	}
}

// TestHexRunIsLinear: a long dash-joined run of hex letters is read once.
func TestHexRunIsLinear(t *testing.T) {
	line := "2025-01-01 10:00:01 INFO t=" + strings.Repeat("abcd-", 200000) + " [×5]"
	n := numberNode{DefaultNumberNormalizeOptions()}
	done := make(chan struct{})
	go func() {
		n.normalize(nil, line)
		close(done)
	}()
	<-done // a quadratic scan would take minutes; the test binary's timeout catches it
}

func BenchmarkAnalyzeLog(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	for i := 0; sb.Len() < 64<<10; i++ {
		sb.WriteString(headerVariants()["iso"](i, fmt.Sprintf(analysisMessages[r.IntN(len(analysisMessages))], r.IntN(1000))) + "\n")
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		logs.Analyze(text)
	}
}
