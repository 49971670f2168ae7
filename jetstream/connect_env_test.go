package jetstream

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"

	"github.com/jetcompact/jetcompact/internal/natstest"
	"github.com/jetcompact/jetcompact/internal/poll"
)

// TestNatscliTLSVariables: natscli's NATS_CA, NATS_CERT and NATS_KEY set
// the TLS flags' defaults, ahead of the older NATS_TLS_* names.
func TestNatscliTLSVariables(t *testing.T) {
	t.Setenv("NATS_CA", "/etc/nats/ca.pem")
	t.Setenv("NATS_TLS_CA", "/old/ca.pem")
	t.Setenv("NATS_CERT", "/etc/nats/client.pem")
	t.Setenv("NATS_TLS_KEY", "/old/client.key")
	var o ConnectOptions
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	o.RegisterFlags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if o.TLSCA != "/etc/nats/ca.pem" || o.TLSCert != "/etc/nats/client.pem" || o.TLSKey != "/old/client.key" {
		t.Errorf("TLS from env: ca %q cert %q key %q", o.TLSCA, o.TLSCert, o.TLSKey)
	}
}

// syncBuffer is a strings.Builder safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestConnectionTroubleIsNamed: no URL points at the flags, an unreachable
// server is named (without its password), a server without JetStream says
// so, and a disconnect is logged with the URL.
func TestConnectionTroubleIsNamed(t *testing.T) {
	if _, err := Connect(ConnectOptions{}); err == nil || !strings.Contains(err.Error(), "--nats") || !strings.Contains(err.Error(), "NATS_URL") {
		t.Errorf("no URL: %v", err)
	}
	_, err := Connect(ConnectOptions{URL: "nats://alice:s3cret-pw@127.0.0.1:1"})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") || strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("unreachable: %v", err)
	}

	plainOpts := natstest.Options(t)
	plainOpts.JetStream = false
	plain := natstest.Start(t, plainOpts)
	nc, err := Connect(ConnectOptions{URL: plain.ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := njs.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	err = CheckJetStream(context.Background(), js)
	if err == nil || !strings.Contains(err.Error(), "JetStream is not enabled on "+plain.ClientURL()) {
		t.Errorf("server without JetStream: %v", err)
	}

	var logs syncBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(prev)
	srv := startServer(t)
	nc2, err := Connect(ConnectOptions{URL: srv.ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	defer nc2.Close()
	if err := CheckJetStream(context.Background(), mustJS(t, nc2)); err != nil {
		t.Errorf("JetStream server: %v", err)
	}
	srv.Shutdown()
	poll.Until(5*time.Second, func() bool { return strings.Contains(logs.String(), "nats disconnected") })
	if got := logs.String(); !strings.Contains(got, "nats disconnected") || !strings.Contains(got, srv.ClientURL()) {
		t.Errorf("disconnect not logged with its URL:\n%s", got)
	}
}

func mustJS(t *testing.T, nc *nats.Conn) njs.JetStream {
	t.Helper()
	js, err := njs.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestWaitNoticeWhileDisconnected: while the server is away, a client with
// WaitNotice says it is waiting, from which server and for how long.
func TestWaitNoticeWhileDisconnected(t *testing.T) {
	var logs syncBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(prev)
	srv := natstest.Start(t, nil)
	nc, err := Connect(ConnectOptions{URL: srv.ClientURL(), WaitNotice: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	srv.Shutdown()
	want := "waiting for NATS (disconnected from " + srv.ClientURL() + " since "
	if !poll.Until(10*time.Second, func() bool { return strings.Contains(logs.String(), want) }) {
		t.Errorf("no wait notice naming the server:\n%s", logs.String())
	}
}

// TestConnectRetriesUntilTheServerStarts: with ConnectTimeout, a client
// started before its server connects once the server is up; without a
// server the error names the URL and how long it retried.
func TestConnectRetriesUntilTheServerStarts(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	url := fmt.Sprintf("nats://127.0.0.1:%d", port)
	if _, err := Connect(ConnectOptions{URL: url, ConnectTimeout: 300 * time.Millisecond}); err == nil ||
		!strings.Contains(err.Error(), url+" (retried for 300ms)") {
		t.Errorf("no server: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		nc, err := Connect(ConnectOptions{URL: url, ConnectTimeout: time.Minute})
		if err == nil {
			nc.Close()
		}
		done <- err
	}()
	opts := natstest.Options(t)
	opts.Port = port
	natstest.Start(t, opts)
	if err := <-done; err != nil {
		t.Errorf("connect before the server started: %v", err)
	}
}
