package stages

import "context"

// StructuredOptions are the node's knobs.
type StructuredOptions struct{}

// DefaultStructuredOptions returns the shipped defaults.
func DefaultStructuredOptions() StructuredOptions { return StructuredOptions{} }

// Validate reports a knob that is out of range.
func (o StructuredOptions) Validate() error { return nil }

type structuredNode struct{ opt StructuredOptions }

// NewStructured builds the node. TODO: real implementation.
func NewStructured(o StructuredOptions) Node { return structuredNode{o} }

func (structuredNode) Key() Key { return KeyStructured }

func (n structuredNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	return skip(in, "not implemented"), nil
}
