package jetstream

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"

	"github.com/jetcompact/jetcompact/internal/natstest"
	"github.com/jetcompact/jetcompact/transcripts"
	"github.com/jetcompact/jetcompact/transcripts/sessiontest"
)

// sessionServer starts an embedded JetStream server on a loopback port.
func sessionServer(t *testing.T) *server.Server { return natstest.Start(t, nil) }

// sessionStoreOn opens a new TCP connection to s and a SessionStore on it,
// as a separate process would.
func sessionStoreOn(t *testing.T, s *server.Server) *SessionStore {
	t.Helper()
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := njs.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := NewSessionStore(ctx, js, DefaultSessionStoreConfig())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestSessionStoreConformance(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) (transcripts.Store, func(*testing.T) transcripts.Store) {
		s := sessionServer(t)
		return sessionStoreOn(t, s), func(t *testing.T) transcripts.Store { return sessionStoreOn(t, s) }
	})
}

// TestSessionStoreRaceAndReplay is the whole story on one server: two
// compactors on two connections race, exactly one summary lands, and a
// third connection replays the full history and the compacted view from
// the stream and the bucket.
func TestSessionStoreRaceAndReplay(t *testing.T) {
	srv := sessionServer(t)
	a, b := sessionStoreOn(t, srv), sessionStoreOn(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	msgs := sessiontest.Seed(t, a, "chat-42", 14, 3, 7)

	release := make(chan struct{})
	arrived := make(chan struct{}, 2)
	model := transcripts.ChatModelFunc(func(ctx context.Context, system, user string, maxTokens int) (string, error) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return "talk about the page, condensed", nil
	})
	type outcome struct {
		res transcripts.CompactionResult
		err error
	}
	results := make(chan outcome, 2)
	for _, st := range []transcripts.Store{a, b} {
		cp, err := transcripts.NewCompactor(transcripts.DefaultCompactionConfig(), st, model)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			res, err := cp.CompactNow(ctx, "chat-42")
			results <- outcome{res, err}
		}()
	}
	<-arrived
	<-arrived // both have loaded revision 0 and hold a summary
	close(release)
	got := map[string]int{}
	for range 2 {
		o := <-results
		if o.err != nil {
			t.Fatal(o.err)
		}
		got[o.res.Outcome]++
	}
	if got[transcripts.OutcomeApplied] != 1 || got[transcripts.OutcomeDeclined] != 1 {
		t.Fatalf("outcomes %v, want one applied and one declined", got)
	}

	// The bucket holds one revision of the session's state: one summary.
	replay := sessionStoreOn(t, srv)
	hist, err := replay.kv.History(ctx, "chat-42")
	if err != nil || len(hist) != 1 {
		t.Fatalf("state history: %d entries, %v; want exactly one commit", len(hist), err)
	}
	snap, err := replay.Load(ctx, "chat-42")
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Messages) != 14 {
		t.Fatalf("replayed %d messages, want 14", len(snap.Messages))
	}
	for i, m := range snap.Messages {
		if m.ID != msgs[i].ID || m.Text != msgs[i].Text || m.Kind != msgs[i].Kind {
			t.Errorf("message %d replayed as %+v", i+1, m)
		}
		if m.Archived != (i < 8) {
			t.Errorf("message %d archived=%v, want %v", i+1, m.Archived, i < 8)
		}
	}
	if snap.SummaryThroughID != msgs[7].ID || snap.Summary != "talk about the page, condensed" {
		t.Errorf("summary %q through %q", snap.Summary, snap.SummaryThroughID)
	}
	view := transcripts.CompactedView(snap)
	if len(view) != 1+1+6 || view[1].ID != msgs[6].ID || view[1].Kind != transcripts.KindState {
		t.Errorf("view: %d messages, second %+v; want summary, state 7, 6 recent", len(view), view[1])
	}
	if !strings.Contains(transcripts.RenderMessages(view), "talk about the page, condensed") {
		t.Errorf("summary missing from the rendered view")
	}
}

func TestSessionStoreDedupAndValidation(t *testing.T) {
	st := sessionStoreOn(t, sessionServer(t))
	ctx := context.Background()
	first, err := st.Append(ctx, "s", transcripts.Message{ID: "m-1", Role: "user", Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := st.Append(ctx, "s", transcripts.Message{ID: "m-1", Role: "user", Text: "hello, retried"})
	if err != nil || again != first {
		t.Fatalf("retried append: %+v, %v; want the stored %+v", again, err, first)
	}
	info, err := st.stream.Info(ctx)
	if err != nil || info.State.Msgs != 1 {
		t.Fatalf("stream holds %d messages, want 1 (%v)", info.State.Msgs, err)
	}
	for _, bad := range []string{"", "a.b", "a b", "a*", strings.Repeat("x", 129)} {
		if _, err := st.Load(ctx, bad); !errors.Is(err, transcripts.ErrInvalid) {
			t.Errorf("session %q: %v, want ErrInvalid", bad, err)
		}
	}
	cfg := DefaultSessionStoreConfig()
	cfg.Prefix, cfg.Storage = "Bad.Prefix", "tape"
	if err := cfg.Validate(); err == nil || strings.Count(err.Error(), "sessions.") != 2 {
		t.Errorf("Validate: %v", err)
	}
}

// TestSessionStoreCompareAndSet makes the other writer land between the
// loser's checks and its write, so the bucket's compare-and-set, not the
// early revision check, decides: on the first commit (kv.Create) and on a
// later one (kv.Update).
func TestSessionStoreCompareAndSet(t *testing.T) {
	srv := sessionServer(t)
	a, b := sessionStoreOn(t, srv), sessionStoreOn(t, srv)
	ctx := context.Background()
	msgs := sessiontest.Seed(t, a, "cas", 8)
	for i, base := range []uint64{0, 0} {
		if i == 1 {
			snap, err := a.Load(ctx, "cas")
			if err != nil {
				t.Fatal(err)
			}
			base = snap.Revision
		}
		through := msgs[2*i+1].ID
		a.beforeWrite = func() {
			if err := b.CommitCompaction(ctx, "cas", base, "from b", through); err != nil {
				t.Errorf("b's commit: %v", err)
			}
		}
		err := a.CommitCompaction(ctx, "cas", base, "from a", through)
		if !errors.Is(err, transcripts.ErrConflict) {
			t.Fatalf("commit %d: err %v, want ErrConflict from the bucket", i+1, err)
		}
		a.beforeWrite = nil
		snap, err := a.Load(ctx, "cas")
		if err != nil || snap.Summary != "from b" || snap.SummaryThroughID != through {
			t.Fatalf("commit %d: state %q through %q (%v), want b's", i+1, snap.Summary, snap.SummaryThroughID, err)
		}
	}
}
