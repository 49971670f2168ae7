package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/jetcompact/jetcompact/pipeline"
)

// jsonRefInOutput is a JSON fold marker's reference: a meta object's or a
// folded map's "_ref" member.
var jsonRefInOutput = regexp.MustCompile(`"_ref": "([0-9a-f]+:[LB]\d+-\d+)"`)

// TestJSONRefsRoundTrip: `get` resolves every reference of a compacted
// JSON document, pretty (line ranges) or minified (byte ranges), to
// exactly the part of the original it names, and the output stays JSON.
func TestJSONRefsRoundTrip(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	var items []any
	users := map[string]any{}
	for i := range 40 {
		items = append(items, map[string]any{"id": 500 + i, "title": fmt.Sprintf("issue %d", i), "state": "open", "labels": []string{"bug", words[i%len(words)]}})
		users[fmt.Sprintf("u%06x", i*7919)] = map[string]any{"name": words[(i*3)%len(words)], "seen": i * 13}
	}
	doc := map[string]any{"page": 2, "items": items, "users": users}
	pretty, _ := json.MarshalIndent(doc, "", "  ")
	minified, _ := json.Marshal(doc)
	for form, raw := range map[string]string{"pretty": string(pretty), "minified": string(minified)} {
		out, _, err := runPublisher(t, raw, "--local", "-")
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid([]byte(out)) {
			t.Fatalf("%s: output is not JSON:\n%s", form, out)
		}
		refs := jsonRefInOutput.FindAllStringSubmatch(out, -1)
		if len(refs) == 0 {
			t.Fatalf("%s: %d references:\n%s", form, len(refs), out)
		}
		for _, m := range refs {
			got, _, err := runPublisher(t, "", "get", m[1])
			if err != nil {
				t.Fatalf("%s: get %s: %v", form, m[1], err)
			}
			ref, _ := pipeline.ParseRef(m[1])
			want, err := ref.Slice(raw)
			if err != nil || got != want {
				t.Fatalf("%s: get %s = %q, want %q (%v)", form, m[1], got, want, err)
			}
		}
	}
}
