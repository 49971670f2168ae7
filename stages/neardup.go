package stages

import "context"

// NearDupOptions are the node's knobs.
type NearDupOptions struct{}

// DefaultNearDupOptions returns the shipped defaults.
func DefaultNearDupOptions() NearDupOptions { return NearDupOptions{} }

// Validate reports a knob that is out of range.
func (o NearDupOptions) Validate() error { return nil }

type neardupNode struct{ opt NearDupOptions }

// NewNearDup builds the node. TODO: real implementation.
func NewNearDup(o NearDupOptions) Node { return neardupNode{o} }

func (neardupNode) Key() Key { return KeyNearDup }

func (n neardupNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	return skip(in, "not implemented"), nil
}
