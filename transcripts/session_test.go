package transcripts_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/transcripts"
	"github.com/jetcompact/jetcompact/transcripts/sessiontest"
)

func TestMemoryStoreConformance(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) (transcripts.Store, func(*testing.T) transcripts.Store) {
		s := transcripts.NewMemoryStore()
		return s, func(*testing.T) transcripts.Store { return s }
	})
}

func summaryModel(text string) *fakeChat {
	return &fakeChat{answer: func(int, string, string) (string, error) { return text, nil }}
}

// consistent checks the invariant: archived history always has a summary,
// and the archived messages are exactly those up to the through ID.
func consistent(t *testing.T, s transcripts.Snapshot) {
	t.Helper()
	through := -1
	for i, m := range s.Messages {
		if m.ID == s.SummaryThroughID {
			through = i
		}
	}
	if (s.Summary == "") != (s.SummaryThroughID == "") {
		t.Fatalf("summary %q with through id %q", s.Summary, s.SummaryThroughID)
	}
	for i, m := range s.Messages {
		if m.Archived != (i <= through) {
			t.Fatalf("message %d archived=%v with through index %d", i, m.Archived, through)
		}
		if m.Archived && s.Summary == "" {
			t.Fatalf("archived history without a summary")
		}
	}
}

func TestAutoCompactionThreshold(t *testing.T) {
	ctx := context.Background()
	store := transcripts.NewMemoryStore()
	sessiontest.Seed(t, store, "s", 10)
	snap, _ := store.Load(ctx, "s")
	usage := stages.EstimateTokens(transcripts.RenderMessages(transcripts.CompactedView(snap)))

	c := transcripts.DefaultCompactionConfig()
	if c.AutoRatio != 0.8 || c.KeepRecent != 6 {
		t.Fatalf("defaults %+v", c)
	}
	c.WindowTokens = 1000
	if c.ThresholdTokens() != 800 {
		t.Fatalf("threshold %d, want 800", c.ThresholdTokens())
	}
	// Usage one token under the threshold: nothing happens.
	c.AutoRatio, c.WindowTokens = 1, usage+1
	cp, _ := transcripts.NewCompactor(c, store, summaryModel("s"))
	res, err := cp.Compact(ctx, "s")
	if err != nil || res.Outcome != transcripts.OutcomeNotNeeded || res.UsageTokens != usage {
		t.Fatalf("below threshold: %+v %v", res, err)
	}
	// Exactly at the threshold: compacted.
	c.WindowTokens = usage
	cp, _ = transcripts.NewCompactor(c, store, summaryModel("the user and assistant talked"))
	res, err = cp.Compact(ctx, "s")
	if err != nil || res.Outcome != transcripts.OutcomeApplied {
		t.Fatalf("at threshold: %+v %v", res, err)
	}
	if res.ArchivedMessages != 4 || res.SummarisedMessages != 4 {
		t.Errorf("archived %d, summarised %d; want 4 and 4 (10 - 6 recent)", res.ArchivedMessages, res.SummarisedMessages)
	}
	after, _ := store.Load(ctx, "s")
	consistent(t, after)
	if after.SummaryThroughID != after.Messages[3].ID || len(after.Messages) != 10 {
		t.Errorf("through %q, %d messages kept", after.SummaryThroughID, len(after.Messages))
	}
}

func TestStateIsSelectedNeverSummarised(t *testing.T) {
	ctx := context.Background()
	store := transcripts.NewMemoryStore()
	msgs := sessiontest.Seed(t, store, "s", 12, 2, 5)
	model := summaryModel("they discussed the page")
	cp, _ := transcripts.NewCompactor(transcripts.DefaultCompactionConfig(), store, model)
	res, err := cp.CompactNow(ctx, "s")
	if err != nil || res.Outcome != transcripts.OutcomeApplied {
		t.Fatalf("%+v %v", res, err)
	}
	if strings.Contains(model.users[0], "<page") {
		t.Errorf("state was sent to the summariser:\n%s", model.users[0])
	}
	if res.SummarisedMessages != 4 || res.ArchivedMessages != 6 {
		t.Errorf("summarised %d archived %d, want 4 prose of 6 older", res.SummarisedMessages, res.ArchivedMessages)
	}
	snap, _ := store.Load(ctx, "s")
	consistent(t, snap)
	view := transcripts.CompactedView(snap)
	if view[0].Kind != transcripts.KindSummary || view[1].ID != msgs[4].ID {
		t.Errorf("view should be summary, latest state (message 5), recent: %+v", view[:2])
	}
	for _, m := range view {
		if m.ID == msgs[1].ID {
			t.Errorf("superseded state message 2 is still in the view")
		}
	}
	if len(view) != 2+6 {
		t.Errorf("view has %d messages, want summary + state + 6 recent", len(view))
	}

	// A later compaction folds the old summary into the new one.
	sessiontest.Seed(t, store, "s", 4)
	if _, err := cp.CompactNow(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(model.users[1], "<document label=\"summary so far\">\nthey discussed the page") {
		t.Errorf("second summary did not build on the first:\n%s", model.users[1])
	}
}

func TestNoSummaryProducedWritesNothing(t *testing.T) {
	ctx := context.Background()
	for name, model := range map[string]transcripts.ChatModel{
		"no model": nil,
		"empty":    summaryModel("   "),
		"longer":   summaryModel(strings.Repeat("much longer than the messages ", 200)),
		"error":    &fakeChat{answer: func(int, string, string) (string, error) { return "", errors.New("HTTP 429") }},
	} {
		store := transcripts.NewMemoryStore()
		sessiontest.Seed(t, store, "s", 10)
		before, _ := store.Load(ctx, "s")
		cp, _ := transcripts.NewCompactor(transcripts.DefaultCompactionConfig(), store, model)
		res, err := cp.CompactNow(ctx, "s")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Outcome != transcripts.OutcomeNoSummary || res.Reason == "" {
			t.Errorf("%s: outcome %q (%s), want %q", name, res.Outcome, res.Reason, transcripts.OutcomeNoSummary)
		}
		after, _ := store.Load(ctx, "s")
		if !reflect.DeepEqual(before, after) {
			t.Errorf("%s: the store changed", name)
		}
	}
}

var errCrash = errors.New("simulated crash")

func TestCrashBetweenSummaryAndCommit(t *testing.T) {
	ctx := context.Background()
	store := transcripts.NewMemoryStore()
	sessiontest.Seed(t, store, "s", 10)
	before, _ := store.Load(ctx, "s")
	cp, _ := transcripts.NewCompactor(transcripts.DefaultCompactionConfig(), store, summaryModel("brief"))

	// Crash before the commit: the old state, untouched.
	store.SetFaults(func(string) error { return errCrash }, nil)
	if _, err := cp.CompactNow(ctx, "s"); !errors.Is(err, errCrash) {
		t.Fatalf("err %v, want the crash", err)
	}
	mid, _ := store.Load(ctx, "s")
	if !reflect.DeepEqual(before, mid) {
		t.Fatalf("a crash before the commit changed the store")
	}

	// Crash after the commit: the new state, whole.
	store.SetFaults(nil, func(string) error { return errCrash })
	if _, err := cp.CompactNow(ctx, "s"); !errors.Is(err, errCrash) {
		t.Fatalf("err %v, want the crash", err)
	}
	after, _ := store.Load(ctx, "s")
	consistent(t, after)
	if after.Summary != "brief" || after.Revision != before.Revision+1 {
		t.Fatalf("after a crash past the commit: %+v", after)
	}

	// Recovery: the next compaction (a retry) sees the committed state.
	store.SetFaults(nil, nil)
	res, err := cp.CompactNow(ctx, "s")
	if err != nil || res.Outcome != transcripts.OutcomeNotNeeded {
		t.Errorf("after recovery: %+v %v", res, err)
	}
}

func TestFullHistoryKeepsArchivedMessages(t *testing.T) {
	ctx := context.Background()
	store := transcripts.NewMemoryStore()
	msgs := sessiontest.Seed(t, store, "s", 9)
	cp, _ := transcripts.NewCompactor(transcripts.DefaultCompactionConfig(), store, summaryModel("brief"))
	if _, err := cp.CompactNow(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	snap, _ := store.Load(ctx, "s")
	h := transcripts.FullHistory(snap)
	for i := range msgs {
		if h[i].Text != msgs[i].Text || h[i].Archived != (i < 3) {
			t.Errorf("history %d: %+v", i, h[i])
		}
	}
}

func TestCompactionConfigValidate(t *testing.T) {
	c := transcripts.DefaultCompactionConfig()
	c.WindowTokens, c.AutoRatio, c.KeepRecent = 0, 1.5, -1
	err := c.Validate()
	if !errors.Is(err, transcripts.ErrInvalid) || strings.Count(err.Error(), "session.") != 3 {
		t.Errorf("Validate: %v", err)
	}
	if _, err := transcripts.NewCompactor(transcripts.DefaultCompactionConfig(), nil, nil); err == nil {
		t.Errorf("a compactor without a store was built")
	}
}
