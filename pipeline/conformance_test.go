package pipeline

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/stages/logs"
)

// fakeSummarizer halves its input, so llm_summary can be conformance-tested.
type fakeSummarizer struct{}

func (fakeSummarizer) Model() (string, bool) { return "fake", true }
func (fakeSummarizer) Summarize(_ context.Context, r stages.SummaryRequest) (string, stages.LLMUsage, error) {
	lines := strings.Split(r.Text, "\n")
	return strings.Join(lines[:len(lines)/2+1], "\n"), stages.LLMUsage{Model: "fake"}, nil
}

const fencedCode = "```go\nfunc main() {\n\tfmt.Println(\"x  y\")   \n\n\n\treturn 12345678\n}\n```"

func conformanceInputs() map[string]string {
	var logb, chat, prose strings.Builder
	for i := 0; i < 600; i++ {
		fmt.Fprintf(&logb, "2024-01-%02d 10:%02d:%02d INFO worker-%d processed request id=%08x in %dms\n", i%28+1, i%60, i%60, i%7, i*7919, i%300)
		if i%97 == 0 {
			fmt.Fprintf(&logb, "2024-01-02 10:00:00 ERROR failed to open /var/lib/app/data-%d.db: permission denied\n", i)
		}
	}
	logb.WriteString(fencedCode + "\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&chat, "Alice: I think option %d is better because it costs less.\nBob: I disagree, option %d has the lower risk.\n", i%3, (i+1)%3)
	}
	chat.WriteString(fencedCode + "\n")
	for i := 0; i < 30; i++ {
		prose.WriteString("The quick brown fox jumps over the lazy dog. It was a sunny day in the city of Berlin.  \n\n\n")
	}
	prose.WriteString("And then a fence:\n" + fencedCode + "\ntrailing words\n")
	rows := make([]string, 0, 200)
	for i := 0; i < 200; i++ {
		rows = append(rows, fmt.Sprintf(`{"id":%d,"name":"user%d","tags":["a","b"],"active":true}`, i, i))
	}
	return map[string]string{
		"log":        logb.String(),
		"transcript": chat.String(),
		"prose":      prose.String(),
		"json":       "[" + strings.Join(rows, ",") + "]",
		"html":       "<!doctype html><html><head><title>T</title></head><body><h1>Head</h1>" + strings.Repeat(`<div class="card"><p>x</p></div>`, 300) + "</body></html>",
		"cjk":        strings.Repeat("这是一个测试的句子，我们在这里讨论了方案。\n", 80),
		"invalid":    strings.ToValidUTF8("abc\xff\xfe def\x00\x01 "+strings.Repeat("zz\n", 50), "\uFFFD"),
		"crlf":       strings.Repeat("line one   \r\nline two\r\n\r\n\r\n", 40),
		"unclosed":   "text\n```python\nprint(1)\nno close\n" + strings.Repeat("more\n", 30),
	}
}

var fenceRe = regexp.MustCompile("(?ms)^```[^\\n]*\\n.*?^```[ \\t]*$")

func allNodes(t *testing.T) []stages.Node {
	t.Helper()
	var nodes []stages.Node
	opts := stages.DefaultOptions()
	for _, s := range stages.Specs() {
		n, err := stages.New(s.Key, opts, stages.Deps{Summarizer: fakeSummarizer{}})
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	return nodes
}

// TestNodeConformance: every node is idempotent, emits valid UTF-8, keeps
// fenced code byte-identical and honours cancellation.
func TestNodeConformance(t *testing.T) {
	ctx := context.Background()
	for _, node := range allNodes(t) {
		for name, text := range conformanceInputs() {
			t.Run(string(node.Key())+"/"+name, func(t *testing.T) {
				t.Parallel()
				// The analysis of the original goes with every run, as Prepare hands it on.
				in := stages.Input{Text: text, Kind: stages.Detect(text), Mode: stages.ModeHybrid, AllowLLM: true, Log: logs.Analyze(text)}
				once, err := applyProtected(ctx, node, in)
				if err != nil {
					t.Fatal(err)
				}
				if !utf8.ValidString(once.Text) {
					t.Fatal("invalid UTF-8 out")
				}
				if strings.Contains(once.Reason, "undone") {
					t.Fatalf("node broke the protection contract: %s", once.Reason)
				}
				for _, block := range fenceRe.FindAllString(text, -1) {
					if !strings.Contains(once.Text, block) {
						t.Fatalf("fenced block altered or lost:\n%s", block)
					}
				}
				if node.Key() == stages.KeyLLMSummary {
					return // a model is not idempotent; its guard is the length gate
				}
				in.Text = once.Text
				twice, err := applyProtected(ctx, node, in)
				if err != nil {
					t.Fatal(err)
				}
				if twice.Text != once.Text {
					t.Fatalf("not idempotent:\n--- once\n%s\n--- twice\n%s", clip(once.Text), clip(twice.Text))
				}
			})
		}
	}
}

func TestNodesHonourCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	big := strings.Repeat(conformanceInputs()["log"], 20)
	for _, node := range allNodes(t) {
		out, err := node.Apply(ctx, stages.Input{Text: big, Kind: stages.KindLog, Mode: stages.ModeHybrid, AllowLLM: true})
		if err == nil && !out.Skipped && out.Text != big {
			t.Errorf("%s did work on a cancelled context", node.Key())
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v does not wrap context.Canceled", node.Key(), err)
		}
	}
	p, _ := New(DefaultConfig(), stages.Deps{})
	if _, err := p.Compact(ctx, big); !errors.Is(err, context.Canceled) {
		t.Errorf("pipeline on cancelled context: %v", err)
	}
}

func TestPipelineKeepsFencesAndShrinks(t *testing.T) {
	p, _ := New(DefaultConfig(), stages.Deps{})
	for name, text := range conformanceInputs() {
		res, err := p.Compact(context.Background(), text)
		if err != nil {
			t.Fatal(name, err)
		}
		if stages.Chars(res.Text) > stages.Chars(text) {
			t.Errorf("%s: output longer than input", name)
		}
		for _, block := range fenceRe.FindAllString(text, -1) {
			if !strings.Contains(res.Text, block) {
				t.Errorf("%s: fenced block lost", name)
			}
		}
	}
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}

// applyProtected runs a node with its protected regions stashed.
func applyProtected(ctx context.Context, node stages.Node, in stages.Input) (stages.Outcome, error) {
	return stages.Protected(node).Apply(ctx, in)
}
