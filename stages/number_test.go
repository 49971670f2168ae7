package stages

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestNumberNormalize(t *testing.T) {
	node := NewNumberNormalize(DefaultNumberNormalizeOptions())
	for _, tc := range []struct {
		name string
		kind Kind
		in   string
		want string
	}{
		{"records lose their ids, keep their times and addresses", KindLog,
			"2015-07-29 19:04:12,394 INFO connection 123456 from /10.10.34.11:45307 id=0x14ed93111f20005 [×3]\n",
			"2015-07-29 19:04:12,394 INFO connection <N> from /10.10.34.11:45307 id=0x<N> [×3]\n"},
		{"a rare record keeps its full line", KindLog,
			"2015-07-29 19:04:12,394 INFO connection 123456 from /10.10.34.11:45307 id=0x14ed93111f20005\n", ""},
		{"counts stay", KindLog,
			"2015-07-29 19:04:12 INFO request 12345 handled [×12345]\n",
			"2015-07-29 19:04:12 INFO request <N> handled [×12345]\n"},
		{"grouped numbers and UUIDs stay", KindLog,
			"2024-03-01 10:00:01 viewer: window 1440,900 at 13,48,39.36 session 3F2A9C1E-77B0-4D2E-9A61-0C5E8B7D4F10 frame 123456 [×9]\n",
			"2024-03-01 10:00:01 viewer: window 1440,900 at 13,48,39.36 session 3F2A9C1E-77B0-4D2E-9A61-0C5E8B7D4F10 frame <N> [×9]\n"},
		{"lines keywords keeps are not rewritten", KindLog,
			"2024-03-01 10:00:01 ERROR request 123456 failed [×4]\n2024-03-01 10:00:02 INFO request 123457 ok [×4]\n",
			"2024-03-01 10:00:01 ERROR request 123456 failed [×4]\n2024-03-01 10:00:02 INFO request <N> ok [×4]\n"},
		{"build output keeps versions and line numbers", KindLog,
			"Boost version: 1.54.0\nsrc/main.c:1234:5: error: 'x' undeclared\n", ""},
		{"hex ids in records", KindLog,
			"2024-01-01 10:00:00 INFO session 3f2a9c7b1e4d opened\n2024-01-01 10:00:01 INFO session 3f2a9c7b1e4e opened\n2024-01-01 10:00:02 INFO session 3f2a9c7b1e4f opened\n",
			"2024-01-01 10:00:00 INFO session <N> opened\n2024-01-01 10:00:01 INFO session <N> opened\n2024-01-01 10:00:02 INFO session <N> opened\n"},
		{"prose keeps exact numbers", KindProse, "It cost 12345 dollars in 2024.\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == "" {
				want = tc.in
			}
			got := applyNode(t, node, tc.in, tc.kind)
			if got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
			if again := applyNodeAs(t, node, got, tc.kind, tc.in); again != got {
				t.Errorf("not idempotent: %q", again)
			}
		})
	}
}

func TestNumberNormalizeConformance(t *testing.T) {
	checkConformance(t, NewNumberNormalize(DefaultNumberNormalizeOptions()), logInputs())
}

// TestNumberKeepsCtimeYears: the year of a ctime-style stamp (asctime,
// Apache's error log, ftpd, Java's Date with a zone) is part of the time
// and stays, wherever the stamp stands in the line; the record's other
// numbers are still masked.
func TestNumberKeepsCtimeYears(t *testing.T) {
	node := NewNumberNormalize(DefaultNumberNormalizeOptions())
	r := rand.New(rand.NewPCG(7, 8))
	days := []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
	months := []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	zones := []string{"", "UTC ", "GMT ", "CEST ", "PST "}
	masked := 0
	for n := 0; n < 60; n++ {
		shape, zone := r.IntN(4), zones[r.IntN(len(zones))]
		var lines, stamps []string
		for k := 0; k < 20; k++ {
			stamp := fmt.Sprintf("%s %s %2d %02d:%02d:%02d %s%d", days[r.IntN(7)], months[r.IntN(12)], 1+r.IntN(28),
				r.IntN(24), r.IntN(60), r.IntN(60), zone, 1970+r.IntN(120))
			id := 100000 + r.IntN(900000)
			var line string
			switch shape {
			case 3: // a CSV row
				line = fmt.Sprintf("%d,%s,notice,child %d started", k+1, stamp, id)
			case 0: // Apache's error log
				line = fmt.Sprintf("[%s] [notice] child %d started", stamp, id)
			case 1: // a stamp inside the message (ftpd)
				line = fmt.Sprintf("Jun 17 07:%02d:00 combo ftpd[%d]: connection %d at %s", k, 1000+k, id, stamp)
			default: // first, bare
				line = fmt.Sprintf("%s worker: job %d done", stamp, id)
			}
			lines, stamps = append(lines, line+" [×3]"), append(stamps, stamp)
		}
		masked += stampsKept(t, node, lines, stamps)
	}
	if masked < 600 {
		t.Fatalf("only %d of 1200 lines had a number masked: the test does not test", masked)
	}
}

// TestNumberKeepsNumericZoneOffsets: a numeric UTC offset after a clock
// time (the common log format, RFC 2822 and git dates, a ctime stamp with
// an offset and a year) is part of the time stamp and stays, in every
// shape and sign, and so does a year after a month name; the record's
// other numbers are still masked. Negative
// controls: a signed number that is no offset ("-1234", "+1600"), or an
// offset with no clock before it, is masked as before.
func TestNumberKeepsNumericZoneOffsets(t *testing.T) {
	node := NewNumberNormalize(DefaultNumberNormalizeOptions())
	r := rand.New(rand.NewPCG(3, 9))
	months := []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	longMonths := []string{"January", "March", "May", "September", "December"}
	offset := func() string {
		sign := "+-"[r.IntN(2)]
		hm := fmt.Sprintf("%02d", r.IntN(15))
		mm := []string{"00", "15", "30", "45"}[r.IntN(4)]
		if r.IntN(3) == 0 {
			return fmt.Sprintf("%c%s:%s", sign, hm, mm)
		}
		return fmt.Sprintf("%c%s%s", sign, hm, mm)
	}
	masked := 0
	for n := 0; n < 80; n++ {
		shape := r.IntN(5)
		var lines, stamps []string
		for k := 0; k < 20; k++ {
			clock := fmt.Sprintf("%02d:%02d:%02d", r.IntN(24), r.IntN(60), r.IntN(60))
			day, mon, year, off := 1+r.IntN(28), months[r.IntN(12)], 1990+r.IntN(40), offset()
			id := 100000 + r.IntN(900000)
			var line, stamp string
			switch shape {
			case 0: // the common log format
				stamp = fmt.Sprintf("[%02d/%s/%d:%s %s]", day, mon, year, clock, off)
				line = fmt.Sprintf(`10.0.%d.%d - - %s "GET /items/%d HTTP/1.1" 200 %d`, r.IntN(256), r.IntN(256), stamp, id, 1000+r.IntN(9000))
			case 1: // RFC 2822
				stamp = fmt.Sprintf("Tue, %d %s %d %s %s", day, mon, year, clock, off)
				line = fmt.Sprintf("Date: %s message-id %d", stamp, id)
			case 2: // git's ISO-like date, inside a record
				stamp = fmt.Sprintf("%d-%02d-%02d %s %s", year, 1+r.IntN(12), day, clock, off)
				line = fmt.Sprintf("2025-03-01 %s INFO commit %d at %s took %d ms", clock, id, stamp, 1000+r.IntN(9000))
			case 3: // a long month name, a day and a year before the clock, inside a record
				stamp = fmt.Sprintf("%s %d, %d %s %s", longMonths[r.IntN(len(longMonths))], day, year, clock, off)
				line = fmt.Sprintf("2025-03-01 %s INFO job %d due %s", clock, id, stamp)
			default: // ctime with an offset and a year
				stamp = fmt.Sprintf("Wed %s %02d %s %s %d", mon, day, clock, off, year)
				line = fmt.Sprintf("%s status %d posted", stamp, id)
			}
			lines, stamps = append(lines, line), append(stamps, stamp)
		}
		masked += stampsKept(t, node, lines, stamps)
	}
	// A rare template's record keeps its whole line, so not every line is
	// rewritten; most are.
	if masked < 1200 {
		t.Fatalf("only %d of 1600 lines had a number masked: the test does not test", masked)
	}
	for _, c := range []struct{ body, masked string }{
		{"at 10:00:00 -1234 units 5", "-1234"},                  // minutes 34: no zone's
		{"at 10:00:00 +1600 units 5", "+1600"},                  // hours 16: no zone's
		{"balance +0100 after 3 days", "+0100"},                 // no clock before it
		{"job 1 of Mar was moved 2025 rows ahead", "2025 rows"}, // three tokens after the month
	} {
		var lines []string
		for k := 0; k < 20; k++ {
			lines = append(lines, fmt.Sprintf("2025-03-01 10:00:%02d INFO %s", k, c.body))
		}
		got := strings.Split(applyNode(t, node, strings.Join(lines, "\n")+"\n", KindLog), "\n")[0]
		if strings.Contains(got, c.masked) || !strings.Contains(got, "<N>") {
			t.Errorf("%q: %q should be masked: %q", c.body, c.masked, got)
		}
	}
}

// stampsKept runs node over lines and fails t when line k lost stamps[k];
// it returns how many lines had a number masked.
func stampsKept(t *testing.T, node Node, lines, stamps []string) (masked int) {
	t.Helper()
	got := strings.Split(applyNode(t, node, strings.Join(lines, "\n")+"\n", KindLog), "\n")
	for k, stamp := range stamps {
		if !strings.Contains(got[k], stamp) {
			t.Fatalf("%q lost part of its stamp %q", got[k], stamp)
		}
		if strings.Contains(got[k], "<N>") {
			masked++
		}
	}
	return masked
}
