package stages

import (
	"encoding/json"
	"strings"
	"testing"
)

// validJSON agrees with encoding/json on whole documents, on both paths:
// simdjson-go where the CPU has it, and the literal tokenizer alone.
func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	docs := []string{
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
	}
	defer func(v bool) { simdJSON = v }(simdJSON)
	for _, simd := range []bool{true, false} {
		simdJSON = simd && simdJSONSupported()
		for _, d := range docs {
			if got, want := validJSON(d), json.Valid([]byte(d)); got != want {
				t.Errorf("simd=%v validJSON(%.60q) = %v, encoding/json says %v", simdJSON, d, got, want)
			}
		}
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

func simdJSONSupported() bool { return simdJSON }
