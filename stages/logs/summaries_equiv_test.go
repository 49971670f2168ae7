package logs

import (
	"maps"
	"math/rand/v2"
	"reflect"
	"testing"
)

// minedEvents groups text's events and merges them as mineTemplates does.
func minedEvents(text string, lay Layout) (*templates, []logEvent) {
	t, events := groupedEvents(text, lay)
	t.mergeHeaderColumns()
	t.mergeVariants()
	return t, events
}

// checkSummaries compares summaries and eventSpans with their map-based
// references on text, mined twice alike (summaries settles what it reads).
func checkSummaries(t *testing.T, text string) (merged int) {
	t.Helper()
	lay := Analyze(text)
	a, events := minedEvents(text, lay)
	b, _ := minedEvents(text, lay)
	got, want := a.summaries(), b.refSummaries()
	for i, s := range got {
		w, ok := want[i]
		if (s != nil) != ok {
			t.Fatalf("group %d (%q): summary %v, reference has one: %v", i, a.groups[i].head, s != nil, ok)
		}
		if s != nil && !reflect.DeepEqual(s, w) {
			t.Fatalf("group %d (%q): summary %s, want %s", i, a.groups[i].head, s.suffix(1), w.suffix(1))
		}
		if a.find(i) != i {
			merged++
		}
	}
	if len(want) > len(got) {
		t.Fatalf("reference has summaries of %d groups, of %d", len(want), len(got))
	}
	gs, ws := map[int]int{}, map[int]int{}
	a.eventSpans(events, gs)
	b.refEventSpans(events, ws)
	if !maps.Equal(gs, ws) {
		t.Fatalf("spans %v, want %v", gs, ws)
	}
	return merged
}

// TestSummariesMatchReference checks the summaries and spans of
// generated logs of every class (see headerLogClasses), merged groups
// among them.
func TestSummariesMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 17))
	merged := 0
	for range 200 {
		merged += checkSummaries(t, genHeaderLog(r))
	}
	if merged < 200 {
		t.Fatalf("only %d merged groups: the inputs miss the case", merged)
	}
}

// FuzzSummariesReference checks a text's summaries and spans against
// the reference.
func FuzzSummariesReference(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 7))
	for range 6 {
		f.Add(headerLog(r, 12))
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 1<<13 {
			return
		}
		checkSummaries(t, text)
	})
}
