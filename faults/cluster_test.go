package faults

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/internal/poll"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/stages"
)

// TestClusterNodeKilled runs a three-node JetStream cluster with every
// stream at three replicas. While documents flow it SIGKILLs a node that
// leads no work stream and brings it back, then does the same to the work
// stream's leader. The streams stay available on the two remaining
// replicas; a restarted node catches up.
func TestClusterNodeKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: real processes, faults and their recovery; runs without -short")
	}
	n := docCount(t)
	c := newCluster(t, setup{Segments: jetstream.DefaultSegments(), Replicas: 3, AckWait: 2 * time.Second})
	c.startServers(3)
	c.startWorkers()
	docs := makeDocs(n, 3)
	want := c.expected(docs, stages.Deps{})
	cl := c.client()
	mon := c.monitor()

	var done atomic.Int64
	start := time.Now()
	chaos := make(chan []string, 1)
	go func() {
		var lines []string
		for round, leader := range []bool{false, true} {
			waitDone(&done, int64(n)*int64(round+1)/4, 3*time.Minute)
			at := done.Load()
			if at >= int64(n) {
				lines = append(lines, fmt.Sprintf("round %d: the stream had ended before the kill; lower the rate", round+1))
				continue
			}
			info, err := c.streamInfo(c.names.WorkStream())
			if err != nil || info.Cluster == nil {
				lines = append(lines, fmt.Sprintf("round %d: no stream info: %v", round+1, err))
				continue
			}
			var victim *natsNode
			for _, s := range c.servers {
				if (s.server == info.Cluster.Leader) == leader {
					victim = s
					break
				}
			}
			what := "a follower"
			if leader {
				what = "the work stream leader"
			}
			killed := time.Now()
			victim.Kill()
			rec, ok := mon.waitProgress(killed, 60*time.Second)
			recovered := fmt.Sprintf("results flowing again %s after the kill", rec.Round(time.Millisecond))
			if !ok {
				recovered = "results did not resume within 60s"
			}
			newLeader := "?"
			if poll.Until(30*time.Second, func() bool {
				i, err := c.streamInfo(c.names.WorkStream())
				if err == nil && i.Cluster != nil && i.Cluster.Leader != "" && i.Cluster.Leader != victim.server {
					newLeader = i.Cluster.Leader
					return true
				}
				return false
			}) && leader {
				recovered += fmt.Sprintf("; new work stream leader %s", newLeader)
			}
			time.Sleep(2 * time.Second)
			victim.Start()
			restarted := time.Now()
			caughtUp := "not caught up within 60s"
			if poll.Until(60*time.Second, func() bool { return c.replicasCurrent(victim.server) }) {
				caughtUp = fmt.Sprintf("caught up %s after the restart", time.Since(restarted).Round(time.Millisecond))
			}
			lines = append(lines, fmt.Sprintf("kill %s %s (stream leader was %s) at %s, %d/%d results: %s; %s",
				what, victim.server, info.Cluster.Leader, killed.Sub(start).Round(100*time.Millisecond), at, n, recovered, caughtUp))
		}
		chaos <- lines
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// Paced so the stream outlasts both rounds (each takes ~10s).
	ps := c.publishAll(ctx, cl, docs, 64, float64(n)/40, &done)
	lines := <-chaos
	c.settle(60 * time.Second)
	tl := c.check(docs, want, nil)
	c.report("cluster-node-kill", tl, ps, lines...)
	for _, l := range lines {
		if strings.Contains(l, "lower the rate") || strings.Contains(l, "did not resume") || strings.Contains(l, "no stream info") {
			t.Error(l)
		}
	}
}

// replicasCurrent reports whether server is a current replica of every
// stream of the fleet.
func (c *cluster) replicasCurrent(server string) bool {
	for _, name := range []string{c.names.WorkStream(), c.names.OriginalsStream(), c.names.ResultsStream()} {
		info, err := c.streamInfo(name)
		if err != nil || info.Cluster == nil {
			return false
		}
		found := info.Cluster.Leader == server
		for _, r := range info.Cluster.Replicas {
			if r.Name == server {
				found = r.Current && !r.Offline
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// TestClusterWorkerStartsWithNodeDown: with one node of three down, the
// R3 fleet keeps quorum, so a worker started (or restarted) meanwhile must
// come up and work. Every bucket a worker opens at start-up must therefore
// follow fleet.replicas, the LLM summary cache included.
func TestClusterWorkerStartsWithNodeDown(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite: real processes, faults and their recovery; runs without -short")
	}
	c := newCluster(t, setup{Segments: jetstream.DefaultSegments(), Replicas: 3, AckWait: 2 * time.Second})
	c.startServers(3)
	c.startWorkers()
	cache := "KV_" + c.file.Fleet.Prefix + "_llm_cache"
	info, err := c.streamInfo(cache)
	if err != nil {
		t.Fatalf("LLM cache bucket: %v", err)
	}
	replicas := info.Config.Replicas
	victim := c.servers[0]
	for _, s := range c.servers {
		if info.Cluster != nil && s.server == info.Cluster.Leader {
			victim = s
		}
	}
	victim.Kill()
	// Let the streams and consumers that had a leader on the victim elect
	// a new one first: a worker started during an election exits (its
	// topology calls time out), which the orchestrator retries.
	elected := poll.Until(30*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if _, err := c.js.AccountInfo(ctx); err != nil {
			return false
		}
		for _, st := range []string{c.names.WorkStream(), c.names.OriginalsStream(), c.names.ResultsStream(), c.names.DeadStream(), "OBJ_" + c.names.BlobBucket(), "OBJ_" + c.names.OriginalBlobBucket()} {
			if i, err := c.streamInfo(st); err != nil || i.Cluster == nil || i.Cluster.Leader == "" {
				return false
			}
		}
		for _, seg := range c.file.Fleet.Segments {
			cons, err := c.js.Consumer(ctx, c.names.WorkStream(), c.names.Consumer(seg[0]))
			if err != nil {
				return false
			}
			if ci, err := cons.Info(ctx); err != nil || ci.Cluster == nil || ci.Cluster.Leader == "" {
				return false
			}
		}
		return true
	})
	if !elected {
		t.Fatal("the streams and consumers elected no new leaders within 30s")
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	w := &workerProc{proc: newProc(t, c.dir, "late-worker", binary(t, "worker"),
		[]string{"--config", c.cfgPath, "--nats", c.url(), "--segment", "all", "--http-addr", addr}, nil), segment: "all", httpAddr: addr}
	w.Start()
	ready := poll.Until(30*time.Second, func() bool {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	t.Logf("LLM cache bucket %s has %d replica(s) (fleet.replicas %d); killed %s, which hosts it; a worker started meanwhile is ready: %v",
		cache, replicas, c.file.Fleet.Replicas, victim.server, ready)
	if !ready {
		t.Errorf("a worker cannot start while one node of three is down:\n%s", tail(w.logPath, 5, ""))
	}
	if replicas != c.file.Fleet.Replicas {
		t.Errorf("the LLM cache bucket has %d replica(s), not fleet.replicas %d: it is lost with its node", replicas, c.file.Fleet.Replicas)
	}
	docs := makeDocs(200, 7)
	want := c.expected(docs, stages.Deps{})
	var done atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ps := c.publishAll(ctx, c.client(), docs, 32, 0, &done)
	c.settle(30 * time.Second)
	c.report("cluster-node-down", c.check(docs, want, nil), ps)
}
