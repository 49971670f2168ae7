package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/internal/cli"
	"github.com/jetcompact/jetcompact/internal/natstest"
	"github.com/jetcompact/jetcompact/jetstream"
	njs "github.com/nats-io/nats.go/jetstream"
)

// exitOf runs the publisher as main does and returns its exit status and
// what it printed.
func exitOf(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.ExitCode("publisher", run(context.Background(), args, strings.NewReader(""), &out, &errb), &errb)
	return code, out.String(), errb.String()
}

func TestHelpExitsZeroAndShowsExamples(t *testing.T) {
	code, _, stderr := exitOf(t, "--help")
	if code != 0 {
		t.Errorf("--help exit %d", code)
	}
	for _, want := range []string{"examples:", "environment:", "NATS_URL", "-local"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

func TestUsageErrorExitsTwoWithOneLine(t *testing.T) {
	for _, args := range [][]string{{"--no-such-flag"}, {"--kind", "spreadsheet", "-"}, {"--local", "get"}} {
		code, _, stderr := exitOf(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if strings.Contains(stderr, "-store-dir") {
			t.Errorf("%v: printed the whole usage:\n%s", args, stderr)
		}
		if n := strings.Count(stderr, "publisher:"); n != 1 {
			t.Errorf("%v: error printed %d times:\n%s", args, n, stderr)
		}
		if !strings.Contains(stderr, "--help") {
			t.Errorf("%v: no hint:\n%s", args, stderr)
		}
	}
}

func TestValidate(t *testing.T) {
	code, stdout, _ := exitOf(t, "--config", "../../configs/jetcompact.yaml", "validate")
	if code != 0 || !strings.Contains(stdout, "is valid") || !strings.Contains(stdout, "keywords") {
		t.Errorf("shipped config: exit %d\n%s", code, stdout)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("pipeline:\n  mode: hybrid\n  nodes:\n    keywordz: {enabled: false}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := exitOf(t, "--config", bad, "validate")
	if code != 1 || !strings.Contains(stderr, "line 4") || !strings.Contains(stderr, `did you mean "keywords"`) {
		t.Errorf("misspelled node: exit %d\n%s", code, stderr)
	}
}

func TestVersionFallsBackToBuildInfo(t *testing.T) {
	code, stdout, _ := exitOf(t, "--version")
	if code != 0 || !strings.Contains(stdout, "revision") || !strings.Contains(stdout, "go1.") {
		t.Errorf("--version: exit %d %q", code, stdout)
	}
}

func TestOutputJSONAndFileHeaders(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	log := sampleLog(t)
	if err := os.WriteFile(a, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("just one line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := exitOf(t, "--local", "--output", "json", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one JSON object per input, got %d lines", len(lines))
	}
	var first result
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.File != a || first.ID == "" || first.Kind != "log" || first.CharsIn == 0 || first.Report == nil ||
		len(first.Report.Nodes) == 0 || first.Text != localResult(t, log, refPrefixOf(first.Text)) || first.Ratio >= 1 {
		t.Errorf("first result: %+v", first)
	}
	_, stdout, _ = exitOf(t, "--local", a, b)
	if !strings.HasPrefix(stdout, "==> "+a+" <==\n") || !strings.HasSuffix(stdout, "\n\n==> "+b+" <==\njust one line\n") {
		t.Errorf("text output lacks ==> FILE <== headers:\n%.300s", stdout)
	}
	_, stdout, _ = exitOf(t, "--local", "--quiet", a, b)
	if strings.Contains(stdout, "==> ") {
		t.Error("--quiet printed headers")
	}
	_, stdout, _ = exitOf(t, "--describe", "--output", "json")
	var d map[string]any
	if err := json.Unmarshal([]byte(stdout), &d); err != nil || d["nodes"] == nil {
		t.Errorf("--describe --output json: %v %.200s", err, stdout)
	}
}

// TestFleetTroubleIsNamed: a server without JetStream is named as such,
// and a --timeout that runs out with no worker running says so.
func TestFleetTroubleIsNamed(t *testing.T) {
	opts := natstest.Options(t)
	opts.JetStream = false
	plain := natstest.Start(t, opts)
	code, _, stderr := exitOf(t, "--nats", plain.ClientURL(), "dead")
	if code != 1 || !strings.Contains(stderr, "JetStream is not enabled on "+plain.ClientURL()) {
		t.Errorf("server without JetStream: exit %d\n%s", code, stderr)
	}

	srv := natstest.Start(t, nil)
	nc, err := jetstream.Connect(jetstream.ConnectOptions{URL: srv.ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := njs.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if err := jetstream.EnsureTopology(context.Background(), js, jetstream.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = exitOf(t, "--nats", srv.ClientURL(), "--timeout", "1s", "--no-store", "../../testdata/app.log")
	if code != 1 || !strings.Contains(stderr, "gave up after --timeout 1s: no worker is pulling from consumer jc_intake") {
		t.Errorf("no workers: exit %d\n%s", code, stderr)
	}
}
