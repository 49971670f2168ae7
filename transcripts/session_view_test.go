package transcripts_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/transcripts"
)

// page generates an HTML page of about n cards: the kind of state a
// session carries (a page under edit, or others beside it).
func page(title string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html><html><head><title>%s</title><style>:root{--brand:#0af;--gap:8px}</style></head><body><header><nav class=\"nav\">menu</nav></header><main><h1>%s</h1>", title, title)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<section class=\"card shadow\"><h2>Item %d</h2><p class=\"body\">Lorem ipsum %d dolor sit amet, consectetur adipiscing elit.</p><a class=\"btn\" href=\"/item/%d\">more</a></section>", i, i, i)
	}
	b.WriteString("</main><footer>f</footer></body></html>")
	return b.String()
}

// The page under edit is sent verbatim; every other page as its
// structural digest; superseded versions are left out.
func TestViewDigestsPagesNotUnderEdit(t *testing.T) {
	ctx := context.Background()
	store := transcripts.NewMemoryStore()
	add := func(m transcripts.Message) transcripts.Message {
		t.Helper()
		got, err := store.Append(ctx, "s", m)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	add(transcripts.Message{Role: "user", Text: "make a home page and an about page"})
	oldHome := add(transcripts.Message{Role: "assistant", Kind: transcripts.KindState, Page: "home", Text: page("Home v1", 40)})
	home := add(transcripts.Message{Role: "assistant", Kind: transcripts.KindState, Page: "home", Text: page("Home v2", 40)})
	about := add(transcripts.Message{Role: "assistant", Kind: transcripts.KindState, Page: "about", Text: page("About", 40)})
	add(transcripts.Message{Role: "user", Text: "now make the about page blue"})
	snap, _ := store.Load(ctx, "s")

	view := transcripts.CompactedView(snap)
	byID := map[string]transcripts.Message{}
	for _, m := range view {
		byID[m.ID] = m
	}
	if _, ok := byID[oldHome.ID]; ok {
		t.Error("a superseded version of home is in the view")
	}
	if m := byID[about.ID]; m.Text != about.Text || m.Digest {
		t.Errorf("the page under edit (about) is not verbatim: digest=%v", m.Digest)
	}
	h, ok := byID[home.ID]
	if !ok {
		t.Fatal("the page not under edit (home) vanished from the view")
	}
	if !h.Digest || len(h.Text) >= len(home.Text)/4 || !strings.Contains(h.Text, "Home v2") {
		t.Errorf("home is not a structural digest (%d of %d chars):\n%s", len(h.Text), len(home.Text), h.Text)
	}
	// Naming the page under edit switches which one is whole.
	view = transcripts.CompactedViewFor(snap, "home", nil)
	for _, m := range view {
		if m.ID == home.ID && m.Digest || m.ID == about.ID && !m.Digest {
			t.Errorf("edit=home: %s digest=%v", m.Page, m.Digest)
		}
	}
}

// A large page does not fire compaction: the gate counts history only.
func TestGateCountsHistoryNotState(t *testing.T) {
	ctx := context.Background()
	store := transcripts.NewMemoryStore()
	for i := 0; i < 10; i++ {
		if _, err := store.Append(ctx, "s", transcripts.Message{Role: "user", Text: fmt.Sprintf("tweak %d of the layout", i)}); err != nil {
			t.Fatal(err)
		}
	}
	big := page("Shop", 2000) // ~ 300k chars, far over the window below
	if _, err := store.Append(ctx, "s", transcripts.Message{Role: "assistant", Kind: transcripts.KindState, Text: big}); err != nil {
		t.Fatal(err)
	}
	c := transcripts.DefaultCompactionConfig()
	c.WindowTokens = 1000
	model := summaryModel("s")
	cp, _ := transcripts.NewCompactor(c, store, model)
	for turn := 0; turn < 3; turn++ {
		res, err := cp.Compact(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if res.Outcome != transcripts.OutcomeNotNeeded || res.StateTokens < 10*res.ThresholdTokens {
			t.Fatalf("turn %d: %+v", turn, res)
		}
	}
	if len(model.users) != 0 {
		t.Errorf("the model was called %d times for a session whose history is small", len(model.users))
	}
}
