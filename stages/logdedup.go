package stages

import "context"

// LogDedupOptions are the node's knobs.
type LogDedupOptions struct{}

// DefaultLogDedupOptions returns the shipped defaults.
func DefaultLogDedupOptions() LogDedupOptions { return LogDedupOptions{} }

// Validate reports a knob that is out of range.
func (o LogDedupOptions) Validate() error { return nil }

type logdedupNode struct{ opt LogDedupOptions }

// NewLogDedup builds the node. TODO: real implementation.
func NewLogDedup(o LogDedupOptions) Node { return logdedupNode{o} }

func (logdedupNode) Key() Key { return KeyLogDedup }

func (n logdedupNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	return skip(in, "not implemented"), nil
}
