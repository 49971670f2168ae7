package stages

import "context"

// KeywordsOptions are the node's knobs.
type KeywordsOptions struct{}

// DefaultKeywordsOptions returns the shipped defaults.
func DefaultKeywordsOptions() KeywordsOptions { return KeywordsOptions{} }

// Validate reports a knob that is out of range.
func (o KeywordsOptions) Validate() error { return nil }

type keywordsNode struct{ opt KeywordsOptions }

// NewKeywords builds the node. TODO: real implementation.
func NewKeywords(o KeywordsOptions) Node { return keywordsNode{o} }

func (keywordsNode) Key() Key { return KeyKeywords }

func (n keywordsNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	return skip(in, "not implemented"), nil
}

// lineSignal is a placeholder.
func lineSignal(line string) int { return 0 }
