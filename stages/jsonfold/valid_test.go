package jsonfold

import (
	"encoding/json"
	"strings"
	"testing"
)

// Valid agrees with encoding/json on whole documents, on both paths:
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
			if got, want := Valid(d), json.Valid([]byte(d)); got != want {
				t.Errorf("simd=%v Valid(%.60q) = %v, encoding/json says %v", simdJSON, d, got, want)
			}
		}
	}
}

func simdJSONSupported() bool { return simdJSON }
