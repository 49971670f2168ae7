package jetstream

import (
	"context"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/stages"
)

// TestDocumentIDCoversEverySetting: changing any one setting changes the
// derived id; the same text under the same settings keeps it.
func TestDocumentIDCoversEverySetting(t *testing.T) {
	base := Settings{Kind: stages.KindLog, Mode: stages.ModeHybrid, AllowLLM: true, Task: "", Config: "v1|nodes", Nonce: ""}
	text := "line one\nline two\n"
	id := DocumentID(text, base)
	if again := base; DocumentID(text, again) != id || len(id) != 32 {
		t.Fatalf("the id %q is not stable", id)
	}
	seen := map[string]string{id: "base"}
	for name, change := range map[string]func(*Settings){
		"kind":   func(s *Settings) { s.Kind = stages.KindJSON },
		"mode":   func(s *Settings) { s.Mode = stages.ModeAlgorithmic },
		"llm":    func(s *Settings) { s.AllowLLM = false },
		"task":   func(s *Settings) { s.Task = "debate" },
		"config": func(s *Settings) { s.Config = "v2|nodes" },
		"nonce":  func(s *Settings) { s.Nonce = "n" },
		// Fields must not run into each other.
		"shifted": func(s *Settings) { s.Task, s.Config = "v1|nodes", "" },
	} {
		s := base
		change(&s)
		id := DocumentID(text, s)
		if prev, dup := seen[id]; dup {
			t.Errorf("changing %s gives the id of %s", name, prev)
		}
		seen[id] = name
	}
	if DocumentID(text+" ", base) == DocumentID(text, base) {
		t.Error("another text has the same id")
	}
}

// TestCompactAnotherWayIsAnotherDocument: a client compacting the same
// text as another kind, in another mode, or without the LLM, gets a result
// made that way, not the earlier one; the same settings again return the
// stored result.
func TestCompactAnotherWayIsAnotherDocument(t *testing.T) {
	cfg := DefaultConfig()
	f := startFleet(t, cfg)
	f.worker(cfg.Segments)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	text := testDocs(1)[0]
	first := Document{Text: text, Kind: stages.KindLog, Mode: stages.ModeHybrid, AllowLLM: true}
	log, err := c.Compact(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	prose, err := c.Compact(ctx, Document{Text: text, Kind: stages.KindProse, Mode: stages.ModeHybrid, AllowLLM: true})
	if err != nil {
		t.Fatal(err)
	}
	if prose.DocID == log.DocID || log.Report.Kind != stages.KindLog || prose.Report.Kind != stages.KindProse {
		t.Errorf("ids %s and %s, kinds %q and %q: the second compaction returned the first", log.DocID, prose.DocID, log.Report.Kind, prose.Report.Kind)
	}
	ids := map[string]bool{log.DocID: true, prose.DocID: true}
	for _, doc := range []Document{
		{Text: text, Kind: stages.KindLog, Mode: stages.ModeAlgorithmic, AllowLLM: true},
		{Text: text, Kind: stages.KindLog, Mode: stages.ModeHybrid},
	} {
		res, err := c.Compact(ctx, doc)
		if err != nil {
			t.Fatal(err)
		}
		if ids[res.DocID] {
			t.Errorf("mode %s, LLM allowed %v: the id of an earlier compaction", doc.Mode, doc.AllowLLM)
		}
		ids[res.DocID] = true
	}
	again, err := c.Compact(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if again.DocID != log.DocID || again.Text != log.Text {
		t.Errorf("the same settings again: id %s, want %s", again.DocID, log.DocID)
	}
}
