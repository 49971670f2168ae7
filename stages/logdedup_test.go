package stages

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/logs"
)

func TestLogDedupGolden(t *testing.T) {
	runGolden(t, NewLogDedup(DefaultLogDedupOptions()), "log_dedup", *update)
}

func TestLogDedup(t *testing.T) {
	node := NewLogDedup(DefaultLogDedupOptions())
	for _, tc := range []struct {
		name string
		kind Kind
		in   string
		want string
	}{
		{
			name: "one template, first instance kept with a count",
			kind: KindLog,
			in: "2024-01-01 10:00:01 INFO worker-1 processed request id=0a1b2c3d in 12ms\n" +
				"2024-01-01 10:00:02 INFO worker-2 processed request id=0a1b2c3e in 7ms\n" +
				"2024-01-01 10:00:03 INFO worker-3 processed request id=0a1b2c3f in 9ms\n",
			want: "2024-01-01 10:00:01 INFO worker-1 processed request id=0a1b2c3d in 12ms [×3; 10:00:01–10:00:03; id: 3 distinct (0a1b2c3d, 0a1b2c3e, …)]\n",
		},
		{
			name: "states with few values stay apart",
			kind: KindLog,
			in: "2024-01-01 10:00:01 INFO job 1 moved from NEW to RUNNING\n" +
				"2024-01-01 10:00:02 INFO job 2 moved from RUNNING to DONE\n" +
				"2024-01-01 10:00:03 INFO job 3 moved from NEW to RUNNING\n",
			want: "2024-01-01 10:00:01 INFO job 1 moved from NEW to RUNNING [×2; 10:00:01–10:00:03; job: 1–3]\n" +
				"2024-01-01 10:00:02 INFO job 2 moved from RUNNING to DONE\n",
		},
		{
			name: "a parameter with many values merges",
			kind: KindLog,
			in: "Dec 10 06:55:46 host sshd[1]: Invalid user admin from 10.0.0.1\n" +
				"Dec 10 06:55:47 host sshd[2]: Invalid user oracle from 10.0.0.2\n" +
				"Dec 10 06:55:48 host sshd[3]: Invalid user test from 10.0.0.3\n" +
				"Dec 10 06:55:49 host sshd[4]: Invalid user guest from 10.0.0.4\n" +
				"Dec 10 06:55:50 host sshd[5]: Invalid user ubuntu from 10.0.0.5\n" +
				"Dec 10 06:55:51 host sshd[6]: Accepted password for root from 10.0.0.6\n",
			want: "Dec 10 06:55:46 host sshd[1]: Invalid user admin from 10.0.0.1 [×5; 06:55:46–06:55:50; user: 5 distinct (admin, oracle, …)]\n" +
				"Dec 10 06:55:51 host sshd[6]: Accepted password for root from 10.0.0.6\n",
		},
		{
			name: "counts already there add up",
			kind: KindLog,
			in: "2024-01-01 10:00:01 INFO cache evicted 3 entries [×10]\n" +
				"2024-01-01 10:00:09 INFO cache evicted 5 entries [×4]\n" +
				"2024-01-01 10:00:10 INFO cache evicted 9 entries\n",
			want: "2024-01-01 10:00:01 INFO cache evicted 3 entries [×15; 10:00:01–10:00:10; evicted: 3–9]\n",
		},
		{
			name: "stack traces travel with their record",
			kind: KindLog,
			in: "2024-01-01 10:00:01 ERROR db query failed\n" +
				"java.io.IOException: reset\n" +
				"\tat app.Db.query(Db.java:88)\n" +
				"2024-01-01 10:00:02 INFO ok\n" +
				"2024-01-01 10:00:03 ERROR db query failed\n" +
				"java.io.IOException: reset\n" +
				"\tat app.Db.query(Db.java:88)\n" +
				"2024-01-01 10:00:04 ERROR db query failed\n" +
				"java.io.IOException: timeout\n" +
				"\tat app.Db.query(Db.java:91)\n",
			want: "2024-01-01 10:00:01 ERROR db query failed [×2; 10:00:01–10:00:03]\n" +
				"java.io.IOException: reset\n" +
				"\tat app.Db.query(Db.java:88)\n" +
				"2024-01-01 10:00:02 INFO ok\n" +
				"2024-01-01 10:00:04 ERROR db query failed\n" +
				"java.io.IOException: timeout\n" +
				"\tat app.Db.query(Db.java:91)\n",
		},
		{
			name: "build output: a progress run collapses",
			kind: KindLog,
			in: "$ git clone x\n" +
				"Receiving objects: 10% (10/100)\n" +
				"Receiving objects: 20% (20/100)\n" +
				"Receiving objects: 30% (30/100)\n" +
				"Receiving objects: 40% (40/100)\n" +
				"done\n",
			want: "$ git clone x\n" +
				"Receiving objects: 10% (10/100) [×4; 4 distinct (10/100, 20/100, …)]\n" +
				"done\n",
		},
		{
			name: "build output: repeated failures are evidence",
			kind: KindLog,
			in: "$ make\n" +
				"fatal: could not resolve host example.org\n" +
				"fatal: could not resolve host example.org\n" +
				"fatal: could not resolve host example.org\n" +
				"make: *** [all] Error 1\n",
		},
		{
			name: "build output: short lines and names with digits stay",
			kind: KindLog,
			in: "$ run\n" + "nl\n" + "nl\n" + "nl\n" + "nl\n" +
				"#1 0x1 in eval1 /src/eval.c:10:2\n" +
				"#2 0x2 in eval0 /src/eval.c:11:2\n" +
				"#3 0x3 in eval0 /src/eval.c:12:2\n",
		},
		{
			name: "build tool levels are not events: repeated errors stay",
			kind: KindLog,
			in: "[INFO] Building widget 1.0\n[INFO] Compiling 12 source files\n" +
				"[ERROR] Failed to execute goal compiler:compile on project widget\n" +
				"[ERROR] \n[ERROR] Failed to execute goal compiler:compile on project widget\n" +
				"[ERROR] \n[INFO] BUILD FAILURE\n",
		},
		{
			name: "transcripts never get counts",
			kind: KindTranscript,
			in:   "Alice: option A is cheaper.\nAlice: option A is cheaper.\nAlice: option A is cheaper.\n",
		},
		{
			name: "prose passes",
			kind: KindProse,
			in:   "2024-01-01 10:00:01 INFO a\n2024-01-01 10:00:02 INFO a\n2024-01-01 10:00:03 INFO a\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == "" {
				want = tc.in
			}
			got := applyNode(t, node, tc.in, tc.kind)
			if got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			if again := applyNodeAs(t, node, got, tc.kind, tc.in); again != got {
				t.Errorf("not idempotent:\n%s", again)
			}
		})
	}
}

func TestLogDedupKeepsProtectedLines(t *testing.T) {
	block := "```\n2024-01-01 10:00:01 INFO same\n2024-01-01 10:00:02 INFO same\n```"
	in := "2024-01-01 10:00:01 INFO same\n" + block + "\n2024-01-01 10:00:02 INFO same\n" + block + "\n"
	got := applyNode(t, NewLogDedup(DefaultLogDedupOptions()), in, KindLog)
	if strings.Count(got, block) != 2 {
		t.Fatalf("protected blocks lost:\n%s", got)
	}
	if !strings.Contains(got, "INFO same [×2; 10:00:01–10:00:02]") {
		t.Fatalf("records around the blocks not merged:\n%s", got)
	}
}

func TestLogDedupOptionsValidate(t *testing.T) {
	if err := DefaultLogDedupOptions().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, o := range []LogDedupOptions{
		{MinVariants: 1, RecordPercent: 50, MinRun: 3},
		{MinVariants: 5, RecordPercent: 0, MinRun: 3},
		{MinVariants: 5, RecordPercent: 101, MinRun: 3},
		{MinVariants: 5, RecordPercent: 50, MinRun: 1},
	} {
		if o.Validate() == nil {
			t.Errorf("%+v: want an error", o)
		}
	}
}

func TestLogDedupConformance(t *testing.T) {
	checkConformance(t, NewLogDedup(DefaultLogDedupOptions()), logInputs())
}

// logInputs are small texts of every kind for the conformance checks.
func logInputs() map[string]string {
	var rec, build strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&rec, "2024-01-%02d 10:%02d:%02d INFO worker-%d processed id=%08x in %dms\n", i%28+1, i%60, i%60, i%7, i*7919, i%300)
		if i%50 == 0 {
			fmt.Fprintf(&rec, "2024-01-02 10:00:00 ERROR failed to open /var/lib/app/data-%d.db: permission denied\n", i)
		}
	}
	rec.WriteString("```go\nfunc main() {\n\tfmt.Println(\"x  y\")\n}\n```\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&build, "\x1b[32m[%d/200]\x1b[0m CC src/file%d.o\n", i, i%17)
		if i == 150 {
			build.WriteString("src/file3.c:12:5: error: 'x' undeclared\n    x = 1;\n    ^\nmake: *** [all] Error 1\n")
		}
	}
	return map[string]string{
		"records.log":           rec.String(),
		"build.log":             build.String(),
		"chat.transcript":       strings.Repeat("Alice: I think option 1 is better because it costs less.\nBob: I disagree, option 2 has the lower risk.\n", 20),
		"prose.prose":           strings.Repeat("The quick brown fox jumps over the lazy dog. It was a sunny day.\n\n", 20),
		"cjk.prose":             strings.Repeat("这是一个测试的句子，我们在这里讨论了方案。\n", 30),
		"json.json":             `[{"a":1},{"a":2}]`,
		"empty.log":             "",
		"one line.log":          "2024-01-01 10:00:00 INFO only",
		"invalid utf8.log":      strings.ToValidUTF8("2024-01-01 10:00:00 INFO \xff\n2024-01-01 10:00:01 INFO \xfe\n", "\uFFFD"),
		"crlf.log":              strings.Repeat("2024-01-01 10:00:00 INFO a b c\r\n", 10),
		"unclosed fence.log":    "2024-01-01 10:00:00 INFO a\n```\n2024-01-01 10:00:01 INFO a\n",
		"counts in prose.prose": "Use [×2] and [×3] for emphasis.\nUse [×2] and [×3] for emphasis.\n",
	}
}

// TestLogDedupBoundedOnDiverseInput: lines that share a shape but differ
// everywhere must not make the node quadratic.
func TestLogDedupBoundedOnDiverseInput(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 50000; i++ {
		fmt.Fprintf(&b, "2024-01-01 10:00:00 INFO %s %s %s %s\n", letters(i), letters(i*3), letters(i*7), letters(i*11))
	}
	out, err := NewLogDedup(DefaultLogDedupOptions()).Apply(context.Background(), Input{Text: b.String(), Kind: KindLog})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Text) > b.Len() {
		t.Fatal("output grew")
	}
}

// letters spells n in base 26 with the letters g to z and a to f, so the
// word holds no digit.
func letters(n int) string {
	const abc = "ghijklmnopqrstuvwxyzabcdef"
	b := []byte{abc[n%26]}
	for n /= 26; n > 0; n /= 26 {
		b = append(b, abc[n%26])
	}
	return string(b)
}

func BenchmarkLogDedup(b *testing.B) {
	text := syntheticLog(4 << 20)
	node := NewLogDedup(DefaultLogDedupOptions())
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := node.Apply(context.Background(), Input{Text: text, Kind: KindLog}); err != nil {
			b.Fatal(err)
		}
	}
}

// syntheticLog builds about size bytes of a service log: a few templates
// with varying values, users and hosts, and an error with a stack trace
// now and then.
func syntheticLog(size int) string {
	users := []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace"}
	var b strings.Builder
	b.Grow(size + 256)
	for i := 0; b.Len() < size; i++ {
		ts := fmt.Sprintf("2024-01-%02d 10:%02d:%02d,%03d", i%28+1, i/60%60, i%60, i%1000)
		switch i % 7 {
		case 0:
			fmt.Fprintf(&b, "%s INFO [worker-%d] app.Service: processed request id=%08x in %dms\n", ts, i%8, i*7919, i%300)
		case 1:
			fmt.Fprintf(&b, "%s WARN [auth] app.Auth: invalid user %s from 10.%d.%d.%d\n", ts, users[i%len(users)], i%256, i/7%256, i%200)
		case 2:
			fmt.Fprintf(&b, "%s DEBUG [io-%d] app.Net: read %d bytes from /10.1.%d.%d:%d\n", ts, i%16, i%65536, i%256, i%255, 1024+i%60000)
		case 3:
			if i%700 == 3 {
				fmt.Fprintf(&b, "%s ERROR [db] app.Db: connection to 10.0.%d.%d:5432 refused\njava.net.ConnectException: refused\n\tat app.Db.open(Db.java:%d)\n", ts, i%256, i%255, i%400)
				continue
			}
			fmt.Fprintf(&b, "%s INFO [cache] app.Cache: hit ratio %d.%02d%% size=%d\n", ts, i%100, i%97, i)
		default:
			fmt.Fprintf(&b, "%s INFO [sched] app.Jobs: job_%06d moved from QUEUED to RUNNING\n", ts, i)
		}
	}
	return b.String()
}

// TestLogDedupSettledPass checks that stopping after a pass that reports
// itself settled gives what running passes to the fixed point gives.
func TestLogDedupSettledPass(t *testing.T) {
	texts := []string{syntheticLog(1 << 18)}
	for _, s := range logInputs() {
		texts = append(texts, s)
	}
	files, _ := filepath.Glob("../../shared/corpus/loghub/*/*_2k.log")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+64<<10 <= len(data); off += 48 << 10 {
			texts = append(texts, string(data[off:off+64<<10]))
		}
	}
	n := logdedupNode{DefaultLogDedupOptions()}
	ctx := context.Background()
	t.Logf("%d texts", len(texts))
	for i, text := range texts {
		lay := logs.Analyze(text)
		got, err := fixpoint(ctx, text, 4, func(ctx context.Context, s string) (string, bool, error) {
			return n.pass(ctx, s, lay)
		})
		if err != nil {
			t.Fatal(err)
		}
		want, err := fixpoint(ctx, text, 4, func(ctx context.Context, s string) (string, bool, error) {
			out, _, err := n.pass(ctx, s, lay)
			return out, false, err
		})
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("text %d: settled pass differs:\n%s", i, firstDiff(got, want))
		}
	}
}

// TestFieldRecordsKeepEvents: records written as indented fields keep
// every event through log_dedup's passes; its second pass reads the
// count its first one added and must not merge one-word events there.
func TestFieldRecordsKeepEvents(t *testing.T) {
	events := []string{"openDrawer", "closeDrawer", "flushCache", "rotateKeys", "syncClock", "pingPeer"}
	var b strings.Builder
	for i := range 600 {
		fmt.Fprintf(&b, "Fri 2024-03-01 10:%02d:%02d.%06d UTC [s=4a1b;i=%x]\n    PRIORITY=%d\n    _PID=%d\n    MESSAGE=%s\n",
			i/60%60, i%60, i*7919%1000000, 0x1000+i, 6+i%2, 100+i%50, events[i*7%len(events)])
	}
	text := b.String()
	out, err := NewLogDedup(DefaultLogDedupOptions()).Apply(context.Background(), Input{Text: text, Kind: KindLog, Log: logs.Analyze(text)})
	if err != nil {
		t.Fatal(err)
	}
	if out.Skipped || len(out.Text) >= len(text)/4 {
		t.Fatalf("records not mined: %d of %d bytes (%s)", len(out.Text), len(text), out.Reason)
	}
	for _, ev := range events {
		if !strings.Contains(out.Text, "MESSAGE="+ev+"\n") {
			t.Errorf("event %s lost:\n%s", ev, out.Text)
		}
	}
}

// TestBlankLinesBetweenRemovedRecords: records separated by blank lines
// (Rails' requests) leave one blank line where the records between them
// are folded into their templates, not one a record.
func TestBlankLinesBetweenRemovedRecords(t *testing.T) {
	routes := []string{"UsersController#show", "OrdersController#create", "CartsController#update"}
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "Started GET \"/x/%d\" for 10.0.0.%d at 2024-03-01 10:%02d:%02d +0000\n", i, i%250, i/60%60, i%60)
		fmt.Fprintf(&b, "Processing by %s as HTML\n  Parameters: {\"id\"=>\"%d\"}\nCompleted 200 OK in %dms\n\n", routes[i*7%3], i, i%90)
	}
	text := b.String()
	out, err := NewLogDedup(DefaultLogDedupOptions()).Apply(context.Background(), Input{Text: text, Kind: KindLog, Log: logs.Analyze(text)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "\n\n\n") {
		t.Errorf("blank lines pile up where records were folded:\n%q", out.Text)
	}
	for _, r := range routes {
		if !strings.Contains(out.Text, r) {
			t.Errorf("%s lost:\n%s", r, out.Text)
		}
	}
	if !strings.HasSuffix(out.Text, "\n") {
		t.Errorf("the final line break is gone: %q", out.Text[max(0, len(out.Text)-40):])
	}
}

// TestSpikeInSummary: when one record's measure (a duration, a size, a
// count named as one) is a spike far above its template's others, the
// template's summary shows that measure's range and when the spike came,
// whatever other slot it would show; an id far from the others (task
// 9000) is no measure, and ordinary noise marks nothing.
func TestSpikeInSummary(t *testing.T) {
	node := NewLogDedup(DefaultLogDedupOptions())
	r := rand.New(rand.NewPCG(81, 82))
	shapes := []string{"took %d ms", "request finished in %dms", "copied block of size %d KB", "total = %d rows"}
	for doc := range 40 {
		shape := shapes[doc%len(shapes)]
		n := 30 + r.IntN(300)
		spike, spikeV, spikeAt := 1+r.IntN(n-1), 5000+r.IntN(5000), ""
		noisy := doc%5 == 4 // no spike: values spread evenly
		var b strings.Builder
		for i := range n {
			v := 10 + r.IntN(30)
			if noisy {
				v = 10 + r.IntN(3000)
			} else if i == spike {
				v = spikeV
				spikeAt = fmt.Sprintf("10:%02d:%02d", i/60%60, i%60)
			}
			fmt.Fprintf(&b, "2024-03-01 10:%02d:%02d INFO [worker-%d] fetch job-%d %s\n", i/60%60, i%60, i%3, r.IntN(1e6), fmt.Sprintf(shape, v))
			fmt.Fprintf(&b, "2024-03-01 10:%02d:%02d INFO [worker-%d] scheduling task %d of stage 3\n", i/60%60, i%60, i%3, 1+r.IntN(40))
		}
		fmt.Fprintf(&b, "2024-03-01 11:00:00 INFO [worker-0] scheduling task 9000 of stage 3\n")
		out := applyNode(t, node, b.String(), KindLog)
		want := regexp.MustCompile(fmt.Sprintf(`–%dm?s? \(max at %s\)\]`, spikeV, spikeAt))
		switch {
		case noisy && strings.Contains(out, "(max at"):
			t.Errorf("doc %d (%q): noise marked as a spike:\n%s", doc, shape, out)
		case !noisy && !want.MatchString(out):
			t.Errorf("doc %d (%q): the summary does not show the spike %q:\n%s", doc, shape, want, out)
		case strings.Count(out, "(max at") > 1:
			t.Errorf("doc %d (%q): an id marked as a spike:\n%s", doc, shape, out)
		}
	}
}

// TestSpikeLateInRecord: a measure with a unit that comes after three or
// more other variable values of its record (a GC log's pause after its
// heap sizes, a request's duration after its ids and sizes) still shows
// its spike; without one the summary is the one it was.
func TestSpikeLateInRecord(t *testing.T) {
	node := NewLogDedup(DefaultLogDedupOptions())
	r := rand.New(rand.NewPCG(83, 84))
	shapes := []string{
		"GC(%[1]d) Pause Young (Normal) %[2]dM->%[3]dM(%[4]dM) %[5]d.%[6]dms",
		"handled req=%[1]d user=u%[2]d bytes=%[3]d rows=%[4]d in %[5]d.%[6]ds",
		"sync shard %[1]d: %[2]d keys, %[3]d deletes, %[4]d conflicts, lag %[5]dms (%[6]d retries)",
	}
	for doc := range 30 {
		shape := shapes[doc%len(shapes)]
		n := 30 + r.IntN(300)
		spike, spikeV, spikeAt := 1+r.IntN(n-1), 5000+r.IntN(5000), ""
		flat := doc%5 == 4 // no spike
		var b strings.Builder
		for i := range n {
			v := 10 + r.IntN(30)
			if i == spike && !flat {
				v = spikeV
				spikeAt = fmt.Sprintf("10:%02d:%02d", i/60%60, i%60)
			}
			fmt.Fprintf(&b, "2024-03-01 10:%02d:%02d INFO [main] %s\n", i/60%60, i%60,
				fmt.Sprintf(shape, i, 100+r.IntN(900), 10+r.IntN(90), 100+r.IntN(900), v, r.IntN(10)))
		}
		out := applyNode(t, node, b.String(), KindLog)
		want := regexp.MustCompile(fmt.Sprintf(`–%d[.\d]*m?s? \(max at %s\)`, spikeV, spikeAt))
		switch {
		case flat && strings.Contains(out, "(max at"):
			t.Errorf("doc %d (%q): no spike, one shown:\n%s", doc, shape, out)
		case !flat && !want.MatchString(out):
			t.Errorf("doc %d (%q): the summary does not show the spike %q:\n%s", doc, shape, want, out)
		}
	}
}
