package stages

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// runStructured applies n the way the pipeline does: protected regions
// stashed before, restored after. It fails the test on a broken contract.
func runStructured(t testing.TB, n Node, text string, kind Kind) (Outcome, string) {
	t.Helper()
	masked, stash := Protect(text)
	out, err := n.Apply(context.Background(), Input{Text: masked, Kind: kind, Mode: ModeAlgorithmic})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if out.Skipped && out.Text != masked {
		t.Fatalf("skipped (%s) but changed the text", out.Reason)
	}
	restored, ok := stash.Restore(out.Text)
	if !ok {
		t.Fatalf("a protected region was lost or repeated")
	}
	if !utf8.ValidString(restored) {
		t.Fatalf("invalid UTF-8 in output")
	}
	return out, restored
}

// checkIdempotent runs n on its own output and wants it back unchanged.
func checkIdempotent(t testing.TB, n Node, out string, kind Kind) {
	t.Helper()
	_, again := runStructured(t, n, out, kind)
	if again != out {
		t.Fatalf("not idempotent:\n--- first\n%s\n--- second\n%s", clip(out), clip(again))
	}
}

func clip(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "\n[clipped]"
	}
	return s
}

// jsonKeyNames lists the distinct key names of a JSON document.
func jsonKeyNames(t testing.TB, text string) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("test input is not JSON: %v", err)
	}
	seen := map[string]bool{}
	stack := []any{v}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := x.(type) {
		case map[string]any:
			for k, y := range x {
				seen[k] = true
				stack = append(stack, y)
			}
		case []any:
			stack = append(stack, x...)
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// missingKeys returns the key names (two characters or more) that do not
// appear in out as whole words.
func missingKeys(keys []string, out string) []string {
	var miss []string
	for _, k := range keys {
		if len(k) < 2 {
			continue
		}
		if !regexp.MustCompile(`(^|[^\w-])` + regexp.QuoteMeta(k) + `($|[^\w-])`).MatchString(out) {
			miss = append(miss, k)
		}
	}
	return miss
}

func TestStructuredOptionsValidate(t *testing.T) {
	if err := DefaultStructuredOptions().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	cases := []struct {
		field string
		edit  func(*StructuredOptions)
	}{
		{"min_chars", func(o *StructuredOptions) { o.MinChars = 0 }},
		{"array_samples", func(o *StructuredOptions) { o.ArraySamples = -1 }},
		{"max_string_chars", func(o *StructuredOptions) { o.MaxStringChars = 0 }},
		{"max_string_chars", func(o *StructuredOptions) { o.MaxStringChars = 10 }},
		{"max_depth", func(o *StructuredOptions) { o.MaxDepth = 0 }},
		{"max_depth", func(o *StructuredOptions) { o.MaxDepth = 1 << 20 }},
		{"max_object_keys", func(o *StructuredOptions) { o.MaxObjectKeys = 3 }},
		{"base64_min_chars", func(o *StructuredOptions) { o.Base64MinChars = 8 }},
		{"table_max_rows", func(o *StructuredOptions) { o.TableMaxRows = 0 }},
		{"table_edge_rows", func(o *StructuredOptions) { o.TableEdgeRows = 6 }},
		{"html_top_classes", func(o *StructuredOptions) { o.HTMLTopClasses = 0 }},
		{"html_max_properties", func(o *StructuredOptions) { o.HTMLMaxProperties = -1 }},
	}
	for _, c := range cases {
		o := DefaultStructuredOptions()
		c.edit(&o)
		err := o.Validate()
		var fe *fieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s: got %v, want an error naming the field", c.field, err)
		}
	}
}

// genIssues builds an API-like JSON array of n objects.
func genIssues(n int) string {
	type user struct {
		Login string `json:"login"`
		ID    int    `json:"id"`
		Admin bool   `json:"site_admin"`
	}
	type issue struct {
		ID        int               `json:"id"`
		Title     string            `json:"title"`
		User      user              `json:"user"`
		Labels    []string          `json:"labels"`
		Milestone *map[string]any   `json:"milestone"`
		Score     float64           `json:"score"`
		Body      string            `json:"body"`
		Extra     map[string]string `json:"extra,omitempty"`
	}
	items := make([]issue, n)
	for i := range items {
		items[i] = issue{
			ID:    i,
			Title: fmt.Sprintf("Issue %d: widget fails under load", i),
			User:  user{Login: fmt.Sprintf("user%d", i%5), ID: 100 + i%5, Admin: i%5 == 0},
			Score: float64(i) * 0.25,
			Body:  strings.Repeat("The widget fails when the load passes a threshold. ", 1+i%4*2),
		}
		for j := 0; j < i%4; j++ {
			items[i].Labels = append(items[i].Labels, fmt.Sprintf("label-%d", j))
		}
		if i%3 == 0 {
			m := map[string]any{"id": i / 3, "due_on": "2024-05-01"}
			items[i].Milestone = &m
		}
		if i == n-1 {
			items[i].Extra = map[string]string{"only_in_the_last_item": "yes"}
		}
	}
	b, _ := json.MarshalIndent(items, "", "  ")
	return string(b)
}

func TestStructuredCases(t *testing.T) {
	opt := DefaultStructuredOptions()
	node := NewStructured(opt)
	png := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 3000)...))
	pdf := base64.StdEncoding.EncodeToString(append([]byte("%PDF-1.7\n"), []byte(strings.Repeat("stream\x00\x01\x02", 200))...))
	text := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("All work and no play makes Jack a dull boy. ", 40)))
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog, again and again. ", 40)
	var table strings.Builder
	table.WriteString("Intro line.\n\n| name | value |\n|------|------:|\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&table, "| row%02d | %d |\n", i, i*i*1000003)
	}
	table.WriteString("\nOutro line, long enough to read.\n")
	var csv strings.Builder
	csv.WriteString("id,name,amount\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&csv, "%d,item-%d,%d.50\n", i, i, i*3)
	}
	var tsv strings.Builder
	tsv.WriteString("id\tname\tamount\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&tsv, "%d\titem-%d\t%d\n", i, i, i*3)
	}
	fenced := "Look at this:\n```\n" + png + "\n```\n" + prose

	cases := []struct {
		name     string
		text     string
		kind     Kind
		skipped  bool
		contains []string
		absent   []string
	}{
		{name: "short text", text: `{"a": [1, 2, 3, 4, 5]}`, kind: KindJSON, skipped: true},
		{name: "prose", text: prose, kind: KindProse, skipped: true},
		{name: "malformed JSON", text: "[" + strings.Repeat(`{"a": 1},`, 200) + "]", kind: KindJSON, skipped: true},
		{name: "truncated JSON", text: genIssues(20)[:3000] + "]", kind: KindJSON, skipped: true},
		{name: "JSON array", text: genIssues(30), kind: KindJSON,
			contains: []string{`"_omitted": 28`, `"_schema"`, `"extra?": {"only_in_the_last_item": "string"}`, `"milestone": {"_type": "object|null"`, `"_count": 30`, `"id": "int · 30 distinct · 0–29"`},
			absent:   []string{"Issue 17"}},
		{name: "JSON detected by the node itself", text: genIssues(30), kind: KindProse, contains: []string{`"_omitted": 28`}},
		{name: "base64 png", text: "attachment: " + png + "\nnext line", kind: KindLog,
			contains: []string{"attachment: [base64 blob: 4012 chars, image/png]\nnext line"}},
		{name: "base64 pdf", text: "file=" + pdf + "==\n" + prose, kind: KindProse, contains: []string{"[base64 blob: ", "application/pdf]"}},
		{name: "base64 text", text: text + "\n" + prose, kind: KindProse, contains: []string{", text]"}},
		{name: "data URI", text: `<p>logo</p> <img src="data:image/svg+xml;base64,` + png + `"> ` + prose, kind: KindProse,
			contains: []string{`<img src="[base64 blob: 4012 chars, image/svg+xml]">`}},
		{name: "wrapped base64", text: "-----BEGIN CERT-----\n" + wrap(png, 64) + "\n-----END CERT-----\n" + prose, kind: KindProse,
			contains: []string{"-----BEGIN CERT-----\n[base64 blob: 4012 chars, image/png]\n-----END CERT-----"}},
		{name: "markdown table", text: table.String(), kind: KindProse,
			contains: []string{"| name | value |\n|------|------:|\n| row00 | 0 |\n| row01 | 1000003 |\n| row02 | 4000012 |\n| ... 44 rows folded ... |\n| row47 | 2209006627 |"}},
		{name: "csv", text: csv.String() + prose, kind: KindProse, contains: []string{"id,name,amount\n0,item-0,0.50\n", "[... 54 rows folded ...]\n57,item-57"}},
		{name: "tsv", text: tsv.String() + prose, kind: KindProse, contains: []string{"[... 54 rows folded ...]"}},
		{name: "CRLF table", text: strings.ReplaceAll(table.String(), "\n", "\r\n"), kind: KindProse,
			contains: []string{"| row02 | 4000012 |\r\n| ... 44 rows folded ... |\r\n| row47 |"}},
		{name: "JSON block in prose", text: "The service answered:\r\n\r\n" + strings.ReplaceAll(indent(genIssues(12), "    "), "\n", "\r\n") + ",\r\nand then stopped.\r\n", kind: KindProse,
			contains: []string{"answered:\r\n\r\n    [\r\n      {\r\n", "\"_omitted\": 10", "\r\n    ],\r\nand then stopped.\r\n"}},
		{name: "csv left alone in logs", text: csv.String(), kind: KindLog, skipped: true},
		{name: "transcript markers carry no counts", text: table.String(), kind: KindTranscript, contains: []string{"| ... rows folded ... |"}},
		{name: "fenced blob is protected", text: fenced, kind: KindProse, skipped: true},
		{name: "not HTML", text: "<notes>\n" + prose, kind: KindHTML, skipped: true},
		{name: "JSON lines", text: strings.Repeat(`{"level": "info", "msg": "request served", "ms": 12}`+"\n", 40), kind: KindJSON, skipped: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, got := runStructured(t, node, c.text, c.kind)
			if out.Skipped != c.skipped {
				t.Fatalf("skipped = %v (%s), want %v\n%s", out.Skipped, out.Reason, c.skipped, clip(got))
			}
			if c.skipped {
				if got != c.text {
					t.Fatalf("skipped but changed")
				}
				return
			}
			if Chars(got) >= Chars(c.text) {
				t.Fatalf("not shorter: %d >= %d", Chars(got), Chars(c.text))
			}
			for _, s := range c.contains {
				if !strings.Contains(got, s) {
					t.Errorf("output lacks %q\n%s", s, clip(got))
				}
			}
			for _, s := range c.absent {
				if strings.Contains(got, s) {
					t.Errorf("output still has %q", s)
				}
			}
			checkIdempotent(t, node, got, c.kind)
		})
	}
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func wrap(s string, width int) string {
	var b strings.Builder
	for len(s) > width {
		b.WriteString(s[:width] + "\n")
		s = s[width:]
	}
	b.WriteString(s)
	return b.String()
}

func TestStructuredJSONKeepsEveryKey(t *testing.T) {
	docs := []string{genIssues(50), genIssues(4), syntheticJSON(rand.New(rand.NewSource(1)), 300)}
	for i, doc := range docs {
		_, out := runStructured(t, NewStructured(DefaultStructuredOptions()), doc, KindJSON)
		if miss := missingKeys(jsonKeyNames(t, doc), out); len(miss) > 0 {
			t.Errorf("doc %d: keys lost: %v", i, miss)
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("doc %d: folded output is not valid JSON: %v", i, err)
		}
	}
}

// syntheticJSON builds a varied document: nested objects and arrays,
// all scalar types, escapes, unicode, numbers at the edges.
func syntheticJSON(r *rand.Rand, n int) string {
	var b strings.Builder
	var value func(depth int)
	value = func(depth int) {
		k := r.Intn(10)
		if depth > 5 {
			k = r.Intn(6)
		}
		switch k {
		case 0:
			fmt.Fprintf(&b, "%d", r.Int63()-r.Int63())
		case 1:
			b.WriteString([]string{"1.5", "-0.0", "1e-7", "3.14159e+25", "18446744073709551615", "123456789012345678901234", "-9223372036854775808", "0"}[r.Intn(8)])
		case 2:
			s := []string{"plain", "quote \" and \\ backslash", "tab\tnewline\n", "ünïcödé ✓ 日本語", "\u2028sep", "<html>&amp;", strings.Repeat("long text ", 30)}[r.Intn(7)]
			b.WriteString(strconv.Quote(s)) // JSON reads these Go escapes alike
		case 3:
			b.WriteString([]string{"true", "false", "null"}[r.Intn(3)])
		case 4:
			b.WriteString(`"\u00e9\ud83d\ude00"`)
		case 5:
			b.WriteString(`""`)
		case 6, 7:
			b.WriteByte('{')
			m := r.Intn(6)
			for i := 0; i < m; i++ {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `"key_%d_%d":`, depth, r.Intn(12))
				value(depth + 1)
			}
			b.WriteByte('}')
		default:
			b.WriteByte('[')
			m := r.Intn(8)
			for i := 0; i < m; i++ {
				if i > 0 {
					b.WriteString(", ")
				}
				value(depth + 1)
			}
			b.WriteByte(']')
		}
	}
	b.WriteString("[\n")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		value(1)
	}
	b.WriteString("\n]")
	return b.String()
}

// TestStructuredJSONValidAndStable: on generated documents the fold gives
// valid JSON, agrees with encoding/json on what is JSON, and is a fixed point.
func TestStructuredJSONValidAndStable(t *testing.T) {
	opt := DefaultStructuredOptions()
	small := opt
	small.MaxDepth = 3
	small.MaxObjectKeys = 5
	small.MaxStringChars = 32
	docs := []string{genIssues(40), genIssues(3)}
	for seed := int64(1); seed <= 20; seed++ {
		docs = append(docs, syntheticJSON(rand.New(rand.NewSource(seed)), 50+int(seed)*10))
	}
	for _, o := range []StructuredOptions{opt, small} {
		for i, doc := range docs {
			var v any
			if err := json.Unmarshal([]byte(doc), &v); err != nil {
				t.Fatalf("doc %d is not JSON: %v", i, err)
			}
			a, outA := runStructured(t, NewStructured(o), doc, KindJSON)
			if !a.Skipped && !json.Valid([]byte(outA)) {
				t.Fatalf("doc %d: output is not JSON:\n%s", i, clip(outA))
			}
			checkIdempotent(t, NewStructured(o), outA, KindJSON)
		}
	}
}

func TestStructuredDeepJSON(t *testing.T) {
	const depth = 100_000
	docs := map[string]string{
		"arrays":  strings.Repeat("[", depth) + strings.Repeat("]", depth),
		"objects": strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth),
	}
	for name, doc := range docs {
		for _, n := range []Node{NewStructured(DefaultStructuredOptions())} {
			start := time.Now()
			out, got := runStructured(t, n, doc, KindJSON)
			if out.Skipped || !strings.Contains(got, "deeper than 32 levels") {
				t.Fatalf("%s: want a depth marker, got (%s) %s", name, out.Reason, clip(got))
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("%s: took %v", name, d)
			}
			checkIdempotent(t, n, got, KindJSON)
		}
	}
}

func TestStructuredMillionKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: a million keys; runs without -short")
	}
	keys := 1_000_000
	if raceDetector {
		// The race detector slows the walk tenfold; bounds are checked
		// without it.
		keys = 100_000
	}
	b := make([]byte, 0, keys*24)
	b = append(b, '{')
	for i := 0; i < keys; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `"key`...)
		b = append(b, fmt.Sprintf("%07d", i)...)
		b = append(b, `":{"n":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, '}')
	}
	b = append(b, '}')
	doc := string(b)
	nodes := []Node{NewStructured(DefaultStructuredOptions())}
	for _, n := range nodes {
		start := time.Now()
		out, got := runStructured(t, n, doc, KindJSON)
		if out.Skipped || len(got) > 1000 {
			t.Fatalf("want a short skeleton, got (%s) %d chars", out.Reason, len(got))
		}
		for _, s := range []string{`"key0000000":{"n":0}`, `"_omitted_keys":` + strconv.Itoa(keys-2), `"_value_schema":{"n":"int"}`} {
			if !strings.Contains(got, s) {
				t.Errorf("output lacks %s:\n%s", s, got)
			}
		}
		t.Logf("%d keys in %v", keys, time.Since(start))
	}
}

func TestStructuredLargeBase64(t *testing.T) {
	raw := make([]byte, 15<<20)
	rand.New(rand.NewSource(3)).Read(raw)
	copy(raw, "\x1f\x8b\x08\x00")
	blob := base64.StdEncoding.EncodeToString(raw) // 20 MB
	text := "before\n" + blob + "\nafter"
	start := time.Now()
	out, got := runStructured(t, NewStructured(DefaultStructuredOptions()), text, KindLog)
	d := time.Since(start)
	want := fmt.Sprintf("before\n[base64 blob: %d chars, application/gzip]\nafter", len(blob))
	if out.Skipped || got != want {
		t.Fatalf("got %q", clip(got))
	}
	if d > 5*time.Second {
		t.Fatalf("20 MB of base64 took %v", d)
	}
	t.Logf("20 MB of base64 in %v", d)
}

func TestStructuredHTMLDigest(t *testing.T) {
	var page strings.Builder
	page.WriteString(`<!doctype html><html lang="de"><head><title>  Die   Seite &amp; mehr </title>
<style>:root{--accent: #c00; --space-2:  16px ;} a { color: var(--accent) }</style></head>
<body class="page"><header><nav role="navigation" class="menu"><a href="/">Start</a></nav></header>
<main><h1>Haupt<b>titel</b>  hier</h1>
<h2><svg><title>Symbol</title></svg>Zweite&nbsp;Ebene</h2>
<noscript><h3>Ohne Skript</h3></noscript>`)
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&page, `<article class="teaser card"><h3>Artikel %d</h3><p class="teaser-text">Ein Absatz mit etwas Text, der lang genug ist, um aufzufallen.</p></article>`+"\n", i)
	}
	page.WriteString(`<h5>Kleingedrucktes</h5></main><aside><h2>a &lt; b</h2></aside><footer style="--footer-h: 3rem">Ende</footer></body></html>`)
	text := page.String()
	opt := DefaultStructuredOptions()
	opt.HTML = HTMLDigest
	node := NewStructured(opt)
	out, got := runStructured(t, node, text, KindHTML)
	if out.Skipped {
		t.Fatalf("skipped: %s", out.Reason)
	}
	want := []string{
		"title: Die Seite & mehr", "# Haupttitel hier", "## Zweite Ebene", "title: Symbol", "### Ohne Skript",
		"### Artikel 0", "### Artikel 39", "##### Kleingedrucktes", "## a &lt; b",
		"landmarks: header, nav, role=navigation, main, article(40), aside, footer",
		"classes: teaser(40), card(40), teaser-text(40)",
		"custom properties (3): --accent: #c00; --space-2: 16px; --footer-h: 3rem",
		"lang: de",
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("digest lacks %q\n%s", w, got)
		}
	}
	if r := float64(Chars(got)) / float64(Chars(text)); r > 0.2 {
		t.Errorf("ratio %.2f, want < 0.2", r)
	}
	checkIdempotent(t, node, got, KindHTML)
	checkIdempotent(t, node, got, KindProse)
}

func TestStructuredGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "structured", "*.input"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	node := NewStructured(DefaultStructuredOptions())
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			// name.<kind>.input: the kind is given, not detected, so the
			// goldens do not move when detection does.
			kind := ParseKind(filepath.Ext(strings.TrimSuffix(filepath.Base(in), ".input"))[1:])
			if kind == "" {
				t.Fatalf("%s: name it NAME.KIND.input", in)
			}
			_, got := runStructured(t, node, text, kind)
			golden := strings.TrimSuffix(in, ".input") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (run with -update to accept):\n%s", golden, clip(got))
			}
			checkIdempotent(t, node, got, kind)
			checkIdempotent(t, node, got, Detect(got))
			if kind == KindJSON {
				if miss := missingKeys(jsonKeyNames(t, text), got); len(miss) > 0 {
					t.Errorf("keys lost: %v", miss)
				}
			}
		})
	}
}

func TestStructuredCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, text := range []string{genIssues(500), strings.Repeat("word ", 5000)} {
		if _, err := NewStructured(DefaultStructuredOptions()).Apply(ctx, Input{Text: text, Kind: Detect(text)}); !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	}
	// Cancelled in the middle of a long walk.
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	doc := genIssues(20000)
	<-ctx.Done()
	if _, err := NewStructured(DefaultStructuredOptions()).Apply(ctx, Input{Text: doc, Kind: KindJSON}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want context.DeadlineExceeded", err)
	}
}

func TestStructuredConcurrent(t *testing.T) {
	node := NewStructured(DefaultStructuredOptions())
	docs := []string{genIssues(60), syntheticJSON(rand.New(rand.NewSource(9)), 200)}
	want := make([]string, len(docs))
	for i, d := range docs {
		_, want[i] = runStructured(t, node, d, KindJSON)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			i := g % len(docs)
			out, err := node.Apply(context.Background(), Input{Text: docs[i], Kind: KindJSON})
			if err != nil || out.Text != want[i] {
				t.Errorf("goroutine %d: different output (err %v)", g, err)
			}
		}(g)
	}
	wg.Wait()
}

func BenchmarkStructuredJSON(b *testing.B) {
	doc := genIssues(12000) // about 6 MB
	for _, bc := range []struct {
		name string
		node Node
	}{{"raw", NewStructured(DefaultStructuredOptions())}} {
		b.Run(bc.name, func(b *testing.B) {
			in := Input{Text: doc, Kind: KindJSON}
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.node.Apply(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func FuzzStructured(f *testing.F) {
	f.Add(`[{"a": 1, "b": "x"}, {"a": 2}, {"c": null}, {"a": 4, "d": [1, 2, 3, 4]}]`, "json")
	f.Add(`{"k": {"k": {"k": {"k": [[[[1]]]]}}}, "s": "`+strings.Repeat("long ", 20)+`"}`, "json")
	f.Add("x\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n| 5 | 6 |\n| 7 | 8 |\n| 9 | 0 |\nend", "prose")
	f.Add("a,b\n1,2\n3,4\n5,6\n7,8\n9,0\n1,1\n", "prose")
	f.Add("blob QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaDEyMzQ1Njc4OTA= end", "log")
	f.Add("<!doctype html><title>T</title><h1 class=a>One</h1><h2 class=a>Two</h2>", "html")
	f.Add("text\n```\n{\"a\": [1,2,3,4,5,6]}\n```\n[1, 2, 3, 4, 5, 6, 7, 8]\n", "prose")
	opt := DefaultStructuredOptions()
	opt.MinChars = 16
	opt.MaxDepth = 3
	opt.MaxObjectKeys = 4
	opt.MaxStringChars = 32
	opt.Base64MinChars = 32
	opt.TableMaxRows = 3
	opt.TableEdgeRows = 1
	nodes := []Node{NewStructured(opt)}
	f.Fuzz(func(t *testing.T, text, kind string) {
		if !utf8.ValidString(text) {
			return
		}
		k := ParseKind(kind)
		var outs []string
		for _, n := range nodes {
			_, out := runStructured(t, n, text, k)
			checkIdempotent(t, n, out, k)
			outs = append(outs, out)
		}
		_ = outs
	})
}

// TestHTMLDigestOption: structured.html: digest gives the digest alone.
func TestHTMLDigestOption(t *testing.T) {
	opt := DefaultStructuredOptions()
	opt.HTML = "summary"
	if err := opt.Validate(); err == nil || !strings.Contains(err.Error(), "html") {
		t.Fatalf("html: summary accepted: %v", err)
	}
	opt.HTML = HTMLDigest
	text := "<!doctype html><html><head><title>T</title></head><body><main><h1>Head</h1><p>" + strings.Repeat("Some words of text here. ", 80) + "</p></main></body></html>"
	_, got := runStructured(t, NewStructured(opt), text, KindHTML)
	if !strings.HasPrefix(got, "[html digest: ") || strings.Count(got, "Some words") > 10 {
		t.Fatalf("not the digest:\n%s", got)
	}
}

// A JSON-lines log and a brace-wrapped non-JSON text are not JSON
// documents, whatever their first and last bytes.
func TestDetectNeedsOneJSONValue(t *testing.T) {
	for text, want := range map[string]Kind{
		`{"users":[{"id":1,"name":"a"},{"id":2,"name":"b"}],"total":2}`: KindJSON,
		"{\n  // settings\n  \"theme\": \"dark\"\n}":                    "",
	} {
		got := Detect(text)
		if want != "" && got != want || want == "" && got == KindJSON {
			t.Errorf("Detect(%.40q) = %s", text, got)
		}
	}
}
