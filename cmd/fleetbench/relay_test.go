package main

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/embedded"
	"github.com/jetcompact/jetcompact/internal/poll"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
)

// TestRawRelayOneHop runs peer (d) against an embedded server: every
// document reaches RELAY_OUT once, byte for byte, with its message id, and
// every input is acknowledged (none pending, none awaiting its ack).
func TestRawRelayOneHop(t *testing.T) {
	srv, err := embedded.Start(embedded.Options{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := njs.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if err := relayTopology(ctx, js, 16); err != nil {
		t.Fatal(err)
	}
	relayCtx, stopRelay := context.WithCancel(ctx)
	relayDone := make(chan error, 1)
	go func() { relayDone <- relay(relayCtx, srv.ClientURL(), 4) }()

	const docs = 60
	for i := range docs {
		m := &nats.Msg{Subject: relayInSubject, Data: []byte("document " + strconv.Itoa(i)), Header: nats.Header{}}
		m.Header.Set(nats.MsgIdHdr, "d"+strconv.Itoa(i))
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	out, err := js.Stream(ctx, relayOutStream)
	if err != nil {
		t.Fatal(err)
	}
	cons, err := js.Consumer(ctx, relayInStream, relayConsumer)
	if err != nil {
		t.Fatal(err)
	}
	var si *njs.StreamInfo
	var ci *njs.ConsumerInfo
	if !poll.Until(time.Minute, func() bool {
		var err error
		if si, err = out.Info(ctx); err != nil {
			t.Fatal(err)
		}
		if ci, err = cons.Info(ctx); err != nil {
			t.Fatal(err)
		}
		return si.State.Msgs == docs && ci.NumPending == 0 && ci.NumAckPending == 0
	}) {
		t.Fatalf("after a minute: %d of %d relayed, %d pending, %d awaiting ack", si.State.Msgs, docs, ci.NumPending, ci.NumAckPending)
	}
	for seq := uint64(1); seq <= docs; seq++ {
		m, err := out.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		i, err := strconv.Atoi(m.Header.Get(nats.MsgIdHdr)[1:])
		if err != nil || string(m.Data) != "document "+strconv.Itoa(i) {
			t.Fatalf("message %d: id %q, data %q", seq, m.Header.Get(nats.MsgIdHdr), m.Data)
		}
	}
	stopRelay()
	if err := <-relayDone; err != nil {
		t.Fatal(err)
	}
}
