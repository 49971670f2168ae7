package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
)

// The peers relay documents one hop, from one file-backed stream to
// another, doing nothing to them: what a fleet costs without compaction.
const (
	relayInStream   = "RELAY_IN"
	relayOutStream  = "RELAY_OUT"
	relayInSubject  = "relay.in"
	relayOutSubject = "relay.out"
	relayConsumer   = "relay"
)

// relayTopology creates both streams and the relay's durable pull consumer,
// with the fleet's bound on unacknowledged messages.
func relayTopology(ctx context.Context, js njs.JetStream, maxAckPending int) error {
	for name, subject := range map[string]string{relayInStream: relayInSubject, relayOutStream: relayOutSubject} {
		if _, err := js.CreateOrUpdateStream(ctx, njs.StreamConfig{
			Name: name, Subjects: []string{subject}, Storage: njs.FileStorage, Duplicates: 2 * time.Minute,
		}); err != nil {
			return fmt.Errorf("stream %s: %w", name, err)
		}
	}
	_, err := js.CreateOrUpdateConsumer(ctx, relayInStream, njs.ConsumerConfig{
		Durable: relayConsumer, AckPolicy: njs.AckExplicitPolicy, MaxAckPending: maxAckPending, AckWait: time.Minute,
	})
	return err
}

// serveRelay is peer (d), a raw nats.go one-hop relay: consume, publish
// asynchronously with the input's message id, and acknowledge the input
// only after the output's PubAck (a failed publish is Nak'ed).
//
//	fleetbench relay URL PULL_BATCH
func serveRelay(args []string) {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fleetbench relay URL PULL_BATCH")
		os.Exit(2)
	}
	batch, _ := strconv.Atoi(args[1])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := relay(ctx, args[0], max(batch, 1)); err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.Exit(1)
	}
}

func relay(ctx context.Context, url string, batch int) error {
	nc, err := nats.Connect(url)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := njs.New(nc, njs.WithPublishAsyncMaxPending(4*batch))
	if err != nil {
		return err
	}
	cons, err := js.Consumer(ctx, relayInStream, relayConsumer)
	if err != nil {
		return err
	}
	type pending struct {
		in  njs.Msg
		ack njs.PubAckFuture
	}
	// PubAcks come back in publish order: one goroutine waits for each in
	// turn and settles its input.
	queue := make(chan pending, 4*batch)
	var settled sync.WaitGroup
	settled.Go(func() {
		for p := range queue {
			select {
			case <-p.ack.Ok():
				_ = p.in.Ack()
			case <-p.ack.Err():
				_ = p.in.Nak()
			}
		}
	})
	cc, err := cons.Consume(func(m njs.Msg) {
		out := &nats.Msg{Subject: relayOutSubject, Data: m.Data(), Header: nats.Header{}}
		out.Header.Set(nats.MsgIdHdr, m.Headers().Get(nats.MsgIdHdr))
		f, err := js.PublishMsgAsync(out)
		if err != nil {
			_ = m.Nak()
			return
		}
		queue <- pending{m, f}
	}, njs.PullMaxMessages(batch))
	if err != nil {
		return err
	}
	fmt.Println("ready")
	<-ctx.Done()
	cc.Drain()
	<-cc.Closed()
	close(queue)
	settled.Wait()
	return nil
}

// relayPeer says how to start a peer process, given the server's URL.
type relayPeer struct {
	name  string
	start func(dir, url string) (*proc, error)
}

func rawRelayPeer(o benchOptions) relayPeer {
	self, _ := os.Executable()
	return relayPeer{"d raw nats.go relay (one hop)", func(_, url string) (*proc, error) {
		return start("relay", self, "relay", url, strconv.Itoa(o.pullBatch))
	}}
}

// benthosPeer is peer (e): the Benthos stream engine of bench/benthosrelay,
// its JetStream input and output configured like the raw relay.
func benthosPeer(o benchOptions) relayPeer {
	return relayPeer{"e Benthos relay (one hop)", func(dir, url string) (*proc, error) {
		cfg := filepath.Join(dir, "benthos.yaml")
		if err := os.WriteFile(cfg, []byte(benthosYAML(url, o)), 0o600); err != nil {
			return nil, err
		}
		return start("benthos", o.benthosBin, cfg)
	}}
}

func benthosYAML(url string, o benchOptions) string {
	return fmt.Sprintf(`input:
  jc_jetstream:
    url: %q
    stream: %s
    consumer: %s
    pull_batch: %d
output:
  jc_jetstream:
    url: %q
    subject: %s
    max_in_flight: %d
logger:
  level: WARN
metrics:
  none: {}
http:
  enabled: false
`, url, relayInStream, relayConsumer, o.pullBatch, url, relayOutSubject, o.pullBatch)
}

// buildBenthos builds bench/benthosrelay (its own module, so the product's
// go.mod never takes Benthos's dependencies).
func buildBenthos(dir string) (string, error) {
	bin := filepath.Join(dir, "benthosrelay")
	cmd := exec.Command("go", "build", "-o", bin, "./benthosrelay")
	cmd.Dir = "bench"
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return bin, cmd.Run()
}

// runRelay measures a relay peer: documents go into RELAY_IN with at most
// o.window of them not yet seen on relay.out, as the fleet scenarios keep
// o.window documents awaiting their result.
func runRelay(ctx context.Context, o benchOptions, peer relayPeer, dir string, docs []string) (outcome, error) {
	var procs procGroup
	defer procs.stop()
	url, err := procs.startServer(dir)
	if err != nil {
		return outcome{}, err
	}
	nc, err := nats.Connect(url)
	if err != nil {
		return outcome{}, err
	}
	defer nc.Close()
	js, err := njs.New(nc, njs.WithPublishAsyncMaxPending(o.window))
	if err != nil {
		return outcome{}, err
	}
	if err := relayTopology(ctx, js, benchFleetConfig(o, scenario{}).MaxAckPending); err != nil {
		return outcome{}, err
	}
	p, err := peer.start(dir, url)
	if err != nil {
		return outcome{}, err
	}
	procs = append(procs, p)
	if err := p.waitLine("ready", 30*time.Second); err != nil {
		return outcome{}, err
	}

	sem := make(chan struct{}, o.window)
	seen := make([]bool, len(docs))
	var mu sync.Mutex
	done := make(chan struct{})
	left := len(docs)
	sub, err := nc.Subscribe(relayOutSubject, func(m *nats.Msg) {
		i, err := strconv.Atoi(m.Header.Get(nats.MsgIdHdr)[1:])
		mu.Lock()
		defer mu.Unlock()
		if err != nil || i < 0 || i >= len(seen) || seen[i] {
			return // a redelivery the stream deduplicated
		}
		seen[i] = true
		<-sem
		if left--; left == 0 {
			close(done)
		}
	})
	if err != nil {
		return outcome{}, err
	}
	defer sub.Unsubscribe()
	_ = sub.SetPendingLimits(-1, -1)
	selfCPU := cpuSeconds("/proc/self/stat")
	begin := time.Now()
	for i, d := range docs {
		sem <- struct{}{}
		m := &nats.Msg{Subject: relayInSubject, Data: []byte(d), Header: nats.Header{}}
		m.Header.Set(nats.MsgIdHdr, "d"+strconv.Itoa(i))
		if _, err := js.PublishMsgAsync(m); err != nil {
			return outcome{}, err
		}
	}
	select {
	case <-done:
	case <-ctx.Done():
		return outcome{}, ctx.Err()
	case <-time.After(time.Duration(len(docs))*100*time.Millisecond + time.Minute):
		return outcome{}, errors.New("documents never all came out of the relay")
	}
	elapsed := time.Since(begin)
	return procs.outcome(len(docs)*o.size, elapsed, selfCPU), nil
}
