package transcripts

import (
	"context"
	"errors"
)

// ChatModel is the LLM behind every optional model call in this package.
// Complete returns the model's answer to one system and one user message,
// bounded by maxTokens. Implementations must be safe for concurrent use.
// A nil ChatModel means that no model is configured.
type ChatModel interface {
	Complete(ctx context.Context, system, user string, maxTokens int) (string, error)
}

// ChatModelFunc adapts a function to ChatModel.
type ChatModelFunc func(ctx context.Context, system, user string, maxTokens int) (string, error)

// Complete calls f.
func (f ChatModelFunc) Complete(ctx context.Context, system, user string, maxTokens int) (string, error) {
	return f(ctx, system, user, maxTokens)
}

// ModelLookup returns the ChatModel that answers as the named model, or nil
// when that model cannot be called.
type ModelLookup func(name string) ChatModel

// SameModel returns a ModelLookup that answers every name with m.
func SameModel(m ChatModel) ModelLookup {
	return func(string) ChatModel { return m }
}

// ErrInvalid marks input or configuration that no retry can fix.
var ErrInvalid = errors.New("invalid")
