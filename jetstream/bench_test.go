package jetstream

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/stages"
)

// BenchmarkFleet64KiB pushes 64 KiB log documents through the fleet in one
// process (server, workers and publisher). cmd/fleetbench does the same
// with separate processes and reports the ratios against the raw transport.
func BenchmarkFleet64KiB(b *testing.B) {
	for _, sc := range []struct {
		name string
		segs [][]stages.Key
	}{{"fused", FusedSegments()}, {"split", SplitSegments()}} {
		b.Run(sc.name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Segments = sc.segs
			cfg.Concurrency = 8
			f := startFleet(b, cfg)
			f.worker(cfg.Segments)
			c := f.client()
			docs := make([]string, 64)
			for i := range docs {
				docs[i] = benchDoc(i)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			sem := make(chan struct{}, 128)
			var wg sync.WaitGroup
			b.SetBytes(64 << 10)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer func() { <-sem; wg.Done() }()
					if _, err := c.Compact(ctx, Document{ID: fmt.Sprintf("b%d-%d", b.N, i), Text: docs[i%len(docs)]}); err != nil {
						b.Error(err)
					}
				}()
			}
			wg.Wait()
		})
	}
}

func benchDoc(i int) string {
	var sb strings.Builder
	for j := 0; sb.Len() < 64<<10; j++ {
		fmt.Fprintf(&sb, "2024-05-01 12:%02d:%02d INFO [svc-%d] request %d served in %dms path=/api/items/%d\n", j/60%60, j%60, j%5, i*1000+j, j%97, j%300)
	}
	return sb.String()[:64<<10]
}
