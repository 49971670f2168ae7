// Package embedded starts an in-process nats-server with JetStream, reached
// over loopback TCP, for the one-command default and single-binary workers.
package embedded

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// Options configure the embedded server.
type Options struct {
	// StoreDir holds JetStream's file storage.
	StoreDir string
	// Listen is host:port; port 0 or -1 picks a free one. Default 127.0.0.1:-1.
	Listen string
	// MaxPayload bounds one message; default 8 MiB.
	MaxPayload int32
	// Clients must present these credentials, when set: a token, a user
	// and password, or the NKey whose seed file is given (the worker
	// passes the ones it connects with itself). At most one.
	Token          string
	User, Password string
	NKeySeedFile   string
	// TLSCert and TLSKey make the server speak TLS only.
	TLSCert, TLSKey string
	// Authorization names a nats-server config file whose authorization
	// block (users with permissions, as `worker --print-permissions`
	// prints it; passwords may be $VARIABLES from the environment) adds
	// least-privilege users for the server's other clients. The worker's
	// own user or NKey keeps full access; a token cannot be combined.
	Authorization string
}

// configureAuth sets o's client authentication and TLS on so.
func (o Options) configureAuth(so *server.Options) error {
	set := 0
	for _, on := range []bool{o.Token != "", o.User != "", o.NKeySeedFile != ""} {
		if on {
			set++
		}
	}
	if set > 1 {
		return fmt.Errorf("embedded: configure at most one of token, user and nkey")
	}
	var roles []*server.User
	if o.Authorization != "" {
		if o.User == "" && o.NKeySeedFile == "" {
			return fmt.Errorf("embedded: an authorization file needs the worker's own user or nkey (a token cannot be combined with users)")
		}
		file, err := server.ProcessConfigFile(o.Authorization)
		if err != nil {
			return fmt.Errorf("embedded: authorization %s: %w", o.Authorization, err)
		}
		if len(file.Users) == 0 {
			return fmt.Errorf("embedded: authorization %s has no users", o.Authorization)
		}
		for _, u := range file.Users {
			if u.Username == o.User {
				return fmt.Errorf("embedded: authorization %s: user %q is the worker's own", o.Authorization, u.Username)
			}
		}
		roles = file.Users
		so.Users = roles
	}
	switch {
	case o.Token != "":
		so.Authorization = o.Token
	case o.User != "" && roles != nil:
		so.Users = append(roles, &server.User{Username: o.User, Password: o.Password})
	case o.User != "":
		so.Username, so.Password = o.User, o.Password
	case o.NKeySeedFile != "":
		seed, err := os.ReadFile(o.NKeySeedFile)
		if err != nil {
			return fmt.Errorf("embedded: nkey seed file: %w", err)
		}
		kp, err := nkeys.FromSeed(bytes.TrimSpace(seed))
		if err != nil {
			return fmt.Errorf("embedded: nkey seed file %s: not a seed", o.NKeySeedFile)
		}
		pub, err := kp.PublicKey()
		if err != nil {
			return fmt.Errorf("embedded: nkey: %w", err)
		}
		so.Nkeys = []*server.NkeyUser{{Nkey: pub}}
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return fmt.Errorf("embedded: TLS needs both a certificate and a key")
	}
	if o.TLSCert != "" {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: o.TLSCert, KeyFile: o.TLSKey})
		if err != nil {
			return fmt.Errorf("embedded: tls: %w", err)
		}
		so.TLS, so.TLSConfig = true, tc
	}
	return nil
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
	so := &server.Options{
		ServerName: "jetcompact-embedded",
		Host:       host,
		Port:       port,
		JetStream:  true,
		StoreDir:   o.StoreDir,
		MaxPayload: o.MaxPayload,
		NoSigs:     true,
		NoLog:      true,
	}
	if err := o.configureAuth(so); err != nil {
		return nil, err
	}
	ns, err := server.NewServer(so)
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

// InProcessConn connects without the network (nats.InProcessServer), so
// the worker reaches its own server whatever TLS the port speaks.
func (s *Server) InProcessConn() (net.Conn, error) { return s.ns.InProcessConn() }

// Shutdown stops the server and waits for it to finish.
func (s *Server) Shutdown() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}
