package jetstream

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/nats-io/nats.go"
)

// logLayoutDocs are logs whose analysis an earlier node's rewrite would
// change: JSON lines, a log without stamps whose repeats log_dedup
// removes, and a sequence counter crossing a width boundary.
func logLayoutDocs() []string {
	var js, plain, seq strings.Builder
	for i := range 300 {
		fmt.Fprintf(&js, `{"ts":"2024-03-01T10:%02d:%02dZ","level":"info","msg":"served","user":"u%d","ms":%d}`+"\n", i/60%60, i%60, i%37, i%500)
		fmt.Fprintf(&plain, "[api] worker=%d %s\n", i%4, []string{"cache refresh took 12 ms", "heartbeat ok", "job done"}[i%3])
		fmt.Fprintf(&seq, "%d node-%d status running\n", 99850+i, i%4)
	}
	plain.WriteString("[api] worker=9 disk almost full\n")
	seq.WriteString("100150 node-9 maintenance window opened\n")
	return []string{js.String(), plain.String(), seq.String()}
}

// TestFleetCarriesTheLogAnalysis: split across segments, every node works
// with the analysis of the original (the Jc-Log header) and the output is
// the in-process one.
func TestFleetCarriesTheLogAnalysis(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Segments = SplitSegments()
	f := startFleet(t, cfg)
	f.worker(cfg.Segments)
	c := f.client()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, d := range logLayoutDocs() {
		res, err := c.Compact(ctx, Document{Text: d})
		if err != nil {
			t.Fatalf("doc %d: %v", i, err)
		}
		if want := f.local(d); res.Text != want {
			t.Fatalf("doc %d differs from local:\n--- fleet\n%s\n--- local\n%s", i, res.Text, want)
		}
		if len(res.Text)*4 > len(d) {
			t.Errorf("doc %d barely compacted: %d of %d bytes", i, len(res.Text), len(d))
		}
	}
}

func TestEnvelopeCarriesTheLogAnalysis(t *testing.T) {
	lay := logs.Analyze(logLayoutDocs()[0])
	e := Envelope{DocID: "d1", Kind: stages.KindLog, OrigChars: 1, OrigBytes: 1, Log: lay}
	h := nats.Header{}
	if err := e.Write(h); err != nil {
		t.Fatal(err)
	}
	if h.Get(HeaderLog) == "" {
		t.Fatalf("no %s header", HeaderLog)
	}
	got, err := ReadEnvelope(h)
	if err != nil {
		t.Fatal(err)
	}
	if got.Log.String() != lay.String() || !got.Log.Records {
		t.Fatalf("layout %q came back as %q", lay.String(), got.Log.String())
	}
	// A header that does not parse is a hint ignored, not a bad envelope.
	h.Set(HeaderLog, "%zz")
	if got, err := ReadEnvelope(h); err != nil || got.Log.Analyzed {
		t.Fatalf("bad layout header: %v, %+v", err, got.Log)
	}
}
