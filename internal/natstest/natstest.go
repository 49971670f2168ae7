// Package natstest starts in-process nats-servers on loopback for tests.
package natstest

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Options are those of a JetStream server on a free loopback port that
// stores in a directory removed at test end, without logs or signals.
func Options(t testing.TB) *server.Options {
	return &server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true}
}

// Start runs a server with opts (Options(t) when nil), waits until it takes
// connections and shuts it down at test end. A server whose opts keep
// NoLog false logs to stderr.
func Start(t testing.TB, opts *server.Options) *server.Server {
	t.Helper()
	if opts == nil {
		opts = Options(t)
	}
	opts.NoSigs = true
	srv, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	if !opts.NoLog {
		srv.ConfigureLogger()
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server not ready")
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv
}
