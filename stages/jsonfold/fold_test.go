package jsonfold

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

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

// FuzzJSONSource: the tokenizer accepts exactly the objects and arrays
// encoding/json accepts, and a kept literal is the input's.
func FuzzJSONSource(f *testing.F) {
	for _, s := range []string{`{"a": 1.10, "b": [18446744073709551616, "x\u00e9"]}`, `[1,]`, `{"a" 1}`, `[01]`, `["\ud800"]`, "[\"\x01\"]", `[-0.0e+5, true, false, null]`, ` [ ] `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		trimmed := strings.TrimSpace(text)
		if trimmed == "" || (trimmed[0] != '{' && trimmed[0] != '[') || !utf8.ValidString(text) {
			return // invalid UTF-8 is refused (and passes through); encoding/json mends it
		}
		src := newJSONSource(text)
		ok := true
		for {
			tok, err := src.next()
			if err != nil {
				ok = false
				break
			}
			if tok == tokEnd {
				break
			}
			if tok == tokString || tok == tokInt || tok == tokFloat {
				if !strings.Contains(text, src.text()) {
					t.Fatalf("literal %q not in the input", src.text())
				}
				if tok == tokString {
					_ = src.str()
				}
			}
		}
		if want := json.Valid([]byte(text)); ok != want {
			t.Fatalf("tokenizer says %v, encoding/json %v: %q", ok, want, text)
		}
	})
}
