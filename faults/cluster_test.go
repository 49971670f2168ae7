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

// TestClusterNodeKilled runs a three-node JetStream cluster with every
// stream at three replicas. While documents flow it SIGKILLs a node that
// leads no work stream and brings it back, then does the same to the work
// stream's leader. The streams stay available on the two remaining
// replicas; a restarted node catches up.
func TestClusterNodeKilled(t *testing.T) {
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
			if waitFor(30*time.Second, func() bool {
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
			if waitFor(60*time.Second, func() bool { return c.replicasCurrent(victim.server) }) {
				caughtUp = fmt.Sprintf("caught up %s after the restart", time.Since(restarted).Round(time.Millisecond))
			}
			lines = append(lines, fmt.Sprintf("kill %s %s (stream leader was %s) at %s, %d/%d results: %s; %s",
				what, victim.server, info.Cluster.Leader, killed.Sub(start).Round(100*time.Millisecond), at, n, recovered, caughtUp))
		}
		chaos <- lines
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ps := c.publishAll(ctx, cl, docs, 64, 0, &done)
	lines := <-chaos
	c.settle(60 * time.Second)
	tl := c.check(docs, want, nil)
	c.report("cluster-node-kill", tl, ps, lines...)
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
