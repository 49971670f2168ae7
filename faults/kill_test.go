package faults

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/internal/poll"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/stages"
)

// TestStageWorkerKilled splits every stage and the guard into its own
// worker process and, while documents flow, SIGKILLs and restarts each
// stage's worker in turn. Unacknowledged messages of a killed worker are
// redelivered after the ack wait and their republishes are deduplicated by
// message id: every document comes out once, equal to --local.
func TestStageWorkerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: real processes, faults and their recovery; runs without -short")
	}
	n := docCount(t)
	c := newCluster(t, setup{Segments: jetstream.SplitSegments(), AckWait: 2 * time.Second})
	c.startServers(1)
	c.startWorkers()
	docs := makeDocs(n, 1)
	want := c.expected(docs, stages.Deps{})
	cl := c.client()

	var done atomic.Int64
	chaos := make(chan []string, 1)
	go func() {
		var lines []string
		for i, w := range c.workers {
			waitDone(&done, int64(n)*int64(i+1)/int64(len(c.workers)+3), 2*time.Minute)
			at := done.Load()
			if at >= int64(n) {
				lines = append(lines, fmt.Sprintf("%s: the stream had ended before the kill; raise FAULTS_DOCS", w.segment))
				continue
			}
			cons, err := c.segmentConsumer(context.Background(), w.segment)
			if err != nil {
				t.Errorf("%s: no consumer: %v", w.segment, err)
				continue
			}
			killed := time.Now()
			w.Kill()
			time.Sleep(200 * time.Millisecond)
			w.Start()
			c.waitReady(w)
			ready := time.Since(killed)
			var before uint64
			if ci, err := cons.Info(context.Background()); err == nil {
				before = ci.Delivered.Consumer
			}
			recovered := "no delivery within 10s (stream idle)"
			if poll.Until(10*time.Second, func() bool {
				ci, err := cons.Info(context.Background())
				return err == nil && ci.Delivered.Consumer > before
			}) {
				recovered = time.Since(killed).Round(time.Millisecond).String()
			}
			lines = append(lines, fmt.Sprintf("kill %-16s at %4d/%d results: restarted and ready in %s, consuming again %s after the kill",
				w.segment, at, n, ready.Round(time.Millisecond), recovered))
		}
		chaos <- lines
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ps := c.publishAll(ctx, cl, docs, 64, 0, &done)
	lines := <-chaos
	c.settle(30 * time.Second)
	lines = append(lines, fmt.Sprintf("redelivered hops (worker metrics, restarted incarnations): %.0f", c.redeliveries()))
	tl := c.check(docs, want, nil)
	c.report("stage-kill", tl, ps, lines...)
	for _, l := range lines {
		if strings.Contains(l, "raise FAULTS_DOCS") {
			t.Errorf("not every stage's worker was killed mid-stream: %s", l)
		}
	}
}

// TestServerKilled SIGKILLs the nats-server while the publisher and three
// workers (the default segmentation) keep running, and restarts it on the
// same port and store directory. Clients reconnect (MaxReconnects(-1));
// publishes that failed during the outage are retried under the same
// message ids.
func TestServerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: real processes, faults and their recovery; runs without -short")
	}
	n := docCount(t)
	c := newCluster(t, setup{Segments: jetstream.DefaultSegments(), AckWait: 2 * time.Second})
	c.startServers(1)
	c.startWorkers()
	docs := makeDocs(n, 2)
	want := c.expected(docs, stages.Deps{})
	cl := c.client()
	mon := c.monitor()

	var done atomic.Int64
	chaos := make(chan []string, 1)
	go func() {
		waitDone(&done, int64(n)/3, 2*time.Minute)
		at := done.Load()
		srv := c.servers[0]
		killed := time.Now()
		srv.Kill()
		time.Sleep(time.Second)
		srv.Start()
		restarted := time.Now()
		rec, ok := mon.waitProgress(restarted, 60*time.Second)
		line := fmt.Sprintf("kill nats-server at %d/%d results; down %s; results flowing again %s after the restart (%s after the kill)",
			at, n, restarted.Sub(killed).Round(time.Millisecond), rec.Round(time.Millisecond), (restarted.Sub(killed) + rec).Round(time.Millisecond))
		if !ok {
			line = "results did not resume within 60s of the restart"
		}
		chaos <- []string{line}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ps := c.publishAll(ctx, cl, docs, 64, 0, &done)
	lines := <-chaos
	c.settle(30 * time.Second)
	tl := c.check(docs, want, nil)
	c.report("server-kill", tl, ps, lines...)
	if strings.HasPrefix(lines[0], "results did not") {
		t.Error(lines[0])
	}
}
