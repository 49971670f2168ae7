package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/embedded"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
)

func runPublisher(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out bytes.Buffer
	var errb lockedBuffer // the default logger may still write after run returns
	err := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), err
}

func sampleLog(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../testdata/app.log")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// localResult is the in-process pipeline's output for text, with the
// references the publisher adds when it stored the original under an id
// starting with idPrefix ("": none).
func localResult(t *testing.T, text, idPrefix string) string {
	t.Helper()
	p, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Compact(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	return pipeline.AddRefs(text, res.Text, idPrefix)
}

// refPrefixOf is the id prefix the first reference in out names, or "".
func refPrefixOf(out string) string {
	if m := refInOutput.FindStringSubmatch(out); m != nil {
		id, _, _ := strings.Cut(m[1], ":")
		return id
	}
	return ""
}

func TestLocalAndEmbeddedFleetAgree(t *testing.T) {
	text := sampleLog(t)
	local, report, err := runPublisher(t, text, "--local", "--report", "-")
	if err != nil {
		t.Fatal(err)
	}
	if local != localResult(t, text, refPrefixOf(local)) {
		t.Error("--local differs from the pipeline")
	}
	if len(local) >= len(text)/5 || !strings.Contains(local, "charge failed for order") {
		t.Errorf("--local did not compact the sample log sensibly (%d of %d bytes)", len(local), len(text))
	}
	for _, k := range []string{"structured", "log_dedup", "headtail", "guard", "ratio"} {
		if !strings.Contains(report, k) {
			t.Errorf("report lacks %q:\n%s", k, report)
		}
	}
	fleet, _, err := runPublisher(t, text, "-")
	if err != nil {
		t.Fatal(err)
	}
	if fleet != local {
		t.Errorf("embedded fleet differs from --local")
	}
}

func TestGetAndReplayFromAStoreDir(t *testing.T) {
	dir := t.TempDir()
	text := sampleLog(t)
	first, report, err := runPublisher(t, text, "--store-dir", dir, "--report", "-")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`doc id: (\S+)`).FindStringSubmatch(report)
	if m == nil {
		t.Fatalf("no doc id in report:\n%s", report)
	}
	orig, _, err := runPublisher(t, "", "--store-dir", dir, "get", m[1])
	if err != nil || orig != text {
		t.Fatalf("get: %v (equal=%v)", err, orig == text)
	}
	again, _, err := runPublisher(t, "", "--store-dir", dir, "replay", m[1])
	if err != nil || again != first {
		t.Fatalf("replay: %v (equal=%v)", err, again == first)
	}
	// Flags may follow the subcommand's argument; replay takes --output json.
	js, _, err := runPublisher(t, "", "replay", m[1], "--store-dir", dir, "--output", "json")
	var r result
	if err != nil || json.Unmarshal([]byte(js), &r) != nil || r.ID != m[1] || r.Text != first || r.Report == nil {
		t.Fatalf("replay ID --output json: %v %.200s", err, js)
	}
	if _, _, err := runPublisher(t, "", "get", "x"); err == nil || !strings.Contains(err.Error(), "unknown reference: x") {
		t.Errorf("get of an unknown reference: %v", err)
	}
}

func TestDescribeNamesTheClosedGate(t *testing.T) {
	out, _, err := runPublisher(t, "", "--describe", "--mode", "llm")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "gate 4") || !strings.Contains(out, "mode: llm") {
		t.Errorf("describe:\n%s", out)
	}
	out, _, _ = runPublisher(t, "", "--describe", "--no-llm", "--mode", "hybrid")
	if !strings.Contains(out, "gate 1") {
		t.Errorf("describe on the algorithmic entry point:\n%s", out)
	}
	out, _, _ = runPublisher(t, "", "--describe")
	if !strings.Contains(out, "disabled in config") || !strings.Contains(out, "(built-in defaults)") {
		t.Errorf("describe defaults:\n%s", out)
	}
}

func TestBadFlagsAreClearErrors(t *testing.T) {
	for args, want := range map[string]string{
		"--mode turbo":               "--mode",
		"--kind xml":                 "--kind",
		"--config /no/such/file":     "no such file",
		"--local --id a x.log y.log": "--id",
	} {
		_, _, err := runPublisher(t, "", strings.Fields(args)...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", args, err)
		}
	}
}

// TestReadmeMainCommand runs the README's main command the way a new user
// would: in a fresh clone of this repository.
func TestReadmeMainCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("clones the repository and builds the publisher")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^(go run ./cmd/publisher \S+)$`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no main command line")
	}
	command := string(m[1])
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout")
	}
	clone := filepath.Join(t.TempDir(), "jetcompact")
	if out, err := exec.Command("git", "clone", "-q", root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = clone
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", command, err, stderr.String())
	}
	in, _ := os.ReadFile(filepath.Join(clone, "testdata/app.log"))
	if stdout.Len() == 0 || stdout.Len() >= len(in) {
		t.Fatalf("%s printed %d bytes for %d in", command, stdout.Len(), len(in))
	}
	if stdout.String() != localResult(t, string(in), refPrefixOf(stdout.String())) {
		t.Error("the README command's output differs from the in-process pipeline")
	}
}

// TestPublisherNeverChangesAFleetsTopology: with --nats the publisher uses
// the topology the fleet's workers made and never rewrites it with its own
// (here default) config; without one it says what is missing.
func TestPublisherNeverChangesAFleetsTopology(t *testing.T) {
	ctx := context.Background()
	p, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := jetstream.DefaultConfig()
	cfg.OriginalsMaxAge = 48 * time.Hour
	cfg.MaxAge = 2 * time.Hour
	fleet, err := embedded.StartFleet(ctx, embedded.FleetOptions{StoreDir: t.TempDir(), Fleet: cfg, Pipeline: p})
	if err != nil {
		t.Fatal(err)
	}
	defer fleet.Close()
	text := sampleLog(t)
	out, _, err := runPublisher(t, text, "--nats", fleet.URL(), "-")
	if err != nil || out != localResult(t, text, refPrefixOf(out)) {
		t.Fatalf("publish to the fleet: %v (equal to local: %v)", err, out == localResult(t, text, refPrefixOf(out)))
	}
	nc, err := nats.Connect(fleet.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := njs.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	names := jetstream.Names{Prefix: cfg.Prefix}
	for stream, want := range map[string]time.Duration{names.OriginalsStream(): cfg.OriginalsMaxAge, names.WorkStream(): cfg.MaxAge} {
		st, err := js.Stream(ctx, stream)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.CachedInfo().Config.MaxAge; got != want {
			t.Errorf("%s max age %s after a publisher ran, want the fleet's %s", stream, got, want)
		}
	}

	bare, err := embedded.Start(embedded.Options{StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Shutdown()
	if _, _, err := runPublisher(t, text, "--nats", bare.ClientURL(), "-"); err == nil || !strings.Contains(err.Error(), "no topology") {
		t.Errorf("a server without a topology: err = %v, want it named", err)
	}
}

// TestPublisherAuthenticatesToACluster: the publisher's credential flags
// reach the server (here user and password, the password from
// NATS_PASSWORD); without them it is refused with the server's reason.
func TestPublisherAuthenticatesToACluster(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(),
		Username: "alice", Password: "pw-Qx81", NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server not ready")
	}
	defer srv.Shutdown()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	nc, err := jetstream.Connect(jetstream.ConnectOptions{URL: srv.ClientURL(), User: "alice", Password: "pw-Qx81"})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := njs.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := jetstream.DefaultConfig()
	if err := jetstream.EnsureTopology(ctx, js, cfg); err != nil {
		t.Fatal(err)
	}
	p, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := jetstream.NewWorker(ctx, js, cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, cfg.Segments, 5*time.Second) }()
	defer func() { cancel(); <-done }()

	text := sampleLog(t)
	t.Setenv("NATS_PASSWORD", "")
	if _, _, err := runPublisher(t, text, "--nats", srv.ClientURL(), "--nats-user", "alice", "-"); err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Errorf("without the password: err = %v, want the server's refusal", err)
	}
	t.Setenv("NATS_PASSWORD", "pw-Qx81")
	out, _, err := runPublisher(t, text, "--nats", srv.ClientURL(), "--nats-user", "alice", "-")
	if err != nil || out != localResult(t, text, refPrefixOf(out)) {
		t.Fatalf("with the password: %v (equal to local: %v)", err, out == localResult(t, text, refPrefixOf(out)))
	}
}
