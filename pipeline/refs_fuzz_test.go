package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// anyRefRe is every reference AddRefs writes for the id "deadbeef".
var anyRefRe = regexp.MustCompile(`deadbeef:[LB]\d+-\d+`)

// FuzzParseRef: ParseRef never panics; a reference it accepts writes back
// (ID, ":", Range) to itself, and slices any text without panicking, to
// a part of that text.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"3f9a1c2b", "3f9a1c2b:L12-40", " 3f9a1c2b:L7 ", "x:B10-200", "x:L+1", "x:B1-", ":L1", "x:L0-3", "x:B5-2", "x:L9223372036854775807", "a:b:L1"} {
		f.Add(s, "line one\nline two\nline three\n")
	}
	f.Fuzz(func(t *testing.T, s, text string) {
		r, err := ParseRef(s)
		if err != nil {
			return
		}
		back := r.ID
		if rg := r.Range(); rg != "" {
			back += ":" + rg
		}
		if r2, err := ParseRef(back); err != nil || r2 != r {
			t.Fatalf("ParseRef(%q) = %+v; written back as %q it reads %+v, %v", s, r, back, r2, err)
		}
		part, err := r.Slice(text)
		if err != nil {
			return
		}
		if !strings.Contains(text, part) {
			t.Fatalf("%q sliced %q out of %q", s, part, text)
		}
		if r.Bytes && len(part) != r.To-r.From+1 {
			t.Fatalf("%q sliced %d bytes", s, len(part))
		}
	})
}

// FuzzRefSlice: Slice on a Ref built by hand, any fields, never panics.
func FuzzRefSlice(f *testing.F) {
	f.Add("abc\ndef\n", 1, 2, false)
	f.Add("abc", 2, 3, true)
	f.Add("abc", -1, 2, true)
	f.Add("abc", 3, 1, true)
	f.Fuzz(func(t *testing.T, text string, from, to int, bytes bool) {
		part, err := Ref{ID: "x", From: from, To: to, Bytes: bytes}.Slice(text)
		if err == nil && !strings.Contains(text, part) {
			t.Fatalf("L/B %d-%d sliced %q out of %q", from, to, part, text)
		}
	})
}

// checkJSONRefs adds references to compacted and checks that valid JSON
// stays valid and that every reference slices original.
func checkJSONRefs(t *testing.T, original, compacted string) {
	t.Helper()
	out := AddRefs(original, compacted, "deadbeef")
	if json.Valid([]byte(compacted)) && !json.Valid([]byte(out)) {
		t.Fatalf("references broke JSON:\noriginal  %q\ncompacted %q\nout       %q", original, compacted, out)
	}
	for _, s := range anyRefRe.FindAllString(out, -1) {
		r, err := ParseRef(s)
		if err != nil {
			t.Fatalf("wrote a reference that does not parse: %q: %v", s, err)
		}
		if _, err := r.Slice(original); err != nil {
			t.Fatalf("reference %q does not resolve in %q: %v", s, original, err)
		}
	}
}

// fuzzJSONNode is the structured node with small limits, so that short
// documents fold.
func fuzzJSONNode() stages.Node {
	opt := stages.DefaultStructuredOptions()
	opt.MinChars = 16
	opt.MaxDepth = 3
	opt.MaxObjectKeys = 4
	opt.MaxStringChars = 32
	opt.ArraySamples = 1
	return stages.NewStructured(opt)
}

// foldableJSON is documents fuzzJSONNode folds: a long array of records
// (minified) and deep containers (pretty-printed).
func foldableJSON() []string {
	var items, deep []string
	for i := range 30 {
		items = append(items, fmt.Sprintf(`{"id": %d, "name": "item %d", "tags": ["a", "b"]}`, i, i))
	}
	for i := range 12 {
		deep = append(deep, fmt.Sprintf("  \"key%d\": {\n    \"v\": [\n      [\n        [\n          [\n            %d\n          ]\n        ]\n      ]\n    ]\n  }", i, i))
	}
	return []string{"[" + strings.Join(items, ", ") + "]", "{\n" + strings.Join(deep, ",\n") + "\n}\n"}
}

// The fuzz seeds reach the code under test: each folded document gets
// references, and they resolve.
func TestFoldableJSONGetsRefs(t *testing.T) {
	node := fuzzJSONNode()
	for _, doc := range foldableJSON() {
		out, err := node.Apply(context.Background(), stages.Input{Text: doc, Kind: stages.KindJSON, Mode: stages.ModeAlgorithmic})
		if err != nil || out.Skipped {
			t.Fatalf("not folded (%v, %s): %.80s", err, out.Reason, doc)
		}
		if refs := anyRefRe.FindAllString(AddRefs(doc, out.Text, "deadbeef"), -1); len(refs) == 0 {
			t.Errorf("no reference in %.200s", out.Text)
		}
		checkJSONRefs(t, doc, out.Text)
	}
}

// FuzzJSONFoldRefs: any JSON document folded by the structured node, then
// given references: still valid JSON, and every reference resolves to a
// range inside the original.
func FuzzJSONFoldRefs(f *testing.F) {
	f.Add(`[{"a": 1, "b": "x"}, {"a": 2}, {"c": null}, {"a": 4, "d": [1, 2, 3, 4]}, {"a": 5}, {"a": 6}, {"a": 7}]`)
	f.Add(`{"k": {"k": {"k": {"k": [[[[1, 2, 3, 4, 5, 6]]]]}}}, "s": "` + strings.Repeat("long ", 20) + `"}`)
	f.Add(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":{"h":[1,2,3,4,5,6,7,8,9,10,11,12,13,14]}}`)
	f.Add("[\n  1,\n  2,\n  3,\n  4,\n  5,\n  6,\n  7,\n  8,\n  9,\n  10\n]\n")
	for _, s := range foldableJSON() {
		f.Add(s)
	}
	node := fuzzJSONNode()
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, original string) {
		if !json.Valid([]byte(original)) {
			return
		}
		out, err := node.Apply(ctx, stages.Input{Text: original, Kind: stages.KindJSON, Mode: stages.ModeAlgorithmic})
		if err != nil {
			t.Fatal(err)
		}
		checkJSONRefs(t, original, out.Text)
	})
}

// FuzzAddRefsJSON: references added to any JSON text, markers or not,
// keep it valid and resolve in the original.
func FuzzAddRefsJSON(f *testing.F) {
	f.Add(`[1, 2, 3, 4, 5]`, `[1, {"_omitted": 3, "_count": 5}, 5]`)
	f.Add(`{"a": [[1, 2]]}`, `{"a": "[array deeper than 1 levels]"}`)
	f.Add(`{"a": [[1, 2]]}`, `{"a": "[array deeper than \\"}`)
	f.Add(`{"a": 1, "b": 2, "c": 3}`, `{"a": 1, "_omitted_keys": 2}`)
	f.Add(`{"a": [[1, 2]], "b": [[3]]}`, `{"a": "[array deeper than \\", "b": "[array deeper than 1 levels]"}`)
	f.Add("[\"a [×\", 1]\n", "[\"a [×\", 1]\n")
	f.Add(`[1, 2, 3, 4, 5]`, `[1, "[… 3 more items]", 5]`)
	f.Fuzz(func(t *testing.T, original, compacted string) {
		if !json.Valid([]byte(compacted)) {
			return
		}
		checkJSONRefs(t, original, compacted)
	})
}

// Regressions the fuzz targets found.

// A "[array deeper than …" string the folder did not write (no " levels]"
// end) took its reference inside an escape, breaking the JSON.
func TestAddRefsDeepMarkerNeedsFolderShape(t *testing.T) {
	out := AddRefs(`{"a": [[1, 2]], "b": [[3]]}`, `{"a": "[array deeper than \\", "b": "[array deeper than 1 levels]"}`, "deadbeef")
	if !json.Valid([]byte(out)) || !strings.Contains(out, `levels · ref deadbeef:`) || strings.Contains(out, `than \\ · ref`) {
		t.Fatalf("AddRefs = %s", out)
	}
}

// A JSON line ending in "]" with " [×" inside a string read as a count
// line and took " · ref R" inside the array.
func TestAddRefsLeavesJSONLinesAlone(t *testing.T) {
	for _, doc := range []string{"[\"a [×\", 1]\n", "{\"k\": [\"x [×2]\"],\n \"m\": [1]}"} {
		if out := AddRefs(doc, doc, "deadbeef"); out != doc {
			t.Errorf("AddRefs changed JSON %q to %q", doc, out)
		}
	}
}

// A Ref built by hand with a negative or reversed byte range panicked.
func TestRefSliceRejectsBadRange(t *testing.T) {
	for _, r := range []Ref{{ID: "x", From: -1, To: 2, Bytes: true}, {ID: "x", From: 3, To: 1, Bytes: true}, {ID: "x", From: -2, To: 1}} {
		if part, err := r.Slice("abc\n"); err == nil {
			t.Errorf("%+v sliced %q", r, part)
		}
	}
}
