package logs

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// logClasses write one line of a log of their class; n numbers it.
var logClasses = []func(r *rand.Rand, n int) string{
	func(r *rand.Rand, n int) string { // plain stamped records
		switch r.IntN(7) {
		case 0:
			return fmt.Sprintf("2024-03-%02d %02d:%02d:%02d,%03d %s [main-%d] Foo: took %d ms", 1+r.IntN(28), r.IntN(24), r.IntN(60), n%60, r.IntN(1000), level(r), r.IntN(12), r.IntN(5000))
		case 1:
			return fmt.Sprintf("0811%02d %06d %d INFO dfs.DataNode$PacketResponder: Received block blk_%d of size %d", 9+r.IntN(2), 203615+n, 100+r.IntN(900), r.Int64(), r.IntN(1<<26))
		case 2:
			return fmt.Sprintf("[Sun Dec 04 04:%02d:%02d 2005] [%s] mod_jk child workerEnv in error state %d", r.IntN(60), n%60, strings.ToLower(level(r)), r.IntN(9))
		case 3:
			return fmt.Sprintf("Jun 14 15:16:%02d combo sshd(pam_unix)[%d]: authentication failure; rhost=218.188.2.%d", n%60, 19000+r.IntN(999), r.IntN(256))
		case 4:
			return fmt.Sprintf("- %d 2005.06.03 R02-M1-N0-C:J12-U11 2005-06-03-15.42.50.%06d RAS KERNEL INFO instruction cache parity error corrected", 1117838570+n, r.IntN(1e6))
		case 5:
			return fmt.Sprintf("I0607 12:34:%02d.%03d %d server.go:%d] request %d done", n%60, r.IntN(1000), 4000+r.IntN(9), r.IntN(300), n)
		default:
			return fmt.Sprintf("<N> <*> worker %d: job <NUM> %s", r.IntN(40), []string{"done", "failed", "queued"}[r.IntN(3)])
		}
	},
	func(r *rand.Rand, n int) string { // JSON lines
		obj := fmt.Sprintf(`{"ts":"2024-01-01T00:%02d:%02dZ","level":"%s","msg":"served %d","id":%d}`, r.IntN(60), n%60, strings.ToLower(level(r)), r.IntN(99), n)
		if r.IntN(3) == 0 {
			return "2024-01-01T00:00:00.123456789Z stdout F " + obj
		}
		return obj
	},
	func(r *rand.Rand, n int) string { // logfmt
		return fmt.Sprintf(`ts=2024-01-01T10:%02d:%02dZ level=%s msg="hello %d world" id=%d dur=%dms`, r.IntN(60), n%60, strings.ToLower(level(r)), r.IntN(9), n, r.IntN(900))
	},
	func(r *rand.Rand, n int) string { // access records
		return fmt.Sprintf(`10.0.%d.%d - - [10/Oct/2000:13:55:%02d -0700] "GET /x/%d HTTP/1.0" %d %d "-" "curl/7.%d"`, r.IntN(256), r.IntN(256), n%60, r.IntN(1000), []int{200, 301, 404, 503}[r.IntN(4)], r.IntN(9999), r.IntN(80))
	},
	func(r *rand.Rand, n int) string { // records with stack traces
		switch r.IntN(9) {
		case 0:
			return fmt.Sprintf("\tat com.example.Foo.bar(Foo.java:%d)", r.IntN(900))
		case 1:
			return fmt.Sprintf("Caused by: java.io.IOException: broken pipe %d", r.IntN(9))
		case 2:
			return fmt.Sprintf("... %d more", r.IntN(40))
		case 3:
			return "Traceback (most recent call last):"
		case 4:
			return fmt.Sprintf(`  File "/app/x.py", line %d, in run`, r.IntN(500))
		case 5:
			return fmt.Sprintf("goroutine %d [running]:", r.IntN(90))
		case 6:
			return "java.lang.IllegalStateException: bad state"
		default:
			return fmt.Sprintf("2024-03-01T10:00:%02d.%03dZ ERROR [pool-%d] job %d failed", n%60, r.IntN(1000), r.IntN(9), n)
		}
	},
	func(r *rand.Rand, n int) string { // header columns
		switch r.IntN(5) {
		case 0:
			return fmt.Sprintf("%d | node-%d | %d | %s | state change %d", 1000+n, r.IntN(9), r.IntN(99999), level(r), r.IntN(3))
		case 1:
			return fmt.Sprintf("%d\t%d\t%s\thost%d\tmessage %d", n*7, r.IntN(1<<20), level(r), r.IntN(9), r.IntN(9))
		case 2:
			return fmt.Sprintf("\x1b[3%dm%s\x1b[0m %02d:%02d:%02d (%d) [%d] colour", r.IntN(8), level(r), r.IntN(24), r.IntN(60), n%60, r.IntN(999), r.IntN(99))
		case 3:
			return fmt.Sprintf("%d %d %d a%d %d;%d 'x%d' <%d>", r.IntN(3), n, r.IntN(10), r.IntN(99), r.IntN(9), r.IntN(9), r.IntN(99), r.IntN(9))
		default:
			return fmt.Sprintf("12:%02d:%02d.%d pid=%d %s", r.IntN(60), n%60, r.IntN(10), r.IntN(900), level(r))
		}
	},
	func(r *rand.Rand, n int) string { // repeats without stamps
		return []string{"Starting worker %d", "connected to host%d:%d", "retrying in %ds", "cache hit ratio %d.%d"}[r.IntN(4)]
	},
	func(r *rand.Rand, n int) string { // prose, few repeats
		var b strings.Builder
		for k := 2 + r.IntN(12); k > 0; k-- {
			b.WriteString([]string{"the", "Quiet", "river", "of", "7", "runs", "at", "dawn:", "é", "{x}", "a=b", "|", "  "}[r.IntN(13)])
			b.WriteByte(' ')
		}
		return b.String()
	},
}

func level(r *rand.Rand) string {
	return []string{"INFO", "WARN", "ERROR", "DEBUG"}[r.IntN(4)]
}

// genLog writes a log mostly of one class, with blank lines, carriage
// returns, protected lines, long and short lines, and lines whose digits
// turned into the bytes that hash like them (":;<=>?").
func genLog(r *rand.Rand, lines int) string {
	return genLogOf(r, lines, r.IntN(len(logClasses)))
}

// genLogOf is genLog of class main.
func genLogOf(r *rand.Rand, lines, main int) string {
	var b strings.Builder
	for n := range lines {
		class := main
		if r.IntN(10) == 0 {
			class = r.IntN(len(logClasses))
		}
		line := logClasses[class](r, n)
		switch r.IntN(40) {
		case 0:
			line = ""
		case 1:
			line += "\r"
		case 2:
			line = string(textkit.ProtectOpen) + "1\uE001"
		case 3:
			line += strings.Repeat(fmt.Sprint(" x", r.IntN(99)), 700+r.IntN(200))
		case 4:
			line = line[:min(len(line), r.IntN(9))]
		case 5:
			line = strings.Map(func(c rune) rune {
				if c >= '0' && c <= '9' && r.IntN(3) == 0 {
					return c + 10 // ':' to 'C'
				}
				return c
			}, line)
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestAnalyzeMatchesReference checks Analyze, which makes the facts of
// a line once a digit shape and reads header columns from them, against
// its code before (analyzeReference) on generated logs of every class.
func TestAnalyzeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	records, headers, repeats := 0, 0, 0
	fields := map[string]int{}
	for run := range 600 {
		lines := 1 + r.IntN(700)
		if run%100 == 0 {
			lines = 6000 // past the three windows
		}
		text := genLog(r, lines)
		if run%5 == 0 {
			// Prose first turns the memo off: the records after it have
			// no facts kept.
			text = genLogOf(r, 150+r.IntN(200), len(logClasses)-1) + text
		}
		got, want := Analyze(text), analyzeReference(text)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("run %d: Analyze %+v, reference %+v on\n%s", run, got, want, text[:min(len(text), 3000)])
		}
		if got.Records {
			records++
		}
		if got.HeaderCols > 0 {
			headers++
		}
		if got.ByRepeats {
			repeats++
		}
		fields[got.Fields]++
	}
	if records < 200 || headers < 50 || repeats < 10 || len(fields) < 4 {
		t.Fatalf("%d logs of records, %d with a header, %d by repeats, fields %v: the test does not test", records, headers, repeats, fields)
	}
}

// TestFactsByDigitShape checks what the memo rests on: lines that differ
// only in the values of their digits have the same facts and columns,
// hash alike and compare equal; a digit turned into another byte is
// another shape.
func TestFactsByDigitShape(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	for n := range 20000 {
		line := logClasses[r.IntN(len(logClasses))](r, n)
		if r.IntN(4) == 0 {
			line = line[:r.IntN(len(line)+1)]
		}
		other := []byte(line)
		digits := 0
		for i, c := range other {
			if textkit.IsDigit(c) {
				other[i], digits = byte('0'+r.IntN(10)), digits+1
			}
		}
		o := string(other)
		if !sameDigitShape(line, o) || digitShapeHash(line) != digitShapeHash(o) {
			t.Fatalf("%q and %q: not one shape", line, o)
		}
		if line != "" && factsOf(line) != factsOf(o) {
			t.Fatalf("%q and %q: facts %+v and %+v", line, o, factsOf(line), factsOf(o))
		}
		if allColumns(line) != allColumns(o) {
			t.Fatalf("%q and %q: columns %+v and %+v", line, o, allColumns(line), allColumns(o))
		}
		if digits > 0 {
			i := strings.IndexFunc(line, func(c rune) bool { return c >= '0' && c <= '9' })
			other[i] = ":;<=>?Aa \x80"[r.IntN(10)]
			if sameDigitShape(line, string(other)) {
				t.Fatalf("%q and %q: one shape", line, other)
			}
		}
	}
}

// FuzzAnalyzeFactMemo checks Analyze against analyzeReference on a text
// followed by itself with other digits, so that its lines meet the memo.
func FuzzAnalyzeFactMemo(f *testing.F) {
	r := rand.New(rand.NewPCG(55, 56))
	for range 8 {
		f.Add(genLog(r, 40))
	}
	f.Fuzz(func(t *testing.T, text string) {
		again := strings.Map(func(c rune) rune {
			if c >= '0' && c <= '9' {
				return '0' + (c-'0'+3)%10
			}
			return c
		}, text)
		text += "\n" + again + "\n" + text
		if got, want := Analyze(text), analyzeReference(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("Analyze %+v, reference %+v", got, want)
		}
	})
}

// TestHeaderStatsByColumns checks headerStatsByColumns, which reads
// columns once a digit shape, against headerStats, which reads them
// head by head: random heads of columns that repeat, vary or hold words.
func TestHeaderStatsByColumns(t *testing.T) {
	r := rand.New(rand.NewPCG(57, 58))
	cols := []string{"2024-01-01", "10:00:01.5", "123", "7", "<7>", "a1", "INFO", "[worker-3]", "x", "", "ab12cd", "(42)", "42", "[42],", "\x1b[31m12", "'9'", "0xff"}
	seps := []string{" ", "  ", "\t", " | ", "|"}
	varying, headed := 0, 0
	for n := 0; n < 4000; n++ {
		heads := make([]string, 1+r.IntN(60))
		fixed := r.IntN(4) // how often a column repeats the one above
		layout := make([]int, 1+r.IntN(9))
		for c := range layout {
			layout[c] = r.IntN(len(cols))
		}
		for i := range heads {
			var b strings.Builder
			for _, c := range layout {
				col := cols[c]
				if r.IntN(10) == 0 {
					col = cols[r.IntN(len(cols))]
				}
				b.WriteString(col)
				if r.IntN(4) >= fixed {
					b.WriteString(fmt.Sprint(r.IntN(3)))
				}
				b.WriteString(seps[r.IntN(len(seps))])
			}
			heads[i] = b.String()
			if r.IntN(4) == 0 { // fewer columns than the heads above
				heads[i] = heads[i][:r.IntN(len(heads[i])+1)]
			}
		}
		// One headColumns a digit shape, read as headerStatsByColumns
		// asks, as Analyze hands them.
		hc := make([]*headColumns, len(heads))
		for i, h := range heads {
			hc[i] = new(headColumns)
			for k := range i {
				if sameDigitShape(heads[k], h) {
					hc[i] = hc[k]
					break
				}
			}
		}
		v, h := headerStatsByColumns(heads, hc)
		rv, rh := headerStats(heads)
		if v != rv || h != rh {
			t.Fatalf("heads %q: by columns (%v, %d), headerStats (%v, %d)", heads, v, h, rv, rh)
		}
		if v {
			varying++
		}
		if h > 0 {
			headed++
		}
	}
	if varying < 200 || varying > 3800 || headed < 200 {
		t.Fatalf("%d varying, %d headed: the test does not test", varying, headed)
	}
}

// allColumns reads all the header columns of head.
func allColumns(head string) headColumns {
	var hc headColumns
	hc.readTo(head, headerCols-1)
	return hc
}
