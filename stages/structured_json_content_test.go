package stages

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// contentDoc builds the document of the JSON golden test: a schema of 205
// named properties, exact numbers, a map of 10,000 id-keyed entries, 1,000
// similar objects with 3 outliers and a patch string.
func contentDoc() (doc string, props []string, patch string) {
	var b strings.Builder
	b.WriteString(`{"openapi": "3.0.0", "components": {"schemas": {"Wide": {"type": "object", "properties": {`)
	for i := range 205 {
		if i > 0 {
			b.WriteString(", ")
		}
		name := fmt.Sprintf("%s_%s", []string{"account", "billing", "shipping", "contact", "display"}[i%5], []string{"name", "label", "state", "region", "notes", "limit", "owner"}[i%7])
		name = fmt.Sprintf("%s%c", name, 'a'+rune(i/35))
		props = append(props, name)
		fmt.Fprintf(&b, `%q: {"type": "string", "description": "The %s of the record."}`, name, strings.ReplaceAll(name, "_", " "))
	}
	b.WriteString(`}}}}, "exact": {"big": 18446744073709551616, "version": 1.10, "neg": -0.0, "exp": 1E+400, "esc": "caf\u00e9 \"q\""},`)
	b.WriteString(` "by_id": {`)
	for i := range 10000 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"%08x-%04x": {"seen": %d, "ok": true}`, i*2654435761%(1<<32), i%65536, i)
	}
	b.WriteString(`}, "jobs": [`)
	for i := range 1000 {
		if i > 0 {
			b.WriteString(",\n")
		}
		switch i {
		case 250:
			fmt.Fprintf(&b, `{"id": %d, "status": "failed", "ms": %d, "node": "n%d"}`, i, 40+i%20, i%4)
		case 500:
			fmt.Fprintf(&b, `{"id": %d, "status": "ok", "ms": 987654, "node": "n%d"}`, i, i%4)
		case 750:
			fmt.Fprintf(&b, `{"id": %d, "status": "ok", "ms": %d, "node": "n%d", "retry_of": 749}`, i, 40+i%20, i%4)
		default:
			fmt.Fprintf(&b, `{"id": %d, "status": "ok", "ms": %d, "node": "n%d"}`, i, 40+i%20, i%4)
		}
	}
	patch = "diff --git a/app.go b/app.go\n--- a/app.go\n+++ b/app.go\n@@ -1,4 +1,5 @@\n package main\n+import \"fmt\"\n func main() {\n-\tprintln(1)\n+\tfmt.Println(1)\n }\n" + strings.Repeat(" // unchanged context line\n", 20)
	p, _ := json.Marshal(patch)
	b.WriteString(`], "patch": ` + string(p) + `}`)
	return b.String(), props, patch
}

// TestStructuredJSONContentGolden: named fields kept, kept values byte
// for byte, a map of ids folded, outliers of an array kept, a patch whole.
func TestStructuredJSONContentGolden(t *testing.T) {
	doc, props, patch := contentDoc()
	if !json.Valid([]byte(doc)) {
		t.Fatal("test document is not JSON")
	}
	node := NewStructured(DefaultStructuredOptions())
	_, got := runStructured(t, node, doc, KindJSON)
	golden := filepath.Join("testdata", "structured_json", "content.golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update to accept):\n%s", golden, clip(got))
	}
	checkIdempotent(t, node, got, KindJSON)
	for _, p := range props {
		if !strings.Contains(got, `"`+p+`"`) {
			t.Errorf("property %s lost", p)
		}
	}
	for _, lit := range []string{"18446744073709551616", "1.10", "-0.0", "1E+400", `"caf\u00e9 \"q\""`, `"_omitted_keys": 9998`,
		`"status": "failed"`, `"ms": 987654`, `"retry_of": 749`, `"_outliers": [250, 500, 750]`, `"id": 999`, `"_count": 1000`} {
		if !strings.Contains(got, lit) {
			t.Errorf("output lacks %s", lit)
		}
	}
	p, _ := json.Marshal(patch)
	if !strings.Contains(got, string(p)) {
		t.Errorf("patch not kept whole")
	}
	if len(got)*10 > len(doc) {
		t.Errorf("output %d bytes of %d: not compact", len(got), len(doc))
	}
}

// TestIsDataKey: keys generated from values are data; field names are not.
func TestIsDataKey(t *testing.T) {
	for _, k := range []string{"12345", "2024-05-01", "2024-05-01T10:00:00Z", "1.2.3", "/pets/{id}", "src/main.go", "a@b.example",
		"9f86d081884c7d65", "123e4567-e89b-12d3-a456-426614174000", "user_12345", "https://x.example/y", "Hello, world!"} {
		if !isDataKey(k) {
			t.Errorf("%q is data", k)
		}
	}
	for _, k := range []string{"name", "created_at", "billing_address2", "x-ratelimit-limit", "Content-Type", "id", "h1", "deadbeef_handler", "v2", "@context", "application_json"} {
		if isDataKey(k) {
			t.Errorf("%q is a field name", k)
		}
	}
}
