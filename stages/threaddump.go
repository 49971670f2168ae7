package stages

import (
	"hash/maphash"
	"slices"
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

// A thread dump (a Go panic's goroutines, a JVM's jstack, Python's
// faulthandler) lists hundreds of threads, most of them parked in the
// same few stacks; a test that timed out prints one below its failure.
// foldThreadDumps keeps the first thread of each stack, whatever its
// addresses, offsets and ids, its header counting the threads that share
// it and their states: "goroutine 2 [chan receive]: [×247; chan receive
// ×120, select ×127]".

// minDumpThreads is the fewest thread headers a dump folds from.
const minDumpThreads = 8

// threadHeader reports a line that opens a thread of a dump, and the
// thread's state when the header says it ("chan receive" of "goroutine 7
// [chan receive, 5 minutes]:").
func threadHeader(l string) (state string, ok bool) {
	switch {
	case strings.HasPrefix(l, "goroutine ") && strings.HasSuffix(l, "]:"):
		// Go: goroutine 7 [chan receive, 5 minutes]:
		i := strings.IndexByte(l, '[')
		if i < 0 || !textkit.IsDigit(l[len("goroutine "):][0]) {
			return "", false
		}
		state, _, _ = strings.Cut(l[i+1:len(l)-2], ",")
		return state, true
	case strings.HasPrefix(l, "\"") && strings.Contains(l, " prio=") && strings.Contains(l, " tid="):
		// jstack: "pool-1-thread-3" #15 prio=5 os_prio=0 tid=0x... nid=0x... waiting on condition
		_, after, _ := strings.Cut(l, " nid=")
		_, state, _ = strings.Cut(after, " ")
		state, _, _ = strings.Cut(state, " [")
		return state, true
	case (strings.HasPrefix(l, "Thread 0x") || strings.HasPrefix(l, "Current thread 0x")) && strings.HasSuffix(l, "(most recent call first):"):
		// Python's faulthandler.
		return "", true
	}
	return "", false
}

// dumpHeader reports a thread header of a dump, a count after it or not.
func dumpHeader(l string) bool {
	if !mayOpenThread(l) {
		return false
	}
	head, _ := logs.SplitCount(l)
	_, ok := threadHeader(head)
	return ok
}

// mayOpenThread reports a line whose first byte may open a thread
// header: a cheap test before threadHeader's.
func mayOpenThread(l string) bool {
	return l != "" && (l[0] == 'g' || l[0] == '"' || l[0] == 'T' || l[0] == 'C')
}

var dumpSeed = maphash.MakeSeed()

// stackKey hashes a thread's frame lines with their numbers masked:
// addresses, offsets, line numbers and ids (a number that no letter
// opens: stage2 is a name) differ between threads that wait in one place.
func stackKey(frames []string) uint64 {
	var h maphash.Hash
	h.SetSeed(dumpSeed)
	for _, l := range frames {
		for i := 0; i < len(l); {
			c := l[i]
			if !textkit.IsDigit(c) || i > 0 && textkit.IsWordByte(l[i-1]) {
				h.WriteByte(c)
				i++
				continue
			}
			j := i + 1
			if c == '0' && j < len(l) && l[j] == 'x' {
				j++
			}
			for j < len(l) && textkit.IsHexDigit(l[j]) {
				j++
			}
			h.WriteByte('0')
			i = j
		}
		h.WriteByte('\n')
	}
	return h.Sum64()
}

// dumpThread is one thread of a dump: lines [start, end), its state.
type dumpThread struct {
	start, end int
	state      string
	key        uint64
}

// foldThreadDumps folds the thread dumps of text (see the top of this
// file); it returns text itself when there is none.
func foldThreadDumps(text string) string {
	lines := strings.Split(text, "\n")
	var threads []dumpThread
	for i := 0; i < len(lines); i++ {
		state, ok := threadHeader(lines[i])
		if !ok {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != "" {
			if _, next := threadHeader(lines[j]); next {
				break
			}
			j++
		}
		threads = append(threads, dumpThread{start: i, end: j, state: state, key: stackKey(lines[i+1 : j])})
		i = j - 1
	}
	if len(threads) < minDumpThreads {
		return text
	}
	type stack struct {
		first  int
		count  int
		states map[string]int
	}
	stacks := map[uint64]*stack{}
	for k, th := range threads {
		s := stacks[th.key]
		if s == nil {
			s = &stack{first: k, states: map[string]int{}}
			stacks[th.key] = s
		}
		s.count++
		if th.state != "" {
			s.states[th.state]++
		}
	}
	if len(stacks) == len(threads) {
		return text
	}
	out := make([]string, 0, len(lines))
	done := 0
	for k, th := range threads {
		s := stacks[th.key]
		out = append(out, lines[done:th.start]...)
		done = th.end
		if s.first != k {
			if done < len(lines) && lines[done] == "" {
				done++ // the blank line that closed the thread goes too
			}
			continue
		}
		header := lines[th.start]
		if s.count > 1 {
			header += threadsCount(s.count, s.states)
		}
		out = append(out, header)
		out = append(out, lines[th.start+1:th.end]...)
	}
	return strings.Join(append(out, lines[done:]...), "\n")
}

// threadsCount writes a folded stack's count, in log_dedup's form, and
// its threads' states, the most common first: " [×247; chan receive
// ×120, select ×127]".
func threadsCount(n int, states map[string]int) string {
	names := make([]string, 0, len(states))
	for s := range states {
		names = append(names, s)
	}
	slices.SortFunc(names, func(a, b string) int {
		if states[a] != states[b] {
			return states[b] - states[a]
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	b.WriteString(logs.CountOpen + strconv.Itoa(n))
	for k, s := range names {
		if k == 4 {
			b.WriteString(", …")
			break
		}
		sep := ", "
		if k == 0 {
			sep = "; "
		}
		b.WriteString(sep + s + " ×" + strconv.Itoa(states[s]))
	}
	return b.String() + "]"
}
