package jetstream

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/internal/natstest"
	"github.com/jetcompact/jetcompact/llm"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/telemetry"
	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// secureServer starts a JetStream server whose options mutate sets up.
func secureServer(t *testing.T, mutate func(*server.Options)) *server.Server {
	t.Helper()
	o := natstest.Options(t)
	o.NoLog = os.Getenv("SECURITY_LOG") == ""
	mutate(o)
	return natstest.Start(t, o)
}

// useFleet proves a connection works end to end: the topology is created,
// a worker runs on it and a document comes out.
func useFleet(t *testing.T, nc *nats.Conn, prefix, text string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	js, err := njs.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Prefix = prefix
	if err := EnsureTopology(ctx, js, cfg); err != nil {
		t.Fatalf("topology: %v", err)
	}
	pipe, _ := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	w, err := NewWorker(ctx, js, cfg, pipe, WithPullWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx, cfg.Segments, 5*time.Second) }()
	defer func() { stop(); <-done }()
	c, err := NewClient(ctx, js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Compact(ctx, Document{Text: text})
	if err != nil {
		t.Fatalf("compact: %v", err)
	}
	return res.DocID
}

// TestConnectAuth: for each way of authenticating, a server that requires
// it; Connect succeeds with the right credentials (and the fleet runs on
// the connection) and fails without them or with wrong ones.
func TestConnectAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: a server per auth method; runs without -short")
	}
	dir := t.TempDir()
	userKP, _ := nkeys.CreateUser()
	userPub, _ := userKP.PublicKey()
	userSeed, _ := userKP.Seed()
	seedFile := filepath.Join(dir, "user.nk")
	writeFile(t, seedFile, string(userSeed))
	otherKP, _ := nkeys.CreateUser()
	otherSeed, _ := otherKP.Seed()
	otherSeedFile := filepath.Join(dir, "other.nk")
	writeFile(t, otherSeedFile, string(otherSeed))
	op := newOperator(t, dir)
	pki := newPKI(t, dir)

	cases := []struct {
		name       string
		server     func(*server.Options)
		good       ConnectOptions
		bad        []ConnectOptions
		wantBadErr string
	}{
		{
			name:   "user-password",
			server: func(o *server.Options) { o.Username, o.Password = "alice", "pw-correct-horse" },
			good:   ConnectOptions{User: "alice", Password: "pw-correct-horse"},
			bad:    []ConnectOptions{{}, {User: "alice", Password: "pw-wrong-battery"}, {User: "bob", Password: "pw-correct-horse"}},
		},
		{
			name:   "token",
			server: func(o *server.Options) { o.Authorization = "tok-s3cr3t-value" },
			good:   ConnectOptions{Token: "tok-s3cr3t-value"},
			bad:    []ConnectOptions{{}, {Token: "tok-wrong-value"}},
		},
		{
			name:   "nkey",
			server: func(o *server.Options) { o.Nkeys = []*server.NkeyUser{{Nkey: userPub}} },
			good:   ConnectOptions{NKeyFile: seedFile},
			bad:    []ConnectOptions{{}, {NKeyFile: otherSeedFile}, {NKeyFile: filepath.Join(dir, "missing.nk")}},
		},
		{
			name:   "creds-jwt",
			server: op.configure,
			good:   ConnectOptions{CredsFile: op.creds},
			bad:    []ConnectOptions{{}, {CredsFile: op.strangerCreds}, {CredsFile: filepath.Join(dir, "missing.creds")}},
		},
		{
			name:   "tls",
			server: func(o *server.Options) { pki.serverTLS(t, o, false) },
			good:   ConnectOptions{TLSCA: pki.ca},
			bad:    []ConnectOptions{{}, {TLSCA: pki.otherCA}},
		},
		{
			name:   "mutual-tls",
			server: func(o *server.Options) { pki.serverTLS(t, o, true) },
			good:   ConnectOptions{TLSCA: pki.ca, TLSCert: pki.clientCert, TLSKey: pki.clientKey},
			bad:    []ConnectOptions{{TLSCA: pki.ca}, {TLSCA: pki.ca, TLSCert: pki.strangerCert, TLSKey: pki.strangerKey}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := secureServer(t, tc.server)
			url := srv.ClientURL()
			if strings.HasPrefix(tc.name, "tls") || tc.name == "mutual-tls" {
				url = strings.Replace(url, "nats://", "tls://", 1)
			}
			good := tc.good
			good.URL, good.Name = url, "security-test"
			nc, err := Connect(good)
			if err != nil {
				t.Fatalf("right credentials refused: %v", err)
			}
			defer nc.Close()
			useFleet(t, nc, "sec", testDocs(1)[0])
			for i, bad := range tc.bad {
				bad.URL = url
				nc, err := Connect(bad)
				if err == nil {
					nc.Close()
					t.Errorf("bad credentials %d accepted", i)
					continue
				}
				for _, secret := range []string{tc.good.Password, tc.good.Token, bad.Password, bad.Token, string(userSeed), string(otherSeed)} {
					if secret != "" && strings.Contains(err.Error(), secret) {
						t.Errorf("error %q echoes a secret", err)
					}
				}
			}
		})
	}
}

// operator is an operator/account/user JWT chain for a server in operator
// mode with a memory resolver.
type operator struct {
	claims        *jwt.OperatorClaims
	accountPub    string
	accountJWT    string
	systemPub     string // JetStream in operator mode needs a system account
	systemJWT     string
	creds         string // a user of the account
	strangerCreds string // a user signed by an account the server does not know
}

func newOperator(t *testing.T, dir string) *operator {
	t.Helper()
	opKP, _ := nkeys.CreateOperator()
	opPub, _ := opKP.PublicKey()
	oc := jwt.NewOperatorClaims(opPub)
	oc.Name = "jetcompact-test"
	opJWT, err := oc.Encode(opKP)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := jwt.DecodeOperatorClaims(opJWT)
	if err != nil {
		t.Fatal(err)
	}
	account := func(name string) (nkeys.KeyPair, string, string) {
		kp, _ := nkeys.CreateAccount()
		pub, _ := kp.PublicKey()
		ac := jwt.NewAccountClaims(pub)
		ac.Name = name
		ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
		tok, err := ac.Encode(opKP)
		if err != nil {
			t.Fatal(err)
		}
		return kp, pub, tok
	}
	user := func(accKP nkeys.KeyPair, accPub, file string) string {
		ukp, _ := nkeys.CreateUser()
		upub, _ := ukp.PublicKey()
		useed, _ := ukp.Seed()
		uc := jwt.NewUserClaims(upub)
		uc.IssuerAccount = accPub
		tok, err := uc.Encode(accKP)
		if err != nil {
			t.Fatal(err)
		}
		creds, err := jwt.FormatUserConfig(tok, useed)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, file)
		writeFile(t, path, string(creds))
		return path
	}
	accKP, accPub, accJWT := account("TENANT")
	strKP, strPub, _ := account("STRANGER")
	sysKP, _ := nkeys.CreateAccount()
	sysPub, _ := sysKP.PublicKey()
	sysJWT, err := jwt.NewAccountClaims(sysPub).Encode(opKP)
	if err != nil {
		t.Fatal(err)
	}
	return &operator{
		claims: claims, accountPub: accPub, accountJWT: accJWT, systemPub: sysPub, systemJWT: sysJWT,
		creds:         user(accKP, accPub, "user.creds"),
		strangerCreds: user(strKP, strPub, "stranger.creds"),
	}
}

func (op *operator) configure(o *server.Options) {
	res := &server.MemAccResolver{}
	_ = res.Store(op.accountPub, op.accountJWT)
	_ = res.Store(op.systemPub, op.systemJWT)
	o.SystemAccount = op.systemPub
	o.TrustedOperators = []*jwt.OperatorClaims{op.claims}
	o.AccountResolver = res
}

// pki is a CA with a server and a client certificate, and a stranger CA
// with its own client certificate, as PEM files.
type pki struct {
	ca, serverCert, serverKey, clientCert, clientKey string
	otherCA, strangerCert, strangerKey               string
}

func newPKI(t *testing.T, dir string) *pki {
	t.Helper()
	p := &pki{}
	caCert, caKey := makeCA(t, dir, "ca")
	p.ca = filepath.Join(dir, "ca.pem")
	p.serverCert, p.serverKey = makeLeaf(t, dir, "server", caCert, caKey, true)
	p.clientCert, p.clientKey = makeLeaf(t, dir, "client", caCert, caKey, false)
	otherCert, otherKey := makeCA(t, dir, "other-ca")
	p.otherCA = filepath.Join(dir, "other-ca.pem")
	p.strangerCert, p.strangerKey = makeLeaf(t, dir, "stranger", otherCert, otherKey, false)
	return p
}

func (p *pki) serverTLS(t *testing.T, o *server.Options, verify bool) {
	tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: p.serverCert, KeyFile: p.serverKey, CaFile: p.ca, Verify: verify})
	if err != nil {
		t.Fatal(err)
	}
	o.TLS, o.TLSVerify, o.TLSConfig, o.TLSTimeout = true, verify, tc, 2
}

func makeCA(t *testing.T, dir, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	writePEM(t, filepath.Join(dir, name+".pem"), "CERTIFICATE", der)
	return cert, key
}

func makeLeaf(t *testing.T, dir, name string, ca *x509.Certificate, caKey *ecdsa.PrivateKey, isServer bool) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature,
	}
	if isServer {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		tmpl.DNSNames = []string{"localhost"}
	} else {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath := filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	writePEM(t, certPath, "CERTIFICATE", der)
	writePEM(t, keyPath, "EC PRIVATE KEY", keyDER)
	return certPath, keyPath
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	writeFile(t, path, string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// tenantConfig is the server configuration the README shows for tenants:
// one account each, JetStream enabled per account. Subjects, streams,
// consumers and object stores of one account are invisible to the other,
// so two tenants may even use the same fleet.prefix.
const tenantConfig = `listen: 127.0.0.1:-1
jetstream {
  store_dir: %q
}
accounts {
  TENANT_A {
    jetstream: enabled
    users: [ { user: tenant-a, password: %q } ]
  }
  TENANT_B {
    jetstream: enabled
    users: [ { user: tenant-b, password: %q } ]
  }
}
`

// TestTenantIsolation runs a fleet for each of two accounts, both with
// the default prefix, and shows that tenant B cannot read tenant A's
// streams, originals, results or subjects.
func TestTenantIsolation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tenants.conf")
	writeFile(t, path, fmt.Sprintf(tenantConfig, filepath.Join(dir, "js"), "pw-a-1234", "pw-b-5678"))
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opts.NoLog = true
	srv := natstest.Start(t, opts)

	a, err := Connect(ConnectOptions{URL: srv.ClientURL(), User: "tenant-a", Password: "pw-a-1234"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Connect(ConnectOptions{URL: srv.ClientURL(), User: "tenant-b", Password: "pw-b-5678"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := Connect(ConnectOptions{URL: srv.ClientURL(), User: "tenant-b", Password: "pw-a-1234"}); err == nil {
		t.Fatal("tenant B logged in with tenant A's password")
	}

	// B listens on everything it can see while A runs its fleet.
	var mu sync.Mutex
	var seen []string
	sub, err := b.Subscribe(">", func(m *nats.Msg) {
		mu.Lock()
		seen = append(seen, m.Subject)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	docID := useFleet(t, a, "jc", "tenant A document\n"+testDocs(1)[0])
	_ = b.Flush()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bjs, _ := njs.New(b)
	n := Names{"jc"}
	for _, name := range []string{n.WorkStream(), n.OriginalsStream(), n.ResultsStream(), n.DeadStream(), "OBJ_" + n.OriginalBlobBucket()} {
		if _, err := bjs.Stream(ctx, name); err == nil {
			t.Errorf("tenant B sees tenant A's stream %s", name)
		}
	}
	mu.Lock()
	for _, s := range seen {
		if strings.HasPrefix(s, "jc.") {
			t.Errorf("tenant B received tenant A's message on %s", s)
		}
	}
	mu.Unlock()
	// B runs its own fleet under the same prefix and cannot reach A's document.
	useFleet(t, b, "jc", "tenant B document\n"+testDocs(1)[0])
	bc, err := NewClient(ctx, bjs, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	if _, err := bc.Original(ctx, docID); err == nil {
		t.Error("tenant B read tenant A's original")
	}
	ajs, _ := njs.New(a)
	st, _ := ajs.Stream(ctx, n.ResultsStream())
	info, _ := st.Info(ctx)
	if info.State.Msgs != 1 {
		t.Errorf("tenant A's results stream holds %d results, want its own 1", info.State.Msgs)
	}
}

// TestSecretsNeverLeak plants a NATS password, a NATS token and an OpenAI
// API key, drives the paths that fail with them (wrong password, a
// password inside the URL of an unreachable server, an LLM endpoint that
// rejects the key and echoes it back, an unreachable LLM), and checks that
// no secret appears in error strings, logs, span attributes, events and
// statuses, results, reports or dead letters.
func TestSecretsNeverLeak(t *testing.T) {
	const (
		natsPassword = "nats-pw-Zq8VkT3x"
		natsToken    = "nats-tok-M4pL9wQe"
		apiKey       = "sk-test-Hc7Rb2NnYv5Jd0"
	)
	secrets := []string{natsPassword, natsToken, apiKey}
	var leaks []string
	check := func(where, s string) {
		for _, secret := range secrets {
			if strings.Contains(s, secret) {
				leaks = append(leaks, fmt.Sprintf("%s: %q", where, s))
			}
		}
	}
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&logs, &logMu}, &slog.HandlerOptions{Level: slog.LevelDebug}))

	// Connection failures.
	srv := secureServer(t, func(o *server.Options) { o.Username, o.Password = "alice", natsPassword })
	if _, err := Connect(ConnectOptions{URL: srv.ClientURL(), User: "alice", Password: natsPassword + "x"}); err == nil {
		t.Error("wrong password accepted")
	} else {
		check("connect error (wrong password)", err.Error())
	}
	if _, err := Connect(ConnectOptions{URL: "nats://alice:" + natsPassword + "@127.0.0.1:1", Token: natsToken}); err == nil {
		t.Error("connected to port 1")
	} else {
		check("connect error (password in URL, unreachable)", err.Error())
	}
	tokSrv := secureServer(t, func(o *server.Options) { o.Authorization = natsToken })
	if _, err := Connect(ConnectOptions{URL: tokSrv.ClientURL(), Token: natsToken[:len(natsToken)-1]}); err == nil {
		t.Error("wrong token accepted")
	} else {
		check("connect error (wrong token)", err.Error())
	}

	// An LLM endpoint that refuses the key and echoes it back, then one
	// that does not answer at all.
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error"}}`,
			strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	defer echo.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()

	nc, err := Connect(ConnectOptions{URL: srv.ClientURL(), User: "alice", Password: natsPassword})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := njs.New(nc)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	deco, err := telemetry.Decorator(tp, metricnoop.NewMeterProvider())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i, base := range []string{echo.URL + "/v1", deadURL + "/v1"} {
		cfg := DefaultConfig()
		cfg.Prefix = fmt.Sprintf("leak%d", i)
		if err := EnsureTopology(ctx, js, cfg); err != nil {
			t.Fatal(err)
		}
		lc := llm.DefaultConfig()
		lc.BaseURL, lc.Model, lc.Timeout, lc.MaxRetries = base, "test-model", 2*time.Second, 1
		lc.Backoff.Base, lc.Backoff.Max = 10*time.Millisecond, 20*time.Millisecond
		summarizer, err := llm.New(lc, llm.WithLogger(logger), llm.WithLookupEnv(func(k string) (string, bool) {
			if k == llm.EnvAPIKey {
				return apiKey, true
			}
			return "", false
		}))
		if err != nil {
			t.Fatal(err)
		}
		check("summarizer formatted", fmt.Sprintf("%v %+v %#v %s", summarizer, summarizer, summarizer, summarizer))
		pc := pipeline.DefaultConfig()
		pc.Mode = stages.ModeLLM
		pc.SetNode(stages.KeyLLMSummary, true)
		pc.Options.LLMSummary.Threshold = 1
		pipe, err := pipeline.New(pc, stages.Deps{Summarizer: summarizer}, pipeline.WithDecorator(deco))
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewWorker(ctx, js, cfg, pipe, WithLogger(logger), WithTracerProvider(tp), WithPullWait(100*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		wctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- w.Run(wctx, cfg.Segments, 5*time.Second) }()
		c, err := NewClient(ctx, js, cfg, WithClientTracerProvider(tp))
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Compact(ctx, Document{Text: testDocs(1)[0], AllowLLM: true})
		if err != nil {
			check("compact error", err.Error())
			t.Fatal(err)
		}
		reason := ""
		for _, nr := range res.Report.Nodes {
			check("report reason", nr.Reason)
			if nr.Key == stages.KeyLLMSummary && nr.Skipped {
				reason = nr.Reason
			}
		}
		if !strings.Contains(reason, "llm failed") || (i == 0 && !strings.Contains(reason, "Incorrect API key provided")) {
			t.Errorf("endpoint %d: the LLM call did not fail as planted: %q", i, reason)
		}
		t.Logf("endpoint %d: llm_summary skipped: %s", i, reason)
		check("result", res.Text+res.Error+res.Report.Guard)
		st, _ := js.Stream(ctx, Names{cfg.Prefix}.ResultsStream())
		raw, err := st.GetLastMsgForSubject(ctx, Names{cfg.Prefix}.ResultSubject(res.DocID))
		if err == nil {
			for k, vs := range raw.Header {
				for _, v := range vs {
					check("result header "+k, v)
				}
			}
		}
		dl, _ := c.DeadLetters(ctx)
		for _, d := range dl {
			check("dead letter", d.Reason)
		}
		c.Close()
		stop()
		<-done
	}
	_ = tp.ForceFlush(ctx)
	for _, s := range rec.Ended() {
		check("span name", s.Name())
		check("span status", s.Status().Description)
		for _, a := range s.Attributes() {
			check("span attribute "+string(a.Key), a.Value.String())
		}
		for _, e := range s.Events() {
			check("span event "+e.Name, e.Name)
			for _, a := range e.Attributes {
				check("span event attribute "+string(a.Key), a.Value.String())
			}
		}
	}
	if len(rec.Ended()) == 0 {
		t.Error("no spans recorded: the check saw nothing")
	}
	logMu.Lock()
	check("logs", logs.String())
	logMu.Unlock()
	for _, l := range leaks {
		t.Errorf("secret leaked in %s", l)
	}
}

type lockedWriter struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
