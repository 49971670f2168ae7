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

// TestEmbeddedServerLoadsRoleUsers: an authorization file adds users whose
// permissions the server enforces, with passwords from the environment,
// while the worker's own user keeps full access.
func TestEmbeddedServerLoadsRoleUsers(t *testing.T) {
	dir := t.TempDir()
	auth := filepath.Join(dir, "auth.conf")
	conf := `authorization {
  users = [
    { user: "pub", password: $EMBEDDED_TEST_PUB_PASSWORD, permissions: {
        publish: { allow: ["ok.>"] }
        subscribe: { allow: ["_INBOX_pub.>"] }
      } }
  ]
}
`
	if err := os.WriteFile(auth, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EMBEDDED_TEST_PUB_PASSWORD", "pw-pub-1")
	srv, err := Start(Options{StoreDir: t.TempDir(), User: "w", Password: "pw-worker-1", Authorization: auth})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	url := srv.ClientURL()

	own, err := nats.Connect(url, nats.UserInfo("w", "pw-worker-1"))
	if err != nil {
		t.Fatalf("the worker's own user: %v", err)
	}
	defer own.Close()
	got := make(chan string, 4)
	for _, subj := range []string{"ok.a", "no.a"} {
		if _, err := own.Subscribe(subj, func(m *nats.Msg) { got <- m.Subject }); err != nil {
			t.Fatalf("the worker's own user may subscribe anywhere: %v", err)
		}
	}
	if err := own.Flush(); err != nil {
		t.Fatal(err)
	}

	denied := make(chan error, 4)
	pub, err := nats.Connect(url, nats.UserInfo("pub", "pw-pub-1"), nats.CustomInboxPrefix("_INBOX_pub"),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { denied <- err }))
	if err != nil {
		t.Fatalf("a role user: %v", err)
	}
	defer pub.Close()
	_ = pub.Publish("no.a", []byte("x"))
	_ = pub.Publish("ok.a", []byte("x"))
	_ = pub.Flush()
	select {
	case s := <-got:
		if s != "ok.a" {
			t.Errorf("received %s first; the role may publish only ok.>", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the role's allowed publish never arrived")
	}
	select {
	case err := <-denied:
		if !strings.Contains(strings.ToLower(err.Error()), "permissions violation") {
			t.Errorf("denied publish: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the server did not refuse the role's publish to no.a")
	}
	select {
	case s := <-got:
		t.Errorf("%s was delivered", s)
	case <-time.After(200 * time.Millisecond):
	}
	if nc, err := nats.Connect(url, nats.UserInfo("pub", "wrong")); err == nil {
		nc.Close()
		t.Error("a wrong role password was accepted")
	}

	for name, o := range map[string]Options{
		"token":              {Token: "t", Authorization: auth},
		"no own user":        {Authorization: auth},
		"own user is a role": {User: "pub", Password: "p", Authorization: auth},
		"missing file":       {User: "w", Password: "p", Authorization: filepath.Join(dir, "none.conf")},
	} {
		o.StoreDir = t.TempDir()
		if s, err := Start(o); err == nil {
			s.Shutdown()
			t.Errorf("%s: started", name)
		}
	}
	t.Setenv("EMBEDDED_TEST_PUB_PASSWORD", "")
	os.Unsetenv("EMBEDDED_TEST_PUB_PASSWORD")
	if s, err := Start(Options{StoreDir: t.TempDir(), User: "w", Password: "p", Authorization: auth}); err == nil {
		s.Shutdown()
		t.Error("started with a role password variable unset")
	}
}
