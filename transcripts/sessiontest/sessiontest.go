// Package sessiontest is the conformance suite every transcripts.Store must
// pass: ordered appends, idempotent IDs, atomic compaction commits with
// optimistic concurrency, racing compactors and replay after reopening.
package sessiontest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/transcripts"
)

// Factory returns a fresh, empty store and a function that opens the same
// underlying data again as a new instance (a new connection, a restarted
// process). A store without durable state may return itself from reopen.
type Factory func(t *testing.T) (store transcripts.Store, reopen func(t *testing.T) transcripts.Store)

// Run runs the suite against the stores newStore makes.
func Run(t *testing.T, newStore Factory) {
	t.Run("AppendLoadInOrder", func(t *testing.T) { appendLoadInOrder(t, newStore) })
	t.Run("AppendIsIdempotentByID", func(t *testing.T) { appendIdempotent(t, newStore) })
	t.Run("SessionsAreSeparate", func(t *testing.T) { sessionsSeparate(t, newStore) })
	t.Run("CommitArchivesThroughID", func(t *testing.T) { commitArchives(t, newStore) })
	t.Run("StaleRevisionConflicts", func(t *testing.T) { staleConflicts(t, newStore) })
	t.Run("BadCommitsChangeNothing", func(t *testing.T) { badCommits(t, newStore) })
	t.Run("RacingCompactorsOneWins", func(t *testing.T) { racingCompactors(t, newStore) })
	t.Run("ReplayAfterReopen", func(t *testing.T) { replayAfterReopen(t, newStore) })
	t.Run("PagesSurviveReopen", func(t *testing.T) { pagesSurvive(t, newStore) })
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// Seed appends n messages to session: prose turns, with a state message at
// every position listed in states (1-based). It returns them as stored.
func Seed(t *testing.T, s transcripts.Store, session string, n int, states ...int) []transcripts.Message {
	t.Helper()
	isState := map[int]bool{}
	for _, i := range states {
		isState[i] = true
	}
	var out []transcripts.Message
	for i := 1; i <= n; i++ {
		m := transcripts.Message{Role: "user", Kind: transcripts.KindProse, Text: fmt.Sprintf("message %d: %s", i, strings.Repeat("talk ", 20))}
		if i%2 == 0 {
			m.Role = "assistant"
		}
		if isState[i] {
			m.Kind, m.Text = transcripts.KindState, fmt.Sprintf("<page version=%d>%s</page>", i, strings.Repeat("x", 50))
		}
		got, err := s.Append(ctx(t), session, m)
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		if got.ID == "" {
			t.Fatalf("append %d: store assigned no ID", i)
		}
		out = append(out, got)
	}
	return out
}

func load(t *testing.T, s transcripts.Store, session string) transcripts.Snapshot {
	t.Helper()
	snap, err := s.Load(ctx(t), session)
	if err != nil {
		t.Fatalf("load %s: %v", session, err)
	}
	return snap
}

func appendLoadInOrder(t *testing.T, newStore Factory) {
	s, _ := newStore(t)
	empty := load(t, s, "fresh")
	if len(empty.Messages) != 0 || empty.Revision != 0 || empty.Summary != "" {
		t.Fatalf("unknown session: got %+v, want empty at revision 0", empty)
	}
	want := Seed(t, s, "s1", 5, 3)
	got := load(t, s, "s1")
	if len(got.Messages) != len(want) {
		t.Fatalf("loaded %d messages, want %d", len(got.Messages), len(want))
	}
	for i := range want {
		if got.Messages[i] != want[i] {
			t.Errorf("message %d: got %+v, want %+v", i, got.Messages[i], want[i])
		}
		if got.Messages[i].Archived {
			t.Errorf("message %d archived before any compaction", i)
		}
	}
	if got.Messages[2].Kind != transcripts.KindState {
		t.Errorf("kind of message 3: %q, want state", got.Messages[2].Kind)
	}
	if _, err := s.Append(ctx(t), "s1", transcripts.Message{Kind: "picture"}); !errors.Is(err, transcripts.ErrInvalid) {
		t.Errorf("append of an unknown kind: err %v, want ErrInvalid", err)
	}
}

func appendIdempotent(t *testing.T, newStore Factory) {
	s, _ := newStore(t)
	m := transcripts.Message{ID: "fixed-1", Role: "user", Text: "once"}
	first, err := s.Append(ctx(t), "s", m)
	if err != nil {
		t.Fatal(err)
	}
	m.Text = "twice"
	second, err := s.Append(ctx(t), "s", m)
	if err != nil {
		t.Fatal(err)
	}
	if second != first {
		t.Errorf("re-append returned %+v, want the stored %+v", second, first)
	}
	if got := load(t, s, "s"); len(got.Messages) != 1 || got.Messages[0].Text != "once" {
		t.Errorf("after re-append: %+v, want one message \"once\"", got.Messages)
	}
}

func sessionsSeparate(t *testing.T, newStore Factory) {
	s, _ := newStore(t)
	a := Seed(t, s, "a", 3)
	Seed(t, s, "b", 2)
	if err := s.CommitCompaction(ctx(t), "a", 0, "summary of a", a[1].ID); err != nil {
		t.Fatal(err)
	}
	if got := load(t, s, "a"); len(got.Messages) != 3 {
		t.Errorf("session a holds %d messages, want 3", len(got.Messages))
	}
	b := load(t, s, "b")
	if len(b.Messages) != 2 || b.Summary != "" || b.Revision != 0 {
		t.Errorf("session b after compacting a: %d messages, summary %q, revision %d", len(b.Messages), b.Summary, b.Revision)
	}
}

func commitArchives(t *testing.T, newStore Factory) {
	s, _ := newStore(t)
	msgs := Seed(t, s, "s", 6, 2)
	before := load(t, s, "s")
	if err := s.CommitCompaction(ctx(t), "s", before.Revision, "first summary", msgs[2].ID); err != nil {
		t.Fatal(err)
	}
	got := load(t, s, "s")
	if got.Summary != "first summary" || got.SummaryThroughID != msgs[2].ID {
		t.Fatalf("summary %q through %q, want %q through %q", got.Summary, got.SummaryThroughID, "first summary", msgs[2].ID)
	}
	if got.Revision == before.Revision {
		t.Errorf("revision did not move: %d", got.Revision)
	}
	if len(got.Messages) != 6 {
		t.Fatalf("%d messages after commit, want all 6 kept", len(got.Messages))
	}
	for i, m := range got.Messages {
		if want := i <= 2; m.Archived != want {
			t.Errorf("message %d archived=%v, want %v", i+1, m.Archived, want)
		}
		if m.Text != msgs[i].Text {
			t.Errorf("message %d text changed", i+1)
		}
	}
	// A second compaction moves the mark forward.
	if err := s.CommitCompaction(ctx(t), "s", got.Revision, "second summary", msgs[4].ID); err != nil {
		t.Fatal(err)
	}
	got2 := load(t, s, "s")
	if got2.Summary != "second summary" || got2.SummaryThroughID != msgs[4].ID || got2.Revision == got.Revision {
		t.Errorf("second commit: %q through %q at revision %d", got2.Summary, got2.SummaryThroughID, got2.Revision)
	}
}

func staleConflicts(t *testing.T, newStore Factory) {
	s, _ := newStore(t)
	msgs := Seed(t, s, "s", 4)
	base := load(t, s, "s")
	if err := s.CommitCompaction(ctx(t), "s", base.Revision, "winner", msgs[1].ID); err != nil {
		t.Fatal(err)
	}
	after := load(t, s, "s")
	err := s.CommitCompaction(ctx(t), "s", base.Revision, "loser", msgs[2].ID)
	if !errors.Is(err, transcripts.ErrConflict) {
		t.Fatalf("stale commit: err %v, want ErrConflict", err)
	}
	if got := load(t, s, "s"); got.Summary != "winner" || got.Revision != after.Revision || got.SummaryThroughID != msgs[1].ID {
		t.Errorf("stale commit changed state: %q through %q at %d", got.Summary, got.SummaryThroughID, got.Revision)
	}
	// Appends do not move the revision: a compaction loaded before an
	// append still commits.
	mid := load(t, s, "s")
	Seed(t, s, "s", 1)
	if err := s.CommitCompaction(ctx(t), "s", mid.Revision, "after append", msgs[3].ID); err != nil {
		t.Errorf("commit after an append: %v", err)
	}
}

func badCommits(t *testing.T, newStore Factory) {
	s, _ := newStore(t)
	msgs := Seed(t, s, "s", 4)
	if err := s.CommitCompaction(ctx(t), "s", 0, "ok", msgs[1].ID); err != nil {
		t.Fatal(err)
	}
	base := load(t, s, "s")
	for name, c := range map[string]struct{ summary, through string }{
		"unknown id":     {"x", "no-such-message"},
		"empty summary":  {"", msgs[2].ID},
		"already behind": {"x", msgs[0].ID},
	} {
		err := s.CommitCompaction(ctx(t), "s", base.Revision, c.summary, c.through)
		if err == nil || errors.Is(err, transcripts.ErrConflict) {
			t.Errorf("%s: err %v, want a non-conflict error", name, err)
		}
		if name == "unknown id" && !errors.Is(err, transcripts.ErrUnknownMessage) {
			t.Errorf("%s: err %v, want ErrUnknownMessage", name, err)
		}
	}
	got := load(t, s, "s")
	if got.Revision != base.Revision || got.Summary != base.Summary || got.SummaryThroughID != base.SummaryThroughID {
		t.Errorf("bad commits changed state: %+v", got)
	}
}

// barrierModel answers only once n calls are waiting, so that every
// compactor has loaded its snapshot before any of them commits.
type barrierModel struct {
	n       int
	mu      sync.Mutex
	waiting int
	release chan struct{}
}

func newBarrierModel(n int) *barrierModel {
	return &barrierModel{n: n, release: make(chan struct{})}
}

func (b *barrierModel) Complete(ctx context.Context, system, user string, maxTokens int) (string, error) {
	b.mu.Lock()
	b.waiting++
	if b.waiting == b.n {
		close(b.release)
	}
	b.mu.Unlock()
	select {
	case <-b.release:
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(10 * time.Second):
		return "", errors.New("barrier: the other compactor never arrived")
	}
	return "compacted: the earlier messages were talk", nil
}

func racingCompactors(t *testing.T, newStore Factory) {
	s, reopen := newStore(t)
	Seed(t, s, "race", 12, 5)
	model := newBarrierModel(2)
	cfg := transcripts.DefaultCompactionConfig()
	// Each compactor gets its own store instance when the store can reopen.
	stores := []transcripts.Store{s, reopen(t)}
	results := make([]transcripts.CompactionResult, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		c, err := transcripts.NewCompactor(cfg, stores[i], model)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = c.CompactNow(ctx(t), "race")
		}()
	}
	wg.Wait()
	applied, declined := 0, 0
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("compactor %d: %v", i, errs[i])
		}
		switch results[i].Outcome {
		case transcripts.OutcomeApplied:
			applied++
		case transcripts.OutcomeDeclined:
			declined++
		default:
			t.Errorf("compactor %d: outcome %q (%s)", i, results[i].Outcome, results[i].Reason)
		}
	}
	if applied != 1 || declined != 1 {
		t.Fatalf("applied %d, declined %d; want exactly one of each", applied, declined)
	}
	got := load(t, s, "race")
	if got.Summary == "" || got.Revision == 0 {
		t.Fatalf("no summary after the race: %+v", got)
	}
	if want := results[0].ThroughID; got.SummaryThroughID != want {
		t.Errorf("through %q, want %q", got.SummaryThroughID, want)
	}
	archived := 0
	for _, m := range got.Messages {
		if m.Archived {
			archived++
		}
	}
	if archived != 12-cfg.KeepRecent {
		t.Errorf("%d archived, want %d", archived, 12-cfg.KeepRecent)
	}
}

func replayAfterReopen(t *testing.T, newStore Factory) {
	s, reopen := newStore(t)
	msgs := Seed(t, s, "replay", 10, 2, 4)
	model := transcripts.ChatModelFunc(func(ctx context.Context, system, user string, maxTokens int) (string, error) {
		return "short summary", nil
	})
	c, err := transcripts.NewCompactor(transcripts.DefaultCompactionConfig(), s, model)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.CompactNow(ctx(t), "replay")
	if err != nil || res.Outcome != transcripts.OutcomeApplied {
		t.Fatalf("compaction: %+v, %v", res, err)
	}
	snap := load(t, reopen(t), "replay")
	history := transcripts.FullHistory(snap)
	if len(history) != len(msgs) {
		t.Fatalf("replayed %d messages, want %d", len(history), len(msgs))
	}
	for i, m := range history {
		if m.ID != msgs[i].ID || m.Text != msgs[i].Text || m.Kind != msgs[i].Kind || m.Role != msgs[i].Role {
			t.Errorf("replayed message %d: %+v, want %+v", i, m, msgs[i])
		}
		if want := i < 4; m.Archived != want {
			t.Errorf("replayed message %d archived=%v, want %v", i+1, m.Archived, want)
		}
	}
	view := transcripts.CompactedView(snap)
	var ids []string
	for _, m := range view {
		ids = append(ids, m.ID)
	}
	// Summary, the latest state message (4, archived), then 5..10.
	want := []string{"summary-through-" + msgs[3].ID, msgs[3].ID}
	for _, m := range msgs[4:] {
		want = append(want, m.ID)
	}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("compacted view %v, want %v", ids, want)
	}
	if view[0].Kind != transcripts.KindSummary || !strings.Contains(view[0].Text, "short summary") {
		t.Errorf("view starts with %+v, want the summary", view[0])
	}
}

// pagesSurvive: a state message's page name is stored and loaded, so views
// can tell the page under edit from the others.
func pagesSurvive(t *testing.T, newStore Factory) {
	s, reopen := newStore(t)
	for _, m := range []transcripts.Message{
		{ID: "p1", Role: "assistant", Kind: transcripts.KindState, Page: "home", Text: "<p>home</p>"},
		{ID: "p2", Role: "assistant", Kind: transcripts.KindState, Page: "about", Text: "<p>about</p>"},
		{ID: "p3", Role: "user", Text: "edit about"},
	} {
		if _, err := s.Append(ctx(t), "pages", m); err != nil {
			t.Fatal(err)
		}
	}
	snap := load(t, reopen(t), "pages")
	var pages []string
	for _, m := range snap.Messages {
		pages = append(pages, m.Page)
	}
	if strings.Join(pages, ",") != "home,about," {
		t.Errorf("pages after reopen %q, want home,about and none", pages)
	}
}
