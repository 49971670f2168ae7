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

	"github.com/jetcompact/jetcompact/internal/poll"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/stages"
)

// rssCeiling is the peak resident set any fleet process may reach under
// the flood.
const rssCeiling = 512 << 20

// TestFlood measures the fused fleet's capacity (one worker running every
// stage), then offers twice that for FAULTS_LOAD_SECONDS (default 10; 60
// for the long run) with the intake bounded by fleet.max_backlog: Submit
// waits while that many documents are stored and not yet taken by the
// first segment, so with a fixed number of publishes in flight nothing
// buffers without bound: the publisher slows down to what the fleet
// drains. It records the peak RSS of the server and the worker (VmHWM)
// against a ceiling, then the time the fleet takes to drain the backlog,
// and checks that every accepted document came out exactly once.
func TestFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: real processes, faults and their recovery; runs without -short")
	}
	seconds := 10
	if s := os.Getenv("FAULTS_LOAD_SECONDS"); s != "" {
		var err error
		if seconds, err = strconv.Atoi(s); err != nil || seconds < 1 {
			t.Fatalf("FAULTS_LOAD_SECONDS=%q: want a positive number", s)
		}
	}
	// The publishers share the two cores with the fleet, so a flood asked
	// at twice the capacity gets ~1.3 times it: the backlog grows by a few
	// hundred documents a second and reaches the bound within seconds, so
	// backpressure is exercised on every CI run. Longer runs allow more.
	maxBacklog := 800 * max(1, seconds/10)
	c := newCluster(t, setup{Segments: jetstream.FusedSegments(), AckWait: 30 * time.Second, MaxBacklog: maxBacklog})
	c.startServers(1)
	cl := c.client()
	worker := c.startWorker("all")
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(seconds)*time.Second+4*time.Minute)
	defer cancel()

	// Capacity: what a closed-loop publisher (64 documents in flight) gets
	// through the fleet, on the same machine as the flood.
	const seed = 6
	pre := docCount(t)
	var preDone atomic.Int64
	ps := c.publishAll(ctx, cl, makeDocs(pre, seed), 64, 0, &preDone)
	for _, err := range ps.failed {
		if err != nil {
			t.Fatal(err)
		}
	}
	capacity := float64(pre) / ps.wall.Seconds()

	// The flood: twice the capacity, bounded in flight.
	rate := 2 * capacity
	var accepted []int
	var mu sync.Mutex
	var otherErrs atomic.Int64
	work := make(chan int)
	var pubs sync.WaitGroup
	for range 32 {
		pubs.Go(func() {
			for i := range work {
				if err := submitRetry(ctx, cl, makeDoc(seed, i), func(error) { otherErrs.Add(1) }); err != nil {
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
	// The intake's backlog and the results, every 500ms through flood and drain.
	type point struct {
		at               time.Duration
		backlog, results uint64
	}
	var curve []point
	var curveMu sync.Mutex
	stopCurve := make(chan struct{})
	curveDone := make(chan struct{})
	go func() {
		defer close(curveDone)
		for {
			var backlog uint64
			ictx, icancel := context.WithTimeout(ctx, 2*time.Second)
			if ci, err := c.consumerInfo(ictx, c.names.OriginalsStream(), c.names.IntakeConsumer()); err == nil {
				backlog = ci.NumPending + uint64(ci.NumAckPending)
			}
			icancel()
			r, _ := c.streamState(c.names.ResultsStream())
			curveMu.Lock()
			curve = append(curve, point{time.Since(floodStart), backlog, r.Msgs})
			curveMu.Unlock()
			select {
			case <-stopCurve:
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	for i := pre; time.Now().Before(end); i++ {
		if wait := time.Until(floodStart.Add(time.Duration(float64(i-pre) / rate * float64(time.Second)))); wait > 0 {
			time.Sleep(wait)
		}
		select {
		case work <- i:
			offered++
		case <-time.After(time.Until(end)):
		}
	}
	close(work)
	pubs.Wait()
	floodEnd := time.Now()
	offeredRate := float64(offered) / floodEnd.Sub(floodStart).Seconds()

	// Drain.
	total := pre + len(accepted)
	if !poll.Until(3*time.Minute, func() bool { s, _ := c.streamState(c.names.ResultsStream()); return s.Msgs >= uint64(total) }) {
		t.Error("the backlog did not drain within 3 minutes")
	}
	drain := time.Since(floodEnd)
	c.settle(30 * time.Second)
	close(stopCurve)
	<-curveDone
	var peakBacklog uint64
	var shape []string
	step := time.Duration(seconds) * time.Second / 6
	nextAt := time.Duration(0)
	for _, p := range curve {
		peakBacklog = max(peakBacklog, p.backlog)
		if p.at >= nextAt {
			shape = append(shape, fmt.Sprintf("t=%ds backlog=%d results=%d", int(p.at.Seconds()), p.backlog, p.results))
			nextAt += step
		}
	}
	srvRSS, wRSS, selfRSS := c.servers[0].PeakRSS(), worker.PeakRSS(), vmHWM(os.Getpid())<<10

	sort.Ints(accepted)
	docs := makeDocs(pre, seed)
	for _, i := range accepted {
		docs = append(docs, makeDoc(seed, i))
	}
	want := c.expected(docs, stages.Deps{})
	tl := c.check(docs, want, nil)
	var peakOrig uint64
	if st, ok := c.streamState(c.names.OriginalsStream()); ok {
		peakOrig = st.Bytes
	}
	c.report("flood", tl, pubStats{retries: otherErrs.Load(), wall: floodEnd.Sub(floodStart)},
		fmt.Sprintf("capacity through one fused worker: %.0f docs/s (%d documents, 64 in flight)", capacity, pre),
		fmt.Sprintf("flood for %ds at %.0f docs/s asked, %.0f docs/s accepted: %d documents; intake backlog peak %d of max_backlog %d; originals stream %.0f MiB; %d Submit calls failed and were retried",
			seconds, rate, offeredRate, len(accepted), peakBacklog, maxBacklog, float64(peakOrig)/(1<<20), otherErrs.Load()),
		fmt.Sprintf("drain after the flood: %s", drain.Round(time.Millisecond)),
		"backlog: "+strings.Join(shape, "; "),
		fmt.Sprintf("peak RSS: nats-server %.0f MiB, worker %.0f MiB, publisher (test process) %.0f MiB; ceiling %d MiB",
			float64(srvRSS)/(1<<20), float64(wRSS)/(1<<20), float64(selfRSS)/(1<<20), rssCeiling>>20))
	// The gate reads the intake every 200ms and counts its own admissions
	// in between; what is in flight at a reading (at most the 32
	// publishers' submissions) can overshoot the bound.
	if peakBacklog < uint64(maxBacklog)*8/10 {
		t.Errorf("the intake backlog peaked at %d of max_backlog %d: backpressure was not exercised", peakBacklog, maxBacklog)
	}
	if peakBacklog > uint64(maxBacklog+32) {
		t.Errorf("the intake backlog reached %d, above max_backlog %d plus the 32 submissions in flight", peakBacklog, maxBacklog)
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

// submitRetry submits d, retrying failures Submit returns (it retries a
// full stream and lost acknowledgements itself, within attemptTimeout)
// with exponential backoff from 20ms to 1s under the same message ids;
// onErr sees every retried error.
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
