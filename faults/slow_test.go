package faults

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/stages"
)

// TestSlowConsumer freezes workers with SIGSTOP for longer than the ack
// wait (2s), then resumes them with SIGCONT: first one of two replicas of
// the algorithmic segment (its peer takes over the redelivered messages),
// then the only guard worker (its own messages are redelivered to it).
// The frozen worker wakes up holding stale deliveries, finishes them and
// republishes under the same message ids: nothing is lost or duplicated.
func TestSlowConsumer(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: real processes, faults and their recovery; runs without -short")
	}
	n := docCount(t)
	ackWait := 2 * time.Second
	c := newCluster(t, setup{Segments: jetstream.DefaultSegments(), AckWait: ackWait})
	c.startServers(1)
	c.startWorkers()
	algo := c.workers[0]
	c.startWorker(algo.segment) // a second replica of the first segment
	guard := c.workers[2]
	docs := makeDocs(n, 4)
	want := c.expected(docs, stages.Deps{})
	cl := c.client()
	mon := c.monitor()

	var done atomic.Int64
	chaos := make(chan []string, 1)
	go func() {
		var lines []string
		for i, v := range []struct {
			w     *workerProc
			what  string
			pause time.Duration
		}{
			{algo, "one of two algorithmic replicas", 3 * ackWait},
			{guard, "the only guard worker", 3 * ackWait},
		} {
			waitDone(&done, int64(n)*int64(i+1)/4, 2*time.Minute)
			at := done.Load()
			stopped := time.Now()
			v.w.Stop()
			time.Sleep(v.pause)
			v.w.Cont()
			resumed := time.Now()
			rec, ok := mon.waitProgress(resumed, 30*time.Second)
			flowing := fmt.Sprintf("results growing %s after SIGCONT", rec.Round(time.Millisecond))
			if !ok {
				flowing = "results did not grow within 30s of SIGCONT"
			}
			lines = append(lines, fmt.Sprintf("SIGSTOP %s for %s (ack wait %s) at %d/%d results; %s", v.what, resumed.Sub(stopped).Round(time.Millisecond), ackWait, at, n, flowing))
		}
		chaos <- lines
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ps := c.publishAll(ctx, cl, docs, 64, float64(n)/20, &done)
	lines := <-chaos
	c.settle(30 * time.Second)
	redelivered := c.redeliveries()
	lines = append(lines, fmt.Sprintf("redelivered hops (worker metrics): %.0f", redelivered))
	tl := c.check(docs, want, nil)
	c.report("slow-consumer", tl, ps, lines...)
	if redelivered == 0 {
		t.Error("no message was redelivered: the workers were not frozen past the ack wait while holding work")
	}
}
