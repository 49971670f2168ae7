package jetstream

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
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
	// ConnectTimeout keeps retrying the first connection this long (0: one
	// try), as a worker started before its server needs.
	ConnectTimeout time.Duration
	// InboxPrefix replaces _INBOX for replies; with per-role permissions
	// (RolePermissions) each role has its own.
	InboxPrefix string
	// InProcess reaches an embedded server without the network;
	// InProcessTLS says that server speaks TLS (over the in-process pipe
	// there is no peer to verify).
	InProcess    nats.InProcessConnProvider
	InProcessTLS bool
	// WaitNotice, when set, logs "waiting for NATS (disconnected from URL
	// since N s)" at this interval while the connection is down.
	WaitNotice time.Duration
}

// Connect dials NATS with reconnects that never give up, so a restarted
// server is rejoined and in-flight work resumes. Disconnects, reconnects
// and the close are logged with the server's URL (credentials removed).
func Connect(o ConnectOptions) (*nats.Conn, error) {
	if o.URL == "" {
		return nil, errors.New("nats: no server URL: give --nats URL or set NATS_URL (the worker can also start its own with --embedded)")
	}
	where := RedactURL(o.URL)
	var outage atomic.Int64 // counts disconnects: a notice ends when a newer one starts
	opts := []nats.Option{
		nats.Name(o.Name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.ReconnectBufSize(64 << 20),
		nats.Timeout(5 * time.Second),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			if err == nil {
				return // our own Close
			}
			slog.Warn("nats disconnected", "url", where, "error", redact(err, o).Error())
			if o.WaitNotice > 0 {
				go noticeWhileDown(nc, where, o.WaitNotice, outage.Add(1), &outage)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			slog.Info("nats reconnected", "url", nc.ConnectedUrlRedacted())
		}),
		nats.ClosedHandler(func(nc *nats.Conn) {
			if err := nc.LastError(); err != nil { // not our own Close
				slog.Warn("nats connection closed", "url", where, "error", redact(err, o).Error())
			}
		}),
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
	deadline := time.Now().Add(o.ConnectTimeout)
	delay := 250 * time.Millisecond
	for {
		nc, err := nats.Connect(o.URL, opts...)
		if err == nil {
			return nc, nil
		}
		if !time.Now().Before(deadline) || errors.Is(err, nats.ErrAuthorization) {
			if o.ConnectTimeout > 0 {
				return nil, fmt.Errorf("nats: connect to %s (retried for %s): %w", where, o.ConnectTimeout, redact(err, o))
			}
			return nil, fmt.Errorf("nats: connect to %s: %w", where, redact(err, o))
		}
		delay = min(delay, time.Until(deadline))
		slog.Warn("nats not reachable; retrying", "url", where, "in", delay.Round(time.Millisecond).String(), "error", redact(err, o).Error())
		time.Sleep(delay)
		delay = min(2*delay, 5*time.Second)
	}
}

// noticeWhileDown logs every interval that nc is still disconnected from
// where, until it reconnects, closes, or a later disconnect takes over.
func noticeWhileDown(nc *nats.Conn, where string, interval time.Duration, n int64, outage *atomic.Int64) {
	since := time.Now()
	for {
		time.Sleep(interval)
		if nc.IsConnected() || nc.IsClosed() || outage.Load() != n {
			return
		}
		slog.Warn(fmt.Sprintf("waiting for NATS (disconnected from %s since %.0f s)", where, time.Since(since).Seconds()), "url", where)
	}
}

// RedactURL is a server URL (or a comma-separated list) without user
// information, for errors and logs.
func RedactURL(raw string) string {
	parts := strings.Split(raw, ",")
	for i, p := range parts {
		if u, err := url.Parse(strings.TrimSpace(p)); err == nil && u.User != nil {
			u.User = nil
			parts[i] = u.String()
		}
	}
	return strings.Join(parts, ",")
}

// CheckJetStream asks the server for the account's JetStream info once
// and names a server without JetStream as such. Any other failure (a
// client whose permissions do not cover the info request) is left to the
// calls that follow.
func CheckJetStream(ctx context.Context, js njs.JetStream) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := js.AccountInfo(ctx); jetStreamMissing(err) {
		return ExplainJetStream(err, js.Conn())
	}
	return nil
}

// ExplainJetStream returns err, or for the errors of a server without
// JetStream ("no responders") one that says so and names the server.
func ExplainJetStream(err error, nc *nats.Conn) error {
	if jetStreamMissing(err) {
		return fmt.Errorf("JetStream is not enabled on %s (start nats-server with -js, or enable it for this account): %w", nc.ConnectedUrlRedacted(), err)
	}
	return err
}

func jetStreamMissing(err error) bool {
	return errors.Is(err, nats.ErrNoResponders) || errors.Is(err, njs.ErrJetStreamNotEnabled) || errors.Is(err, njs.ErrJetStreamNotEnabledForAccount)
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
	fs.StringVar(&o.TLSCA, "tls-ca", firstEnv("NATS_CA", "NATS_TLS_CA"), "CA bundle that signs the server certificate (env NATS_CA)")
	fs.StringVar(&o.TLSCert, "tls-cert", firstEnv("NATS_CERT", "NATS_TLS_CERT"), "client certificate for mutual TLS (env NATS_CERT)")
	fs.StringVar(&o.TLSKey, "tls-key", firstEnv("NATS_KEY", "NATS_TLS_KEY"), "client key for mutual TLS (env NATS_KEY)")
	fs.StringVar(&o.InboxPrefix, "nats-inbox-prefix", os.Getenv("NATS_INBOX_PREFIX"), "reply subject prefix instead of _INBOX (per-role permissions)")
	o.Password = os.Getenv("NATS_PASSWORD")
	o.Token = os.Getenv("NATS_TOKEN")
}

// firstEnv is the first of the named variables that is set: natscli's
// names (NATS_CA, NATS_CERT, NATS_KEY) before this project's older ones.
func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}
