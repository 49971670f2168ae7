package jetstream

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// ConnectOptions say how to reach and authenticate to NATS. Secrets come
// from files or the environment and never appear in errors or logs.
type ConnectOptions struct {
	URL       string
	Name      string
	CredsFile string // JWT + NKey creds file
	NKeyFile  string // NKey seed file
	User      string
	Password  string
	Token     string
	TLSCA     string // CA bundle to verify the server
	TLSCert   string // client certificate, for mutual TLS
	TLSKey    string
	// InboxPrefix replaces _INBOX for replies; with per-role permissions
	// (RolePermissions) each role has its own.
	InboxPrefix string
	// InProcess reaches an embedded server without the network;
	// InProcessTLS says that server speaks TLS (over the in-process pipe
	// there is no peer to verify).
	InProcess    nats.InProcessConnProvider
	InProcessTLS bool
}

// Connect dials NATS with reconnects that never give up, so a restarted
// server is rejoined and in-flight work resumes.
func Connect(o ConnectOptions) (*nats.Conn, error) {
	if o.URL == "" {
		return nil, errors.New("nats: no server URL")
	}
	opts := []nats.Option{
		nats.Name(o.Name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.ReconnectBufSize(64 << 20),
		nats.Timeout(5 * time.Second),
	}
	if o.CredsFile != "" {
		opts = append(opts, nats.UserCredentials(o.CredsFile))
	}
	if o.NKeyFile != "" {
		opt, err := nats.NkeyOptionFromSeed(o.NKeyFile)
		if err != nil {
			return nil, fmt.Errorf("nats: nkey seed file %s: %w", o.NKeyFile, redact(err, o))
		}
		opts = append(opts, opt)
	}
	if o.User != "" {
		opts = append(opts, nats.UserInfo(o.User, o.Password))
	}
	if o.Token != "" {
		opts = append(opts, nats.Token(o.Token))
	}
	if o.InProcess != nil {
		opts = append(opts, nats.InProcessServer(o.InProcess))
		if o.InProcessTLS {
			opts = append(opts, nats.Secure(&tls.Config{InsecureSkipVerify: true})) //nolint:gosec // in process: no network peer
		}
	}
	if o.InboxPrefix != "" {
		opts = append(opts, nats.CustomInboxPrefix(o.InboxPrefix))
	}
	if o.TLSCA != "" {
		opts = append(opts, nats.RootCAs(o.TLSCA))
	}
	if o.TLSCert != "" || o.TLSKey != "" {
		opts = append(opts, nats.ClientCert(o.TLSCert, o.TLSKey))
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("nats: connect: %w", redact(err, o))
	}
	return nc, nil
}

// redact drops any secret that an underlying error might echo.
func redact(err error, o ConnectOptions) error {
	msg := err.Error()
	for _, s := range []string{o.Password, o.Token} {
		if len(s) >= 4 && strings.Contains(msg, s) {
			return errors.New("connection failed (details withheld: they contained a secret)")
		}
	}
	return err
}

// RegisterFlags binds the connection flags. Passwords and tokens come only
// from the environment (NATS_PASSWORD, NATS_TOKEN), never from arguments.
func (o *ConnectOptions) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.URL, "nats", os.Getenv("NATS_URL"), "NATS server URL (env NATS_URL)")
	fs.StringVar(&o.CredsFile, "nats-creds", os.Getenv("NATS_CREDS"), "NATS credentials file (env NATS_CREDS)")
	fs.StringVar(&o.NKeyFile, "nats-nkey", os.Getenv("NATS_NKEY"), "NATS NKey seed file (env NATS_NKEY)")
	fs.StringVar(&o.User, "nats-user", os.Getenv("NATS_USER"), "NATS user; the password comes from env NATS_PASSWORD")
	fs.StringVar(&o.TLSCA, "tls-ca", os.Getenv("NATS_TLS_CA"), "CA bundle that signs the server certificate")
	fs.StringVar(&o.TLSCert, "tls-cert", os.Getenv("NATS_TLS_CERT"), "client certificate for mutual TLS")
	fs.StringVar(&o.TLSKey, "tls-key", os.Getenv("NATS_TLS_KEY"), "client key for mutual TLS")
	fs.StringVar(&o.InboxPrefix, "nats-inbox-prefix", os.Getenv("NATS_INBOX_PREFIX"), "reply subject prefix instead of _INBOX (per-role permissions)")
	o.Password = os.Getenv("NATS_PASSWORD")
	o.Token = os.Getenv("NATS_TOKEN")
}
