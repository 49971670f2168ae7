package pipeline

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/jetcompact/jetcompact/internal/strictyaml"

	"github.com/jetcompact/jetcompact/stages"
	"go.yaml.in/yaml/v3"
)

// Config is the merged pipeline configuration: node set, order and labels
// from code, enablement and knobs from the user.
type Config struct {
	// Enabled is the master switch. It is on by default: compaction is this
	// service's whole job.
	Enabled bool
	Mode    stages.Mode
	// Nodes lists code's nodes in order, then historic ones (Order+100).
	Nodes   []NodeState
	Options stages.Options
	// BudgetTokens caps every output's estimated tokens (see FitBudget);
	// 0, the default, sets no cap. A request's own budget wins.
	BudgetTokens int
	// Source names the file the config came from ("" for built-in defaults).
	Source string
}

// NodeState is one node's merged state.
type NodeState struct {
	Key      stages.Key
	Label    string
	Order    int
	Enabled  bool
	Historic bool // in the stored config but no longer in code
}

// DefaultConfig is the configuration code ships.
func DefaultConfig() Config {
	c := Config{Enabled: true, Mode: stages.ModeAlgorithmic, Options: stages.DefaultOptions()}
	for _, s := range stages.Specs() {
		c.Nodes = append(c.Nodes, NodeState{Key: s.Key, Label: s.Label, Order: s.Order, Enabled: s.DefaultOn})
	}
	return c
}

// NodeEnabled reports whether node k is known to code and enabled.
func (c Config) NodeEnabled(k stages.Key) bool {
	for _, n := range c.Nodes {
		if n.Key == k {
			return n.Enabled && !n.Historic
		}
	}
	return false
}

// OverrideMode parses a --mode flag ("" = no override). Asking for a
// mode that uses the LLM enables llm_summary: whoever asks for it expects
// a summary.
func (c *Config) OverrideMode(flag string) (stages.Mode, error) {
	mode := stages.Mode(flag)
	if flag == "" {
		return mode, nil
	}
	if !mode.Valid() {
		return "", fmt.Errorf("--mode: unknown mode %q (want algorithmic, llm or hybrid)", flag)
	}
	if mode.UsesLLM() {
		c.SetNode(stages.KeyLLMSummary, true)
	}
	return mode, nil
}

// SetNode turns a node on or off.
func (c *Config) SetNode(k stages.Key, on bool) {
	for i := range c.Nodes {
		if c.Nodes[i].Key == k {
			c.Nodes[i].Enabled = on
		}
	}
}

// Historic lists nodes kept from the stored config that code no longer has.
func (c Config) Historic() []stages.Key {
	var out []stages.Key
	for _, n := range c.Nodes {
		if n.Historic {
			out = append(out, n.Key)
		}
	}
	return out
}

// Validate checks the mode and every node's knobs.
func (c Config) Validate() error {
	var errs []error
	if !c.Mode.Valid() {
		errs = append(errs, fmt.Errorf("pipeline.mode: unknown mode %q (want algorithmic, llm or hybrid)", c.Mode))
	}
	if err := c.Options.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("pipeline.%w", err))
	}
	if c.BudgetTokens < 0 {
		errs = append(errs, fmt.Errorf("pipeline.budget_tokens: %d is negative (0 = no budget)", c.BudgetTokens))
	}
	return errors.Join(errs...)
}

// fileSection is the YAML shape of the pipeline section.
type fileSection struct {
	Enabled *bool                `yaml:"enabled"`
	Mode    *string              `yaml:"mode"`
	Nodes   map[string]yaml.Node `yaml:"nodes"`
	// BudgetTokens is Config.BudgetTokens.
	BudgetTokens *int `yaml:"budget_tokens"`
}

// nodeMeta are the fields every node entry may carry besides its knobs.
type nodeMeta struct {
	Enabled *bool   `yaml:"enabled"`
	Order   *int    `yaml:"order"`
	Label   *string `yaml:"label"`
}

// ParseSection merges a stored pipeline section over the defaults: code
// owns the node set, order and labels; the user's enablement and knobs are
// kept; nodes added in a release appear with their defaults; nodes code no
// longer has are kept at the end with order+100 and marked historic.
func ParseSection(section *yaml.Node) (Config, error) {
	c := DefaultConfig()
	if section == nil || section.Kind == 0 {
		return c, nil
	}
	var f fileSection
	if err := DecodeStrict(section, &f, "pipeline"); err != nil {
		return Config{}, err
	}
	if f.Enabled != nil {
		c.Enabled = *f.Enabled
	}
	if f.Mode != nil {
		c.Mode = stages.Mode(*f.Mode)
	}
	if f.BudgetTokens != nil {
		c.BudgetTokens = *f.BudgetTokens
	}
	optsByKey := optionTargets(&c.Options)
	var historic []NodeState
	keys := make([]string, 0, len(f.Nodes))
	for k := range f.Nodes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		node := f.Nodes[k]
		path := "pipeline.nodes." + k
		var meta nodeMeta
		if err := DecodeStrict(onlyKeys(&node, "enabled", "order", "label"), &meta, path); err != nil {
			return Config{}, err
		}
		target, known := optsByKey[stages.Key(k)]
		if !known {
			if !retiredNodes[stages.Key(k)] {
				return Config{}, fmt.Errorf("line %d: %s: unknown node%s", keyLine(section, node.Line, "nodes", k), path, suggestNode(k))
			}
			h := NodeState{Key: stages.Key(k), Label: k, Order: 100 + len(stages.Specs()) + len(historic) + 1, Historic: true}
			if meta.Order != nil {
				h.Order = *meta.Order + 100
			}
			if meta.Label != nil {
				h.Label = *meta.Label
			}
			if meta.Enabled != nil {
				h.Enabled = *meta.Enabled
			}
			historic = append(historic, h)
			continue
		}
		if err := DecodeStrict(withoutKeys(&node, "enabled", "order", "label"), target, path); err != nil {
			return Config{}, err
		}
		if meta.Enabled != nil {
			c.SetNode(stages.Key(k), *meta.Enabled)
		}
	}
	sort.SliceStable(historic, func(i, j int) bool { return historic[i].Order < historic[j].Order })
	c.Nodes = append(c.Nodes, historic...)
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// optionTargets maps each node key to its knob struct inside o.
func optionTargets(o *stages.Options) map[stages.Key]any {
	return map[stages.Key]any{
		stages.KeyStructured:      &o.Structured,
		stages.KeyDedup:           &o.Dedup,
		stages.KeyWhitespace:      &o.Whitespace,
		stages.KeyLogDedup:        &o.LogDedup,
		stages.KeyNearDup:         &o.NearDup,
		stages.KeyNumberNormalize: &o.NumberNormalize,
		stages.KeyStopwords:       &o.Stopwords,
		stages.KeyKeywords:        &o.Keywords,
		stages.KeyHeadTail:        &o.HeadTail,
		stages.KeyRedact:          &o.Redact,
		stages.KeyLLMSummary:      &o.LLMSummary,
	}
}

// DecodeStrict decodes a YAML section into out (over what out holds).
// Unknown keys and wrongly typed values are errors naming their line and
// key path; path is the section's own ("fleet", "pipeline.nodes.dedup").
func DecodeStrict(n *yaml.Node, out any, path string) error {
	return strictyaml.Decode(n, out, path)
}

// suggestNode names the node an unknown name is a typo of, else lists
// the nodes.
func suggestNode(name string) string {
	keys := make([]string, 0, len(stages.Specs()))
	for _, s := range stages.Specs() {
		keys = append(keys, string(s.Key))
	}
	if typo := strictyaml.Closest(name, keys); typo != "" {
		return fmt.Sprintf(" (did you mean %q?)", typo)
	}
	return " (nodes: " + strings.Join(keys, ", ") + ")"
}

// retiredNodes are the nodes earlier releases had and code no longer has:
// a config that still names one keeps it, historic (design.md, Pipeline). Any other
// unknown node is a mistake. No node has been retired yet.
var retiredNodes = map[stages.Key]bool{}

// keyLine is the line of the key at path under the mapping n; fallback
// when there is none (the key's value may start on a later line).
func keyLine(n *yaml.Node, fallback int, path ...string) int {
	for i, key := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return fallback
		}
		var next *yaml.Node
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == key {
				if i == len(path)-1 {
					return n.Content[j].Line
				}
				next = n.Content[j+1]
				break
			}
		}
		n = next
	}
	return fallback
}

// onlyKeys is n with only the given keys of a mapping.
func onlyKeys(n *yaml.Node, keys ...string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return n
	}
	cp := *n
	cp.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		for _, k := range keys {
			if n.Content[i].Value == k {
				cp.Content = append(cp.Content, n.Content[i], n.Content[i+1])
			}
		}
	}
	return &cp
}

func withoutKeys(n *yaml.Node, keys ...string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return n
	}
	cp := *n
	cp.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		skip := false
		for _, k := range keys {
			if n.Content[i].Value == k {
				skip = true
			}
		}
		if !skip {
			cp.Content = append(cp.Content, n.Content[i], n.Content[i+1])
		}
	}
	if len(cp.Content) == 0 {
		return &yaml.Node{}
	}
	return &cp
}
