package textkit

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// recordStartReference is RecordStart as written before its fast path
// for a line that opens with a digit: the straightforward computation.
func recordStartReference(line string) (stamped, level bool) {
	if line == "" || line[0] == ' ' || line[0] == '\t' {
		return false, false
	}
	s := line[SkipANSI(line, 0):]
	if stampAtReference(s) {
		return true, false
	}
	if levelAt(s) {
		return false, true
	}
	lim := min(len(s), 24)
	if i := strings.IndexByte(s[:lim], ' '); i > 0 {
		rest := s[i+1:]
		return stampAtReference(rest) || (s[0] == '-' && i == 1 && rest != "" && IsDigit(rest[0])), false
	}
	return false, false
}

// stampAtReference is stampAt as written before it tested for '<' first.
func stampAtReference(s string) bool {
	if IsPlaceholderAt(s) {
		return true
	}
	if s != "" && (s[0] == '[' || s[0] == '<' || s[0] == '(') {
		s = s[1:]
	}
	switch {
	case s == "":
		return false
	case IsDigit(s[0]):
		return numericStampAt(s)
	case monthAt(s):
		i := 4
		for i < len(s) && s[i] == ' ' {
			i++
		}
		return i < len(s) && IsDigit(s[i])
	case dayAt(s):
		return monthAt(s[4:])
	}
	return len(s) > 6 && strings.IndexByte("IWEF", s[0]) >= 0 && DigitRun(s, 1) == 5 && s[5] == ' '
}

// dateAtReference is dateAt as written before its digits were read one
// by one: the straightforward computation.
func dateAtReference(s string, e int) bool {
	sep := s[e]
	f := DigitRun(s, e+1)
	if f-e-1 != 2 || f >= len(s) || s[f] != sep {
		return false
	}
	g := DigitRun(s, f+1)
	return g-f-1 == 2 || g-f-1 == 4
}

// recordLineParts are the pieces genRecordLine joins: the openings of
// log records of many shapes (epochs, dates, clocks, syslog and glog
// stamps, levels, placeholders, escapes), and of prose, Markdown, code,
// transcripts and JSON lines.
var recordLineParts = []string{
	"2024-03-01", "10:00:01.247", "081109", "203615", "1117838570", "2005.06.03", "17/06/09", "03-17", "20171223-22:15:29:606|",
	"1.54.0", "12:3", "7:04", "16:49:06", "2024", "-", "- ", "[", "]", "<", ">", "(", ")", "<N>", "<*>", "<TS>", "<NUM_1>", "<x>",
	"Jun", "Dec ", "Sun ", "Mon Dec", "Jun 14", "Feb  3", "I0607", "W1231", "E", "F0101 ", "INFO", "WARN", "warning", "[error]",
	"<ERROR>", "info: ", "error: ", "DBUG", "\x1b[31m", "\x1b[0m", "\x1b", "\x1bM", "  ", "\t", " ", ",", ".", "|", ":",
	"# ", "## User", "```", "> ", "func ", "User: ", "**Assistant:** ", `{"ts":"2024-03-01T10:00:00Z","level":"info"}`,
	"the", "request", "failed", "LabSZ", "sshd[24200]:", "combo", "é", "ſ", "0", "9", "12345", "123456",
}

// genRecordLine joins a few parts, blanks or not between them.
func genRecordLine(r *rand.Rand) string {
	var b strings.Builder
	for n := 1 + r.IntN(6); n > 0; n-- {
		b.WriteString(recordLineParts[r.IntN(len(recordLineParts))])
		if r.IntN(2) == 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// TestRecordStartMatchesReference checks RecordStart's fast paths against
// the straightforward computation on generated lines of log records,
// prose, Markdown, code, transcripts and JSON lines, and on their CRLF
// form (a line that keeps its \r).
func TestRecordStartMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 3))
	for range 200000 {
		line := genRecordLine(r)
		if r.IntN(4) == 0 {
			line += "\r"
		}
		checkRecordStart(t, line)
	}
}

func checkRecordStart(t *testing.T, line string) {
	t.Helper()
	gs, gl := RecordStart(line)
	ws, wl := recordStartReference(line)
	if gs != ws || gl != wl {
		t.Fatalf("RecordStart(%q) = %v, %v; want %v, %v", line, gs, gl, ws, wl)
	}
	if got, want := stampAt(line), stampAtReference(line); got != want {
		t.Fatalf("stampAt(%q) = %v; want %v", line, got, want)
	}
	for e := 0; e+1 < len(line) && e < 6; e++ {
		if IsDigit(line[e]) {
			continue // dateAt's separator is no digit
		}
		if got, want := dateAt(line, e), dateAtReference(line, e); got != want {
			t.Fatalf("dateAt(%q, %d) = %v; want %v", line, e, got, want)
		}
	}
}

// FuzzRecordStartReference checks RecordStart against the straightforward
// computation on any line.
func FuzzRecordStartReference(f *testing.F) {
	for _, s := range []string{"2024-03-01 10:00:00 INFO x", "081109 203615 148 INFO dfs", "<N> x", "[Sun Dec 04 04:47:44 2005] [notice]", "\x1b[32m2024-01-01", "- 1117838570 2005.06.03", "Jun 14 15:16:01 combo"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) { checkRecordStart(t, line) })
}
