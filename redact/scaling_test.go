package redact_test

import (
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/redact"
)

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuOf is the least CPU time of five runs of f.
func cpuOf(f func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 5 {
		runtime.GC()
		gc := debug.SetGCPercent(-1) // the collector's timing is not the code's
		start := processCPU()
		f()
		best = min(best, processCPU()-start)
		debug.SetGCPercent(gc)
	}
	return best
}

// TestTextScalesLinearly: inputs built to make a pattern retry from every
// position (repeated anchors, rejected values, unterminated keys, one
// huge token) cost at most 2.5x at 2n what they cost at n.
func TestTextScalesLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("several MB per generator")
	}
	if raceEnabled {
		t.Skip("timings under -race say nothing about the code; CI runs this test without it too")
	}
	random := func(n int) string {
		r := rand.New(rand.NewPCG(9, 9))
		const set = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
		b := make([]byte, n)
		for i := range b {
			b[i] = set[r.IntN(len(set))]
		}
		return string(b)
	}
	gens := map[string]func(n int) string{
		"jwt-parts":       func(n int) string { return strings.Repeat("eyJaaaaaaaaa-", n/13) },
		"jwt-dots":        func(n int) string { return strings.Repeat("eyJaaaaaaaaa.eyJbbbbbbbbb.x ", n/28) },
		"gitlab-prefixes": func(n int) string { return strings.Repeat("glpat-", n/6) },
		"rejected-values": func(n int) string { return strings.Repeat("token=$", n/7) },
		"schemes":         func(n int) string { return strings.Repeat("a://u:p", n/7) },
		"unterminated-pem": func(n int) string {
			return strings.Repeat("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234\n", n/54)
		},
		"bearer-spaces":  func(n int) string { return strings.Repeat("bearer "+strings.Repeat(" ", 100), n/107) },
		"one-huge-token": random,
		"log-lines": func(n int) string {
			return strings.Repeat("2025-01-01 10:00:00 INFO user=alice password=Secr3tPass path=/srv/a.json ok\n", n/80)
		},
	}
	n := 4 << 20
	if v := os.Getenv("REDACT_SCALING_N"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	for name, gen := range gens {
		if only := os.Getenv("REDACT_SCALING_ONLY"); only != "" && only != name {
			continue
		}
		small, big := gen(n), gen(2*n)
		// 25 ms of slack: page faults and scheduling move short runs by that
		// much. A run over the bound is measured again (twice at most) and
		// the least time of each size kept: a busy machine only adds time,
		// and a quadratic cost shows in every run.
		over := func(tn, t2n time.Duration) bool { return t2n > time.Duration(2.5*float64(tn))+25*time.Millisecond }
		tn := cpuOf(func() { redact.Text(small) })
		t2n := cpuOf(func() { redact.Text(big) })
		for try := 0; try < 2 && over(tn, t2n); try++ {
			tn = min(tn, cpuOf(func() { redact.Text(small) }))
			t2n = min(t2n, cpuOf(func() { redact.Text(big) }))
		}
		ratio := float64(t2n) / float64(max(tn, 20*time.Millisecond))
		t.Logf("%s: %d bytes %s, %d bytes %s CPU, ratio %.2f", name, len(small), tn.Round(time.Millisecond), len(big), t2n.Round(time.Millisecond), ratio)
		if over(tn, t2n) {
			t.Errorf("%s: 2n took %.2fx n", name, ratio)
		}
		if t2n > 10*time.Second {
			t.Errorf("%s: %s for %d bytes", name, t2n, len(big))
		}
	}
}
