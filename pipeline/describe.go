package pipeline

import (
	"cmp"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/jetcompact/jetcompact/stages"
)

// NodeDescription says whether one node will run and, if not, why.
type NodeDescription struct {
	Key      stages.Key `json:"key"`
	Label    string     `json:"label"`
	Order    int        `json:"order"`
	Enabled  bool       `json:"enabled"`
	Historic bool       `json:"historic,omitempty"`
	WillRun  bool       `json:"will_run"`
	Reason   string     `json:"reason,omitempty"`
}

// Description is what Describe reports (design.md, Pipeline).
type Description struct {
	Source   string            `json:"source"`
	Enabled  bool              `json:"enabled"`
	Mode     stages.Mode       `json:"mode"`
	AllowLLM bool              `json:"allow_llm"`
	Nodes    []NodeDescription `json:"nodes"`
	// LLMGate names the gate that stops llm_summary; Open when none does
	// (the length gate is decided per document).
	LLMGate stages.GateResult `json:"llm_gate"`
}

// Describe reports the nodes that will run for a given entry point and mode
// ("" = the configured mode).
func (p *Pipeline) Describe(allowLLM bool, mode stages.Mode) Description {
	if mode == "" {
		mode = p.cfg.Mode
	}
	d := Description{Source: p.cfg.Source, Enabled: p.cfg.Enabled, Mode: mode, AllowLLM: allowLLM}
	if d.Source == "" {
		d.Source = "(built-in defaults)"
	}
	d.LLMGate = stages.CheckGates(allowLLM, mode, -1, p.cfg.Options.LLMSummary, p.deps.Summarizer)
	for _, n := range p.cfg.Nodes {
		nd := NodeDescription{Key: n.Key, Label: n.Label, Order: n.Order, Enabled: n.Enabled, Historic: n.Historic}
		switch {
		case n.Historic:
			nd.Reason = "historic: code no longer has this node"
		case !p.cfg.Enabled:
			nd.Reason = "pipeline disabled"
		case !n.Enabled:
			nd.Reason = "disabled in config"
		case n.Key == stages.KeyLLMSummary && !d.LLMGate.Open:
			nd.Reason = d.LLMGate.Reason
		default:
			nd.WillRun = true
			if n.Key == stages.KeyLLMSummary {
				nd.Reason = fmt.Sprintf("runs on texts of %d chars or more", p.cfg.Options.LLMSummary.Threshold)
			}
		}
		d.Nodes = append(d.Nodes, nd)
	}
	return d
}

// WriteText prints the description as a table.
func (d Description) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "config: %s\npipeline enabled: %v\nmode: %s\nentry point allows LLM: %v\n", d.Source, d.Enabled, d.Mode, d.AllowLLM)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "order\tnode\tenabled\twill run\tnote")
	for _, n := range d.Nodes {
		fmt.Fprintf(tw, "%d\t%s\t%v\t%v\t%s\n", n.Order, n.Key, n.Enabled, n.WillRun, n.Reason)
	}
	return tw.Flush()
}

// WriteText prints the per-node table of a run.
func (r Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "node\tchars in\tchars out\ttime\tnote\t")
	for _, n := range r.Nodes {
		note := n.Reason
		if n.Skipped {
			note = "skipped: " + note
		}
		if n.LLM != nil {
			note += fmt.Sprintf(" [model %s, tokens %d+%d, retries %d, cache hit %v]", n.LLM.Model, n.LLM.PromptTokens, n.LLM.CompletionTokens, n.LLM.Retries, n.LLM.CacheHit)
		}
		if n.Redactions != "" {
			note += " [redacted " + n.Redactions + "]"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t\n", n.Key, n.CharsIn, n.CharsOut, n.Duration.Round(time.Microsecond), note)
	}
	fmt.Fprintf(tw, "%s\t%d\t%d\t\t%s\t\n", stages.KeyGuard, r.CharsIn, r.CharsOut, r.Guard)
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "kind %s, mode %s, ratio %.4f\n", r.Kind, r.Mode, r.Ratio()); err != nil {
		return err
	}
	if b := r.Budget; b != nil {
		if _, err := fmt.Fprintf(w, "budget %d tokens: %d in, %d out%s\n", b.Tokens, b.TokensIn, b.TokensOut, b.foldedText()); err != nil {
			return err
		}
	}
	if r.Form != "" {
		if _, err := fmt.Fprintf(w, "input read as %s\n", r.Form); err != nil {
			return err
		}
	}
	if r.Encoding != "" || r.Replaced > 0 {
		_, err := fmt.Fprintf(w, "input %s, %d invalid bytes replaced by U+FFFD\n", cmp.Or(r.Encoding, "utf-8"), r.Replaced)
		return err
	}
	return nil
}
