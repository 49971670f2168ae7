package logs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// refMineEvents is mineTemplates' record loop as first written: every
// event's end by eventEnd, its message by eventMessage, its
// continuation by continuationHash, its tokens without a memo and its
// group by templates.add.
func refMineEvents(x textkit.LineIndex, lay Layout, minVariants int, tail []bool) (*templates, []logEvent) {
	t := newTemplates(minVariants, lay)
	nl := x.Len()
	opens := make([]bool, nl)
	for i := range opens {
		opens[i] = lay.OpensRecord(x.Line(i)) && (tail == nil || !tail[i])
	}
	var events []logEvent
	var toks, ctoks []Tok
	for i := 0; i < nl; {
		if !opens[i] {
			i++
			continue
		}
		end := eventEnd(x, opens, tail, i)
		head, weight := SplitCount(x.Line(i))
		msg, from := eventMessage(x, lay, head, i, end)
		toks = lay.TemplateTokens(msg, toks[:0])
		var cont uint64
		cont, ctoks = continuationHash(x, from, end, ctoks, nil)
		g := t.add(toks, cont, len(events), weight, msg)
		events = append(events, logEvent{start: int32(i), end: int32(end), group: int32(g)})
		i = end
	}
	return t, events
}

// mineLoopDoc generates a record log whose records repeat their shapes
// with other digits: records of one line, records with indented detail
// or field lines, stack traces, blank lines between records, count
// suffixes log_dedup wrote, and correlation pairs.
func mineLoopDoc(r *rand.Rand) string {
	var pieces []string
	for range 10 {
		pieces = append(pieces, memoLinePieces[r.IntN(len(memoLinePieces))](r))
	}
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "2024-03-01 10:%02d:%02d,%03d INFO [w-%d] %s", i/60%60, i%60, r.IntN(1000), r.IntN(3),
			digitVariant(r, pieces[r.IntN(len(pieces))]))
		switch r.IntN(12) {
		case 0:
			fmt.Fprintf(&b, " [×%d]", 2+r.IntN(30))
		case 1:
			fmt.Fprintf(&b, " trace_id=%x span_id=%x", r.Uint64(), r.Uint32())
		}
		b.WriteByte('\n')
		switch r.IntN(10) {
		case 0:
			fmt.Fprintf(&b, "      session %d opened for user u%d\n", r.IntN(99), r.IntN(9))
		case 1:
			fmt.Fprintf(&b, "    user=u%d\n    node=n%d\n", r.IntN(9), r.IntN(3))
		case 2:
			for range 1 + r.IntN(4) {
				fmt.Fprintf(&b, "\tat org.example.C%d.run(C%d.java:%d)\n", r.IntN(4), r.IntN(4), r.IntN(900))
			}
		case 3:
			b.WriteString("\n")
		case 4:
			fmt.Fprintf(&b, "Caused by: java.io.IOException: disk %d full\n", r.IntN(4))
		}
	}
	return b.String()
}

// TestMineLoopMatchesReference: mineTemplates gives the events and
// groups, and writes the text, that the loop as first written gives,
// on generated logs of one-line and multi-line records, with failing
// tail lines marked and without.
func TestMineLoopMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 53))
	for n := range 60 {
		doc := mineLoopDoc(r)
		x := textkit.NewLineIndex(doc)
		lay := Analyze(doc)
		var tail []bool
		if n%3 == 0 {
			tail = make([]bool, x.Len())
			for i := range tail {
				tail[i] = r.IntN(20) == 0
			}
		}
		got, gotEvents, _, err := mineTemplates(context.Background(), x, lay, 3, tail, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, wantEvents := refMineEvents(x, lay, 3, tail)
		want.mergeHeaderColumns()
		want.mergeVariants()
		if !slices.Equal(gotEvents, wantEvents) {
			t.Fatalf("document %d: %d events, want %d (or they differ)", n, len(gotEvents), len(wantEvents))
		}
		if len(got.groups) != len(want.groups) {
			t.Fatalf("document %d: %d groups, want %d", n, len(got.groups), len(want.groups))
		}
		for i := range got.groups {
			if g, w := &got.groups[i], &want.groups[i]; g.count != w.count || g.events != w.events || g.cont != w.cont || g.lineKey != w.lineKey {
				t.Fatalf("document %d: group %d differs", n, i)
			}
		}
		if g, w := fmt.Sprint(got.writeEvents(x, gotEvents)), fmt.Sprint(want.writeEvents(x, wantEvents)); g != w {
			t.Fatalf("document %d: written text differs", n)
		}
	}
}
