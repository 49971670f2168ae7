package faults

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/internal/poll"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
)

// TestSourceWorkerKilled is issue 22's crash case with real processes: a
// worker binary compacts raw events of a user's LOGS stream (3 services,
// JSON and plain lines, five planted errors) and is SIGKILLed twice while
// events arrive. Every event's sequence is still in exactly one result's
// Jc-First-Seq…Jc-Last-Seq range for its key, no result comes out twice,
// and every error survives in its service's results.
func TestSourceWorkerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a source's ack wait (a minute) after the kills")
	}
	dir := t.TempDir()
	port := freePort(t)
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	srv := newProc(t, dir, "nats-server", binary(t, "nats-server"), []string{"-js", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-sd", filepath.Join(dir, "js")}, nil)
	srv.Start()
	var nc *nats.Conn
	if !poll.Until(10*time.Second, func() bool {
		var err error
		nc, err = nats.Connect(url)
		return err == nil
	}) {
		t.Fatal("nats-server did not come up")
	}
	defer nc.Close()
	js, _ := njs.New(nc)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, njs.StreamConfig{Name: "LOGS", Subjects: []string{"logs.>"}}); err != nil {
		t.Fatal(err)
	}
	out, err := js.CreateStream(ctx, njs.StreamConfig{Name: "OUT", Subjects: []string{"jc.compacted.>"}, Duplicates: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "sources.yaml")
	if err := os.WriteFile(cfg, []byte("sources:\n  - name: app\n    stream: LOGS\n    subjects: [\"logs.>\"]\n    key: subject:1\n    window: {max_age: 2s, max_bytes: 16384}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	worker := newProc(t, dir, "worker", binary(t, "worker"), []string{"--nats", url, "--config", cfg, "--sources", "all", "--http-addr", ""}, nil)
	worker.Start()

	// Five planted errors, before, between and after the kills.
	planted := map[int]string{
		700:  "ERROR db: replica set lost quorum; writes refused",
		1400: "ERROR api: TLS handshake with upstream billing failed: certificate expired",
		2200: "ERROR web: panic: runtime error: index out of range [3] with length 3",
		3300: "ERROR db: disk quota exceeded on volume vol-7",
		4400: "ERROR api: OutOfMemoryError while rendering report 42",
	}
	svcs := []string{"api", "db", "web"}
	events := map[uint64]string{}
	kills := map[int]bool{1500: true, 3000: true}
	for i := range 4500 {
		if kills[i] {
			worker.Kill()
			worker.Start()
		}
		svc := svcs[i%3]
		line := fmt.Sprintf("2025-03-01T10:%02d:%02dZ INFO %s heartbeat seq=%d load=%d", i/60%60, i%60, svc, i, i%97)
		if svc == "api" { // JSON lines and plain lines mixed
			line = fmt.Sprintf(`{"time":"2025-03-01T10:%02d:%02dZ","level":"info","msg":"request served","path":"/v1/items/%d","ms":%d}`, i/60%60, i%60, i%900, i%80)
		}
		if msg, ok := planted[i]; ok {
			svc, _, _ = strings.Cut(strings.TrimPrefix(msg, "ERROR "), ":")
			line = fmt.Sprintf("2025-03-01T10:%02d:%02dZ %s", i/60%60, i%60, msg)
		}
		ack, err := js.Publish(ctx, "logs."+svc, []byte(line))
		if err != nil {
			t.Fatal(err)
		}
		events[ack.Sequence] = svc
		if i%100 == 0 {
			time.Sleep(20 * time.Millisecond) // events arrive over a few seconds
		}
	}
	var missing, twice int
	kept := map[string]bool{}
	covered := poll.Until(3*time.Minute, func() bool {
		info, err := out.Info(ctx)
		if err != nil || info.State.Msgs == 0 {
			return false
		}
		count := map[uint64]int{}
		ids := map[string]bool{}
		twice = 0
		clear(kept)
		for s := info.State.FirstSeq; s <= info.State.LastSeq; s++ {
			m, err := out.GetMsg(ctx, s)
			if err != nil {
				continue
			}
			id := m.Header.Get("Jc-Doc-Id")
			if ids[id] {
				twice++
			}
			ids[id] = true
			first, _ := strconv.ParseUint(m.Header.Get("Jc-First-Seq"), 10, 64)
			last, _ := strconv.ParseUint(m.Header.Get("Jc-Last-Seq"), 10, 64)
			for seq, svc := range events {
				if svc == m.Header.Get("Jc-Key") && first <= seq && seq <= last {
					count[seq]++
				}
			}
			for _, msg := range planted {
				if strings.HasPrefix(msg, "ERROR "+m.Header.Get("Jc-Key")+":") && strings.Contains(string(m.Data), msg) {
					kept[msg] = true
				}
			}
		}
		missing = 0
		for seq := range events {
			switch count[seq] {
			case 0:
				missing++
			case 1:
			default:
				t.Fatalf("event %d is in %d windows", seq, count[seq])
			}
		}
		return missing == 0
	})
	if !covered {
		t.Fatalf("%d of %d events in no window after the kills", missing, len(events))
	}
	if twice > 0 {
		t.Errorf("%d windows came out twice", twice)
	}
	for _, msg := range planted {
		if !kept[msg] {
			t.Errorf("planted error lost: %q", msg)
		}
	}
}
