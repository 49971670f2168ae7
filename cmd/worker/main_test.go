package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/internal/cli"
	"github.com/jetcompact/jetcompact/internal/poll"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// httpStatus is the status of a GET of path on addr, 0 when it fails.
func httpStatus(addr, path string) int {
	resp, err := http.Get(fmt.Sprintf("http://%s%s", addr, path))
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// waitReady waits until the worker serving /readyz on addr says it is ready:
// every segment's consumer bound, the service (when on) started before.
func waitReady(t *testing.T, addr string, errb *bytes.Buffer) {
	t.Helper()
	if !poll.Until(20*time.Second, func() bool { return httpStatus(addr, "/readyz") == http.StatusOK }) {
		t.Fatalf("never ready:\n%s", errb.String())
	}
}

func TestSetupOnlyAndBadFlags(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"--embedded", "--store-dir", t.TempDir(), "--embedded-listen", freeAddr(t), "--setup-only", "--http-addr", ""}
	if err := run(context.Background(), args, &out, &errb); err != nil {
		t.Fatalf("setup-only: %v\n%s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "topology ready") {
		t.Errorf("log: %s", errb.String())
	}
	if os.Getenv("GOGC") == "" {
		if got := debug.SetGCPercent(100); got != 400 {
			t.Errorf("GC percent after start = %d, want the --gc-percent default 400", got)
		}
	}
	for flags, want := range map[string]string{
		"--segment structured,dedup": "not a configured segment",
		"--mode turbo":               "--mode",
		"--tasks nope":               "--tasks",
		"--gc-percent 5":             "--gc-percent",
	} {
		err := run(context.Background(), append(strings.Fields(flags), "--nats", "nats://127.0.0.1:1"), &out, &errb)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", flags, err)
		}
	}
}

func TestHealthAndReadiness(t *testing.T) {
	httpAddr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var errb bytes.Buffer
	go func() {
		done <- run(ctx, []string{"--embedded", "--store-dir", t.TempDir(), "--embedded-listen", freeAddr(t), "--http-addr", httpAddr}, &bytes.Buffer{}, &errb)
	}()
	waitReady(t, httpAddr, &errb)
	if httpStatus(httpAddr, "/healthz") != http.StatusOK || httpStatus(httpAddr, "/metrics") != http.StatusOK {
		t.Error("healthz or metrics not served")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if !strings.Contains(errb.String(), "worker stopped") {
		t.Errorf("no stop log:\n%s", errb.String())
	}
}

// TestHelpAndUsageErrors: --help exits 0 with examples and the environment
// read; a usage error exits 2 with the error once and a one-line hint.
func TestHelpAndUsageErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := cli.ExitCode("worker", run(context.Background(), []string{"--help"}, &out, &errb), &errb); code != 0 {
		t.Errorf("--help exit %d", code)
	}
	for _, want := range []string{"examples:", "environment:", "NATS_URL", "-segment"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	for _, args := range [][]string{{"--no-such-flag"}, {"--gc-percent", "5"}, {"--segment", "nope", "--nats", "nats://127.0.0.1:1"}, {"--mode", "turbo"}, {"--http-addr", ""}} {
		out.Reset()
		errb.Reset()
		t.Setenv("NATS_URL", "")
		code := cli.ExitCode("worker", run(context.Background(), args, &out, &errb), &errb)
		if code != 2 || strings.Count(errb.String(), "worker:") != 1 || !strings.Contains(errb.String(), "--help") || strings.Contains(errb.String(), "-drain-timeout") {
			t.Errorf("%v: exit %d, want 2 with one error line and a hint:\n%s", args, code, errb.String())
		}
	}
}
