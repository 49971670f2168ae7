package logs

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestLastCountOpenIsLastIndex: the shortcut finds what a plain backward
// search finds, on lines built from the bytes that matter to it.
func TestLastCountOpenIsLastIndex(t *testing.T) {
	parts := []string{" [×", "[", "]", "×", " ", "a", "7", ";", "é"}
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.Intn(8); k >= 0; k-- {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		line := b.String()
		if got, want := lastCountOpen(line), strings.LastIndex(line, CountOpen); got != want {
			t.Fatalf("lastCountOpen(%q) = %d, want %d", line, got, want)
		}
	}
}

// TestClockIn: a clock is h:mm or hh:mm, with seconds if given; an
// address's port is none, whatever digits it spells.
func TestClockIn(t *testing.T) {
	for in, want := range map[string]string{
		"10:00:01 INFO x":                    "10:00:01",
		"7:04:05 up":                         "7:04:05",
		"2024-01-01T10:00:00.247Z INFO":      "10:00:00",
		"[03/Dec/2024:10:00:00 +0000] GET /": "10:00:00",
		"123:45 not a clock":                 "",
		"host:8080 refused":                  "",
	} {
		if got, _ := clockIn(in); got != want {
			t.Errorf("clockIn(%q) = %q, want %q", in, got, want)
		}
	}
	rng := rand.New(rand.NewSource(2))
	for n := 0; n < 2000; n++ {
		addr := fmt.Sprintf("081109 214043 2561 WARN x: %d.%d.%d.%d:%d:Got exception", rng.Intn(256), rng.Intn(256), rng.Intn(256), rng.Intn(256), rng.Intn(65536))
		if got, _ := clockIn(addr); got != "" {
			t.Fatalf("clockIn(%q) = %q: an address's port read as a clock", addr, got)
		}
	}
}
