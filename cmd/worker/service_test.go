package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/internal/poll"
	"github.com/nats-io/nats.go"
)

// TestWorkerServesTheService: a worker answers jc.compact and jc.get by
// default, and not with --service=false.
func TestWorkerServesTheService(t *testing.T) {
	for _, on := range []bool{true, false} {
		listen, httpAddr := freeAddr(t), freeAddr(t)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		var errb bytes.Buffer
		args := []string{"--embedded", "--store-dir", t.TempDir(), "--embedded-listen", listen, "--http-addr", httpAddr}
		if !on {
			args = append(args, "--service=false")
		}
		go func() { done <- run(ctx, args, &bytes.Buffer{}, &errb) }()
		// Ready: the service, when on, was started before the probe.
		waitReady(t, httpAddr, &errb)
		nc, err := nats.Connect("nats://" + listen)
		if err != nil {
			t.Fatalf("no server: %v", err)
		}
		text := strings.Repeat("2024-05-01 12:00:00 INFO request handled in 5ms\n", 200)
		var reply *nats.Msg
		if on {
			// Its subscriptions reach the server over the worker's connection.
			poll.Until(10*time.Second, func() bool {
				reply, err = nc.Request("jc.compact", []byte(text), 10*time.Second)
				return !errors.Is(err, nats.ErrNoResponders)
			})
			if err != nil {
				t.Fatalf("jc.compact: %v\n%s", err, errb.String())
			}
			if len(reply.Data) == 0 || len(reply.Data) >= len(text) || reply.Header.Get("Jc-Doc-Id") == "" {
				t.Errorf("jc.compact: %q, headers %v", reply.Data, reply.Header)
			}
			orig, err := nc.Request("jc.get", []byte(reply.Header.Get("Jc-Doc-Id")), 10*time.Second)
			if err != nil || string(orig.Data) != text {
				t.Errorf("jc.get: %v", err)
			}
		} else if _, err := nc.Request("jc.compact", []byte(text), 2*time.Second); !errors.Is(err, nats.ErrNoResponders) {
			t.Errorf("--service=false: %v, want no responders", err)
		}
		nc.Close()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	}
}
