package jetstream

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestLargeDocument sends a 100 MB log (10 MB under -race) through the
// fleet: it moves by reference through the object store, comes out equal to
// the in-process result, and the heap stays within a small multiple of it.
func TestLargeDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: a document of 10 MB or more; runs without -short")
	}
	size := 100 << 20
	if raceEnabled {
		size = 10 << 20
	}
	var b strings.Builder
	b.Grow(size + 200)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "2024-06-01 10:%02d:%02d.%03d INFO [pool-%d] task %d done in %dms\n", i/60%60, i%60, i%1000, i%8, i, i%250)
		if i%100000 == 0 {
			fmt.Fprintf(&b, "2024-06-01 10:00:00.000 ERROR [pool-1] task %d failed: /data/part-%d.bin: no space left on device\n", i, i)
		}
	}
	text := b.String()
	cfg := DefaultConfig()
	f := startFleet(t, cfg)
	f.worker(cfg.Segments)
	c := f.client()

	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := c.Compact(ctx, Document{Text: text})
	close(stop)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	want := f.local(text)
	if res.Text != want {
		t.Fatalf("fleet result (%d bytes) differs from local (%d bytes)", len(res.Text), len(want))
	}
	if !strings.Contains(res.Text, "no space left on device") {
		t.Error("the error lines were lost")
	}
	orig, err := c.Original(ctx, res.DocID)
	if err != nil || len(orig) != len(text) {
		t.Fatalf("original not retrievable: %v", err)
	}
	// The test process holds the input, the client's copy, the worker's
	// copies and the embedded server's buffers; bound them together: a
	// fixed allowance for the server plus a multiple of the document.
	limit := uint64(256<<20 + 8*size)
	t.Logf("%d MB in %s (%.1f MB/s end to end), %d bytes out, peak heap %d MB", size>>20, elapsed.Round(time.Millisecond), float64(size)/1e6/elapsed.Seconds(), len(res.Text), peak.Load()>>20)
	if peak.Load() > limit {
		t.Errorf("peak heap %d MB above %d MB", peak.Load()>>20, limit>>20)
	}
}
