package jsonfold

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStreamLines: a stream of indented objects becomes one compact object
// a line, each equal to its original; anything else stays as it was.
func TestStreamLines(t *testing.T) {
	records := []map[string]any{
		{"time": "2024-03-01T10:00:00Z", "level": "info", "msg": "cache flushed in 12ms", "n": 3},
		{"time": "2024-03-01T10:00:01Z", "level": "warn", "msg": "slow query {a}", "tags": []any{"x", "y"}},
		{"time": "2024-03-01T10:00:02Z", "level": "info", "msg": "line\nbreak \"quoted\""},
	}
	var b strings.Builder
	for _, r := range records {
		j, _ := json.MarshalIndent(r, "", "  ")
		b.Write(j)
		b.WriteByte('\n')
	}
	if _, ok := StreamLines(strings.ReplaceAll(b.String(), "}\n", "}\n\n")); !ok {
		t.Error("objects with blank lines between them were not read")
	}
	got, ok := StreamLines(b.String())
	if !ok {
		t.Fatalf("a stream of %d indented objects was not read", len(records))
	}
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != len(records) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(records), got)
	}
	for i, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %d %q: %v", i, l, err)
		}
		want, _ := json.Marshal(records[i])
		have, _ := json.Marshal(v)
		if string(want) != string(have) {
			t.Errorf("line %d is %s, want %s", i, have, want)
		}
	}
	for _, s := range []string{
		"{\n  \"a\": 1\n}\n",                // one object: a JSON document
		"{\"a\":1}\n{\"a\":2}\n",            // JSON lines already
		"{\n  \"a\": 1\n}\nplain text\n",    // a stream with text in it
		"{\n  \"a\": 1\n}\n[1, 2]\n",        // not only objects
		"{\n  \"a\": 1\n}\n{\n  \"a\": \n",  // a truncated object
		"2024-03-01 INFO {\n\"a\":1}\n{}\n", // a log
	} {
		if out, ok := StreamLines(s); ok || out != s {
			t.Errorf("StreamLines(%q) = %q, %v; want it untouched", s, out, ok)
		}
	}
}

// TestBraceLineFirst: the first-line test reads what cutting the first
// line and trimming its blanks reads.
func TestBraceLineFirst(t *testing.T) {
	for _, s := range []string{"", "{", "{\n", "{ \t\r\n\"a\":1}", "{\"a\":1}", "{ x\n", "{\r", "[\n", " {\n", "{ \n{", "{}\n"} {
		first, _, _ := strings.Cut(s, "\n")
		if got, want := braceLineFirst(s), strings.TrimRight(first, " \t\r") == "{"; got != want {
			t.Errorf("braceLineFirst(%q) = %v, want %v", s, got, want)
		}
	}
}
