package faults

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/stages"
)

// rssCeiling is the peak resident set any fleet process may reach under
// the flood.
const rssCeiling = 512 << 20

// TestFlood measures the fused fleet's capacity (one worker running every
// stage), then offers twice that for FAULTS_LOAD_SECONDS (default 10; 60
// for the long run) with the work stream bounded by fleet.max_bytes.
// JetStream refuses publishes past the limit ("maximum bytes exceeded");
// the publisher retries them with backoff under the same message ids, with
// a fixed number of publishes in flight, so nothing buffers without bound.
// It records the peak RSS of the server and the worker (VmHWM) against a
// ceiling, then the time the fleet takes to drain the backlog, and checks
// that every accepted document came out exactly once.
func TestFlood(t *testing.T) {
	seconds := 10
	if s := os.Getenv("FAULTS_LOAD_SECONDS"); s != "" {
		var err error
		if seconds, err = strconv.Atoi(s); err != nil || seconds < 1 {
			t.Fatalf("FAULTS_LOAD_SECONDS=%q: want a positive number", s)
		}
	}
	// Small enough that the short run reaches it within seconds, so the
	// backpressure path is exercised on every CI run; the 60 s run uses
	// 64 MiB.
	maxBytes := int64(16 << 20)
	if seconds >= 60 {
		maxBytes = 64 << 20
	}
	c := newCluster(t, setup{Segments: jetstream.FusedSegments(), AckWait: 30 * time.Second, MaxBytes: maxBytes})
	c.startServers(1)
	cl := c.client()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(seconds)*time.Second+4*time.Minute)
	defer cancel()

	// Capacity: preload a backlog with no worker running, then time one
	// worker draining it.
	const seed = 6
	pre := min(docCount(t), int(maxBytes/2/4096)) // the backlog must fit under max_bytes
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < pre; i = int(next.Add(1) - 1) {
				d := makeDoc(seed, i)
				if err := submitRetry(ctx, cl, d, nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	worker := c.startWorker("all")
	began := time.Now()
	if !waitFor(2*time.Minute, func() bool { s, _ := c.streamState(c.names.ResultsStream()); return s.Msgs >= uint64(pre) }) {
		t.Fatal("the preloaded backlog did not drain")
	}
	capacity := float64(pre) / time.Since(began).Seconds()

	// The flood: twice the capacity, bounded in flight.
	rate := 2 * capacity
	var accepted []int
	var mu sync.Mutex
	var rejected, otherErrs atomic.Int64
	work := make(chan int)
	var pubs sync.WaitGroup
	for range 32 {
		pubs.Go(func() {
			for i := range work {
				if err := submitRetry(ctx, cl, makeDoc(seed, i), func(err error) {
					if strings.Contains(err.Error(), "maximum bytes") {
						rejected.Add(1)
					} else {
						otherErrs.Add(1)
					}
				}); err != nil {
					t.Error(err)
					continue
				}
				mu.Lock()
				accepted = append(accepted, i)
				mu.Unlock()
			}
		})
	}
	floodStart := time.Now()
	end := floodStart.Add(time.Duration(seconds) * time.Second)
	offered := 0
	var peakWork uint64
	lastSample := time.Time{}
	for i := pre; time.Now().Before(end); i++ {
		if wait := time.Until(floodStart.Add(time.Duration(float64(i-pre) / rate * float64(time.Second)))); wait > 0 {
			time.Sleep(wait)
		}
		select {
		case work <- i:
			offered++
		case <-time.After(time.Until(end)):
		}
		if time.Since(lastSample) > 100*time.Millisecond {
			if s, ok := c.streamState(c.names.WorkStream()); ok && s.Bytes > peakWork {
				peakWork = s.Bytes
			}
			lastSample = time.Now()
		}
	}
	close(work)
	pubs.Wait()
	floodEnd := time.Now()
	offeredRate := float64(offered) / floodEnd.Sub(floodStart).Seconds()

	// Drain.
	total := pre + len(accepted)
	if !waitFor(3*time.Minute, func() bool { s, _ := c.streamState(c.names.ResultsStream()); return s.Msgs >= uint64(total) }) {
		t.Error("the backlog did not drain within 3 minutes")
	}
	drain := time.Since(floodEnd)
	c.settle(30 * time.Second)
	srvRSS, wRSS, selfRSS := c.servers[0].PeakRSS(), worker.PeakRSS(), vmHWM(os.Getpid())<<10

	sort.Ints(accepted)
	docs := makeDocs(pre, seed)
	for _, i := range accepted {
		docs = append(docs, makeDoc(seed, i))
	}
	want := c.expected(docs, stages.Deps{})
	tl := c.check(docs, want, nil)
	c.report("flood", tl, pubStats{retries: rejected.Load() + otherErrs.Load(), wall: floodEnd.Sub(floodStart)},
		fmt.Sprintf("capacity of one fused worker: %.0f docs/s (%d preloaded docs)", capacity, pre),
		fmt.Sprintf("flood for %ds at %.0f docs/s asked, %.0f docs/s accepted: %d documents, %d publishes refused with maximum bytes exceeded (max_bytes %d MiB, peak work stream %.1f MiB), %d other publish errors",
			seconds, rate, offeredRate, len(accepted), rejected.Load(), maxBytes>>20, float64(peakWork)/(1<<20), otherErrs.Load()),
		fmt.Sprintf("drain after the flood: %s", drain.Round(time.Millisecond)),
		fmt.Sprintf("peak RSS: nats-server %.0f MiB, worker %.0f MiB, publisher (test process) %.0f MiB; ceiling %d MiB",
			float64(srvRSS)/(1<<20), float64(wRSS)/(1<<20), float64(selfRSS)/(1<<20), rssCeiling>>20))
	if rejected.Load() == 0 {
		t.Error("no publish was refused: the flood never reached max_bytes, so backpressure was not exercised")
	}
	for name, rss := range map[string]int64{"nats-server": srvRSS, "worker": wRSS} {
		if rss > rssCeiling {
			t.Errorf("%s peak RSS %d MiB is above the ceiling of %d MiB", name, rss>>20, rssCeiling>>20)
		}
		if rss == 0 {
			t.Errorf("%s peak RSS not measured", name)
		}
	}
}

// submitRetry submits d, retrying transient failures (a full work stream
// among them) with exponential backoff from 20ms to 1s under the same
// message ids; onErr sees every retried error.
func submitRetry(ctx context.Context, cl *jetstream.Client, d doc, onErr func(error)) error {
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, attemptTimeout)
		err := cl.Submit(actx, jetstream.Document{ID: d.id, Text: d.text, AllowLLM: true}, 0)
		cancel()
		if err == nil {
			return nil
		}
		if jetstream.IsPermanent(err) || ctx.Err() != nil {
			return fmt.Errorf("submit %s: %w", d.id, err)
		}
		if onErr != nil {
			onErr(err)
		}
		time.Sleep(min(20*time.Millisecond<<min(attempt, 6), time.Second))
	}
}
