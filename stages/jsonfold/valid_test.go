package jsonfold

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

var validCases = []string{
	`{"a":1,"b":[true,false,null],"c":{"d":"e\u00e9\n"}}`,
	`[{"id":18446744073709551616,"v":1.10},{"id":2,"v":1e400}]`,
	`{"emoji":"\ud83d\ude00","s":"tab\there"}`,
	`{"a":1}` + "\n" + `{"b":2}`,
	`{"a":1,}`,
	`[1,2,`,
	`{"a":"b"} trailing`,
	`{// comment` + "\n" + `"a":1}`,
	`{"a":01}`,
	`{"a":.5}`,
	`{"a":"unterminated}`,
	`[]`,
	`{}`,
	strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200),
	`{"big":` + strings.Repeat("9", 400) + `}`,
	`["` + strings.Repeat("long text ", 40) + `"]`,
}

// Valid agrees with encoding/json on whole documents, and so do both of
// its paths: simdjson-go (where the CPU has it and it is sure) and the
// literal tokenizer alone.
func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, d := range validCases {
		want := json.Valid([]byte(d))
		if got := Valid(d); got != want {
			t.Errorf("Valid(%.60q) = %v, encoding/json says %v", d, got, want)
		}
		checkValidPaths(t, d, want)
	}
}

func checkValidPaths(t *testing.T, d string, want bool) {
	t.Helper()
	if got := walkJSON(d); got != want {
		t.Errorf("walkJSON(%.60q) = %v, want %v", d, got, want)
	}
	if !simdJSON {
		return
	}
	if got, sure := validBySIMD(d); sure && got != want {
		t.Errorf("validBySIMD(%.60q) = %v, want %v", d, got, want)
	}
}

// longASCIIStrings sends documents of long ASCII strings to simdjson-go,
// and token-dense or non-Latin ones to the tokenizer, whatever the field
// names and the document's size.
func TestLongASCIIStringsByClass(t *testing.T) {
	record := func(i int, body string) string {
		return fmt.Sprintf(`{"id":%d,"name":"n%d","body":%q,"ok":true}`, i, i, body)
	}
	classes := []struct {
		name string
		body string
		want bool
	}{
		{"records of short fields", "x", false},
		{"records of numbers", "", false},
		{"articles", strings.Repeat("the quick brown fox jumps over it ", 16), true},
		{"non-Latin articles", strings.Repeat("日本語のテキストです。", 20), false},
		{"Latin articles with accents", strings.Repeat("café crème brûlée ", 12), false},
	}
	for _, c := range classes {
		for _, n := range []int{1, 10, 1000} {
			var b strings.Builder
			b.WriteByte('[')
			for i := 0; i < n; i++ {
				if i > 0 {
					b.WriteString(",\n  ")
				}
				b.WriteString(record(i, c.body))
			}
			b.WriteByte(']')
			doc := b.String()
			if got := longASCIIStrings(doc); got != c.want && (n > 1 || c.want) {
				t.Errorf("%s, %d records: longASCIIStrings = %v, want %v", c.name, n, got, c.want)
			}
			checkValidPaths(t, doc, true)
		}
	}
}

// FuzzValidPaths: simdjson-go, where it is sure, and the tokenizer agree.
func FuzzValidPaths(f *testing.F) {
	for _, d := range validCases {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, d string) {
		if !simdJSON || len(d) == 0 {
			return
		}
		if got, sure := validBySIMD(d); sure && got != walkJSON(d) {
			t.Fatalf("validBySIMD(%q) = %v, the tokenizer %v", d, got, !got)
		}
	})
}

// TestValidBySIMDUnicodeEscapes: every printable byte in each of a \u
// escape's four places, in a key and in a value, after an escaped
// backslash (no escape then) and after a good escape. Where simdjson-go is
// sure it agrees with the tokenizer, and it stays sure of escapes that are
// well formed.
func TestValidBySIMDUnicodeEscapes(t *testing.T) {
	if !simdJSON {
		t.Skip("simdjson-go needs AVX2 and CLMUL; this CPU lacks them")
	}
	shapes := []string{`["%s"]`, `{"%s":1}`, `{"k":"a%sb","n":[1,2]}`}
	for pos := range 4 {
		for c := byte(0x20); c < 0x7f; c++ {
			hex := []byte("00e9")
			hex[pos] = c
			for _, esc := range []string{`\u` + string(hex), `\\u` + string(hex), `\n\u00e9\u` + string(hex)} {
				for _, shape := range shapes {
					d := fmt.Sprintf(shape, esc)
					got, sure := validBySIMD(d)
					want := walkJSON(d)
					if sure && got != want {
						t.Fatalf("validBySIMD(%q) = %v, the tokenizer %v", d, got, want)
					}
					if want && !sure {
						t.Errorf("validBySIMD(%q) unsure of a valid document", d)
					}
				}
			}
		}
	}
}

// TestHasNonJSONControlMatchesBytes: the eight-bytes-a-step scan agrees
// with a byte loop for every byte at every place of texts up to three
// words long, among plain bytes, blanks and bytes from 0x80 up.
func TestHasNonJSONControlMatchesBytes(t *testing.T) {
	fills := []byte{'a', '\n', '\t', 0xff, 0x80, ' '}
	byBytes := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				return true
			}
		}
		return false
	}
	for n := 1; n <= 24; n++ {
		for _, fill := range fills {
			for at := range n {
				for c := range 256 {
					b := []byte(strings.Repeat(string(fill), n))
					b[at] = byte(c)
					text := string(b)
					if got, want := hasNonJSONControl(text), byBytes(text); got != want {
						t.Fatalf("hasNonJSONControl(%q) = %v, byte by byte %v", text, got, want)
					}
				}
			}
		}
	}
}
