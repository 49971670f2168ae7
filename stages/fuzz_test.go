package stages

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages/logs"
)

// One fuzz target per node (structured has its own, FuzzStructured in
// structured_test.go). Each input runs the way the pipeline runs a node:
// made valid UTF-8, fenced blocks stashed into placeholder lines with
// Protect, the node applied, the stash restored. The invariants:
//
//   - no panic and no error on a live context;
//   - a skipped node returns its input unchanged;
//   - every placeholder line survives exactly once (Restore succeeds);
//   - valid UTF-8 out;
//   - idempotent: the node run again on its own output changes nothing.
//
// The kind is fuzzed too, since nodes behave differently per kind.

var fuzzKinds = []Kind{"", KindLog, KindJSON, KindHTML, KindTranscript, KindProse}

// fuzzSeeds are small inputs of every shape the nodes handle.
var fuzzSeeds = []string{
	"",
	"2024-01-01 10:00:00 INFO worker-1 processed request id=0001 in 12ms\n2024-01-01 10:00:01 INFO worker-2 processed request id=0002 in 13ms\n2024-01-01 10:00:02 ERROR failed to open /var/lib/app.db: permission denied\n",
	"line one\nline one\nline one\nline two   \n\n\n\n  indented\n  indented more\n",
	"Alice: I think option 1 is better.\nBob: I disagree, option 2 is safer.\nAlice: I think option 1 is better.\n",
	"The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog. It was a sunny day.\n",
	"text before\n```go\nfunc main() {\n\tfmt.Println(\"x  y\")   \n\n\n}\n```\ntext after\n```\nunclosed fence\n",
	"{\"a\": [1, 2, 3], \"b\": {\"c\": null}}",
	"<html><body><div class=a><p>x</p></div><div class=a><p>y</p></div></body></html>",
	"这是一个测试的句子，我们在这里讨论了方案。\n这是一个测试的句子，我们在这里讨论了方案。\n",
	"ok  \tgithub.com/acme/pkg1\t0.012s\nok  \tgithub.com/acme/pkg2\t0.013s\n--- FAIL: TestX (0.01s)\n    x_test.go:42: got 3, want 4\n",
	"value 123456789 at 0xdeadbeef, 3.14159 and 1.2.3.4 on 2024-01-01T10:00:00Z\r\nnext\r\n",
	"[... 3 lines folded ...]\nsame line [×3]\n\uE000\uE010\uE001\n",
	strings.Repeat("GET /api/v1/items/1 200 3ms\n", 30) + "POST /api/v1/login 500 1200ms\n",
	"{\"level\":\"info\",\"msg\":\"hi alice\",\"p\":{\"user\":\"alice\",\"q\":{\"n\":1}}}\n{\"level\":\"info\",\"msg\":\"hi bob\",\"p\":{\"user\":\"bob\",\"q\":{\"n\":2}}}\n",
}

func fuzzNode(f *testing.F, node Node, extraSeeds ...string) {
	for i, s := range append(append([]string(nil), fuzzSeeds...), extraSeeds...) {
		f.Add(s, uint8(i))
	}
	f.Fuzz(func(t *testing.T, text string, kindSel uint8) {
		text = strings.ToValidUTF8(text, "\uFFFD")
		kind := fuzzKinds[int(kindSel)%len(fuzzKinds)]
		if kind == "" {
			kind = Detect(text)
		}
		lay := logs.Analyze(text)
		once := fuzzApply(t, node, text, kind, lay)
		if twice := fuzzApply(t, node, once, kind, lay); twice != once {
			t.Fatalf("%s (%s) not idempotent on %q:\nonce:  %q\ntwice: %q", node.Key(), kind, text, once, twice)
		}
	})
}

// fuzzApply runs node on text as the pipeline does and checks the
// invariants of one application.
func fuzzApply(t *testing.T, node Node, text string, kind Kind, lay logs.Layout) string {
	t.Helper()
	masked, stash := Protect(text)
	out, err := node.Apply(context.Background(), Input{Text: masked, Kind: kind, Mode: ModeAlgorithmic, Log: lay})
	if err != nil {
		t.Fatalf("%s (%s): error on %q: %v", node.Key(), kind, text, err)
	}
	if out.Skipped && out.Text != masked {
		t.Fatalf("%s (%s): skipped (%s) but changed the text %q", node.Key(), kind, out.Reason, text)
	}
	restored, ok := stash.Restore(out.Text)
	if !ok {
		t.Fatalf("%s (%s): lost or repeated a protected placeholder line on %q:\n%q", node.Key(), kind, text, out.Text)
	}
	if !utf8.ValidString(restored) {
		t.Fatalf("%s (%s): invalid UTF-8 out for %q", node.Key(), kind, text)
	}
	return restored
}

func FuzzDedup(f *testing.F) { fuzzNode(f, NewDedup(DefaultDedupOptions())) }

func FuzzWhitespace(f *testing.F) {
	fuzzNode(f, NewWhitespace(DefaultWhitespaceOptions()), "\t\ta\n\t\t\tb\n\t\tc  \r\n\r\n\r\n")
}

func FuzzLogDedup(f *testing.F) { fuzzNode(f, NewLogDedup(DefaultLogDedupOptions())) }

func FuzzNearDup(f *testing.F) {
	fuzzNode(f, NewNearDup(DefaultNearDupOptions()),
		"2024-01-01 10:00:00 WARN connection reset by peer host-1\n2024-01-01 10:00:01 WARN connection reset by peer host-2\n2024-01-01 10:00:02 WARN connection reset by peer host-3\n")
}

func FuzzNumberNormalize(f *testing.F) {
	fuzzNode(f, NewNumberNormalize(DefaultNumberNormalizeOptions()), "took 1234ms, 5678ms and 91011ms; id 1234abcd")
}

func FuzzStopwords(f *testing.F) {
	fuzzNode(f, NewStopwords(StopwordsOptions{Extra: []string{"foo"}}), "the a an of foo bar 的 了 在 是")
}

func FuzzKeywords(f *testing.F) { fuzzNode(f, NewKeywords(DefaultKeywordsOptions())) }

func FuzzHeadTail(f *testing.F) {
	o := DefaultHeadTailOptions()
	o.MinLines, o.HeadLines, o.TailLines, o.MiddleSignals = 12, 3, 4, 1
	if err := o.Validate(); err != nil {
		f.Fatal(err)
	}
	o.Kinds = []Kind{KindLog, KindProse}
	fuzzNode(f, NewHeadTail(o), strings.Repeat("noise line\n", 20)+"ERROR in the middle\n"+strings.Repeat("more noise\n", 20))
}
