package jetstream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"

	"github.com/jetcompact/jetcompact/transcripts"
)

// Headers of a session message; the body is the message text.
const (
	sessionHdrID   = "Jc-Session-Msg-Id"
	sessionHdrRole = "Jc-Session-Role"
	sessionHdrKind = "Jc-Session-Kind"
	sessionHdrPage = "Jc-Session-Page"
)

// SessionStoreConfig names and sizes the session store.
type SessionStoreConfig struct {
	// Prefix starts every subject and names the stream and bucket, like
	// Config.Prefix. Default "jetcompact".
	Prefix string `yaml:"prefix"`
	// Storage is "file" or "memory". Default "file".
	Storage string `yaml:"storage"`
	// Replicas of the stream and the bucket. Default 1.
	Replicas int `yaml:"replicas"`
	// DuplicateWindow is how long a retried Append with the same message ID
	// is recognised by the server. Load drops later duplicates by ID in any
	// case. Default 2m.
	DuplicateWindow time.Duration `yaml:"duplicate_window"`
}

// DefaultSessionStoreConfig returns the shipped settings.
func DefaultSessionStoreConfig() SessionStoreConfig {
	return SessionStoreConfig{Prefix: "jetcompact", Storage: "file", Replicas: 1, DuplicateWindow: 2 * time.Minute}
}

// SessionStoreConfigFor puts a fleet's sessions beside it: same prefix,
// storage and replicas.
func SessionStoreConfigFor(f Config) SessionStoreConfig {
	c := DefaultSessionStoreConfig()
	c.Prefix, c.Storage, c.Replicas = f.Prefix, f.Storage, f.Replicas
	return c
}

var sessionPrefixRe = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// Validate checks every field; errors name the field.
func (c SessionStoreConfig) Validate() error {
	var errs []error
	if !sessionPrefixRe.MatchString(c.Prefix) {
		errs = append(errs, fmt.Errorf("sessions.prefix: %q must be lower-case letters, digits, - or _, starting with a letter", c.Prefix))
	}
	if c.Storage != "file" && c.Storage != "memory" {
		errs = append(errs, fmt.Errorf("sessions.storage: %q must be file or memory", c.Storage))
	}
	if c.Replicas < 1 || c.Replicas > 5 {
		errs = append(errs, fmt.Errorf("sessions.replicas: %d must be between 1 and 5", c.Replicas))
	}
	if c.DuplicateWindow <= 0 {
		errs = append(errs, fmt.Errorf("sessions.duplicate_window: %s must be > 0", c.DuplicateWindow))
	}
	return errors.Join(errs...)
}

func (c SessionStoreConfig) upper() string {
	return strings.ToUpper(strings.ReplaceAll(c.Prefix, "-", "_"))
}

// SessionStream is the stream that holds every session's messages.
func (c SessionStoreConfig) SessionStream() string { return c.upper() + "_SESSIONS" }

// SessionBucket is the key-value bucket that holds each session's compaction state.
func (c SessionStoreConfig) SessionBucket() string { return c.upper() + "_SESSION_STATE" }

// SessionSubject is where session's messages are appended.
func (c SessionStoreConfig) SessionSubject(session string) string {
	return c.Prefix + ".session." + session
}

// SessionStore is a transcripts.Store on JetStream. Each session's messages
// are appended, in order, to one subject of the session stream and never
// deleted. Its compaction state (summary, through ID and the stream
// sequence of that message) is one entry of the session bucket, written with
// kv.Create the first time and kv.Update against the loaded revision after
// that, so a single write both stores the summary and moves the archive
// mark, and a racing compaction gets transcripts.ErrConflict. A message is
// archived when its stream sequence is at or below the recorded one.
// Safe for concurrent use.
type SessionStore struct {
	cfg    SessionStoreConfig
	stream njs.Stream
	kv     njs.KeyValue
	js     njs.JetStream

	// beforeWrite, set only by tests, runs between the checks and the
	// compare-and-set write of CommitCompaction.
	beforeWrite func()
}

var _ transcripts.Store = (*SessionStore)(nil)

// sessionState is the bucket entry of one session.
type sessionState struct {
	Summary    string `json:"context_summary"`
	ThroughID  string `json:"context_summary_through_message_id"`
	ThroughSeq uint64 `json:"through_seq"`
}

// NewSessionStore creates or updates the session stream and bucket.
func NewSessionStore(ctx context.Context, js njs.JetStream, cfg SessionStoreConfig) (*SessionStore, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	storage := njs.FileStorage
	if cfg.Storage == "memory" {
		storage = njs.MemoryStorage
	}
	stream, err := js.CreateOrUpdateStream(ctx, njs.StreamConfig{
		Name:        cfg.SessionStream(),
		Description: "jetcompact: session messages, in order, never deleted",
		Subjects:    []string{cfg.Prefix + ".session.>"},
		Retention:   njs.LimitsPolicy,
		Storage:     storage,
		Replicas:    cfg.Replicas,
		Duplicates:  cfg.DuplicateWindow,
		AllowDirect: true,
	})
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", cfg.SessionStream(), err)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, njs.KeyValueConfig{
		Bucket:      cfg.SessionBucket(),
		Description: "jetcompact: session compaction state (summary and archive mark)",
		History:     8,
		Storage:     storage,
		Replicas:    cfg.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", cfg.SessionBucket(), err)
	}
	return &SessionStore{cfg: cfg, stream: stream, kv: kv, js: js}, nil
}

var sessionIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

func checkSession(session string) error {
	if !sessionIDRe.MatchString(session) {
		return fmt.Errorf("%w: session id %q must be 1-128 letters, digits, - or _", transcripts.ErrInvalid, session)
	}
	return nil
}

// Load implements transcripts.Store: it replays the session's subject from
// the start and applies the compaction state read just before.
func (s *SessionStore) Load(ctx context.Context, session string) (transcripts.Snapshot, error) {
	if err := checkSession(session); err != nil {
		return transcripts.Snapshot{}, err
	}
	snap := transcripts.Snapshot{Session: session}
	st, rev, err := s.state(ctx, session)
	if err != nil {
		return snap, err
	}
	msgs, err := s.read(ctx, session)
	if err != nil {
		return snap, err
	}
	snap.Summary, snap.SummaryThroughID, snap.Revision = st.Summary, st.ThroughID, rev
	for _, m := range msgs {
		m.msg.Archived = rev > 0 && m.seq <= st.ThroughSeq
		snap.Messages = append(snap.Messages, m.msg)
	}
	return snap, nil
}

func (s *SessionStore) state(ctx context.Context, session string) (sessionState, uint64, error) {
	var st sessionState
	e, err := s.kv.Get(ctx, session)
	if errors.Is(err, njs.ErrKeyNotFound) {
		return st, 0, nil
	}
	if err != nil {
		return st, 0, fmt.Errorf("session %s state: %w", session, err)
	}
	if err := json.Unmarshal(e.Value(), &st); err != nil {
		return st, 0, fmt.Errorf("session %s state: %w", session, err)
	}
	return st, e.Revision(), nil
}

type seqMsg struct {
	seq uint64
	msg transcripts.Message
}

// read returns the session's messages in stream order, first copy of each ID.
func (s *SessionStore) read(ctx context.Context, session string) ([]seqMsg, error) {
	subject := s.cfg.SessionSubject(session)
	var out []seqMsg
	seen := map[string]bool{}
	for next := uint64(1); ; {
		raw, err := s.stream.GetMsg(ctx, next, njs.WithGetMsgSubject(subject))
		if errors.Is(err, njs.ErrMsgNotFound) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("session %s at %d: %w", session, next, err)
		}
		next = raw.Sequence + 1
		m := decodeSessionMsg(raw)
		if seen[m.ID] {
			continue
		}
		seen[m.ID] = true
		out = append(out, seqMsg{raw.Sequence, m})
	}
}

func decodeSessionMsg(raw *njs.RawStreamMsg) transcripts.Message {
	m := transcripts.Message{
		ID:   raw.Header.Get(sessionHdrID),
		Role: raw.Header.Get(sessionHdrRole),
		Kind: transcripts.MessageKind(raw.Header.Get(sessionHdrKind)),
		Page: raw.Header.Get(sessionHdrPage),
		Text: string(raw.Data),
	}
	if m.ID == "" {
		m.ID = fmt.Sprintf("seq-%d", raw.Sequence)
	}
	if m.Kind == "" {
		m.Kind = transcripts.KindProse
	}
	return m
}

// Append implements transcripts.Store. The message ID is also the
// publish's Nats-Msg-Id, so a retried Append inside the duplicate window is
// dropped by the server; Load drops later copies by ID.
func (s *SessionStore) Append(ctx context.Context, session string, m transcripts.Message) (transcripts.Message, error) {
	if err := checkSession(session); err != nil {
		return transcripts.Message{}, err
	}
	m, err := transcripts.NormalizeMessage(m)
	if err != nil {
		return transcripts.Message{}, err
	}
	if m.ID == "" {
		var b [12]byte
		if _, err := rand.Read(b[:]); err != nil {
			return transcripts.Message{}, err
		}
		m.ID = hex.EncodeToString(b[:])
	}
	msg := &nats.Msg{Subject: s.cfg.SessionSubject(session), Header: nats.Header{}, Data: []byte(m.Text)}
	msg.Header.Set(sessionHdrID, m.ID)
	msg.Header.Set(sessionHdrRole, m.Role)
	msg.Header.Set(sessionHdrKind, string(m.Kind))
	if m.Page != "" {
		msg.Header.Set(sessionHdrPage, m.Page)
	}
	ack, err := s.js.PublishMsg(ctx, msg, njs.WithMsgID(session+"/"+m.ID), njs.WithExpectStream(s.cfg.SessionStream()))
	if err != nil {
		return transcripts.Message{}, fmt.Errorf("append to session %s: %w", session, err)
	}
	if ack.Duplicate {
		raw, err := s.stream.GetMsg(ctx, ack.Sequence)
		if err != nil {
			return transcripts.Message{}, fmt.Errorf("session %s: stored copy of %s: %w", session, m.ID, err)
		}
		return decodeSessionMsg(raw), nil
	}
	return m, nil
}

// CommitCompaction implements transcripts.Store with one compare-and-set
// write of the session's bucket entry.
func (s *SessionStore) CommitCompaction(ctx context.Context, session string, expectedRevision uint64, summary, throughID string) error {
	if err := checkSession(session); err != nil {
		return err
	}
	if summary == "" {
		return fmt.Errorf("%w: empty summary", transcripts.ErrInvalid)
	}
	cur, rev, err := s.state(ctx, session)
	if err != nil {
		return err
	}
	if rev != expectedRevision {
		return fmt.Errorf("%w: revision is %d, expected %d", transcripts.ErrConflict, rev, expectedRevision)
	}
	msgs, err := s.read(ctx, session)
	if err != nil {
		return err
	}
	var seq uint64
	for _, m := range msgs {
		if m.msg.ID == throughID {
			seq = m.seq
			break
		}
	}
	if seq == 0 {
		return fmt.Errorf("%w: %q in session %q", transcripts.ErrUnknownMessage, throughID, session)
	}
	if rev > 0 && seq <= cur.ThroughSeq {
		return fmt.Errorf("%w: %q is already archived", transcripts.ErrInvalid, throughID)
	}
	value, err := json.Marshal(sessionState{Summary: summary, ThroughID: throughID, ThroughSeq: seq})
	if err != nil {
		return err
	}
	if s.beforeWrite != nil {
		s.beforeWrite()
	}
	if expectedRevision == 0 {
		_, err = s.kv.Create(ctx, session, value)
	} else {
		_, err = s.kv.Update(ctx, session, value, expectedRevision)
	}
	if errors.Is(err, njs.ErrKeyExists) || errors.Is(err, njs.ErrKeyRevisionMismatch) {
		return fmt.Errorf("%w: %w", transcripts.ErrConflict, err)
	}
	if err != nil {
		return fmt.Errorf("session %s: commit compaction: %w", session, err)
	}
	return nil
}
