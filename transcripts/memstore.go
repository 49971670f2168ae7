package transcripts

import (
	"context"
	"fmt"
	"strconv"
	"sync"
)

// MemoryStore is a Store in process memory, for tests and --local runs.
// Safe for concurrent use.
type MemoryStore struct {
	mu       sync.Mutex
	sessions map[string]*memSession
	before   func(session string) error
	after    func(session string) error
}

type memSession struct {
	msgs    []Message
	summary string
	through int // index of the last archived message, -1 for none
	rev     uint64
	nextID  int
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{sessions: map[string]*memSession{}}
}

// SetFaults installs fault hooks for CommitCompaction. before runs after the
// revision check and before anything is written: its error aborts the commit
// with nothing written, like a crash between producing a summary and
// committing it. after runs once the commit is written: its error is
// returned although the new state is in place, like a crash before the
// caller heard back. Either may be nil.
func (s *MemoryStore) SetFaults(before, after func(session string) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.before, s.after = before, after
}

func (s *MemoryStore) session(name string) *memSession {
	ss, ok := s.sessions[name]
	if !ok {
		ss = &memSession{through: -1}
		s.sessions[name] = ss
	}
	return ss
}

// Load implements Store.
func (s *MemoryStore) Load(ctx context.Context, session string) (Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return Snapshot{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := Snapshot{Session: session}
	ss, ok := s.sessions[session]
	if !ok {
		return snap, nil
	}
	snap.Messages = make([]Message, len(ss.msgs))
	for i, m := range ss.msgs {
		m.Archived = i <= ss.through
		snap.Messages[i] = m
	}
	snap.Summary, snap.Revision = ss.summary, ss.rev
	if ss.through >= 0 {
		snap.SummaryThroughID = ss.msgs[ss.through].ID
	}
	return snap, nil
}

// Append implements Store. Assigned IDs are the message's 1-based position.
func (s *MemoryStore) Append(ctx context.Context, session string, m Message) (Message, error) {
	if err := ctx.Err(); err != nil {
		return Message{}, err
	}
	m, err := NormalizeMessage(m)
	if err != nil {
		return Message{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.session(session)
	if m.ID != "" {
		for _, old := range ss.msgs {
			if old.ID == m.ID {
				return old, nil
			}
		}
	}
	for m.ID == "" || s.holds(ss, m.ID) {
		ss.nextID++
		m.ID = strconv.Itoa(ss.nextID)
	}
	ss.msgs = append(ss.msgs, m)
	return m, nil
}

func (s *MemoryStore) holds(ss *memSession, id string) bool {
	for _, m := range ss.msgs {
		if m.ID == id {
			return true
		}
	}
	return false
}

// CommitCompaction implements Store. The summary, the through mark and the
// revision change together under one lock, so a reader sees the old state
// or the new one, never archived messages without their summary.
func (s *MemoryStore) CommitCompaction(ctx context.Context, session string, expectedRevision uint64, summary, throughID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if summary == "" {
		return fmt.Errorf("%w: empty summary", ErrInvalid)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.session(session)
	if ss.rev != expectedRevision {
		return fmt.Errorf("%w: revision is %d, expected %d", ErrConflict, ss.rev, expectedRevision)
	}
	idx := -1
	for i, m := range ss.msgs {
		if m.ID == throughID {
			idx = i
			break
		}
	}
	if idx < 0 {
		return fmt.Errorf("%w: %q in session %q", ErrUnknownMessage, throughID, session)
	}
	if idx <= ss.through {
		return fmt.Errorf("%w: %q is already archived", ErrInvalid, throughID)
	}
	if s.before != nil {
		if err := s.before(session); err != nil {
			return err
		}
	}
	ss.summary, ss.through, ss.rev = summary, idx, ss.rev+1
	if s.after != nil {
		return s.after(session)
	}
	return nil
}
