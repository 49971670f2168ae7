package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// genJSONDoc is an API payload: an envelope with a page of n similar
// records, each holding a list of m events, and a map keyed by ids.
func genJSONDoc(seed uint64, n, m int) map[string]any {
	r := rand.New(rand.NewPCG(seed, 23))
	var items []any
	for i := range n {
		var events []any
		for k := range m {
			events = append(events, map[string]any{"at": fmt.Sprintf("2026-03-%02dT10:%02d:00Z", 1+k%28, r.IntN(60)), "kind": []string{"open", "close", "edit"}[r.IntN(3)], "by": fmt.Sprintf("user%d", r.IntN(50))})
		}
		items = append(items, map[string]any{"id": 1000 + i, "title": fmt.Sprintf("Issue %d about %s", i, words[r.IntN(len(words))]), "state": "open", "score": r.IntN(100), "events": events})
	}
	byID := map[string]any{}
	for range n {
		byID[fmt.Sprintf("u%08x", r.Uint32())] = map[string]any{"name": words[r.IntN(len(words))], "seen": r.IntN(1000)}
	}
	return map[string]any{"page": 1, "per_page": n, "items": items, "users": byID}
}

var jsonRef = regexp.MustCompile(`"_ref": "([0-9a-f]+:[LB]\d+-\d+)"`)

// TestAddJSONRefs: every folded array and map of a JSON document, pretty
// or minified, gets a "_ref", the output stays valid JSON, and a folded
// array's reference names exactly its omitted items (by lines when they
// fill their lines, by bytes in a one-line document).
func TestAddJSONRefs(t *testing.T) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(4) {
		doc := genJSONDoc(seed, 20+int(seed)*7, 12)
		pretty, _ := json.MarshalIndent(doc, "", "  ")
		minified, _ := json.Marshal(doc)
		for form, raw := range map[string][]byte{"pretty": pretty, "minified": minified} {
			text := string(raw)
			res, err := p.Run(context.Background(), Request{Text: text})
			if err != nil {
				t.Fatal(err)
			}
			out := AddRefs(text, res.Text, "abcd1234")
			if !json.Valid([]byte(out)) {
				t.Fatalf("seed %d %s: output is no longer JSON:\n%s", seed, form, out)
			}
			markers := strings.Count(out, `"_omitted"`) + strings.Count(out, `"_omitted_keys"`)
			refs := jsonRef.FindAllStringSubmatch(out, -1)
			if markers == 0 || len(refs) != markers {
				t.Fatalf("seed %d %s: %d markers, %d references:\n%s", seed, form, markers, len(refs), out)
			}
			wantUnit := map[string]string{"pretty": ":L", "minified": ":B"}[form]
			for _, m := range refs {
				if !strings.Contains(m[1], wantUnit) {
					t.Errorf("seed %d %s: reference %s, want the %s form", seed, form, m[1], wantUnit)
				}
				ref, err := ParseRef(m[1])
				if err != nil {
					t.Fatal(err)
				}
				part, err := ref.Slice(text)
				if err != nil {
					t.Fatalf("seed %d %s: %s: %v", seed, form, m[1], err)
				}
				// The part is a run of array items or object members.
				body := strings.Trim(part, " \t\n,")
				open, close := "[", "]"
				if strings.HasPrefix(body, `"`) {
					open, close = "{", "}"
				}
				var got any
				if err := json.Unmarshal([]byte(open+body+close), &got); err != nil {
					t.Fatalf("seed %d %s: %s is not whole items: %v\n%s", seed, form, m[1], err, part)
				}
				if items, ok := got.([]any); ok && len(items) > 0 {
					// The top-level page: items 1..n-2 folded (first and last kept).
					all := doc["items"].([]any)
					if _, isRecord := items[0].(map[string]any)["title"]; isRecord {
						want := roundTrip(t, all[1:len(all)-1])
						if !reflect.DeepEqual(got, want) {
							t.Errorf("seed %d %s: %s holds %d items, want items 1..%d", seed, form, m[1], len(items), len(all)-2)
						}
					}
				}
			}
		}
	}
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestParseRefBytes(t *testing.T) {
	r, err := ParseRef("abcd1234:B5-9")
	if err != nil || !r.Bytes || r.From != 5 || r.To != 9 || r.Range() != "B5-9" {
		t.Fatalf("ParseRef(B5-9) = %+v, %v", r, err)
	}
	if got, err := r.Slice("0123456789abc"); err != nil || got != "45678" {
		t.Errorf("Slice = %q, %v; want 45678", got, err)
	}
	if _, err := r.Slice("0123"); err == nil {
		t.Error("a byte range past the end is no error")
	}
	if _, err := ParseRef("abcd1234:X5-9"); err == nil {
		t.Error("an unknown range unit is no error")
	}
}

// TestAddJSONRefsDepthMarker: an array folded below max_depth becomes a
// "[… N more items]" string; its reference names the items between the
// first and the last.
func TestAddJSONRefsDepthMarker(t *testing.T) {
	var items []any
	for i := range 30 {
		items = append(items, map[string]any{"id": i, "name": fmt.Sprintf("item %d", i)})
	}
	var doc any = items
	for range 32 {
		doc = map[string]any{"inner": doc}
	}
	raw, _ := json.MarshalIndent(doc, "", " ")
	text := string(raw)
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), Request{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	out := AddRefs(text, res.Text, "abcd1234")
	m := regexp.MustCompile(`more items · ref ([0-9a-f]+:L\d+-\d+)\]"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no referenced depth marker:\n%s", out)
	}
	ref, _ := ParseRef(m[1])
	part, err := ref.Slice(text)
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	if err := json.Unmarshal([]byte("["+strings.Trim(part, " \n,")+"]"), &got); err != nil || len(got) != 28 {
		t.Fatalf("%s: %d items, %v; want items 1..28", m[1], len(got), err)
	}

	// Deeper still, the array is one marker: its reference is all of it.
	doc = map[string]any{"outer": map[string]any{"inner": doc}}
	raw, _ = json.MarshalIndent(doc, "", " ")
	text = string(raw)
	if res, err = p.Run(context.Background(), Request{Text: text}); err != nil {
		t.Fatal(err)
	}
	out = AddRefs(text, res.Text, "abcd1234")
	m = regexp.MustCompile(`deeper than \d+ levels · ref ([0-9a-f]+:[LB]\d+-\d+)\]"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no referenced deep marker:\n%s", out)
	}
	ref, _ = ParseRef(m[1])
	if part, err = ref.Slice(text); err != nil {
		t.Fatal(err)
	}
	if !json.Valid([]byte(part)) || strings.Count(part, `"id"`) != 30 {
		t.Fatalf("%s: want the whole container, got:\n%s", m[1], part)
	}
}

// TestAddJSONRefsBadInput: a marker whose original is not JSON, or not
// the document it came from, or a meta object of another layout, gets no
// reference, and nothing panics.
func TestAddJSONRefsBadInput(t *testing.T) {
	folded := `[{"a": 1}, {"a": 9}, {"_omitted": 7, "_count": 9, "_schema": {"a": "int"}}]`
	for name, c := range map[string]struct{ original, compacted string }{
		"not JSON":        {"plain text\nlines", folded},
		"other document":  {`{"x": [1, 2]}`, folded},
		"truncated":       {`[{"a": 1}, {"a": 2}, {"a"`, folded},
		"outlier past":    {`[1,2,3,4,5,6,7,8,9]`, `[1, 9, {"_omitted": 6, "_count": 9, "_outliers": [40], "_schema": "int"}]`},
		"count too small": {`[1,2,3,4,5,6,7,8,9]`, `[1, 2, 9, {"_omitted": 1, "_count": 2, "_schema": "int"}]`},
		"deep, no array":  {`{"a": 1}`, `{"a": "[array deeper than 32 levels]"}`},
		"unbalanced":      {`[[[[`, `[{"_omitted": 1, "_count": 3}]`},
	} {
		if got := AddRefs(c.original, c.compacted, "abcd1234"); got != c.compacted {
			t.Errorf("%s: %s", name, got)
		}
	}
}
