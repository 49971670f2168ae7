package embedded

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// TestEmbeddedServerRequiresTheWorkersCredentials: with a token, a user
// or an nkey, the embedded server refuses clients without them; with a
// certificate it speaks TLS only, while the worker's own in-process
// connection needs no network.
func TestEmbeddedServerRequiresTheWorkersCredentials(t *testing.T) {
	dir := t.TempDir()
	kp, _ := nkeys.CreateUser()
	seed, _ := kp.Seed()
	seedFile := filepath.Join(dir, "user.nk")
	if err := os.WriteFile(seedFile, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	nkeyOpt, err := nats.NkeyOptionFromSeed(seedFile)
	if err != nil {
		t.Fatal(err)
	}
	cert, key := selfSigned(t, dir)
	for name, tc := range map[string]struct {
		opts Options
		good nats.Option
	}{
		"token": {Options{Token: "tok-embedded-1"}, nats.Token("tok-embedded-1")},
		"user":  {Options{User: "w", Password: "pw-embedded-2"}, nats.UserInfo("w", "pw-embedded-2")},
		"nkey":  {Options{NKeySeedFile: seedFile}, nkeyOpt},
		"tls":   {Options{Token: "tok-embedded-3", TLSCert: cert, TLSKey: key}, nats.Token("tok-embedded-3")},
	} {
		t.Run(name, func(t *testing.T) {
			o := tc.opts
			o.StoreDir = t.TempDir()
			srv, err := Start(o)
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Shutdown()
			url := srv.ClientURL()
			secure := []nats.Option{nats.Secure(&tls.Config{InsecureSkipVerify: true})} //nolint:gosec // a self-signed test certificate
			if o.TLSCert == "" {
				secure = nil
			}
			if nc, err := nats.Connect(url, secure...); err == nil {
				nc.Close()
				t.Error("a client without credentials was accepted")
			}
			nc, err := nats.Connect(url, append(secure, tc.good)...)
			if err != nil {
				t.Fatalf("the right credentials: %v", err)
			}
			nc.Close()
			if o.TLSCert != "" {
				if nc, err := nats.Connect(url, tc.good); err == nil {
					nc.Close()
					t.Error("a plain connection to a TLS server was accepted")
				}
			}
			inProcess := []nats.Option{nats.InProcessServer(srv), tc.good}
			if o.TLSCert != "" {
				inProcess = append(inProcess, secure...)
			}
			own, err := nats.Connect(url, inProcess...)
			if err != nil {
				t.Fatalf("in process: %v", err)
			}
			own.Close()
		})
	}
	if _, err := Start(Options{StoreDir: t.TempDir(), Token: "a", User: "b"}); err == nil || !strings.Contains(err.Error(), "at most one") {
		t.Errorf("two kinds of credentials: %v", err)
	}
}

func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "embedded"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(k)
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
