// Package transcripts compacts conversations rather than single texts: a
// multi-model debate before its chairman reads it, a discussion before a
// final decider sees it, a meeting's whiteboard before the next round, and a
// chat session's history before the next turn.
//
// Everything here is pure Go: no transport and no telemetry. The LLM sits
// behind ChatModel; a nil ChatModel means "no model" and every behaviour has
// a deterministic fallback. Characters are runes (stages.Chars) and tokens
// are estimated with stages.EstimateTokens, as everywhere in jetcompact.
//
// The four behaviours:
//
//   - CompressDebate: keep the two best-seated answers verbatim and fold the
//     rest around their head, tail, key lines and code blocks, once the debate
//     crosses a character gate (design.md, Debate).
//   - EvidenceSummarizer: a name-free, tally-free, for/against balanced
//     summary for a separate decider call, validated deterministically, with
//     an extractive fallback (design.md, Evidence).
//   - ContextManager: a meeting whiteboard under a token budget, three
//     levels deep (design.md, Meetings).
//   - Compactor: session auto-compaction over a Store with optimistic
//     concurrency; state is selected, prose is summarised, history is only
//     ever archived (design.md, Sessions and Pipeline).
package transcripts
