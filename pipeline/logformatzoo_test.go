package pipeline

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A format zoo of the project's own: common log formats generated with
// known templates, Zipf frequencies and a few rare alerts, some with stack
// traces. Nothing here comes from a real log.

// zooSlot generates one variable's values.
type zooSlot struct {
	key string
	gen func(r *rand.Rand) string
}

// zooTemplate is one event: its message with %s per slot, its level, and
// for loggers that keep variables in fields (zap), a constant message.
type zooTemplate struct {
	msg    string
	const_ string
	level  string
	slots  []zooSlot
	alert  bool
	trace  bool // an alert logged with a stack trace
}

func (z zooTemplate) template() string {
	return strings.ReplaceAll(strings.ReplaceAll(z.msg, "%s", "<*>"), "%%", "%")
}

// route is the request an access log shows for the template's event.
func (z zooTemplate) route() string {
	p := "/api/" + strings.ReplaceAll(z.const_, " ", "-")
	for range z.slots {
		p += "/<*>"
	}
	return p
}

var zooUsers = func() []string {
	r := rand.New(rand.NewPCG(7, 7))
	var out []string
	for range 400 {
		b := make([]byte, 4+r.IntN(5))
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		out = append(out, string(b))
	}
	return out
}()

var (
	zNum = func(lo, hi int) func(*rand.Rand) string {
		return func(r *rand.Rand) string { return strconv.Itoa(lo + r.IntN(hi-lo)) }
	}
	zUser = func(r *rand.Rand) string { return zooUsers[r.IntN(len(zooUsers))] }
	zIP   = func(r *rand.Rand) string { return fmt.Sprintf("10.%d.%d.%d", r.IntN(256), r.IntN(256), 1+r.IntN(254)) }
	zUUID = func(r *rand.Rand) string {
		return fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Int64N(1<<48))
	}
	zHex  = func(r *rand.Rand) string { return fmt.Sprintf("%012x", r.Int64N(1<<48)) }
	zDur  = func(r *rand.Rand) string { return fmt.Sprintf("%d.%03ds", r.IntN(20), r.IntN(1000)) }
	zPath = func(r *rand.Rand) string {
		return fmt.Sprintf("/data/seg-%05d/part-%d.parquet", r.IntN(99999), r.IntN(64))
	}
	zTable = func(r *rand.Rand) string { return fmt.Sprintf("events_%d_%02d", 2020+r.IntN(5), 1+r.IntN(12)) }
)

var zooTemplates = []zooTemplate{
	{msg: "cache refresh took %s ms for shard %s", const_: "cache refresh", level: "INFO", slots: []zooSlot{{"took_ms", zNum(1, 900)}, {"shard", zNum(0, 4096)}}},
	{msg: "worker heartbeat seq %s lag %s", const_: "worker heartbeat", level: "DEBUG", slots: []zooSlot{{"seq", zNum(1, 1e6)}, {"lag", zNum(0, 9000)}}},
	{msg: "user %s logged in from %s", const_: "user logged in", level: "INFO", slots: []zooSlot{{"user", zUser}, {"ip", zIP}}},
	{msg: "request %s served in %s", const_: "request served", level: "INFO", slots: []zooSlot{{"request_id", zUUID}, {"duration", zDur}}},
	{msg: "uploaded %s bytes to %s", const_: "upload done", level: "INFO", slots: []zooSlot{{"bytes", zNum(100, 1e7)}, {"path", zPath}}},
	{msg: "compaction of table %s finished, %s rows merged", const_: "compaction finished", level: "INFO", slots: []zooSlot{{"table", zTable}, {"rows", zNum(0, 1e6)}}},
	{msg: "session %s expired after %s minutes idle", const_: "session expired", level: "INFO", slots: []zooSlot{{"session", zHex}, {"idle_min", zNum(5, 120)}}},
	{msg: "connection pool resized to %s connections", const_: "pool resized", level: "INFO", slots: []zooSlot{{"size", zNum(4, 64)}}},
	{msg: "slow query on %s took %s", const_: "slow query", level: "WARN", slots: []zooSlot{{"table", zTable}, {"duration", zDur}}},
	{msg: "retrying upstream call to %s attempt %s", const_: "retrying upstream", level: "WARN", slots: []zooSlot{{"ip", zIP}, {"attempt", zNum(1, 6)}}},
	{msg: "scheduler tick", const_: "scheduler tick", level: "DEBUG"},
	{msg: "config reloaded by %s", const_: "config reloaded", level: "INFO", slots: []zooSlot{{"user", zUser}}},
	// Rare alerts.
	{msg: "disk %s is 98%% full", const_: "disk almost full", level: "ERROR", slots: []zooSlot{{"device", func(*rand.Rand) string { return "/dev/nvme0n1p2" }}}, alert: true},
	{msg: "database connection lost: connection refused by %s", const_: "database connection lost", level: "ERROR", slots: []zooSlot{{"ip", zIP}}, alert: true, trace: true},
	{msg: "out of memory, killed process %s", const_: "out of memory", level: "FATAL", slots: []zooSlot{{"pid", zNum(100, 60000)}}, alert: true},
}

// zooEvent is one generated record.
type zooEvent struct {
	at     time.Time
	seq    int
	t      *zooTemplate
	values []string
}

func (e zooEvent) message() string {
	args := make([]any, len(e.values))
	for i, v := range e.values {
		args[i] = v
	}
	return fmt.Sprintf(e.t.msg, args...)
}

func (e zooEvent) level() string { return e.t.level }

// zooFormat renders one event as its lines (a record and its trace).
type zooFormat struct {
	name string
	// fields: the format keeps variables in fields and a constant message.
	fields bool
	// access: an access log, whose template is the request line.
	access bool
	render func(e zooEvent) []string
}

func javaTrace() []string {
	return []string{
		"java.net.ConnectException: Connection refused",
		"\tat java.base/sun.nio.ch.Net.connect0(Native Method)",
		"\tat com.acme.db.Pool.open(Pool.java:212)",
		"\t... 12 more",
	}
}

func pythonTrace() []string {
	return []string{
		"Traceback (most recent call last):",
		`  File "/app/db.py", line 88, in connect`,
		"    sock.connect(addr)",
		"ConnectionRefusedError: [Errno 111] Connection refused",
	}
}

func goTrace() []string {
	return []string{"goroutine 1 [running]:", "main.connect(0xc000010000)", "\t/app/db.go:42 +0x1d"}
}

func jsonLine(kv ...any) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[i])
		v, _ := json.Marshal(kv[i+1])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

func withTrace(e zooEvent, line string, trace func() []string) []string {
	if e.t.trace && trace != nil {
		return append([]string{line}, trace()...)
	}
	return []string{line}
}

var zooFormats = []zooFormat{
	{name: "plain ISO", render: func(e zooEvent) []string {
		return withTrace(e, fmt.Sprintf("%s %-5s [app] %s", e.at.Format("2006-01-02T15:04:05.000Z07:00"), e.level(), e.message()), javaTrace)
	}},
	{name: "JSON zap", fields: true, render: func(e zooEvent) []string {
		kv := []any{"level", strings.ToLower(e.level()), "ts", float64(e.at.UnixMilli()) / 1000, "caller", "server/handler.go:" + strconv.Itoa(40+len(e.t.msg)%50), "msg", e.t.const_}
		for i, s := range e.t.slots {
			kv = append(kv, s.key, e.values[i])
		}
		return withTrace(e, jsonLine(kv...), goTrace)
	}},
	{name: "JSON bunyan", render: func(e zooEvent) []string {
		lv := map[string]int{"DEBUG": 20, "INFO": 30, "WARN": 40, "ERROR": 50, "FATAL": 60}[e.level()]
		return []string{jsonLine("name", "api", "hostname", "web-7", "pid", 4121, "level", lv, "msg", e.message(), "time", e.at.Format(time.RFC3339Nano), "v", 0)}
	}},
	{name: "JSON slog", render: func(e zooEvent) []string {
		return []string{jsonLine("time", e.at.Format(time.RFC3339Nano), "level", e.level(), "msg", e.message(), "req", e.seq)}
	}},
	{name: "logfmt", render: func(e zooEvent) []string {
		return []string{fmt.Sprintf("time=%s level=%s msg=%s component=api seq=%d", e.at.Format(time.RFC3339Nano), strings.ToLower(e.level()), strconv.Quote(e.message()), e.seq)}
	}},
	{name: "CRI", render: func(e zooEvent) []string {
		return []string{fmt.Sprintf("%s stdout F %s %s", e.at.Format("2006-01-02T15:04:05.000000000Z"), e.level(), e.message())}
	}},
	{name: "Docker json-file", render: func(e zooEvent) []string {
		return []string{jsonLine("log", e.level()+" "+e.message()+"\n", "stream", "stdout", "time", e.at.Format(time.RFC3339Nano))}
	}},
	{name: "Compose", render: func(e zooEvent) []string {
		svc := []string{"web-1   ", "worker-1", "api-2   "}[len(e.t.msg)%3]
		return []string{fmt.Sprintf("%s | %s %s %s", svc, e.at.Format("2006-01-02 15:04:05"), e.level(), e.message())}
	}},
	{name: "syslog RFC 3164", render: func(e zooEvent) []string {
		return []string{fmt.Sprintf("<%d>%s web-7 app[%d]: %s", 134, e.at.Format(time.Stamp), 4000+e.seq%7, e.message())}
	}},
	{name: "syslog RFC 5424", render: func(e zooEvent) []string {
		return []string{fmt.Sprintf("<165>1 %s web-7.example.com app %d ID%d - %s", e.at.Format("2006-01-02T15:04:05.000Z"), 4000+e.seq%7, 40+e.seq%3, e.message())}
	}},
	{name: "GitHub Actions", render: func(e zooEvent) []string {
		return []string{fmt.Sprintf("%s %s", e.at.Format("2006-01-02T15:04:05.0000000Z"), e.message())}
	}},
	{name: "klog", render: func(e zooEvent) []string {
		return withTrace(e, fmt.Sprintf("%c%s %7d handler.go:%d] %s", e.level()[0], e.at.Format("0102 15:04:05.000000"), 4121, 40+len(e.t.msg)%50, e.message()), goTrace)
	}},
	{name: "Python logging", render: func(e zooEvent) []string {
		return withTrace(e, fmt.Sprintf("%s - app.service - %s - %s", e.at.Format("2006-01-02 15:04:05,000"), e.level(), e.message()), pythonTrace)
	}},
	{name: "log4j", render: func(e zooEvent) []string {
		return withTrace(e, fmt.Sprintf("%s %-5s [pool-%d-thread-%d] com.acme.service.Handler - %s", e.at.Format("2006-01-02 15:04:05,000"), e.level(), 1+e.seq%3, 1+e.seq%8, e.message()), javaTrace)
	}},
	{name: "Android logcat", render: func(e zooEvent) []string {
		return []string{fmt.Sprintf("%s  %4d  %4d %c AppService: %s", e.at.Format("01-02 15:04:05.000"), 812, 812+e.seq%5, e.level()[0], e.message())}
	}},
	{name: "nginx access", access: true, render: func(e zooEvent) []string {
		path := e.t.route()
		for _, v := range e.values {
			path = strings.Replace(path, "<*>", strings.ReplaceAll(v, " ", "%20"), 1)
		}
		status := 200
		if e.t.alert {
			status = 500 + len(e.t.msg)%4
		}
		return []string{fmt.Sprintf(`%s - - [%s] "GET %s HTTP/1.1" %d %d "-" "Mozilla/5.0 (X11; Linux x86_64)"`, zIP(rand.New(rand.NewPCG(uint64(e.seq), 1))), e.at.Format("02/Jan/2006:15:04:05 -0700"), path, status, 200+e.seq%5000)}
	}},
	{name: "kubectl --prefix", render: func(e zooEvent) []string {
		pod := fmt.Sprintf("[pod/api-7f9c4d-%c%c%c%c%c/app]", 'a'+e.seq%3, 'k'+e.seq%3, 'q', 'z'-e.seq%3, 'b')
		return withTrace(e, fmt.Sprintf("%s %s %s %s", pod, e.at.Format(time.RFC3339Nano), e.level(), e.message()), goTrace)
	}},
	{name: "nginx error", render: func(e zooEvent) []string {
		lv := map[string]string{"DEBUG": "debug", "INFO": "notice", "WARN": "warn", "ERROR": "error", "FATAL": "crit"}[e.level()]
		return []string{fmt.Sprintf(`%s [%s] %d#%d: *%d %s, client: 10.0.0.%d, server: api.example.com`, e.at.Format("2006/01/02 15:04:05"), lv, 31+e.seq%4, 0, 1000+e.seq, e.message(), e.seq%250)}
	}},
	{name: "no timestamp", render: func(e zooEvent) []string {
		return withTrace(e, fmt.Sprintf("[%s] %s", strings.ToLower(e.level()), e.message()), pythonTrace)
	}},
}

// zooDoc generates n events in format f: Zipf frequencies over the common
// templates, each alert once or twice.
func zooDoc(f zooFormat, n int, seed uint64) (text string, templates, alerts []string, oracle int) {
	r := rand.New(rand.NewPCG(seed, 99))
	var common, rare []*zooTemplate
	for i := range zooTemplates {
		if zooTemplates[i].alert {
			rare = append(rare, &zooTemplates[i])
		} else {
			common = append(common, &zooTemplates[i])
		}
	}
	zipf := rand.NewZipf(r, 1.3, 1, uint64(len(common)-1))
	at := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	alertAt := map[int]*zooTemplate{}
	for i, t := range rare {
		for k := 0; k <= i%2; k++ {
			alertAt[r.IntN(n)] = t
		}
	}
	var b strings.Builder
	first := map[*zooTemplate]bool{}
	for seq := 0; seq < n; seq++ {
		t := common[zipf.Uint64()]
		if a, ok := alertAt[seq]; ok {
			t = a
		}
		at = at.Add(time.Duration(1+r.IntN(900)) * time.Millisecond)
		e := zooEvent{at: at, seq: seq, t: t}
		for _, s := range t.slots {
			e.values = append(e.values, s.gen(r))
		}
		lines := f.render(e)
		if !first[t] {
			first[t] = true
			oracle += len([]rune(lines[0]))
			tpl := t.template()
			switch {
			case f.fields:
				tpl = t.const_
			case f.access:
				tpl = "GET " + t.route() + " HTTP/1.1"
			}
			templates = append(templates, tpl)
			if t.alert {
				alerts = append(alerts, tpl)
			}
		}
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String(), templates, alerts, oracle
}

// TestLogFormatZoo: on every format, every template and every alert keeps
// a line, and the output is at most twice the oracle that keeps one real
// line per template.
func TestLogFormatZoo(t *testing.T) {
	if len(zooFormats) < 15 {
		t.Fatalf("%d formats, want at least 15", len(zooFormats))
	}
	for i, f := range zooFormats {
		t.Run(f.name, func(t *testing.T) {
			text, templates, alerts, oracle := zooDoc(f, 3000, uint64(i+1))
			out, _ := compactLog(t, text)
			if c, missing := coverage(templates, out); c < 1 {
				t.Errorf("template coverage %.3f, missing %q", c, missing)
			}
			if c, missing := coverage(alerts, out); c < 1 {
				t.Errorf("alert coverage %.3f, missing %q", c, missing)
			}
			got := len([]rune(out))
			if got > 2*oracle {
				t.Errorf("output %d chars, %.2fx the one-line-per-template oracle (%d)", got, float64(got)/float64(oracle), oracle)
			}
			t.Logf("%.2fx oracle, %d templates", float64(got)/float64(oracle), len(templates))
			if t.Failed() {
				t.Logf("output:\n%s", clipZoo(out))
			}
		})
	}
}

func clipZoo(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "\n..."
	}
	return s
}
