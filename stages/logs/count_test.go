package logs

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// TestLastCountOpenIsLastIndex: the shortcut finds what a plain backward
// search finds, on lines built from the bytes that matter to it.
func TestLastCountOpenIsLastIndex(t *testing.T) {
	parts := []string{" [×", "[", "]", "×", " ", "a", "7", ";", "é"}
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.Intn(8); k >= 0; k-- {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		line := b.String()
		if got, want := lastCountOpen(line), strings.LastIndex(line, CountOpen); got != want {
			t.Fatalf("lastCountOpen(%q) = %d, want %d", line, got, want)
		}
	}
}

// TestClockIn: a clock is h:mm or hh:mm, with seconds if given; an
// address's port is none, whatever digits it spells.
func TestClockIn(t *testing.T) {
	for in, want := range map[string]string{
		"10:00:01 INFO x":                    "10:00:01",
		"7:04:05 up":                         "7:04:05",
		"2024-01-01T10:00:00.247Z INFO":      "10:00:00",
		"[03/Dec/2024:10:00:00 +0000] GET /": "10:00:00",
		"123:45 not a clock":                 "",
		"host:8080 refused":                  "",
	} {
		if got, _ := clockIn(in); got != want {
			t.Errorf("clockIn(%q) = %q, want %q", in, got, want)
		}
	}
	rng := rand.New(rand.NewSource(2))
	for n := 0; n < 2000; n++ {
		addr := fmt.Sprintf("081109 214043 2561 WARN x: %d.%d.%d.%d:%d:Got exception", rng.Intn(256), rng.Intn(256), rng.Intn(256), rng.Intn(256), rng.Intn(65536))
		if got, _ := clockIn(addr); got != "" {
			t.Fatalf("clockIn(%q) = %q: an address's port read as a clock", addr, got)
		}
	}
}

// TestHexGroupsEnd: MAC and IPv6 addresses are one token; clock times,
// words and short ratios are not addresses.
func TestHexGroupsEnd(t *testing.T) {
	for in, want := range map[string]int{
		"52:54:00:16:d5:cd rest":                   17,
		"52:54:00:16:d5:cd:fa:16:3e:0c:08:00 SRC=": 35,
		"fe80::1ff:fe23:4567:890a%eth0":            24,
		"2001:db8:85a3:0:0:8a2e:370:7334]":         31,
		"10:00:01 INFO":                            0,
		"10:00:01:243 x":                           0,
		"fa:ce:be:ad:ed:de":                        0, // no digit: words
		"12345:1:2:3:4:5":                          0,
		"::1 loopback":                             0,
		"52:54:00:16:d5:cdx":                       0,
	} {
		if got := hexGroupsEnd(in, 0); got != want {
			t.Errorf("hexGroupsEnd(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestHasRandomPart: generated names (no vowel in a part of seven letters
// or more) against written ones.
func TestHasRandomPart(t *testing.T) {
	for in, want := range map[string]bool{
		"web-kgkxttbzrl-sxsxk":   true,
		"default/web-kgkxttbzrl": true,
		"api_BCDFGHJK":           true,
		"web-z8svt58972-2mks6":   false, // digits: masked as an id anyway
		"cluster-autoscaler":     false,
		"kube-proxy":             false,
		"strncmp":                false, // no dash: a name someone wrote
		"rhythm-section":         false,
		"node-exporter-prod":     false,
		"x-frame-options":        false,
	} {
		if got := hasRandomPart(in); got != want {
			t.Errorf("hasRandomPart(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestIsNetName: e-mail addresses and host names against file names,
// loggers and properties.
func TestIsNetName(t *testing.T) {
	for in, want := range map[string]bool{
		"alice@example.com":      true,
		"root@db":                false,
		"api.example.com":        true,
		"db.internal":            true,
		"mirror.cse.cuhk.edu.hk": true,
		"www.bbc.co.uk":          true,
		"config.yaml":            false,
		"main.go":                false,
		"org.apache.hadoop.Foo":  false,
		"mapred.task.id":         false,
		"app.db":                 false,
		"Example.COM":            false,
		"example.com.":           false,
	} {
		if got := isNetName(in); got != want {
			t.Errorf("isNetName(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestPathShapeRoutes: an access log's endpoints are events. A route of
// one word (/login, /health, /favicon.ico) or two is a constant shape of
// its own, whatever follows it; a path whose leading segments are ids is
// data.
func TestPathShapeRoutes(t *testing.T) {
	shape := func(p string) Tok { return pathShape(p) }
	for _, p := range []string{"/login", "/health", "/favicon.ico", "/api/orders/1", "http://example.com/login?next=/x"} {
		if shape(p).variable() {
			t.Errorf("pathShape(%q) is a variable, want a route", p)
		}
	}
	if shape("/login").h == shape("/logout").h {
		t.Error("/login and /logout share a shape")
	}
	if shape("/login?a=1").h != shape("/login#top").h || shape("/api/orders/1").h != shape("/api/orders/2/items").h {
		t.Error("a route's shape depends on its query or on its deeper segments")
	}
	for _, p := range []string{"/123", "/blk_123", "/api/123", "/10.0.0.1", "/"} {
		if !shape(p).variable() {
			t.Errorf("pathShape(%q) is a route, want a variable", p)
		}
	}
}

// TestListEnd: a bracketed list of two items or more is one value; a
// bracketed time, level, thread or a nested structure is not.
func TestListEnd(t *testing.T) {
	for in, want := range map[string]int{
		"[auth, cache, gzip] loaded": 19,
		"[1,2,3]":                    7,
		"['a', 'b']":                 10,
		`["x","y"]`:                  9,
		"[orders-0, orders-3]":       20,
		"[main]":                     0,
		"[INFO] x, y":                0,
		"[10:00:01,123]":             0,
		"[2024-03-01 10:00:00,123]":  0,
		"[a, b c]":                   0,
		"[a,  b]":                    0,
		"[{a, b}]":                   0,
		"[a, b":                      0,
	} {
		if got := listEnd(in, 0); got != want {
			t.Errorf("listEnd(%q) = %d, want %d", in, got, want)
		}
	}
	long := "[" + strings.Repeat("a,", maxValueBytes) + "a]"
	if listEnd(long, 0) != 0 {
		t.Error("a list longer than maxValueBytes is read as one value")
	}
}

// TestValueAt: a quoted word and data are values however often they
// recur; a bare word, a path and half-quoted text are not.
func TestValueAt(t *testing.T) {
	for _, c := range []struct {
		head, tok string
		want      bool
	}{
		{`unknown command 'flush' from client 7`, `'flush'`, true},
		{`cart restored for "alice" with 3 items`, `alice`, true},
		{`request from db.internal accepted`, `db.internal`, true},
		{`drawer openDrawer done`, `openDrawer`, false},
		{`GET /login served`, `/login`, false},
		{`open "half quoted`, `half`, false},
		{`it's 'x' here`, `'x'`, true},
		{`quote ' alone`, `'`, false},
		{`I0301 10:00:00.000 1 main.go:42] "openDrawer" pod="x"`, `openDrawer`, false},
		{`{"msg":"openDrawer","level":"info"}`, `openDrawer`, false},
		{`msg="openDrawer" level=info`, `openDrawer`, false},
	} {
		toks := tokenize(c.head, nil)
		found := false
		for _, tk := range toks {
			if c.head[tk.Start:tk.End] == c.tok {
				found = true
				if got := valueAt(c.head, tk); got != c.want {
					t.Errorf("valueAt(%q, %q) = %v, want %v", c.head, c.tok, got, c.want)
				}
			}
		}
		if !found {
			t.Errorf("%q: no token %q in %d tokens", c.head, c.tok, len(toks))
		}
	}
}

// TestCorrelationKey: trace, span and request ids in their usual
// spellings; other keys ending in "id" are not.
func TestCorrelationKey(t *testing.T) {
	for k, want := range map[string]bool{
		"trace_id": true, "traceId": true, "dd.trace_id": true, "otel.span_id": true, "SpanID": true,
		"x-request-id": true, "correlation_id": true, "trace_flags": true, "parent_span_id": true,
		"user_id": false, "id": false, "trace": false, "pid": false, "thread_id": false, "tracer": false,
	} {
		if got := CorrelationKey(k); got != want {
			t.Errorf("CorrelationKey(%q) = %v, want %v", k, got, want)
		}
	}
}

// TestDropCorrelation: trailing correlation pairs leave a free-text
// record's template, wherever they do not end it they stay, and a record
// of nothing else keeps them.
func TestDropCorrelation(t *testing.T) {
	var lay Layout
	ids := func(s string) []uint64 {
		var out []uint64
		for _, tk := range lay.TemplateTokens(s, nil) {
			out = append(out, TokenID(tk))
		}
		return out
	}
	plain := ids("10:00:01 INFO cache flushed in 12ms")
	for _, s := range []string{
		"10:00:01 INFO cache flushed in 12ms trace_id=4bf92f3577b34da6 span_id=00f067aa0ba902b7",
		"10:00:01 INFO cache flushed in 12ms span_id=5ccd  ",
		"10:00:01 INFO cache flushed in 12ms dd.trace_id=123 dd.span_id=456",
	} {
		if got := ids(s); !slices.Equal(got, plain) {
			t.Errorf("%q: template %v, want the plain record's %v", s, got, plain)
		}
	}
	for _, s := range []string{
		"10:00:01 INFO cache flushed in 12ms trace_id=4bf92f3577b34da6 for a",
		"10:00:01 INFO cache flushed in 12ms user_id=42",
		`10:00:01 INFO cache flushed in 12ms trace_id="4bf92f"`,
	} {
		if got := ids(s); slices.Equal(got, plain) {
			t.Errorf("%q: template equals the plain record's", s)
		}
	}
	if got := ids("trace_id=4bf92f"); len(got) != 2 {
		t.Errorf("a record of one pair: %d tokens, want both kept", len(got))
	}
}

// TestJoinLists: a list written out in a sentence is one token, words
// with words and values with values; a value then a word is two.
func TestJoinLists(t *testing.T) {
	var lay Layout
	texts := func(s string) []string {
		var out []string
		for _, tk := range lay.TemplateTokens(s, nil) {
			out = append(out, s[tk.Start:tk.End])
		}
		return out
	}
	for s, want := range map[string][]string{
		"evicted keys cart, token, quota from cache": {"evicted", "keys", "cart, token, quota", "from", "cache"},
		"enabled features: auth":                     {"enabled", "features", "auth"},
		"listening on ports 80, 443, 8080":           {"listening", "on", "ports", "80, 443, 8080"},
		"session 0x3f2a, timeout of 5000ms exceeded": {"session", "0x3f2a", "timeout", "of", "5000ms", "exceeded"},
		"a,b c ,d":                              {"a", "b", "c", "d"},
		"processed 1,234,567 rows (12,345 new)": {"processed", "1,234,567", "rows", "12,345", "new"},
		"row 12,143,INFO":                       {"row", "12", "143", "INFO"},
		"got 1,23 and 1,2345":                   {"got", "1", "23", "and", "1", "2345"},
	} {
		if got := texts(s); !slices.Equal(got, want) {
			t.Errorf("%q: tokens %q, want %q", s, got, want)
		}
	}
	// Lists of any length and items are one position; variables join as
	// a variable.
	a, b := lay.TemplateTokens("ports 80, 443", nil), lay.TemplateTokens("ports 8080", nil)
	if len(a) != len(b) || TokenID(a[1]) != TokenID(b[1]) {
		t.Errorf("ports 80, 443 and ports 8080 differ: %v %v", a, b)
	}
}

// TestSummaryExamplesDiffer: examples that share a long opening are
// shown by their ends, so the two read apart.
func TestSummaryExamplesDiffer(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "2024-03-01 10:00:%02d INFO pulled image for pod/web-7d9f8b6c5-%c%c%c%c%c\n", i, 'b'+i%20, 'c'+i*7%20, 'd'+i*3%20, 'f'+i*11%20, 'g'+i%19)
	}
	text := b.String()
	x := textkit.NewLineIndex(text)
	m, err := Mine(context.Background(), x, Analyze(text), 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := m.Write(x)
	open := strings.Index(out, "distinct (")
	if open < 0 {
		t.Fatalf("no examples in %q", out)
	}
	ex := strings.Split(strings.TrimSuffix(out[open+len("distinct ("):strings.LastIndexByte(out, ')')], ", …"), ", ")
	if len(ex) != 2 || ex[0] == ex[1] || !strings.HasPrefix(ex[0], "…") {
		t.Errorf("examples %q: want two tails that differ", ex)
	}
}

// TestTieRepeats: a value written twice in a record (in the message and
// in a context map or a nested field) merges like a value written once:
// one template for many users. Two different words, or words of two
// bytes, are no repeat.
func TestTieRepeats(t *testing.T) {
	templates := func(line func(i int, user string) string) int {
		var b strings.Builder
		for i := range 60 {
			b.WriteString(line(i, fmt.Sprintf("user%c%c", 'a'+i%12, 'a'+i*7%5)))
			b.WriteByte('\n')
		}
		text := b.String()
		m, err := Mine(context.Background(), textkit.NewLineIndex(text), Analyze(text), 5, nil)
		if err != nil {
			t.Fatal(err)
		}
		return len(m.Members())
	}
	for _, c := range []struct {
		name string
		line func(i int, user string) string
		want int
	}{
		{"context map", func(i int, u string) string {
			return fmt.Sprintf(`[2024-05-01 10:00:%02d] app.INFO: session opened for %s {"user":"%s"} []`, i, u, u)
		}, 1},
		{"nested field", func(i int, u string) string {
			return fmt.Sprintf(`{"ts":"10:00:%02d","level":"info","msg":"session opened for %s","props":{"user":"%s","n":%d}}`, i, u, u, i)
		}, 1},
		{"twice in a sentence", func(i int, u string) string {
			return fmt.Sprintf("2024-05-01 10:00:%02d INFO host %s: disk of %s full", i, u, u)
		}, 1},
		{"a relay pair (Thunderbird's host/host)", func(i int, u string) string {
			return fmt.Sprintf("2024-05-01 10:00:%02d INFO %s kernel: %s/%s session closed", i, u, u, u)
		}, 1},
	} {
		if got := templates(c.line); got != c.want {
			t.Errorf("%s: %d templates, want %d", c.name, got, c.want)
		}
	}
	var lay Layout
	// A number's pair is a value, not a reference to the number.
	pods := "restarts 1 ready 1/1"
	if pt := lay.TemplateTokens(pods, nil); len(pt) != 4 || !pt[3].variable() {
		t.Errorf("%q: the pair 1/1 is no value: %+v", pods, pt)
	}
	toks := lay.TemplateTokens("moved ab to ab, alice to carol", nil)
	ids := make([]uint64, len(toks))
	tieRepeats(toks, ids)
	for i, tk := range toks {
		if ids[i] != TokenID(tk) {
			t.Errorf("token %d tied: short words and different words are no repeats", i)
		}
	}
	// A nested object's members are fields: its keys are no words.
	lay = Layout{Fields: FieldsJSON}
	nested := lay.TemplateTokens(`{"msg":"x","props":{"host":"a1"}}`, nil)
	flat := lay.TemplateTokens(`{"msg":"x","host":"a1"}`, nil)
	if len(nested) != len(flat)+1 || TokenID(nested[len(nested)-2]) != TokenID(flat[len(flat)-2]) {
		t.Errorf("nested member: tokens %v, want the flat record's %v after the object's key", nested, flat)
	}
}

// TestPairColumns: the value of a key=value pair after the message is a
// column like a header's: a node that logs every kind of event merges
// away, however few nodes there are; a value that comes with its message
// (a state) stays.
func TestPairColumns(t *testing.T) {
	nodes := []string{"x", "worker-a", "storage", "edge"}
	msgs := []string{"openDrawer", "closeDrawer", "syncing volumes", "pulled image", "probe ok"}
	var b strings.Builder
	for i := range 400 {
		m := i * 7 % len(msgs)
		fmt.Fprintf(&b, "I0301 10:%02d:%02d.%06d 1 ctl.go:%d] %q node=%q state=%s\n", i/60%60, i%60, i*7919%1000000, 40+m, msgs[m], nodes[i*3%len(nodes)], []string{"ready", "busy"}[m%2])
	}
	text := b.String()
	m, err := Mine(context.Background(), textkit.NewLineIndex(text), Analyze(text), 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Members()); got != len(msgs) {
		t.Errorf("%d templates, want one a message (%d)", got, len(msgs))
	}
	for _, c := range []struct {
		line string
		want bool
	}{
		{`x] "m" node="a1" k=v`, true},
		{`x] "m" node=a1`, true},
		{`x] "m" node="a1 b"`, false},
		{`x] "m" node:a1`, false},
		{`x] "m" node=a1,b2`, false},
		{`x] m {"node":"a1","k":1}`, true},
		{`x] m {"node": "a1"}`, true},
		{`x] m {"node":12}`, true},
		{`x] m {"node":"a1 b"}`, false},
		{`x] m node":"a1"`, false},
	} {
		var lay Layout
		toks := lay.TemplateTokens(c.line, nil)
		k := slices.IndexFunc(toks, func(tk Tok) bool { return c.line[tk.Start:tk.End] == "node" })
		if got := k >= 0 && k+1 < len(toks) && pairValue(c.line, toks[k], toks[k+1]); got != c.want {
			t.Errorf("pairValue on %q = %v, want %v", c.line, got, c.want)
		}
	}
}

// TestLabelColumn: without a header, a label first ("[web] ", "api: ")
// is a column like a header's; a message's first word is not.
func TestLabelColumn(t *testing.T) {
	templates := func(line func(i int) string) int {
		var b strings.Builder
		for i := range 300 {
			b.WriteString(line(i))
			b.WriteByte('\n')
		}
		text := b.String()
		m, err := Mine(context.Background(), textkit.NewLineIndex(text), Analyze(text), 5, nil)
		if err != nil {
			t.Fatal(err)
		}
		return len(m.Members())
	}
	msgs := []string{"cache warmed", "request served", "job queued", "job done"}
	labels := []string{"web", "api", "jobs"}
	if got := templates(func(i int) string { return fmt.Sprintf("[%s] %s in %dms", labels[i%3], msgs[i/3%4], i) }); got != len(msgs) {
		t.Errorf("[label] lines: %d templates, want %d", got, len(msgs))
	}
	if got := templates(func(i int) string { return fmt.Sprintf("%s: %s in %dms", labels[i%3], msgs[i/3%4], i) }); got != len(msgs) {
		t.Errorf("label: lines: %d templates, want %d", got, len(msgs))
	}
	verbs := []string{"GET", "POST", "DELETE"}
	if got := templates(func(i int) string { return fmt.Sprintf("%s %s in %dms", verbs[i%3], msgs[i/3%4], i) }); got != len(verbs)*len(msgs) {
		t.Errorf("first words: %d templates, want %d", got, len(verbs)*len(msgs))
	}
}

// TestHexLiteral: a 0x number is a value whatever letters its digits
// spell (a thread id 0x1aaa beside 0x1a30); a word after 0x is not.
func TestHexLiteral(t *testing.T) {
	var lay Layout
	ids := func(s string) []uint64 {
		var out []uint64
		for _, tk := range lay.TemplateTokens(s, nil) {
			out = append(out, TokenID(tk))
		}
		return out
	}
	base := ids("thread 0x1a30 woke")
	for _, s := range []string{"thread 0x1aaa woke", "thread 0XBEEF woke", "thread 0x7f woke"} {
		if got := ids(s); !slices.Equal(got, base) {
			t.Errorf("%q: template %v, want %v", s, got, base)
		}
	}
	if got := ids("thread 0xgood woke"); slices.Equal(got, base) {
		t.Errorf("0xgood read as a hex number")
	}
}

// TestFieldLineRecords: a record written as indented fields has its
// message among them: one-word events stay apart, users merge, and
// fieldLine tells fields from a trace or a sentence.
func TestFieldLineRecords(t *testing.T) {
	events := []string{"openDrawer", "closeDrawer", "flushCache", "session opened for %s"}
	var b strings.Builder
	for i := range 400 {
		ev := events[i*7%len(events)]
		if strings.Contains(ev, "%s") {
			ev = fmt.Sprintf(ev, fmt.Sprintf("user%c%c", 'a'+i%9, 'a'+i%7))
		}
		fmt.Fprintf(&b, "Fri 2024-03-01 10:%02d:%02d.%06d UTC [s=4a1b;i=%x]\n    PRIORITY=6\n    _PID=%d\n    MESSAGE=%s\n", i/60%60, i%60, i*7919%1000000, 0x1000+i, 100+i%50, ev)
	}
	text := b.String()
	m, err := Mine(context.Background(), textkit.NewLineIndex(text), Analyze(text), 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Members()); got != len(events) {
		t.Errorf("%d templates, want one an event (%d)", got, len(events))
	}
	for l, want := range map[string]bool{
		"    MESSAGE=x": true, "  level: INFO": true, "\t_PID=1": true, "  msg:": true,
		"MESSAGE=x": false, "    at com.acme.Foo.bar(Foo.java:1)": false, "  File \"x.py\", line 3": false,
		"    see: the docs": true, "    12=x": false, "  a sentence with no key": false,
	} {
		if got := fieldLine(l); got != want {
			t.Errorf("fieldLine(%q) = %v, want %v", l, got, want)
		}
	}
}

// TestPoolOfNamesMerges: a position that takes many words, each of them
// recurring (a pool of users), is a parameter; a handful of recurring
// one-word events under one header stay apart.
func TestPoolOfNamesMerges(t *testing.T) {
	templates := func(values []string, line func(i int, v string) string) int {
		var b strings.Builder
		for i := range 1200 {
			b.WriteString(line(i, values[i*7%len(values)]))
			b.WriteByte('\n')
		}
		text := b.String()
		m, err := Mine(context.Background(), textkit.NewLineIndex(text), Analyze(text), 5, nil)
		if err != nil {
			t.Fatal(err)
		}
		return len(m.Members())
	}
	var users []string
	for i := range 24 {
		users = append(users, fmt.Sprintf("%c%c%cuser", 'a'+i%7, 'a'+i%5, 'a'+i%3))
	}
	stamp := func(i int) string { return fmt.Sprintf("2024-03-01 10:%02d:%02d INFO", i/60%60, i%60) }
	if got := templates(users, func(i int, u string) string { return stamp(i) + " session opened for " + u }); got != 1 {
		t.Errorf("a pool of %d users, each seen 50 times: %d templates, want 1", len(users), got)
	}
	// A token that holds a name and an event word together (CJK text has
	// no blank between them) is no pool: its events must not merge.
	var fused strings.Builder
	for i := range 1200 {
		fmt.Fprintf(&fused, "%s 用户%s登录成功：%s\n", stamp(i), users[i*7%len(users)], []string{"openDrawer", "closeDrawer"}[i%2])
	}
	x := textkit.NewLineIndex(fused.String())
	m, err := Mine(context.Background(), x, Analyze(fused.String()), 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	for first, members := range m.Members() {
		for _, l := range members {
			if strings.HasSuffix(x.Line(l), "openDrawer") != strings.HasSuffix(x.Line(first), "openDrawer") {
				t.Fatalf("%q and %q merged", x.Line(first), x.Line(l))
			}
		}
	}
	events := []string{"onCreate", "onStart", "onResume", "onPause", "onStop", "onDestroy", "onRestart", "onSaveState"}
	if got := templates(events, func(i int, e string) string { return stamp(i) + " Activity: " + e }); got != len(events) {
		t.Errorf("%d one-word events: %d templates, want one each", len(events), got)
	}
}

// TestIdeographsCutFromNames: Chinese or Japanese text writes no blank
// between a word and a name ("用户alice登录成功", user alice logged in).
// The name is a token of its own, so a pool of 24 users merges under
// each event, and the two events stay apart: 2 templates. As one token
// a message was a value of its own: events merged (one was lost on a
// probe) or every user made a template.
func TestIdeographsCutFromNames(t *testing.T) {
	var b strings.Builder
	events := []string{"登录成功", "退出登录"}
	for i := range 1200 {
		fmt.Fprintf(&b, "2024-03-01 10:%02d:%02d INFO 用户%c%c%cuser%s\n", i/60%60, i%60, 'a'+i%7, 'a'+i%5, 'a'+i%3, events[i/7%2])
	}
	x := textkit.NewLineIndex(b.String())
	m, err := Mine(context.Background(), x, Analyze(b.String()), 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	members := m.Members()
	for first, ls := range members {
		for _, l := range ls {
			if strings.HasSuffix(x.Line(l), events[0]) != strings.HasSuffix(x.Line(first), events[0]) {
				t.Fatalf("%q and %q merged", x.Line(first), x.Line(l))
			}
		}
	}
	if len(members) != len(events) {
		t.Errorf("%d templates, want %d: one an event, its users merged", len(members), len(events))
	}
}

// TestColumnAfterLevel: after a level that ends the header, the next
// column may be a host's: four hosts that log every event merge.
func TestColumnAfterLevel(t *testing.T) {
	hosts := []string{"worker-a", "x", "storage", "edge"}
	msgs := []string{"cache warmed in %dms", "request served in %dms", "job queued after %dms", "job done in %dms", "lease renewed in %dms"}
	var b strings.Builder
	for i := range 600 {
		fmt.Fprintf(&b, "2024-03-01T10:%02d:%02d.%03dZ INFO [%s] %s\n", i/60%60, i%60, i, hosts[i*3%4], fmt.Sprintf(msgs[i*7%5], i%90))
	}
	text := b.String()
	m, err := Mine(context.Background(), textkit.NewLineIndex(text), Analyze(text), 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.Members()); got != len(msgs) {
		t.Errorf("%d templates, want one a message (%d)", got, len(msgs))
	}
}
