package stages

import (
	"context"

	"github.com/jetcompact/jetcompact/redact"
)

// RedactOptions are the redact node's knobs. The node is off by default:
// the compacted text belongs to the user. Texts sent to a model are
// redacted whatever this node says (see llm.Config.DisableRedaction).
type RedactOptions struct {
	// HighEntropy also replaces long random-looking strings (generated
	// keys, but also random ids) besides the well-known secret shapes.
	// Default: true.
	HighEntropy bool `yaml:"high_entropy"`
}

// DefaultRedactOptions returns the shipped defaults.
func DefaultRedactOptions() RedactOptions { return RedactOptions{HighEntropy: true} }

// Validate accepts every value: the one knob is a switch.
func (o RedactOptions) Validate() error { return nil }

type redactNode struct{ opt RedactOptions }

// NewRedact builds the node that replaces secrets (API keys, tokens,
// passwords, private keys, credentials in URLs) with a marker naming
// their kind, and counts them by kind.
func NewRedact(o RedactOptions) Node { return redactNode{o} }

func (redactNode) Key() Key { return KeyRedact }

func (n redactNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	text, counts := redact.Known(in.Text)
	if n.opt.HighEntropy {
		var more redact.Counts
		text, more = redact.HighEntropy(text)
		counts = counts.Add(more)
	}
	if len(counts) == 0 {
		return skip(in, "no secrets found"), nil
	}
	out := done(text)
	out.Redactions = counts.String()
	return out, nil
}
