package logs

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// groupedTemplates groups the events of text as mineTemplates does,
// before any merge.
func groupedTemplates(text string, lay Layout) *templates {
	t, _ := groupedEvents(text, lay)
	return t
}

// groupedEvents is groupedTemplates, and the events.
func groupedEvents(text string, lay Layout) (*templates, []logEvent) {
	x := textkit.NewLineIndex(text)
	t := newTemplates(3, lay)
	opens := make([]bool, x.Len())
	for i := range opens {
		opens[i] = lay.OpensRecord(x.Line(i))
	}
	var toks, ctoks []Tok
	var events []logEvent
	for i := 0; i < x.Len(); {
		if !opens[i] {
			i++
			continue
		}
		end := eventEnd(x, opens, nil, i)
		head, weight := SplitCount(x.Line(i))
		msg, from := eventMessage(x, lay, head, i, end)
		toks = lay.templateTokens(msg, toks[:0], nil)
		var cont uint64
		cont, ctoks = continuationHash(x, from, end, ctoks, nil)
		g := t.add(toks, cont, len(events), weight, msg)
		events = append(events, logEvent{start: int32(i), end: int32(end), group: int32(g)})
		i = end
	}
	return t, events
}

// headerLogClass writes record k of a log whose hosts, services and users
// come from pools, so that header columns take names in many templates.
type headerLogClass func(r *rand.Rand, k int) string

var (
	hcHosts    = []string{"web-a", "web-b", "db-main", "cache01", "node-7", "worker-x", "api.example.com", "10.0.0.5"}
	hcServices = []string{"sshd[42]", "kernel", "nginx", "app.Worker[0]", "cron", "systemd"}
	hcLevels   = []string{"INFO", "WARN", "ERROR", "DEBUG", "info", "[error]"}
	hcMessages = []string{"Accepted password for %s from 10.0.0.%d port 22", "session opened for user %s (uid=%d)",
		"GET /api/orders/%d took %dms", "connection reset by %s after %d bytes", "job %s finished in %ds",
		"cache miss for key user:%s:%d", "disk %s at %d%% capacity", "retrying %s attempt %d"}
	hcUsers = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"}
)

func hcMessage(r *rand.Rand) string {
	m := hcMessages[r.IntN(len(hcMessages))]
	m = strings.Replace(m, "%s", hcUsers[r.IntN(3)], 1) // few: a message recurs
	m = strings.Replace(m, "%d", strconv.Itoa(r.IntN(5000)), 1)
	return strings.Replace(m, "%d", strconv.Itoa(r.IntN(90)), 1)
}

func hcPick(r *rand.Rand, pool []string) string { return pool[r.IntN(len(pool))] }

func hcClock(k int) string {
	return twoDigits(10+k/3600%10) + ":" + twoDigits(k/60%60) + ":" + twoDigits(k%60)
}

// headerLogClasses: syslog, ISO stamps with a level and a bracketed thread,
// '|' columns, colored columns, labels without a header, logfmt pairs
// after a message, JSON lines and access logs.
var headerLogClasses = []headerLogClass{
	func(r *rand.Rand, k int) string {
		return "Dec  3 " + hcClock(k) + " " + hcPick(r, hcHosts) + " " + hcPick(r, hcServices) + ": " + hcMessage(r)
	},
	func(r *rand.Rand, k int) string {
		return "2024-05-01 " + hcClock(k) + ",123 " + hcPick(r, hcLevels) + " [" + hcPick(r, hcHosts) + "] " + hcMessage(r)
	},
	func(r *rand.Rand, k int) string {
		return hcClock(k) + " | " + hcPick(r, hcHosts) + " | " + hcPick(r, hcLevels) + " | " + hcMessage(r)
	},
	func(r *rand.Rand, k int) string {
		return "\x1b[90m" + hcClock(k) + "\x1b[0m \x1b[32m" + hcPick(r, hcLevels) + "\x1b[0m " + hcPick(r, hcHosts) + " " + hcMessage(r)
	},
	func(r *rand.Rand, k int) string {
		return hcPick(r, []string{"web: ", "[api] ", "worker.1 | ", "db: "}) + hcMessage(r)
	},
	func(r *rand.Rand, k int) string {
		return "I0501 " + hcClock(k) + ".000123 1 main.go:42] " + hcMessage(r) + " node=\"" + hcPick(r, hcHosts) + "\" pod=" + hcPick(r, hcUsers) + " msg=x"
	},
	func(r *rand.Rand, k int) string {
		return `{"ts":"2024-05-01T` + hcClock(k) + `Z","level":"` + strings.ToLower(hcPick(r, hcLevels[:4])) + `","host":"` + hcPick(r, hcHosts) +
			`","msg":"` + hcMessage(r) + `","user":"` + hcPick(r, hcUsers) + `"}`
	},
	func(r *rand.Rand, k int) string {
		return "time=2024-05-01T" + hcClock(k) + " level=" + strings.ToLower(hcPick(r, hcLevels[:4])) + " host=" + hcPick(r, hcHosts) +
			" msg=\"" + hcMessage(r) + "\" user=" + hcPick(r, hcUsers)
	},
	func(r *rand.Rand, k int) string {
		return hcPick(r, hcHosts) + " - " + hcPick(r, hcUsers) + " [03/Dec/2024:" + hcClock(k) + " +0000] \"GET /api/" + hcPick(r, hcUsers) +
			" HTTP/1.1\" " + hcPick(r, []string{"200", "404", "500"}) + " " + strconv.Itoa(r.IntN(9000))
	},
}

// genHeaderLog writes a log of one class, or of two interleaved, with an
// indented detail line now and then.
func genHeaderLog(r *rand.Rand) string { return headerLog(r, 20+r.IntN(600)) }

// headerLog is genHeaderLog of n records.
func headerLog(r *rand.Rand, n int) string {
	a, b := headerLogClasses[r.IntN(len(headerLogClasses))], headerLogClasses[r.IntN(len(headerLogClasses))]
	var sb strings.Builder
	for k := range n {
		c := a
		if r.IntN(8) == 0 {
			c = b
		}
		sb.WriteString(c(r, k))
		sb.WriteByte('\n')
		if r.IntN(25) == 0 {
			sb.WriteString("    at " + hcPick(r, hcServices) + " line " + strconv.Itoa(r.IntN(99)) + "\n")
		}
	}
	return sb.String()
}

// checkHeaderColumns marks and merges the header columns of text's
// templates, once as templates.go does and once as the reference does,
// and fails where cells, merges or groups differ. cols, when not negative,
// overrides the layout's header columns.
func checkHeaderColumns(t *testing.T, text string, cols int) {
	t.Helper()
	lay := Analyze(text)
	if cols >= 0 {
		lay.HeaderCols = cols
	}
	a, b := groupedTemplates(text, lay), groupedTemplates(text, lay)
	// The cells, group by group.
	hc := headerCells{cells: make([][]cell, len(a.groups)), names: map[uint64]int{}}
	ref := refHeaderCells{cells: make([][]cell, len(b.groups)), names: map[uint64]int{}}
	var toks []Tok
	for i := range a.groups {
		toks = a.groups[i].firstTokens(toks[:0])
		if a.groups[i].toks == nil || len(toks) != len(a.groups[i].toks) {
			continue
		}
		a.markHeaderCells(&hc, i, toks)
		b.refMarkHeaderCells(&ref, i, toks)
		if !sameCells(hc.cells[i], ref.cells[i]) {
			t.Fatalf("group %d (%q, %d columns): cells %v, want %v", i, a.groups[i].head, lay.HeaderCols, hc.cells[i], ref.cells[i])
		}
	}
	if !reflect.DeepEqual(hc.names, ref.names) {
		t.Fatalf("names %v, want %v", hc.names, ref.names)
	}
	// The merges, from fresh groups.
	a, b = groupedTemplates(text, lay), groupedTemplates(text, lay)
	if got, want := a.mergeHeaderColumns(), b.refMergeHeaderColumns(); got != want {
		t.Fatalf("merged %v, want %v", got, want)
	}
	for i := range a.groups {
		x, y := &a.groups[i], &b.groups[i]
		if x.parent != y.parent || x.count != y.count || x.sum != y.sum || !reflect.DeepEqual(x.toks, y.toks) {
			t.Fatalf("group %d (%q): parent %d count %d, want parent %d count %d", i, x.head, x.parent, x.count, y.parent, y.count)
		}
	}
}

func sameCells(a, b []cell) bool { return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b)) }

// TestHeaderColumnsMatchReference checks header cells and column merges
// on generated logs of every class, with the layout's header columns and
// with other counts of them.
func TestHeaderColumnsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 11))
	merged := 0
	for range 300 {
		text := genHeaderLog(r)
		checkHeaderColumns(t, text, -1)
		checkHeaderColumns(t, text, r.IntN(7))
		if groupedTemplates(text, Analyze(text)).refMergeHeaderColumns() {
			merged++
		}
	}
	if merged < 60 {
		t.Fatalf("only %d of 300 logs merged header columns: the inputs miss the case", merged)
	}
}

// FuzzHeaderColumnsReference checks a text's header cells and column
// merges against the reference, the header columns its first byte's
// count (or the layout's).
func FuzzHeaderColumnsReference(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 5))
	for range 6 {
		f.Add(byte(255), headerLog(r, 12))
	}
	f.Add(byte(3), "a b\x1b[0m c | d\n\x1b[1m x y z\n|||\n")
	f.Fuzz(func(t *testing.T, cols byte, text string) {
		if len(text) > 1<<13 {
			return
		}
		c := int(cols % 9)
		if cols == 255 {
			c = -1
		}
		checkHeaderColumns(t, text, c)
	})
}
