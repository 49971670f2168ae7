package jetstream

import (
	"flag"
	"testing"
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
