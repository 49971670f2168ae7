package stages

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// genDump writes a crash or timeout output with a thread dump in one of
// three dialects: the thread that failed first, then n threads parked in
// one of stacks stacks, with their own addresses, offsets and ids.
func genDump(r *rand.Rand, dialect string, n, stacks int) (text, failing string, perStack []int) {
	var b strings.Builder
	b.WriteString("=== RUN   TestIngest\n--- FAIL: TestIngest (600.00s)\npanic: test timed out after 10m0s\n\n")
	hex := func() string { return fmt.Sprintf("0x%x", r.Uint64()>>20) }
	perStack = make([]int, stacks)
	for i := 0; i <= n; i++ {
		s := r.IntN(stacks)
		if i == 0 {
			s = -1
		} else {
			perStack[s]++
		}
		switch dialect {
		case "go":
			state := []string{"chan receive", "select", "IO wait", "semacquire"}[max(s, 0)%4]
			if s < 0 {
				state = "running"
			}
			fmt.Fprintf(&b, "goroutine %d [%s, %d minutes]:\n", i+1, state, r.IntN(9))
			fn := "app." + strings.ToLower(stageNames[max(s, 0)])
			if s < 0 {
				fn = "app.(*Ingest).flush"
			}
			fmt.Fprintf(&b, "%s(%s, %d)\n\t/src/app/%s.go:%d +%s\n", fn, hex(), r.IntN(100), fn, 40+max(s, 0), hex())
			fmt.Fprintf(&b, "created by app.start in goroutine 1\n\t/src/app/start.go:12 +%s\n\n", hex())
		case "jstack":
			fmt.Fprintf(&b, "\"worker-%d\" #%d prio=5 os_prio=0 tid=%s nid=%s waiting on condition [%s]\n", i, i+10, hex(), hex(), hex())
			fn := "com.app." + stageNames[max(s, 0)] + ".run"
			if s < 0 {
				fn = "com.app.Ingest.flush"
			}
			fmt.Fprintf(&b, "   java.lang.Thread.State: WAITING (parking)\n\tat jdk.internal.misc.Unsafe.park(Native Method)\n\tat %s(Stage.java:%d)\n\n", fn, 40+max(s, 0))
		case "python":
			fmt.Fprintf(&b, "Thread %s (most recent call first):\n", hex())
			fn := strings.ToLower(stageNames[max(s, 0)])
			if s < 0 {
				fn = "flush"
			}
			fmt.Fprintf(&b, "  File \"/app/pipeline.py\", line %d in %s\n  File \"/usr/lib/python3.12/threading.py\", line 1010 in run\n\n", 40+max(s, 0), fn)
		}
		if i == 0 {
			failing = strings.TrimSuffix(b.String(), "\n")
		}
	}
	b.WriteString("FAIL\tgithub.com/acme/app\t600.012s\n")
	return b.String(), failing, perStack
}

// stageNames name the functions threads wait in.
var stageNames = []string{"Fetcher", "Decoder", "Writer", "Indexer", "Uploader"}

var dumpCount = regexp.MustCompile(`\[×(\d+)`)

// TestThreadDumpFolds: the threads of a dump that wait in one stack fold
// to the first, its header counting them, in three dialects and whatever
// the number of threads and stacks; the failing thread and every stack
// stay, and a few threads pass as they are.
func TestThreadDumpFolds(t *testing.T) {
	r := rand.New(rand.NewPCG(101, 102))
	for doc := range 30 {
		dialect := []string{"go", "jstack", "python"}[doc%3]
		n, stacks := 20+r.IntN(400), 1+r.IntN(5)
		text, failing, perStack := genDump(r, dialect, n, stacks)
		out := foldThreadDumps(text)
		label := fmt.Sprintf("doc %d (%s, %d threads, %d stacks)", doc, dialect, n, stacks)
		if !strings.Contains(out, failing) {
			t.Errorf("%s: the failing thread is not kept whole:\n%s", label, out)
		}
		total := 0
		for _, m := range dumpCount.FindAllStringSubmatch(out, -1) {
			k, _ := strconv.Atoi(m[1])
			total += k
		}
		for s, c := range perStack {
			if c == 0 {
				continue
			}
			name, lower := strings.ToLower(stageNames[s]), strings.ToLower(out)
			if got := strings.Count(lower, name+".run(") + strings.Count(lower, "app."+name+"(") + strings.Count(lower, " in "+name+"\n"); got != 1 {
				t.Errorf("%s: stack %s (%d threads) shown %d times:\n%s", label, stageNames[s], c, got, out)
			}
			if c == 1 {
				total++ // a stack of one thread keeps its header as it was
			}
		}
		if total != n {
			t.Errorf("%s: counts add up to %d threads, want %d:\n%s", label, total, n, out)
		}
		if len(out)*3 > len(text) {
			t.Errorf("%s: %d of %d bytes kept", label, len(out), len(text))
		}
	}
	few, _, _ := genDump(r, "go", minDumpThreads-2, 2)
	if got := foldThreadDumps(few); got != few {
		t.Errorf("a short dump changed:\n%s", got)
	}
}
