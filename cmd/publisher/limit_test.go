package main

import (
	"errors"
	"github.com/jetcompact/jetcompact/internal/cli"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
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
		if err == nil || !errors.Is(err, cli.ErrTooLarge) || !strings.Contains(err.Error(), big) || !strings.Contains(err.Error(), "4096") {
			t.Errorf("%v: error %v, want one naming the file and the limit", mode, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%v: %d MiB allocated to refuse a sparse file", mode, grew>>20)
		}
	}
	// Stdin has no size: it is read through the limit.
	if _, _, err := runPublisher(t, strings.Repeat("x", 5000), "--local", "--config", cfg, "-"); !errors.Is(err, cli.ErrTooLarge) {
		t.Errorf("stdin above the limit: %v", err)
	}
	// At the limit exactly, it is read.
	at := strings.Repeat("line\n", 4096/5)
	if out, _, err := runPublisher(t, at, "--local", "--config", cfg, "-"); err != nil || out == "" {
		t.Errorf("at the limit: %v", err)
	}
}

// TestBinaryInputWarns: binary input passes through unchanged with a
// warning that names the input, in --local and on the fleet.
func TestBinaryInputWarns(t *testing.T) {
	raw := strings.Repeat("\x00\x01\x02\x03bin", 1000)
	for _, mode := range [][]string{{"--local"}, {}} {
		out, stderr, err := runPublisher(t, raw, append(mode, "-")...)
		if err != nil {
			t.Fatal(err)
		}
		if out != raw {
			t.Errorf("%v: binary input changed", mode)
		}
		if !strings.Contains(stderr, "level=WARN msg=\"input is not text: passed through unchanged\" file=-") {
			t.Errorf("%v: no warning on stderr: %q", mode, stderr)
		}
	}
	// The warning is a log line like any other: JSON with --log-format json.
	_, stderr, err := runPublisher(t, raw, "--local", "--log-format", "json", "-")
	if err != nil || !strings.Contains(stderr, `{"time":`) || !strings.Contains(stderr, `"msg":"input is not text: passed through unchanged","file":"-"`) {
		t.Errorf("--log-format json: %v %q", err, stderr)
	}
}

// TestEncodingRuleSameOnTheFleet: UTF-16 input and invalid UTF-8 the
// guard keeps come out the same from --local and from the fleet, valid
// UTF-8 both (issue 15 items 6 and 7).
func TestEncodingRuleSameOnTheFleet(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		b.WriteString("2025-01-01 10:00:00 INFO hb " + strings.Repeat("x", i%7) + " ok\r\n")
	}
	b.WriteString("2025-01-01 10:00:01 ERROR disk failure\r\n")
	units := []byte{0xff, 0xfe}
	for _, r := range b.String() {
		units = append(units, byte(r), byte(r>>8))
	}
	for name, raw := range map[string]string{
		"utf-16":          string(units),
		"invalid-kept":    "short \xff\xfe text \xc3( kept\n",
		"invalid-compact": strings.Repeat("2025-01-01 10:00:00 INFO request \xff done\n", 500),
	} {
		local, localReport, err := runPublisher(t, raw, "--local", "--report", "-")
		if err != nil {
			t.Fatal(err)
		}
		fleet, fleetReport, err := runPublisher(t, raw, "--report", "-")
		if err != nil {
			t.Fatal(err)
		}
		if want := "input utf-16le, 0 invalid"; name == "utf-16" && (!strings.Contains(localReport, want) || !strings.Contains(fleetReport, want)) {
			t.Errorf("reports do not name the encoding:\n%s\n%s", localReport, fleetReport)
		}
		if want := "3 invalid bytes replaced"; name == "invalid-kept" && (!strings.Contains(localReport, want) || !strings.Contains(fleetReport, want)) {
			t.Errorf("reports do not count the replaced bytes:\n%s\n%s", localReport, fleetReport)
		}
		if local != fleet {
			t.Errorf("%s: --local and the fleet differ:\n%q\n%q", name, clipText(local), clipText(fleet))
		}
		if !utf8.ValidString(local) {
			t.Errorf("%s: invalid UTF-8 out", name)
		}
	}
}

func clipText(s string) string { return s[:min(len(s), 200)] }
