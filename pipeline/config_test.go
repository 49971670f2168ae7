package pipeline

import (
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
	"go.yaml.in/yaml/v3"
)

func parse(t *testing.T, src string) (Config, error) {
	t.Helper()
	var root struct {
		Pipeline yaml.Node `yaml:"pipeline"`
	}
	if err := yaml.Unmarshal([]byte(src), &root); err != nil {
		return Config{}, err
	}
	return ParseSection(&root.Pipeline)
}

func TestDefaultsFollowSeed(t *testing.T) {
	c := DefaultConfig()
	if !c.Enabled || c.Mode != stages.ModeAlgorithmic {
		t.Fatalf("defaults: enabled=%v mode=%s", c.Enabled, c.Mode)
	}
	want := []stages.Key{"structured", "dedup", "whitespace", "log_dedup", "near_dup", "number_normalize", "stopwords", "keywords", "headtail", "redact", "llm_summary"}
	if len(c.Nodes) != len(want) {
		t.Fatalf("got %d nodes", len(c.Nodes))
	}
	for i, k := range want {
		n := c.Nodes[i]
		if n.Key != k || n.Order != i+1 {
			t.Errorf("node %d = %s order %d, want %s order %d", i, n.Key, n.Order, k, i+1)
		}
		wantOn := k != stages.KeyStopwords && k != stages.KeyLLMSummary && k != stages.KeyRedact
		if n.Enabled != wantOn {
			t.Errorf("%s enabled=%v, want %v", k, n.Enabled, wantOn)
		}
	}
}

func TestMergeKeepsUserChoicesAndCodeOrder(t *testing.T) {
	c, err := parse(t, `
pipeline:
  mode: hybrid
  nodes:
    headtail: {enabled: false, order: 1, label: "mine"}
    stopwords: {enabled: true}
    dedup: {min_line_chars: 30}
`)
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != stages.ModeHybrid {
		t.Errorf("mode %s", c.Mode)
	}
	if c.NodeEnabled(stages.KeyHeadTail) || !c.NodeEnabled(stages.KeyStopwords) {
		t.Errorf("user enablement lost: %+v", c.Nodes)
	}
	// Order and labels come from code, whatever the stored config says.
	for i, n := range c.Nodes {
		if n.Order != i+1 {
			t.Errorf("%s order %d", n.Key, n.Order)
		}
		if n.Key == stages.KeyHeadTail && n.Label != "Head / tail" {
			t.Errorf("label taken from config: %q", n.Label)
		}
	}
	if c.Options.Dedup.MinLineChars != 30 {
		t.Errorf("knob lost: %d", c.Options.Dedup.MinLineChars)
	}
	if c.Options.Dedup.MinSentenceChars != stages.DefaultDedupOptions().MinSentenceChars {
		t.Errorf("unset knob not defaulted")
	}
}

func TestMergeAddsNewNodesWithDefaults(t *testing.T) {
	// An old config that predates near_dup and keywords.
	c, err := parse(t, `
pipeline:
  nodes:
    structured: {enabled: true}
    dedup: {enabled: false}
`)
	if err != nil {
		t.Fatal(err)
	}
	if !c.NodeEnabled(stages.KeyNearDup) || !c.NodeEnabled(stages.KeyKeywords) {
		t.Error("nodes added in a release must appear with their defaults")
	}
	if c.NodeEnabled(stages.KeyDedup) {
		t.Error("user's disable lost")
	}
}

func TestMergeKeepsHistoricNodesAtTheEnd(t *testing.T) {
	prev := retiredNodes
	retiredNodes = map[stages.Key]bool{"legacy_trim": true, "old_thing": true}
	defer func() { retiredNodes = prev }()
	c, err := parse(t, `
pipeline:
  nodes:
    legacy_trim: {enabled: true, order: 4, label: "Legacy trim"}
    old_thing: {enabled: false}
`)
	if err != nil {
		t.Fatal(err)
	}
	h := c.Historic()
	if len(h) != 2 {
		t.Fatalf("historic = %v", h)
	}
	last := c.Nodes[len(c.Nodes)-2:]
	for _, n := range last {
		if !n.Historic || n.Order <= 100 {
			t.Errorf("historic node %+v not at order+100", n)
		}
	}
	if last[0].Key != "legacy_trim" || last[0].Order != 104 || last[0].Label != "Legacy trim" {
		t.Errorf("legacy_trim = %+v", last[0])
	}
	p, err := New(c, stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	d := p.Describe(true, "")
	found := false
	for _, n := range d.Nodes {
		if n.Key == "legacy_trim" {
			found = true
			if n.WillRun || !strings.Contains(n.Reason, "historic") {
				t.Errorf("describe historic: %+v", n)
			}
		}
	}
	if !found {
		t.Error("describe does not report historic nodes")
	}
}

// TestUnknownNodeIsAnError: a node no release had is an error on the
// line of its key (block or flow style), suggesting the node it is a typo
// of, else listing the nodes.
func TestUnknownNodeIsAnError(t *testing.T) {
	for src, want := range map[string]string{
		"pipeline:\n  mode: algorithmic\n  nodes:\n    keywordz:\n      enabled: true\n": `line 4: pipeline.nodes.keywordz: unknown node (did you mean "keywords"?)`,
		"pipeline:\n  nodes:\n    keywordz: {enabled: true}\n":                           `line 3: pipeline.nodes.keywordz: unknown node (did you mean "keywords"?)`,
		"pipeline:\n  nodes:\n    dedup: {}\n    summarizer:\n      enabled: true\n":     "line 4: pipeline.nodes.summarizer: unknown node (nodes: structured, dedup,",
	} {
		_, err := parse(t, src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", src, err, want)
		}
	}
}

func TestInvalidConfigNamesTheField(t *testing.T) {
	cases := map[string]string{
		"pipeline:\n  mode: turbo\n":                                  "pipeline.mode",
		"pipeline:\n  nodes:\n    headtail: {head_lines: -1}\n":       "headtail.head_lines",
		"pipeline:\n  nodes:\n    llm_summary: {threshold: -5}\n":     "llm_summary.threshold",
		"pipeline:\n  nodes:\n    dedup: {no_such_knob: 1}\n":         "no_such_knob",
		"pipeline:\n  enabled: maybe\n":                               "maybe",
		"pipeline:\n  nodes:\n    whitespace: {max_blank_lines: x}\n": "pipeline.nodes.whitespace",
		"pipeline:\n  budget_tokens: -3\n":                            "pipeline.budget_tokens",
	}
	for src, want := range cases {
		_, err := parse(t, src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want mention of %q", src, err, want)
		}
	}
}

func TestOverrideMode(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SetNode(stages.KeyLLMSummary, false)
	if m, err := cfg.OverrideMode(""); err != nil || m != "" || cfg.NodeEnabled(stages.KeyLLMSummary) {
		t.Errorf("no flag: %q %v, llm_summary on %v", m, err, cfg.NodeEnabled(stages.KeyLLMSummary))
	}
	if _, err := cfg.OverrideMode("turbo"); err == nil || !strings.Contains(err.Error(), "--mode") {
		t.Errorf("unknown mode: %v", err)
	}
	if m, err := cfg.OverrideMode("hybrid"); err != nil || m != stages.ModeHybrid || !cfg.NodeEnabled(stages.KeyLLMSummary) {
		t.Errorf("hybrid: %q %v, llm_summary on %v", m, err, cfg.NodeEnabled(stages.KeyLLMSummary))
	}
}
