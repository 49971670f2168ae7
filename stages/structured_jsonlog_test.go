package stages

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages/jsonfold"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

// genLog is a generated log: its text, a phrase of each template that must
// survive, its error lines (each distinct), and its last line.
type genLog struct {
	name      string
	text      string
	templates []string
	errors    []string
	last      string
}

// genLogs builds logs of several formats from a seed: syslog-like lines,
// JSON lines, Java records with stack traces, Python tracebacks. Each
// repeats a few templates with varying values and holds distinct errors.
func genLogs(seed uint64) []genLog {
	r := rand.New(rand.NewPCG(seed, 7))
	stamp := func(i int) string { return fmt.Sprintf("2026-03-%02d 10:%02d:%02d", 1+r.IntN(28), i/60%60, i%60) }
	var logs []genLog

	// syslog-like
	{
		var b strings.Builder
		tmpl := []string{"Accepted publickey for", "link up at speed", "starting hourly jobs in", "session closed for user"}
		var errs []string
		for i := range 300 + r.IntN(200) {
			fmt.Fprintf(&b, "Mar %2d 10:%02d:%02d host%d ", 1+r.IntN(28), i/60%60, i%60, r.IntN(3))
			switch i % 4 {
			case 0:
				fmt.Fprintf(&b, "sshd[%d]: Accepted publickey for u%d from 10.0.%d.%d port %d", 1000+r.IntN(9000), r.IntN(50), r.IntN(255), r.IntN(255), 1024+r.IntN(60000))
			case 1:
				fmt.Fprintf(&b, "kernel: [%d.%06d] eth%d: link up at speed %d", r.IntN(9999), r.IntN(999999), r.IntN(2), []int{100, 1000}[r.IntN(2)])
			case 2:
				fmt.Fprintf(&b, "cron[%d]: starting hourly jobs in /etc/cron.hourly/%d", 100+r.IntN(900), r.IntN(9))
			case 3:
				fmt.Fprintf(&b, "systemd-logind[%d]: session closed for user u%d", 100+r.IntN(900), r.IntN(50))
			}
			b.WriteByte('\n')
			if i%97 == 50 {
				e := fmt.Sprintf("app[%d]: ERROR %s", 100+r.IntN(900), []string{"disk quota exceeded on /var", "cannot allocate memory for cache",
					"certificate expired for mail.example.org", "lost contact with peer node", "checksum mismatch in segment"}[len(errs)%5])
				errs = append(errs, e)
				fmt.Fprintf(&b, "Mar  1 11:00:00 host0 %s\n", e)
			}
		}
		last := "Mar  1 12:00:00 host0 app[42]: FATAL giving up after repeated failures"
		b.WriteString(last)
		logs = append(logs, genLog{"syslog", b.String(), tmpl, errs, last})
	}

	// JSON lines
	{
		var b strings.Builder
		tmpl := []string{`request served`, `cache refreshed`, `queue drained`}
		var errs []string
		for i := range 300 + r.IntN(200) {
			var rec map[string]any
			switch i % 3 {
			case 0:
				rec = map[string]any{"ts": stamp(i), "level": "info", "msg": "request served", "path": fmt.Sprintf("/api/items/%d", r.IntN(100000)), "ms": r.IntN(900)}
			case 1:
				rec = map[string]any{"ts": stamp(i), "level": "debug", "msg": "cache refreshed", "entries": r.IntN(5000)}
			case 2:
				rec = map[string]any{"ts": stamp(i), "level": "info", "msg": "queue drained", "queue": fmt.Sprintf("q%d", r.IntN(9)), "depth": r.IntN(100)}
			}
			if i%101 == 60 {
				e := fmt.Sprintf("upstream %s refused the connection", []string{"billing", "search", "auth"}[len(errs)%3])
				errs = append(errs, e)
				rec = map[string]any{"ts": stamp(i), "level": "error", "msg": e}
			}
			line, _ := json.Marshal(rec)
			b.Write(line)
			b.WriteByte('\n')
		}
		last := `{"level":"error","msg":"shutting down: too many upstream failures","ts":"2026-03-01 12:00:00"}`
		b.WriteString(last)
		logs = append(logs, genLog{"jsonlines", b.String(), tmpl, errs, last})
	}

	// Java records with stack traces
	{
		var b strings.Builder
		tmpl := []string{"Fetched page", "Committed transaction"}
		var errs []string
		for i := range 200 + r.IntN(100) {
			if i%2 == 0 {
				fmt.Fprintf(&b, "%s INFO  [worker-%d] c.e.Crawler - Fetched page %d in %d ms\n", stamp(i), r.IntN(8), r.IntN(10000), r.IntN(500))
			} else {
				fmt.Fprintf(&b, "%s DEBUG [worker-%d] c.e.Store - Committed transaction tx-%d\n", stamp(i), r.IntN(8), r.IntN(100000))
			}
			if i%60 == 30 {
				e := fmt.Sprintf("java.lang.IllegalStateException: pool %s exhausted", []string{"main", "io", "cpu"}[len(errs)%3])
				errs = append(errs, e)
				fmt.Fprintf(&b, "%s ERROR [worker-%d] c.e.Crawler - fetch failed\n%s\n", stamp(i), r.IntN(8), e)
				for f := range 12 {
					fmt.Fprintf(&b, "\tat com.example.crawler.Stage%d.run(Stage%d.java:%d)\n", f, f, 10+f*7)
				}
				b.WriteString("Caused by: java.net.SocketTimeoutException: Read timed out\n\tat java.net.SocketInputStream.read(SocketInputStream.java:150)\n")
			}
		}
		last := "2026-03-01 12:00:00 ERROR [main] c.e.App - crawler stopped with 3 failed stages"
		b.WriteString(last)
		logs = append(logs, genLog{"java", b.String(), tmpl, errs, last})
	}

	// Python tracebacks
	{
		var b strings.Builder
		tmpl := []string{"processed batch", "heartbeat from"}
		var errs []string
		for i := range 200 + r.IntN(100) {
			if i%2 == 0 {
				fmt.Fprintf(&b, "%s,%03d INFO worker: processed batch %d (%d rows)\n", stamp(i), r.IntN(1000), r.IntN(9999), r.IntN(500))
			} else {
				fmt.Fprintf(&b, "%s,%03d DEBUG monitor: heartbeat from node-%d\n", stamp(i), r.IntN(1000), r.IntN(16))
			}
			if i%70 == 35 {
				e := fmt.Sprintf("KeyError: 'column_%s'", []string{"price", "sku", "qty"}[len(errs)%3])
				errs = append(errs, e)
				fmt.Fprintf(&b, "%s,000 ERROR worker: batch failed\nTraceback (most recent call last):\n", stamp(i))
				for f := range 5 {
					fmt.Fprintf(&b, "  File \"/srv/app/step%d.py\", line %d, in run\n    result = step%d(row)\n", f, 20+f, f+1)
				}
				b.WriteString(e + "\n")
			}
		}
		last := "2026-03-01 12:00:00,000 CRITICAL worker: exiting with status 1"
		b.WriteString(last)
		logs = append(logs, genLog{"python", b.String(), tmpl, errs, last})
	}
	return logs
}

// TestStructuredJSONLogStrings: string values holding a log or a stack
// trace go through the log path. Every template, every distinct error
// line and the last line stay, and the document is smaller than head,
// failure lines and tail made it.
func TestStructuredJSONLogStrings(t *testing.T) {
	node := NewStructured(DefaultStructuredOptions())
	for seed := range uint64(4) {
		logs := genLogs(seed)
		doc := map[string]any{"job": map[string]any{"id": seed, "status": "failed"}}
		steps := map[string]any{}
		oldChars := 0
		for _, l := range logs {
			steps[l.name] = map[string]any{"exit": 1, "output": l.text}
			old, _ := json.Marshal(textkit.HeadFailuresTail(strings.Split(l.text, "\n")))
			oldChars += len(old)
		}
		doc["steps"] = steps
		raw, _ := json.MarshalIndent(doc, "", "  ")
		_, got := runStructured(t, node, string(raw), KindJSON)
		var back struct {
			Steps map[string]struct{ Output string }
		}
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Fatalf("seed %d: output is not JSON: %v", seed, err)
		}
		if len(back.Steps) != len(logs) {
			t.Fatalf("seed %d: %d steps out of %d", seed, len(back.Steps), len(logs))
		}
		newChars := 0
		for _, l := range logs {
			out := back.Steps[l.name].Output
			v, _ := json.Marshal(out)
			newChars += len(v)
			for _, p := range l.templates {
				if !strings.Contains(out, p) {
					t.Errorf("seed %d %s: template %q lost", seed, l.name, p)
				}
			}
			for _, e := range l.errors {
				if !strings.Contains(out, e) {
					t.Errorf("seed %d %s: error line %q lost", seed, l.name, e)
				}
			}
			if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(l.last), " ")) {
				t.Errorf("seed %d %s: last line lost", seed, l.name)
			}
			if len(out)*4 > len(l.text) {
				t.Errorf("seed %d %s: %d of %d bytes kept: templates not folded", seed, l.name, len(out), len(l.text))
			}
		}
		if newChars >= oldChars {
			t.Errorf("seed %d: log strings take %d bytes, head/failures/tail took %d", seed, newChars, oldChars)
		}
		checkIdempotent(t, node, got, KindJSON)
	}
}

// TestIsLogText: logs and stack traces are logs; code and prose are not.
func TestIsLogText(t *testing.T) {
	for _, l := range genLogs(9) {
		if !isLogText(l.text, strings.Split(l.text, "\n")) {
			t.Errorf("%s log not taken for a log", l.name)
		}
	}
	java := "java.lang.NullPointerException: x is null\n\tat a.B.c(B.java:1)\n\tat a.B.d(B.java:2)\n\tat a.C.main(C.java:3)"
	py := "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    main()\nValueError: bad"
	for _, s := range []string{java, py} {
		if !isLogText(s, strings.Split(s, "\n")) {
			t.Errorf("stack trace not taken for a log:\n%s", s)
		}
	}
	code := "func main() {\n\tfor i := range 10 {\n\t\tfmt.Println(i)\n\t}\n}\n"
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog near the river bank.\n", 5)
	var steps, table, bullets strings.Builder
	table.WriteString("| Name | Type | Description |\n| --- | --- | --- |\n")
	for i := range 12 {
		fmt.Fprintf(&steps, "%d. Step %d of the set-up: create the token and store it.\n", i+1, i+1)
		fmt.Fprintf(&table, "| `field_%d` | string | The field number %d |\n", i, i)
		fmt.Fprintf(&bullets, "* `scope_%d`: grants access to area %d\n", i, i)
	}
	for _, s := range []string{code, prose, steps.String(), table.String(), bullets.String()} {
		if isLogText(s, strings.Split(s, "\n")) {
			t.Errorf("taken for a log:\n%s", s)
		}
	}
}

// TestFoldRepeatedTraces: a trace printed again is one marker line; the
// exception lines above each trace stay, and a trace seen once stays whole.
func TestFoldRepeatedTraces(t *testing.T) {
	frames := "\tat a.B.c(B.java:1)\n\tat a.B.d(B.java:2)\n\tat a.C.main(C.java:3)"
	in := "E1: first\n" + frames + "\nE2: second\n" + frames + "\nE3: third\n\tat x.Y.z(Y.java:9)\n" + frames
	got := foldRepeatedTraces(in)
	want := "E1: first\n" + frames + "\nE2: second\n\t[... 3 lines as printed above ...]\nE3: third\n\tat x.Y.z(Y.java:9)\n" + frames
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if again := foldRepeatedTraces(got); again != got {
		t.Errorf("not idempotent:\n%s", again)
	}
	if !hasLogFoldMark(got) || hasLogFoldMark(in) {
		t.Error("fold mark not told from the input")
	}
}

// TestLogStringKeepsTail: a log whose last lines repeat a template still
// ends with them as they were logged.
func TestLogStringKeepsTail(t *testing.T) {
	for _, l := range genLogs(4) {
		lines := strings.Split(l.text, "\n")
		v := strings.Join(lines[:len(lines)-1], "\n") // ends on ordinary records
		out, ok, err := compactString(context.Background(), v, 160)
		if err != nil || !ok {
			t.Fatalf("%s: not compacted (%v)", l.name, err)
		}
		var tail []string
		for i := len(lines) - 2; len(tail) < tailLines; i-- {
			if strings.TrimSpace(lines[i]) != "" {
				tail = append([]string{lines[i]}, tail...)
			}
		}
		if !strings.HasSuffix(out, strings.Join(tail, "\n")) && !strings.Contains(out, tail[len(tail)-1]) {
			t.Errorf("%s: tail lost:\n%s", l.name, out)
		}
		again, ok, _ := compactString(context.Background(), out, 160)
		if ok && again != out {
			t.Errorf("%s: compacted twice", l.name)
		}
	}
}

// TestCompactLogTextCanceled: a canceled context stops the log path.
func TestCompactLogTextCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := compactLogText(ctx, genLogs(1)[0].text); err == nil {
		t.Error("canceled context not reported")
	}
}

// FuzzCompactString: any string value compacts without a panic, to valid
// UTF-8 shorter than the value, and a compacted value is not compacted
// again.
func FuzzCompactString(f *testing.F) {
	for _, l := range genLogs(3) {
		f.Add(l.text[:min(len(l.text), 4000)])
	}
	f.Add("Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    main()\nValueError: bad")
	f.Add("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n")
	f.Fuzz(func(t *testing.T, v string) {
		if !utf8.ValidString(v) || utf8.RuneCountInString(v) <= 160+32 { // 32: jsonfold's truncSlack
			return // JSON strings decode to valid UTF-8; short ones are kept before
		}
		out, ok, err := compactString(context.Background(), v, 160)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return
		}
		if !utf8.ValidString(out) || len(out) >= len(v)+len(" …[0 chars]… ") {
			t.Fatalf("bad output for %q: %q", v, out)
		}
	})
}

// compactString is jsonfold.CompactString with the log path, as the
// structured node folds a long string value.
func compactString(ctx context.Context, v string, maxChars int) (string, bool, error) {
	return jsonfold.CompactString(ctx, v, jsonfold.Options{MaxStringChars: maxChars, CompactLog: compactLogValue})
}
