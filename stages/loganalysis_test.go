package stages

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
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
			lay := AnalyzeLog(b.String())
			if !lay.Records {
				t.Fatalf("not a log of records: %+v", lay)
			}
			if Detect(b.String()) != KindLog {
				t.Errorf("Detect = %s", Detect(b.String()))
			}
			if lay.opensRecord("java.lang.IllegalStateException: boom") || lay.opensRecord("\tat a.B.c(B.java:1)") {
				t.Errorf("a stack trace line opens a record: %+v", lay)
			}
			if !lay.opensRecord(hdr(7, "x")) {
				t.Errorf("a header line does not open a record: %+v", lay)
			}
		})
	}
}

func TestAnalyzeLogBuildOutputIsNotRecords(t *testing.T) {
	text := "$ make\ncc -c a.c\ncc -c b.c\na.c:12:5: error: 'x' undeclared\nmake: *** [a.o] Error 1\n"
	if lay := AnalyzeLog(text); lay.Records {
		t.Fatalf("build output read as records: %+v", lay)
	}
}

func TestAnalyzeLogFields(t *testing.T) {
	var js, lf strings.Builder
	for i := range 50 {
		fmt.Fprintf(&js, `{"ts":"2024-03-01T10:00:%02dZ","level":"info","msg":"served","id":%d}`+"\n", i%60, i)
		fmt.Fprintf(&lf, "time=2024-03-01T10:00:%02dZ level=info msg=\"served in %dms\" id=%d\n", i%60, i, i)
	}
	if lay := AnalyzeLog(js.String()); !lay.Records || lay.Fields != FieldsJSON {
		t.Errorf("JSON lines: %+v", lay)
	}
	if Detect(js.String()) != KindLog {
		t.Errorf("JSON lines detected as %s", Detect(js.String()))
	}
	if lay := AnalyzeLog(lf.String()); !lay.Records || lay.Fields != FieldsLogfmt {
		t.Errorf("logfmt: %+v", lay)
	}
	if Detect(`{"a": 1, "b": [1, 2]}`) != KindJSON {
		t.Error("a JSON document read as JSON lines")
	}
}

// TestHeaderColumnsMeasured: the header is the leading columns that hold
// data, whatever they are; the message starts after them.
func TestHeaderColumnsMeasured(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, tc := range []struct {
		line func(i int) string
		cols int
		msg  string
	}{
		{func(i int) string {
			return fmt.Sprintf("Dec 10 06:%02d:%02d LabSZ sshd[%d]: Invalid user u%d from 10.0.0.%d", i/60%60, i%60, 24000+r.IntN(900), i, i%200)
		}, 5, "Invalid user"},
		{func(i int) string {
			return fmt.Sprintf("- %d 2005.06.03 R%02d-M1-N0 2005-06-03-15.42.%02d.%06d R%02d-M1-N0 RAS KERNEL INFO cache parity error corrected", 1117838570+i, i%64, i%60, r.IntN(1e6), i%64)
		}, 6, "RAS KERNEL"},
		{func(i int) string {
			return fmt.Sprintf("2024-03-01 10:%02d:%02d,%03d INFO [main] job %d moved", i/60%60, i%60, i%1000, i%5)
		}, 2, "INFO [main]"},
	} {
		var b strings.Builder
		for i := range 300 {
			b.WriteString(tc.line(i) + "\n")
		}
		lay := AnalyzeLog(b.String())
		if lay.HeaderCols != tc.cols {
			t.Errorf("%q: %d header columns, want %d", tc.line(0), lay.HeaderCols, tc.cols)
			continue
		}
		l := tc.line(7)
		if rest := strings.TrimLeft(l[headerEnd(l, lay.HeaderCols):], " "); !strings.HasPrefix(rest, tc.msg) {
			t.Errorf("message of %q starts at %q", l, rest)
		}
	}
}

func TestLogLayoutRoundTrip(t *testing.T) {
	for _, l := range []LogLayout{
		{},
		{Analyzed: true},
		{Analyzed: true, Records: true, Fields: FieldsJSON, Openers: []string{`{"a":`}},
		{Analyzed: true, Records: true, Openers: []string{"[a", "d-d-d", "a&b=c;", "é"}, HeaderCols: 5},
		{Analyzed: true, Records: true, byRepeats: true},
	} {
		got, err := ParseLogLayout(l.String())
		if err != nil {
			t.Fatalf("%+v: %v", l, err)
		}
		// Every field travels: a segment must work with the layout the first one made.
		if !reflect.DeepEqual(got, l) && !(len(l.Openers) == 0 && len(got.Openers) == 0 && got.Analyzed == l.Analyzed && got.byRepeats == l.byRepeats) {
			t.Errorf("round trip %+v -> %q -> %+v", l, l.String(), got)
		}
	}
	for _, bad := range []string{"v=2", "v=1&f=xml", "%zz"} {
		if _, err := ParseLogLayout(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
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
	lay := AnalyzeLog(text)
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
		AnalyzeLog(text)
	}
}
