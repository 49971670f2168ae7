package pipeline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestThreadDumpStacksSurvive: a test that timed out with a dump of a few
// hundred threads parked in a few stacks comes out short, with its
// failure and every stack: structured folds the threads of one stack,
// and keywords keeps each thread left with its stack whatever its
// neighbours (a JVM's stacks in the middle of the dump were folded).
func TestThreadDumpStacksSurvive(t *testing.T) {
	r := rand.New(rand.NewPCG(111, 112))
	names := []string{"Fetcher", "Decoder", "Writer", "Indexer", "Uploader", "Scheduler"}
	for doc := range 12 {
		jvm := doc%2 == 1
		stacks := 2 + r.IntN(len(names)-1)
		var b strings.Builder
		b.WriteString("--- FAIL: TestIngest (600.00s)\npanic: test timed out after 10m0s\n\n")
		for i := range 100 + r.IntN(300) {
			s := names[r.IntN(stacks)]
			if jvm {
				fmt.Fprintf(&b, "\"worker-%d\" #%d prio=5 os_prio=0 tid=0x%x nid=0x%x waiting on condition [0x%x]\n   java.lang.Thread.State: WAITING (parking)\n\tat jdk.internal.misc.Unsafe.park(Native Method)\n\tat com.app.%s.run(%s.java:%d)\n\n",
					i, i+10, r.Uint64()>>16, r.Uint32(), r.Uint64()>>16, s, s, 40)
			} else {
				fmt.Fprintf(&b, "goroutine %d [chan receive, %d minutes]:\napp.(*%s).run(0x%x, %d)\n\t/src/app/%s.go:%d +0x%x\ncreated by app.start in goroutine 1\n\t/src/app/start.go:12 +0x3c\n\n",
					i+2, r.IntN(9), s, r.Uint64()>>20, r.IntN(100), strings.ToLower(s), 40, r.IntN(4096))
			}
		}
		text := b.String()
		out, ratio := compactLog(t, text)
		for _, s := range names[:stacks] {
			if strings.Contains(text, s+").run") || strings.Contains(text, s+".run") {
				if !strings.Contains(out, s+").run") && !strings.Contains(out, s+".run") {
					t.Errorf("doc %d (jvm %v): the stack in %s is gone:\n%s", doc, jvm, s, out)
				}
			}
		}
		if !strings.Contains(out, "panic: test timed out after 10m0s") {
			t.Errorf("doc %d: the failure is gone", doc)
		}
		if ratio > 0.1 {
			t.Errorf("doc %d (jvm %v): ratio %.3f", doc, jvm, ratio)
		}
	}
}
