package jetstream

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/pipeline"
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

// BenchmarkWorkerOverhead64KiB measures a fused worker alone: b.N 64 KiB
// log documents are stored first, then one worker (in process, with the
// server) takes them to results. "passthrough" runs a disabled pipeline,
// so what it measures is the worker's own per-message cost (decode,
// envelope, result publish of the whole text, ack) plus the server's;
// "pipeline" runs the default pipeline. Their ratio is the share of the
// worker's time the compaction takes. cpu-ns/op is the process's CPU time
// (worker and server) per document, steadier than MB/s on a loaded box.
//
// Dec 2, load 8-14 on 2 cores: passthrough 63-160 MB/s and 0.45-0.50 ms
// CPU a document, pipeline 9-29 MB/s and 1.16-1.35 ms. The fused worker's own profile in cmd/fleetbench
// (-worker-cpuprofile) gives the split: pipeline Prepare + RunSegment 87%
// of the worker's CPU; nats.go's read loop 3%, the result publish 2.4%,
// GC 3%, the rest (envelope, metrics, keep-alive, ack) about 4%.
func BenchmarkWorkerOverhead64KiB(b *testing.B) {
	for _, sc := range []struct {
		name    string
		enabled bool
	}{{"passthrough", false}, {"pipeline", true}} {
		b.Run(sc.name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Segments = FusedSegments()
			cfg.Concurrency = 8
			cfg.MaxAckPending = max(cfg.MaxAckPending, 512)
			f := startFleet(b, cfg)
			pc := pipeline.DefaultConfig()
			pc.Enabled = sc.enabled
			pipe, err := pipeline.New(pc, stages.Deps{})
			if err != nil {
				b.Fatal(err)
			}
			f.pipe = pipe
			c := f.client()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			docs := make([]string, 64)
			for i := range docs {
				docs[i] = benchDoc(i)
			}
			for i := 0; i < b.N; i++ {
				if err := c.Submit(ctx, Document{ID: fmt.Sprintf("w%d-%d", b.N, i), Text: docs[i%len(docs)]}, 0); err != nil {
					b.Fatal(err)
				}
			}
			results, err := f.js.Stream(ctx, Names{cfg.Prefix}.ResultsStream())
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(64 << 10)
			b.ResetTimer()
			cpu := processCPU()
			f.worker(cfg.Segments)
			for {
				info, err := results.Info(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if info.State.Msgs >= uint64(b.N) {
					break
				}
				time.Sleep(2 * time.Millisecond)
			}
			b.StopTimer()
			if cpu := processCPU() - cpu; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
