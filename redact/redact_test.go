package redact_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/redact"
	"github.com/jetcompact/jetcompact/redact/redacttest"
)

// TestPlantedSecretsAreRemoved: across many random draws, every planted
// secret of every kind is gone, counted under its kind, and the context
// around it is kept.
func TestPlantedSecretsAreRemoved(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 7))
		secrets := redacttest.Planted(r)
		want := redact.Counts{}
		for _, s := range secrets {
			want[s.Kind]++
			out, counts := redact.Text(s.Line)
			if strings.Contains(out, s.Value) {
				t.Fatalf("seed %d: %s survived in %q", seed, s.Kind, out)
			}
			if counts[s.Kind] != 1 {
				t.Fatalf("seed %d: %q: counts %v, want one %s", seed, out, counts, s.Kind)
			}
		}
		text := redacttest.Text(r, secrets)
		out, counts := redact.Text(text)
		for _, s := range secrets {
			if strings.Contains(out, s.Value) {
				t.Fatalf("seed %d: %s survived in the document", seed, s.Kind)
			}
		}
		if counts.String() != want.String() {
			t.Fatalf("seed %d: counts %v, want %v", seed, counts, want)
		}
		if !strings.Contains(out, "INFO worker 2 processed batch") || !strings.Contains(out, "postgres://app:"+redact.Marker(redact.KindConnString)+"@db.internal") {
			t.Fatalf("context lost:\n%s", out)
		}
	}
}

// TestOrdinaryTextIsKept: what logs, code and configs are full of and is
// no secret stays as it is.
func TestOrdinaryTextIsKept(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	hex := func(n int) string {
		const h = "0123456789abcdef"
		b := make([]byte, n)
		for i := range b {
			b[i] = h[r.IntN(16)]
		}
		return string(b)
	}
	lines := []string{
		"commit " + hex(40) + " merged",
		"sha256:" + hex(64),
		"request id " + hex(8) + "-" + hex(4) + "-" + hex(4) + "-" + hex(4) + "-" + hex(12) + " done",
		"/usr/local/lib/python3.11/site-packages/requests/adapters.py:439",
		"max_tokens=4096 temperature=0.2",
		"password: ${DB_PASSWORD}",
		"token_count=12345",
		"Invalid password for user alice",
		"api_key: <your key here>",
		"https://example.com:8443/path/to/resource?query=1",
		"ConnectionRefusedError: [Errno 111] Connection refused",
		"java.lang.IllegalStateException: ExpectedConfigurationPropertyMissing",
		"github.com/jetcompact/jetcompact/pipeline.(*Pipeline).Run(0xc000123456)",
	}
	for _, l := range lines {
		if out, counts := redact.Text(l); out != l {
			t.Errorf("%q became %q (%v)", l, out, counts)
		}
	}
}

// TestCorpusFalsePositives reports how much of the shared corpus would be
// redacted; ordinary files must lose almost nothing.
func TestCorpusFalsePositives(t *testing.T) {
	root := "../../shared/corpus"
	if _, err := os.Stat(root); err != nil {
		t.Skip("../shared/corpus absent")
	}
	total := redact.Counts{}
	files, bytes := 0, 0
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || files >= 400 {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) > 4<<20 {
			return nil
		}
		_, c := redact.Text(string(data))
		total = total.Add(c)
		files++
		bytes += len(data)
		return nil
	})
	t.Logf("%d files, %d bytes: %v", files, bytes, total)
	if files > 0 && total.Total() > bytes/10000 { // at most one per 10 kB
		t.Errorf("%d redactions in %d bytes: too many for ordinary text", total.Total(), bytes)
	}
}

func BenchmarkText(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	var sb strings.Builder
	for sb.Len() < 4<<20 {
		fmt.Fprintf(&sb, "2025-01-01 10:00:%02d INFO user=u%d path=/srv/app/%d status=ok took=%dms\n", r.IntN(60), r.IntN(1000), r.IntN(100), r.IntN(900))
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		redact.Text(text)
	}
}
