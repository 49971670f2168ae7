package stages

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLogTemplateSpans: each template's first record maps to its last
// record's line, whatever lies between; text that is no log of records
// has no spans.
func TestLogTemplateSpans(t *testing.T) {
	var b strings.Builder
	last := map[string]int{}
	first := map[string]int{}
	for i := range 300 {
		what := []string{"accepted connection from 10.0.0.%d", "cache evicted %d keys", "job %d finished"}[i*7%3]
		line := fmt.Sprintf("2026-03-01T10:%02d:%02dZ INFO "+what, i/60, i%60, i)
		b.WriteString(line + "\n")
		key := strings.Fields(what)[0]
		if _, ok := first[key]; !ok {
			first[key] = i
		}
		last[key] = i
	}
	spans := LogTemplateSpans(b.String())
	for key, f := range first {
		if got, ok := spans[f]; !ok || got != last[key] {
			t.Errorf("%s: span from line %d ends at %d (found %v), want %d", key, f, got, ok, last[key])
		}
	}
	if s := LogTemplateSpans("just a sentence\nand another one, no records here\n"); len(s) != 0 {
		t.Errorf("prose has spans: %v", s)
	}
}

// TestLogTemplateMembers: on a log whose templates interleave, one of them
// a variant with many user names and one with continuation lines, every
// template's members are exactly its records, keyed as LogTemplateSpans,
// and as many as the N of the count line log_dedup writes for it.
func TestLogTemplateMembers(t *testing.T) {
	var b strings.Builder
	want := map[string][]int{} // template -> first lines of its records
	line := 0
	for i := range 400 {
		kind := []string{"login", "evict", "done", "trace", "login", "fail"}[i*7%6]
		stamp := fmt.Sprintf("2026-03-01T10:%02d:%02dZ", i/60%60, i%60)
		var rec []string
		switch kind {
		case "login":
			rec = []string{fmt.Sprintf("%s INFO user %s logged in from 10.0.%d.%d", stamp, string([]byte{'a' + byte(i%26), 'a' + byte(i/26%26), 'o'}), i%7, i%250)}
		case "evict":
			rec = []string{fmt.Sprintf("%s INFO cache evicted %d keys", stamp, i)}
		case "done":
			rec = []string{fmt.Sprintf("%s INFO job %d finished in %dms", stamp, i, i*3)}
		case "trace":
			rec = []string{fmt.Sprintf("%s WARN retry %d of request", stamp, i%5), "    at handler.go:42", "    at server.go:17"}
		case "fail":
			rec = []string{fmt.Sprintf("%s WARN job %d finished late", stamp, i)}
		}
		want[kind] = append(want[kind], line)
		for _, l := range rec {
			b.WriteString(l + "\n")
			line++
		}
	}
	text := b.String()
	members := LogTemplateMembers(text)
	if len(members) != len(want) {
		for _, k := range keysOf(members) {
			t.Log(k, len(members[k]), strings.Split(text, "\n")[k])
		}
		t.Fatalf("%d templates, want %d: %v", len(members), len(want), keysOf(members))
	}
	spans := LogTemplateSpans(text)
	for kind, w := range want {
		got := members[w[0]]
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("%s: members %v, want %v", kind, got, w)
		}
		if _, ok := spans[w[0]]; !ok {
			t.Errorf("%s: key %d has no span", kind, w[0])
		}
	}
	out, err := NewLogDedup(DefaultLogDedupOptions()).Apply(context.Background(), Input{Kind: KindLog, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	// Count lines come in the order of their templates' first records.
	var counts []int
	for _, l := range strings.Split(out.Text, "\n") {
		if k := strings.Index(l, " [×"); k >= 0 {
			n, _ := strconv.Atoi(strings.TrimLeft(strings.FieldsFunc(l[k+len(" [×"):], func(r rune) bool { return r == ';' || r == ']' })[0], " "))
			counts = append(counts, n)
		}
	}
	keys := keysOf(members)
	if len(counts) != len(keys) {
		t.Fatalf("%d count lines, %d templates:\n%s", len(counts), len(keys), out.Text)
	}
	for i, k := range keys {
		if counts[i] != len(members[k]) {
			t.Errorf("template at line %d: count line says %d, %d members", k, counts[i], len(members[k]))
		}
	}
	if m := LogTemplateMembers("just a sentence\nand another one, no records here\n"); m != nil {
		t.Errorf("prose has members: %v", m)
	}
}

func keysOf(m map[int][]int) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
