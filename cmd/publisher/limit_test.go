package main

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// smallLimitConfig writes a config whose max_document_bytes is 4 KiB.
func smallLimitConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(path, []byte("fleet:\n  inline_max_bytes: 1024\n  max_document_bytes: 4096\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMaxDocumentBytesCheckedBeforeReading is issue 15 item 8: a file
// above max_document_bytes is refused by its size, before it is read, in
// --local and on the fleet; a stream is cut at the limit. A 1 GiB sparse
// file costs almost no memory to refuse.
func TestMaxDocumentBytesCheckedBeforeReading(t *testing.T) {
	cfg := smallLimitConfig(t)
	big := filepath.Join(t.TempDir(), "sparse.log")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, mode := range [][]string{{"--local"}, {}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _, err := runPublisher(t, "", append(mode, "--config", cfg, big)...)
		runtime.ReadMemStats(&after)
		if err == nil || !errors.Is(err, errTooLarge) || !strings.Contains(err.Error(), big) || !strings.Contains(err.Error(), "4096") {
			t.Errorf("%v: error %v, want one naming the file and the limit", mode, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%v: %d MiB allocated to refuse a sparse file", mode, grew>>20)
		}
	}
	// Stdin has no size: it is read through the limit.
	if _, _, err := runPublisher(t, strings.Repeat("x", 5000), "--local", "--config", cfg, "-"); !errors.Is(err, errTooLarge) {
		t.Errorf("stdin above the limit: %v", err)
	}
	// At the limit exactly, it is read.
	at := strings.Repeat("line\n", 4096/5)
	if out, _, err := runPublisher(t, at, "--local", "--config", cfg, "-"); err != nil || out == "" {
		t.Errorf("at the limit: %v", err)
	}
}

// TestBinaryInputWarns: binary input passes through unchanged with a
// warning that names the input.
func TestBinaryInputWarns(t *testing.T) {
	raw := strings.Repeat("\x00\x01\x02\x03bin", 1000)
	out, stderr, err := runPublisher(t, raw, "--local", "-")
	if err != nil {
		t.Fatal(err)
	}
	if out != raw {
		t.Error("binary input changed")
	}
	if !strings.Contains(stderr, "warning: - is not text") {
		t.Errorf("no warning on stderr: %q", stderr)
	}
}
