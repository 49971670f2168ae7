// Package embedded starts an in-process nats-server with JetStream, reached
// over loopback TCP, for the one-command default and single-binary workers.
package embedded

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Options configure the embedded server.
type Options struct {
	// StoreDir holds JetStream's file storage.
	StoreDir string
	// Listen is host:port; port 0 or -1 picks a free one. Default 127.0.0.1:-1.
	Listen string
	// MaxPayload bounds one message; default 8 MiB.
	MaxPayload int32
}

// Server is a running embedded nats-server.
type Server struct{ ns *server.Server }

// Start runs a nats-server with JetStream and waits until it accepts clients.
func Start(o Options) (*Server, error) {
	if o.StoreDir == "" {
		return nil, fmt.Errorf("embedded: StoreDir is required")
	}
	host, port := "127.0.0.1", -1
	if o.Listen != "" {
		h, p, err := net.SplitHostPort(o.Listen)
		if err != nil {
			return nil, fmt.Errorf("embedded: listen %q: %w", o.Listen, err)
		}
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("embedded: listen port %q: %w", p, err)
		}
		if port == 0 {
			port = -1
		}
		host = h
	}
	if o.MaxPayload == 0 {
		o.MaxPayload = 8 << 20
	}
	ns, err := server.NewServer(&server.Options{
		ServerName: "jetcompact-embedded",
		Host:       host,
		Port:       port,
		JetStream:  true,
		StoreDir:   o.StoreDir,
		MaxPayload: o.MaxPayload,
		NoSigs:     true,
		NoLog:      true,
	})
	if err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, fmt.Errorf("embedded: nats-server not ready after 10s")
	}
	return &Server{ns: ns}, nil
}

// ClientURL is the loopback TCP URL clients connect to.
func (s *Server) ClientURL() string { return s.ns.ClientURL() }

// Shutdown stops the server and waits for it to finish.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}
