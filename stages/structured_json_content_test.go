package stages

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
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

// openAPIDoc generates an OpenAPI-like document: paths with templated
// segments, operations with parameters, responses and examples, and
// component schemas of many named properties.
func openAPIDoc(seed uint64, paths, schemas int, ownDescriptions bool) map[string]any {
	r := rand.New(rand.NewPCG(seed, 11))
	words := strings.Fields("account billing shipping contact display owner repo issue comment label milestone project card team member org hook delivery release asset artifact workflow run job step check suite status deployment environment secret variable key token user email gist branch commit tree blob tag ref merge pull review thread reaction package version license topic")
	w := func() string { return words[r.IntN(len(words))] }
	prose := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = w()
		}
		return strings.Join(s, " ") + "."
	}
	names := make([]string, schemas)
	comps := map[string]any{}
	for i := range names {
		names[i] = fmt.Sprintf("%s%s%d", strings.ToUpper(w()[:1]), w(), i)
	}
	// Schemas share their property definitions, as in published APIs
	// (id, url, created_at are defined alike in many schemas).
	pool := map[string]any{}
	var poolNames []string
	for len(pool) < 250 {
		p := map[string]any{"description": prose(4 + r.IntN(16))}
		switch r.IntN(4) {
		case 0:
			p["type"], p["example"] = "string", "https://api.example.com/"+w()+"/"+fmt.Sprint(r.IntN(999))
		case 1:
			p["type"], p["example"] = "integer", r.IntN(1e6)
		case 2:
			p["type"], p["items"] = "array", map[string]any{"$ref": "#/components/schemas/" + names[r.IntN(len(names))]}
		default:
			p["type"], p["format"], p["nullable"] = "string", "date-time", true
		}
		name := w() + "_" + w()
		if _, dup := pool[name]; !dup {
			pool[name] = p
			poolNames = append(poolNames, name)
		}
	}
	for _, n := range names {
		props := map[string]any{}
		for range 4 + r.IntN(60) {
			k := poolNames[r.IntN(len(poolNames))]
			props[k] = pool[k]
			if ownDescriptions {
				// Each schema describes its properties in its own words
				// and carries vendor extensions (x-...), as large
				// published APIs do.
				own := maps.Clone(pool[k].(map[string]any))
				own["description"] = prose(8 + r.IntN(30))
				own["x-vendor"] = map[string]any{"pii": map[string]any{"handling": w(), "deleteSla": r.IntN(90)}}
				props[k] = own
			}
		}
		comps[n] = map[string]any{"title": n, "description": prose(15), "type": "object", "properties": props}
	}
	ps := map[string]any{}
	for i := range paths {
		var segs []string
		for range 1 + r.IntN(5) {
			segs = append(segs, w()+"s")
			if r.IntN(2) == 0 {
				segs = append(segs, "{"+w()+"_id}")
			}
		}
		ops := map[string]any{}
		for _, m := range []string{"get", "post", "delete"}[:1+r.IntN(3)] {
			ref := names[r.IntN(len(names))]
			ex := map[string]any{}
			for k := range comps[ref].(map[string]any)["properties"].(map[string]any) {
				if len(ex) < 10 {
					ex[k] = w()
				}
			}
			op := map[string]any{
				"summary": prose(6), "description": prose(20 + r.IntN(60)), "operationId": fmt.Sprintf("%s/%s-%d", w(), m, i), "tags": []string{w()},
				"parameters": []any{map[string]any{"name": w() + "_id", "in": "path", "required": true, "schema": map[string]any{"type": "integer"}}},
				"responses": map[string]any{
					"200": map[string]any{"description": "Response", "content": map[string]any{"application/json": map[string]any{
						"schema": map[string]any{"$ref": "#/components/schemas/" + ref}, "examples": map[string]any{"default": map[string]any{"value": ex}}}}},
					"404": map[string]any{"$ref": "#/components/responses/not_found"},
				},
			}
			if ownDescriptions {
				// Form fields named per operation, found nowhere but
				// under its path (as in APIs that take form posts).
				fields := map[string]any{}
				for range 1 + r.IntN(8) {
					name := strings.ToUpper(w()[:1]) + w() + strings.ToUpper(w()[:1]) + w()
					fields[name] = map[string]any{"type": "string", "description": prose(5 + r.IntN(25))}
				}
				op["requestBody"] = map[string]any{"content": map[string]any{"application/x-www-form-urlencoded": map[string]any{
					"schema": map[string]any{"type": "object", "title": fmt.Sprintf("Request%d", i), "properties": fields}}}}
			}
			ops[m] = op
		}
		ps["/"+strings.Join(segs, "/")] = ops
	}
	return map[string]any{"openapi": "3.0.3", "info": map[string]any{"title": "Example", "version": "1.1.4"}, "paths": ps,
		"components": map[string]any{"schemas": comps, "responses": map[string]any{"not_found": map[string]any{"description": "Not found"}}}}
}

// TestStructuredJSONOpenAPI: on a large OpenAPI-like document every key
// name survives (path templates, schema and property names) at ratio
// <= 0.45, printed indented or minified (the output keeps the layout).
func TestStructuredJSONOpenAPI(t *testing.T) {
	node := NewStructured(DefaultStructuredOptions())
	for seed := range uint64(2) {
		v := openAPIDoc(seed, 300+400*int(seed), 120, seed == 1)
		indented, _ := json.MarshalIndent(v, "", "  ")
		minified, _ := json.Marshal(v)
		for _, raw := range [][]byte{indented, minified} {
			layout := "indented"
			if len(raw) == len(minified) {
				layout = "minified"
			}
			checkOpenAPIFold(t, node, raw, fmt.Sprintf("seed %d %s", seed, layout))
		}
	}
}

// checkOpenAPIFold: every key name of raw is in the output and the ratio
// is at most 0.45.
func checkOpenAPIFold(t *testing.T, node Node, raw []byte, name string) {
	t.Helper()
	{
		_, got := runStructured(t, node, string(raw), KindJSON)
		keys := map[string]bool{}
		var walk func(x any)
		walk = func(x any) {
			switch x := x.(type) {
			case map[string]any:
				for k, e := range x {
					keys[k] = true
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		var back any
		_ = json.Unmarshal(raw, &back)
		walk(back)
		for k := range keys {
			// As the scorer finds a key: not inside a longer name.
			if !containsName(got, k) {
				t.Errorf("%s: key %q lost", name, k)
			}
		}
		if r := float64(Chars(got)) / float64(Chars(string(raw))); r > 0.45 {
			t.Errorf("%s: ratio %.3f > 0.45", name, r)
		} else {
			t.Logf("%s: %d keys, ratio %.3f", name, len(keys), r)
		}
		if minified := !strings.Contains(string(raw), "\n"); minified && strings.Contains(got, "\n") {
			t.Errorf("%s: minified document printed with line breaks", name)
		}
		checkIdempotent(t, node, got, KindJSON)
	}
}

// containsName reports whether name occurs in s with no word character or
// '-' right before or after it.
func containsName(s, name string) bool {
	word := func(c byte) bool {
		return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !word(s[j-1])) && (end == len(s) || !word(s[end])) {
			return true
		}
		i = j + 1
	}
}

// TestStructuredJSONPathsListed: a mid-sized API description whose path
// names outgrow 1/32 of the document still lists every path: each names a
// large value.
func TestStructuredJSONPathsListed(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	words := strings.Fields("account billing shipping contact display owner repo issue comment label milestone project")
	w := func() string { return words[r.IntN(len(words))] }
	paths := map[string]any{}
	for i := range 700 {
		p := fmt.Sprintf("/%ss/{%s_id}/%ss/{%s_id}/%ss/{%s_id}/%s%d", w(), w(), w(), w(), w(), w(), w(), i)
		desc := make([]string, 60)
		for k := range desc {
			desc[k] = w()
		}
		paths[p] = map[string]any{"get": map[string]any{"operationId": fmt.Sprintf("op%d", i), "description": strings.Join(desc, " "),
			"responses": map[string]any{"200": map[string]any{"description": "OK"}}}}
	}
	raw, _ := json.MarshalIndent(map[string]any{"openapi": "3.0.0", "paths": paths}, "", "  ")
	_, got := runStructured(t, NewStructured(DefaultStructuredOptions()), string(raw), KindJSON)
	for p := range paths {
		if !containsName(got, p) {
			t.Fatalf("path %s lost", p)
		}
	}
	if len(got)*5 > len(raw) {
		t.Errorf("output %d bytes of %d", len(got), len(raw))
	}
}
