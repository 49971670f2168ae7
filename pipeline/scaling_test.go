package pipeline

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/stages"
)

// scalingCase is one generator of ../shared/repros/README.md (hostile/),
// written out here so the test needs no shared files. unit is the n at
// which the input is 2-4 MB: large enough that a run takes tens of
// milliseconds once linear, so scheduling noise is small beside it.
type scalingCase struct {
	name string
	unit int
	gen  func(n int) string
}

// heartbeatsAround is the repros' 2000 heartbeat lines with one odd line
// in the middle.
func heartbeatsAround(odd string) string {
	var b strings.Builder
	for i := range 2000 {
		if i == 1000 {
			b.WriteString(odd + "\n")
		}
		fmt.Fprintf(&b, "2025-01-01 10:00:%02d INFO hb %d ok\n", i%60, i)
	}
	return b.String()
}

// buildErrors are the six failure lines of the repros' build log.
var buildErrors = []string{
	"java.lang.OutOfMemoryError: Java heap space",
	"ModuleNotFoundError: No module named x",
	"ERROR: 0xC0000005",
	"Error: deployment was not successful",
	"health check failed: expected status ok",
	"ERROR db connection lost",
}

func scalingCases() []scalingCase {
	return []scalingCase{
		// At 100,000 openers the text reads as prose, from 200,000 as a log.
		{name: "unclosed-fences", unit: 200000, gen: func(n int) string {
			var b strings.Builder
			for i := range n {
				fmt.Fprintf(&b, "```a%d\nline %d\n", i, i)
			}
			return b.String()
		}},
		{name: "brace-lines", unit: 1000000, gen: func(n int) string {
			return "notes\n" + strings.Repeat("{\n", n) + "}\n"
		}},
		{name: "nested-h4-html", unit: 100, gen: func(n int) string {
			t := strings.Repeat("lorem ipsum dolor sit amet ", 740)
			return "<!doctype html><html><body>" + strings.Repeat("<h4>"+t+"<div>", n) + "end"
		}},
		{name: "dash-joined-hex", unit: 400000, gen: func(n int) string {
			return heartbeatsAround("2025-01-01 10:00:01 INFO t=" + strings.Repeat("abcd-", n))
		}},
		{name: "short-key-lines", unit: 160000, gen: func(n int) string {
			return strings.Repeat("\x1b[31merr\x1b[0m\n", n)
		}},
		{name: "file-line-repeated", unit: 1000000, gen: func(n int) string {
			return heartbeatsAround(strings.Repeat("1:", n))
		}},
		{name: "private-use-char", unit: 320000, gen: func(n int) string {
			return privateUseDoc(n)
		}},
		{name: "six-error-build-log", unit: 140000, gen: func(n int) string {
			lines := make([]string, 0, n+len(buildErrors))
			for i := range n {
				lines = append(lines, fmt.Sprintf("Compiling module_%d (step %d)\n", i%7, i))
			}
			for k, e := range buildErrors { // spread as in the repro: 5000 + 8000k of 50000
				at := n/10 + k*n*4/25 + k
				lines = slices.Insert(lines, at, e+"\n")
			}
			return strings.Join(lines, "")
		}},
		{name: "utf-16-log", unit: 120000, gen: func(n int) string {
			return encodeUTF16(heartbeatLog(n, "\r\n"), true, true)
		}},
	}
}

// privateUseDoc is the repros' U+E000 document: one private-use character,
// then a fenced block that must come out byte for byte.
func privateUseDoc(n int) string {
	return "icon \ue000\n```\nkeep  two  spaces\nduplicate line!!\nduplicate line!!\n```\n" + strings.Repeat("the same sentence again.\n", n)
}

// timeRun is the least CPU time of at least runs compactions of text (up
// to 7 while they add up to under half a second), with a generous
// absolute ceiling on each. CPU time, not wall time: the helpers sharing
// this machine's cores do not count against the code.
func timeRun(t *testing.T, p *Pipeline, text string, runs int) (time.Duration, Result) {
	t.Helper()
	best, total := time.Duration(1<<63-1), time.Duration(0)
	var res Result
	for i := 0; i < runs || (i < 9 && total < time.Second); i++ {
		runtime.GC() // every run starts from the same heap
		// No collection while measured: its timing is the runtime's, and
		// it made fast runs' ratios swing from 2 to 3.4.
		gc := debug.SetGCPercent(-1)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		start, cpu0 := time.Now(), processCPU()
		r, err := p.Run(ctx, Request{Text: text, AllowLLM: true})
		d := processCPU() - cpu0
		cancel()
		debug.SetGCPercent(gc)
		if err != nil {
			t.Fatalf("%d bytes: %v after %s", len(text), err, time.Since(start).Round(time.Millisecond))
		}
		best, res, total = min(best, d), r, total+d
	}
	return best, res
}

// processCPU is the user and system time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// linearBound is the most 2n may cost when n costs tn: 2.5x, plus 25 ms
// of slack (page faults and scheduling move runs of 50 ms by that much; a
// quadratic path costs seconds here).
func linearBound(tn time.Duration) time.Duration {
	return time.Duration(2.5*float64(tn)) + 25*time.Millisecond
}

// TestScaling is issue 15's scaling test: for every hostile generator,
// compacting 2n costs at most 2.5x compacting n (fastest of three to
// seven runs, inputs of 2-8 MB so noise is small), and the peak heap stays within 20x
// the input (64 MB for small inputs).
func TestScaling(t *testing.T) {
	if testing.Short() {
		t.Skip("scaling runs compact several MB per generator")
	}
	if raceOn() {
		t.Skip("timings under -race say nothing about the code")
	}
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range scalingCases() {
		t.Run(c.name, func(t *testing.T) {
			small, big := c.gen(c.unit), c.gen(2*c.unit)
			// Warm up at both sizes: the heap's pages for 2n are mapped
			// before any run is timed (fresh pages are dear on a VM).
			p.Run(context.Background(), Request{Text: small})
			p.Run(context.Background(), Request{Text: big})
			tn, rn := timeRun(t, p, small, 3)
			t2n, r2n := timeRun(t, p, big, 3)
			// A busy machine gets two more tries; a quadratic path fails
			// every one.
			for try := 0; try < 2 && t2n > linearBound(tn); try++ {
				tn, _ = timeRun(t, p, small, 3)
				t2n, _ = timeRun(t, p, big, 3)
			}
			if rn.Report.Kind != r2n.Report.Kind {
				// Two paths, not one path at two sizes: the ratio would
				// measure the paths.
				t.Fatalf("n is detected as %s, 2n as %s: choose a unit where both take one path", rn.Report.Kind, r2n.Report.Kind)
			}
			var res Result
			heap := peakHeap(func() { _, res = timeRun(t, p, big, 1) })
			limit := max(uint64(64<<20), 20*uint64(len(big)))
			ratio := float64(t2n) / float64(max(tn, 10*time.Millisecond))
			t.Logf("n: %d bytes in %s CPU; 2n: %d bytes in %s CPU; ratio %.2f; peak heap +%.1f MiB (limit %d MiB); guard %s",
				len(small), tn.Round(time.Millisecond), len(big), t2n.Round(time.Millisecond), ratio, float64(heap)/(1<<20), limit>>20, res.Report.Guard)
			if t2n > linearBound(tn) {
				t.Errorf("2n took %.2fx n: not linear", ratio)
			}
			if heap > limit {
				t.Errorf("peak heap +%d MiB, above %d MiB", heap>>20, limit>>20)
			}
		})
	}
}

// TestPrivateUseCharKeepsFences is issue 15 item 5: a private-use
// character anywhere must not switch fence protection off; the fenced
// block comes out byte for byte.
func TestPrivateUseCharKeepsFences(t *testing.T) {
	p, _ := New(DefaultConfig(), stages.Deps{})
	for _, pua := range []string{"\ue000", "\uf8ff", "\U000f0000"} {
		text := strings.Replace(privateUseDoc(100), "\ue000", pua, 1)
		res, err := p.Run(context.Background(), Request{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		block := "```\nkeep  two  spaces\nduplicate line!!\nduplicate line!!\n```\n"
		if !strings.Contains(res.Text, block) {
			t.Errorf("%U: fenced block changed:\n%s", []rune(pua)[0], clip(res.Text))
		}
	}
}

// TestBuildLogKeepsEveryError: the six failure lines of the repros' build
// log all survive compaction.
func TestBuildLogKeepsEveryError(t *testing.T) {
	p, _ := New(DefaultConfig(), stages.Deps{})
	var gen func(int) string
	for _, c := range scalingCases() {
		if c.name == "six-error-build-log" {
			gen = c.gen
		}
	}
	res, err := p.Run(context.Background(), Request{Text: gen(50000)})
	if err != nil {
		t.Fatal(err)
	}
	var lost []string
	for _, e := range buildErrors {
		if !strings.Contains(res.Text, e) {
			lost = append(lost, e)
		}
	}
	if len(lost) > 0 {
		t.Errorf("error lines dropped: %q", lost)
	}
}

// BenchmarkAcceptance10MB is issue 15's acceptance figure: every hostile
// generator at about 10 MB must compact in under 3 s in --local (the
// in-process pipeline). Compare ns/op against 3e9.
func BenchmarkAcceptance10MB(b *testing.B) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range scalingCases() {
		b.Run(c.name, func(b *testing.B) {
			text := c.gen(c.unit * 5)
			text = text[:min(len(text), 10<<20)] // a cut input is as hostile

			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := p.Run(context.Background(), Request{Text: text, AllowLLM: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
