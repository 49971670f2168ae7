package pipeline

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/redact/redacttest"
	"github.com/jetcompact/jetcompact/stages"
)

// TestRedactNodeCoversEveryOutput: with the redact node on, no planted
// secret reaches the output, whether the guard keeps the result or the
// original, and fenced code is redacted too; the report counts by kind.
func TestRedactNodeCoversEveryOutput(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SetNode(stages.KeyRedact, true)
	p, err := New(cfg, stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 99))
		secrets := redacttest.Planted(r)
		long := redacttest.Text(r, secrets)
		for _, text := range []string{
			long, // compacted: the result is kept
			secrets[int(seed)%len(secrets)].Line + "\n", // one line: the original is kept
			"```\n" + long + "```\n",                    // inside a fence
		} {
			res, err := p.Run(context.Background(), Request{Text: text})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range secrets {
				if strings.Contains(text, s.Value) && strings.Contains(res.Text, s.Value) {
					t.Fatalf("seed %d: a %s survived (guard %s):\n%s", seed, s.Kind, res.Report.Guard, res.Text)
				}
			}
			var node NodeReport
			for _, n := range res.Report.Nodes {
				if n.Key == stages.KeyRedact {
					node = n
				}
			}
			if node.Redactions == "" || strings.Contains(node.Redactions, "REDACTED") {
				t.Errorf("seed %d: report %+v", seed, node)
			}
		}
	}
}
