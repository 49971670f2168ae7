package transcripts

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jetcompact/jetcompact/stages"
)

// MessageKind separates what is summarised from what is only selected.
type MessageKind string

// The kinds of session messages.
const (
	// KindProse is conversation: it is history, and history is summarised.
	KindProse MessageKind = "prose"
	// KindState is the artifact under edit (a page, a file, a canvas): it
	// is never summarised; the latest one is always in the compacted view.
	KindState MessageKind = "state"
	// KindSummary marks the summary message that CompactedView puts first.
	// Stores never hold it.
	KindSummary MessageKind = "summary"
)

// Message is one message of a session, in the order it was appended.
type Message struct {
	ID   string      `json:"id"`
	Role string      `json:"role"`
	Kind MessageKind `json:"kind"`
	// Page names the page (file, canvas) a state message is a version of;
	// "" is one unnamed page. Prose leaves it empty.
	Page string `json:"page,omitempty"`
	Text string `json:"text"`
	// Archived messages are covered by the session summary. They are never
	// deleted, so a bad summary can always be rebuilt from them.
	Archived bool `json:"archived,omitempty"`
	// Digest marks a view's structural digest of a page not under edit
	// (views only; stores never hold it).
	Digest bool `json:"digest,omitempty"`
}

// Snapshot is a session as a Store holds it: the full history and the
// compaction state.
type Snapshot struct {
	Session  string    `json:"session"`
	Messages []Message `json:"messages"` // every message, archived ones included
	// Summary covers every message up to and including SummaryThroughID.
	Summary          string `json:"context_summary,omitempty"`
	SummaryThroughID string `json:"context_summary_through_message_id,omitempty"`
	// Revision versions the compaction state (Summary, SummaryThroughID and
	// the archive marks). Appends do not move it; each committed compaction
	// does. 0 means never compacted.
	Revision uint64 `json:"revision"`
}

// Store keeps sessions. Implementations must be safe for concurrent use.
// The conformance suite in package sessiontest pins the contract down.
type Store interface {
	// Load returns the session's full history and its compaction state.
	// An unknown session is empty, with Revision 0.
	Load(ctx context.Context, session string) (Snapshot, error)
	// Append adds m at the end of the session and returns it as stored.
	// An empty ID is assigned by the store; an empty Kind means prose.
	// Appending an ID the session already holds stores nothing and returns
	// the stored message, so retried appends do not duplicate.
	Append(ctx context.Context, session string, m Message) (Message, error)
	// CommitCompaction stores summary as covering every message up to and
	// including throughID and marks those messages archived, in one atomic
	// step, provided the compaction state is still at expectedRevision. If
	// it moved, it returns ErrConflict and changes nothing. throughID must
	// be a message of the session after the current SummaryThroughID.
	CommitCompaction(ctx context.Context, session string, expectedRevision uint64, summary, throughID string) error
}

// Errors a Store returns.
var (
	// ErrConflict: another compaction committed since the snapshot was loaded.
	ErrConflict = errors.New("compaction state moved since it was loaded")
	// ErrUnknownMessage: throughID is not a message of the session.
	ErrUnknownMessage = errors.New("unknown message")
)

// NormalizeMessage applies the Append defaults and checks the kind. Stores
// call it before storing.
func NormalizeMessage(m Message) (Message, error) {
	m.Archived = false
	switch m.Kind {
	case "":
		m.Kind = KindProse
	case KindProse, KindState:
	default:
		return Message{}, fmt.Errorf("%w: message kind %q (want prose or state)", ErrInvalid, m.Kind)
	}
	return m, nil
}

// CompactedView is CompactedViewFor(s, "", nil): the page under edit is
// the page of the latest state message.
func CompactedView(s Snapshot) []Message { return CompactedViewFor(s, "", nil) }

// PageDigest reduces a page to its structural digest (design.md, Sessions: custom
// properties, landmarks, recurring class names, headings).
type PageDigest func(page string) string

// StructuralDigest is the default PageDigest: the structured node's fold
// (the HTML digest for pages, the JSON skeleton for JSON), or the page
// itself when that is not shorter.
func StructuralDigest(page string) string {
	o := stages.DefaultStructuredOptions()
	o.MinChars = 1
	o.HTML = stages.HTMLDigest // pages not under edit: their structure, not their article
	kind := stages.Kind("")
	if strings.HasPrefix(strings.TrimSpace(page), "<") {
		kind = stages.KindHTML
	}
	out, err := stages.NewStructured(o).Apply(context.Background(), stages.Input{Text: page, Kind: kind})
	if err != nil || out.Skipped {
		return page
	}
	return out.Text
}

// CompactedViewFor is what is sent to the model for s: the summary first
// (when there is one), then each page's latest version, and every message
// that is not archived, in order. State is selected, never summarised: the
// latest version of the page under edit (edit; "" means the page of the
// latest state message) is sent verbatim, the latest version of every
// other page as its structural digest (digest; nil means
// StructuralDigest), and superseded versions are left out. A page whose
// latest version is archived comes right after the summary.
func CompactedViewFor(s Snapshot, edit string, digest PageDigest) []Message {
	if digest == nil {
		digest = StructuralDigest
	}
	latest := map[string]int{}
	lastState := -1
	for i, m := range s.Messages {
		if m.Kind == KindState {
			latest[m.Page] = i
			lastState = i
		}
	}
	if edit == "" && lastState >= 0 {
		edit = s.Messages[lastState].Page
	}
	page := func(m Message) Message {
		if m.Page != edit {
			m.Text, m.Digest = digest(m.Text), true
		}
		return m
	}
	var out []Message
	if s.Summary != "" {
		out = append(out, Message{
			ID:   "summary-through-" + s.SummaryThroughID,
			Role: "system",
			Kind: KindSummary,
			Text: "Summary of the earlier conversation:\n" + s.Summary,
		})
	}
	for i, m := range s.Messages {
		if m.Kind == KindState && m.Archived && latest[m.Page] == i {
			out = append(out, page(m))
		}
	}
	for i, m := range s.Messages {
		switch {
		case m.Archived:
		case m.Kind == KindState:
			if latest[m.Page] == i {
				out = append(out, page(m))
			}
		default:
			out = append(out, m)
		}
	}
	return out
}

// HistoryTokens is the estimated tokens of the history (prose and the
// summary) in view: what compaction can save. State is left out: it is
// what makes a payload large and what compaction never touches (design.md, Sessions).
func HistoryTokens(view []Message) int {
	var prose []Message
	for _, m := range view {
		if m.Kind != KindState {
			prose = append(prose, m)
		}
	}
	return stages.EstimateTokens(RenderMessages(prose))
}

// FullHistory returns every message of s in order, archived ones included
// and marked: the replay of what was actually said.
func FullHistory(s Snapshot) []Message {
	return append([]Message(nil), s.Messages...)
}

// RenderMessages writes messages as "role: text" blocks, the text whose
// tokens count against the window.
func RenderMessages(ms []Message) string {
	var b strings.Builder
	for i, m := range ms {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(m.Role)
		b.WriteString(": ")
		b.WriteString(m.Text)
	}
	return b.String()
}

// The outcomes of a compaction. A model that produces nothing is "no
// summary produced", never "rejected": nobody rejected anything.
const (
	OutcomeApplied   = "applied"
	OutcomeNoSummary = "no summary produced"
	OutcomeDeclined  = "declined"
	OutcomeNotNeeded = "not needed"
)

// CompactionResult reports one compaction attempt.
type CompactionResult struct {
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	// UsageTokens is the estimated size of the history (prose and summary)
	// in the compacted view before the attempt, StateTokens that of the
	// state in it; ThresholdTokens is where compaction starts, measured
	// against UsageTokens only.
	UsageTokens     int `json:"usage_tokens"`
	StateTokens     int `json:"state_tokens,omitempty"`
	ThresholdTokens int `json:"threshold_tokens"`
	// BaseRevision is the revision the attempt loaded.
	BaseRevision uint64 `json:"base_revision"`
	ThroughID    string `json:"through_id,omitempty"`
	// SummarisedMessages is how many prose messages the summary replaces;
	// ArchivedMessages how many messages the commit archives (state included).
	SummarisedMessages int `json:"summarised_messages,omitempty"`
	ArchivedMessages   int `json:"archived_messages,omitempty"`
	CharsReplaced      int `json:"chars_replaced,omitempty"`
	SummaryChars       int `json:"summary_chars,omitempty"`
}

// Compactor compacts sessions of one Store. Safe for concurrent use; two
// compactions of one session race on the store's revision, and the loser
// declines instead of retrying: its view of the session is stale.
type Compactor struct {
	cfg   CompactionConfig
	store Store
	model ChatModel
}

// NewCompactor validates c. model may be nil: every compaction then ends in
// "no summary produced".
func NewCompactor(c CompactionConfig, store Store, model ChatModel) (*Compactor, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if store == nil {
		return nil, fmt.Errorf("%w: session compactor needs a store", ErrInvalid)
	}
	return &Compactor{cfg: c, store: store, model: model}, nil
}

const sessionSummarySystem = `Summarise the earlier part of a conversation so that it can continue without it.
Keep conclusions, decisions, numbers, file names and paths, commands, open tasks and constraints.
Drop repetition and pleasantries. Never invent facts. Write in the conversation's language.
The current version of the document being edited is kept separately: do not restate it.`

// Compact compacts session when its compacted view has reached the
// threshold, and reports "not needed" otherwise.
func (c *Compactor) Compact(ctx context.Context, session string) (CompactionResult, error) {
	return c.compact(ctx, session, false)
}

// CompactNow compacts session whatever its size.
func (c *Compactor) CompactNow(ctx context.Context, session string) (CompactionResult, error) {
	return c.compact(ctx, session, true)
}

func (c *Compactor) compact(ctx context.Context, session string, force bool) (CompactionResult, error) {
	snap, err := c.store.Load(ctx, session)
	if err != nil {
		return CompactionResult{}, err
	}
	view := CompactedView(snap)
	res := CompactionResult{
		UsageTokens:     HistoryTokens(view),
		ThresholdTokens: c.cfg.ThresholdTokens(),
		BaseRevision:    snap.Revision,
	}
	res.StateTokens = stages.EstimateTokens(RenderMessages(view)) - res.UsageTokens
	if !force && res.UsageTokens < res.ThresholdTokens {
		res.Outcome = OutcomeNotNeeded
		res.Reason = fmt.Sprintf("history %d tokens < %d (%.0f%% of %d); state is not counted", res.UsageTokens, res.ThresholdTokens, c.cfg.AutoRatio*100, c.cfg.WindowTokens)
		return res, nil
	}
	var live []Message
	for _, m := range snap.Messages {
		if !m.Archived {
			live = append(live, m)
		}
	}
	if len(live) <= c.cfg.KeepRecent {
		res.Outcome = OutcomeNotNeeded
		res.Reason = fmt.Sprintf("%d live messages, all among the %d most recent", len(live), c.cfg.KeepRecent)
		return res, nil
	}
	older := live[:len(live)-c.cfg.KeepRecent]
	var prose []Message
	for _, m := range older {
		if m.Kind != KindState {
			prose = append(prose, m)
		}
	}
	if len(prose) == 0 {
		res.Outcome = OutcomeNotNeeded
		res.Reason = "the older messages are all state, which is selected, never summarised"
		return res, nil
	}
	res.ThroughID = older[len(older)-1].ID
	res.SummarisedMessages = len(prose)
	res.ArchivedMessages = len(older)

	docs := []stages.PromptDoc{{Label: "later messages", Text: RenderMessages(prose)}}
	if snap.Summary != "" {
		docs = append([]stages.PromptDoc{{Label: "summary so far", Text: snap.Summary}}, docs...)
	}
	input := stages.UserPrompt("The part of the conversation to summarise is below.", docs, "")
	res.CharsReplaced = stages.Chars(snap.Summary) + charsOf(prose)
	if c.model == nil {
		res.Outcome, res.Reason = OutcomeNoSummary, "no model is configured"
		return res, nil
	}
	maxTokens := c.cfg.SummaryMaxTokens
	if maxTokens == 0 {
		maxTokens = stages.MaxSummaryTokens(input)
	}
	summary, err := c.model.Complete(ctx, stages.SystemPrompt(sessionSummarySystem), input, maxTokens)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return CompactionResult{}, ctxErr
		}
		res.Outcome, res.Reason = OutcomeNoSummary, "the model failed: "+err.Error()
		return res, nil
	}
	summary = strings.TrimSpace(summary)
	res.SummaryChars = stages.Chars(summary)
	switch {
	case summary == "":
		res.Outcome, res.Reason = OutcomeNoSummary, "the model returned nothing"
		return res, nil
	case res.SummaryChars >= res.CharsReplaced:
		res.Outcome = OutcomeNoSummary
		res.Reason = fmt.Sprintf("the summary (%d chars) is not shorter than what it replaces (%d chars)", res.SummaryChars, res.CharsReplaced)
		return res, nil
	}
	err = c.store.CommitCompaction(ctx, session, snap.Revision, summary, res.ThroughID)
	if errors.Is(err, ErrConflict) {
		res.Outcome = OutcomeDeclined
		res.Reason = "another compaction committed first; this one's view is stale"
		return res, nil
	}
	if err != nil {
		return CompactionResult{}, fmt.Errorf("commit compaction of %q: %w", session, err)
	}
	res.Outcome = OutcomeApplied
	return res, nil
}

func charsOf(ms []Message) int {
	n := 0
	for _, m := range ms {
		n += stages.Chars(m.Text)
	}
	return n
}
