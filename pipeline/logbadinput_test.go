package pipeline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// TestBadLogInputDegradesGracefully: the log analysis meets lines of any
// length, a format that changes halfway, binary noise and JSON lines that
// do not parse; no node fails, the text shrinks and no alert is lost.
func TestBadLogInputDegradesGracefully(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	plain := func(b *strings.Builder, i int) {
		fmt.Fprintf(b, "2024-03-01 10:%02d:%02d.%03d INFO worker heartbeat seq %d lag %d\n", i/60%60, i%60, i%1000, i, r.IntN(900))
	}
	jsonl := func(b *strings.Builder, i int) {
		fmt.Fprintf(b, `{"ts":"2024-03-01T10:%02d:%02dZ","level":"info","msg":"cache refresh","shard":%d}`+"\n", i/60%60, i%60, r.IntN(4096))
	}
	const alert = "disk /dev/sda1 is 98% full"
	cases := map[string]func(b *strings.Builder){
		"a line of 1 MB": func(b *strings.Builder) {
			for i := range 2000 {
				plain(b, i)
				if i == 1000 {
					b.WriteString("2024-03-01 10:16:40.000 INFO payload " + strings.Repeat("x9", 1<<19) + "\n")
				}
			}
		},
		"format changes halfway": func(b *strings.Builder) {
			for i := range 2000 {
				if i < 1000 {
					jsonl(b, i)
				} else {
					plain(b, i)
				}
			}
		},
		"binary noise": func(b *strings.Builder) {
			for i := range 2000 {
				plain(b, i)
				if i%400 == 7 {
					noise := make([]byte, 300)
					for k := range noise {
						noise[k] = byte(r.IntN(256))
					}
					b.WriteString(strings.ToValidUTF8(string(noise), "?") + "\n")
				}
			}
		},
		"JSON lines that do not parse": func(b *strings.Builder) {
			for i := range 2000 {
				jsonl(b, i)
				if i%500 == 3 {
					b.WriteString(`{"ts":"2024-03-01T10:00:00Z","level":"info","msg":"cut off` + "\n")
				}
			}
		},
	}
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	for name, gen := range cases {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			gen(&b)
			text := b.String()
			// The alert, mid-text, in the shape of the lines around it.
			lines := strings.SplitAfter(text, "\n")
			mid := len(lines) / 2
			al := "2024-03-01 10:30:00.000 ERROR " + alert + "\n"
			if strings.HasPrefix(lines[mid], "{") {
				al = `{"ts":"2024-03-01T10:30:00Z","level":"error","msg":"` + alert + `"}` + "\n"
			}
			text = strings.Join(lines[:mid], "") + al + strings.Join(lines[mid:], "")
			res, err := p.CompactAlgorithmic(context.Background(), text)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range res.Report.Nodes {
				if strings.HasPrefix(n.Reason, "error") || strings.Contains(n.Reason, "undone") {
					t.Errorf("node %s: %s", n.Key, n.Reason)
				}
			}
			if !strings.Contains(res.Text, alert) {
				t.Errorf("alert lost")
			}
			if len(res.Text) >= len(text) {
				t.Errorf("not compacted: %d of %d bytes", len(res.Text), len(text))
			}
		})
	}
}
