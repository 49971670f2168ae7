package logs

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestAnalyzeLogBuildOutputIsNotRecords(t *testing.T) {
	text := "$ make\ncc -c a.c\ncc -c b.c\na.c:12:5: error: 'x' undeclared\nmake: *** [a.o] Error 1\n"
	if lay := Analyze(text); lay.Records {
		t.Fatalf("build output read as records: %+v", lay)
	}
}

// TestHeaderColumnsMeasured: the header is the leading columns that hold
// data, whatever they are; the message starts after them.
func TestHeaderColumnsMeasured(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, tc := range []struct {
		line func(i int) string
		cols int
		msg  string
	}{
		{func(i int) string {
			return fmt.Sprintf("Dec 10 06:%02d:%02d LabSZ sshd[%d]: Invalid user u%d from 10.0.0.%d", i/60%60, i%60, 24000+r.IntN(900), i, i%200)
		}, 5, "Invalid user"},
		{func(i int) string {
			return fmt.Sprintf("- %d 2005.06.03 R%02d-M1-N0 2005-06-03-15.42.%02d.%06d R%02d-M1-N0 RAS KERNEL INFO cache parity error corrected", 1117838570+i, i%64, i%60, r.IntN(1e6), i%64)
		}, 6, "RAS KERNEL"},
		{func(i int) string {
			return fmt.Sprintf("2024-03-01 10:%02d:%02d,%03d INFO [main] job %d moved", i/60%60, i%60, i%1000, i%5)
		}, 2, "INFO [main]"},
	} {
		var b strings.Builder
		for i := range 300 {
			b.WriteString(tc.line(i) + "\n")
		}
		lay := Analyze(b.String())
		if lay.HeaderCols != tc.cols {
			t.Errorf("%q: %d header columns, want %d", tc.line(0), lay.HeaderCols, tc.cols)
			continue
		}
		l := tc.line(7)
		if rest := strings.TrimLeft(l[HeaderEnd(l, lay.HeaderCols):], " "); !strings.HasPrefix(rest, tc.msg) {
			t.Errorf("message of %q starts at %q", l, rest)
		}
	}
}

func TestLogLayoutRoundTrip(t *testing.T) {
	for _, l := range []Layout{
		{},
		{Analyzed: true},
		{Analyzed: true, Records: true, Fields: FieldsJSON, Openers: []string{`{"a":`}},
		{Analyzed: true, Records: true, Openers: []string{"[a", "d-d-d", "a&b=c;", "é"}, HeaderCols: 5},
		{Analyzed: true, Records: true, ByRepeats: true},
		{Analyzed: true, Records: true, Fields: FieldsAccess, Openers: []string{"d.d.d.d"}},
		{Analyzed: true, Records: true, Openers: []string{"a"}, HeaderCols: 8, StatusFields: []int{-3, -4}},
		{Analyzed: true, Records: true, Openers: []string{"a"}, StatusFields: []int{2}},
	} {
		got, err := ParseLayout(l.String())
		if err != nil {
			t.Fatalf("%+v: %v", l, err)
		}
		// Every field travels: a segment must work with the layout the first one made.
		if !reflect.DeepEqual(got, l) && !(len(l.Openers) == 0 && len(got.Openers) == 0 && got.Analyzed == l.Analyzed && got.ByRepeats == l.ByRepeats) {
			t.Errorf("round trip %+v -> %q -> %+v", l, l.String(), got)
		}
	}
	for _, bad := range []string{"v=2", "v=1&f=xml", "%zz", "v=1&s=0", "v=1&s=x", "v=1&s=-13", "v=1&s=1&s=2&s=3"} {
		if _, err := ParseLayout(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestAccessRecord: the NCSA common and combined formats, with a virtual
// host or a user in front and fields after, are access records; lines
// that only look alike are not.
func TestAccessRecord(t *testing.T) {
	const req = `[01/Mar/2024:10:00:00 +0000] "GET /x?a=1 HTTP/1.1" `
	for line, size := range map[string]string{
		`10.0.0.1 - - ` + req + `200 512`:                                                              "512",
		`10.0.0.1 - - ` + req + `304 - "-" "curl/8.4.0"`:                                               "-",
		`example.com:443 10.0.0.1 - alice ` + req + `404 0 "https://e.com/" "Mozilla/5.0 (X11)" 0.012`: "0",
		`::1 - - ` + req + `503 19`:                                                                    "19",
	} {
		status, end := accessRecord(line)
		if end == 0 || line[status:status+3] != strings.Fields(line[status:])[0] || line[end-len(size):end] != size {
			t.Errorf("accessRecord(%q) = %d, %d", line, status, end)
		}
	}
	for _, line := range []string{
		`2024-03-01 10:00:00 [main] INFO "quoted" 200 things`,
		`10.0.0.1 - - ` + req + `OK 512`,
		`10.0.0.1 - - ` + req + `2000 512`,
		`10.0.0.1 - - ` + req + `200 5k`,
		`10.0.0.1 - - [01/Mar/2024:10:00:00 +0000] GET /x 200 512`,
		`[main] "unterminated 200 1`,
	} {
		if _, end := accessRecord(line); end != 0 {
			t.Errorf("accessRecord(%q) found a record", line)
		}
	}
	lay := Analyze(strings.Repeat(`10.0.0.1 - - `+req+`200 512 "-" "curl/8.4.0"`+"\n", 50))
	if lay.Fields != FieldsAccess || !lay.Records {
		t.Errorf("an access log is analysed as %+v", lay)
	}
}

// TestHeaderStatsStopsEarlyAlike: headerStats, which stops reading a
// column once its answer is settled, decides as a full read does, on
// heads of random columns (times, numbers, counters that change every few
// heads, words, pipes, blank runs, empty heads) in random proportions.
func TestHeaderStatsStopsEarlyAlike(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var runs int
	cell := func(kind int, i int) string {
		switch kind {
		case 0:
			return fmt.Sprintf("10:%02d:%02d", i/60%60, i%60)
		case 1:
			return strconv.Itoa(r.IntN(100))
		case 2:
			return []string{"INFO", "WARN", "main", "worker"}[r.IntN(4)]
		case 3:
			return fmt.Sprintf("[%d]", 1000+r.IntN(3))
		case 5:
			return strconv.Itoa(1000 + i/runs) // changes every runs heads
		default:
			return "x" + strconv.Itoa(r.IntN(10))
		}
	}
	for range 3000 {
		runs = 1 + r.IntN(6)
		n := 1 + r.IntN(450)
		cols := 1 + r.IntN(9)
		kinds := make([]int, cols)
		noise := make([]int, cols)
		for c := range kinds {
			kinds[c], noise[c] = r.IntN(6), r.IntN(40)
		}
		heads := make([]string, n)
		for i := range heads {
			if r.IntN(50) == 0 {
				continue // an empty head
			}
			var b strings.Builder
			for c := range cols {
				k := kinds[c]
				if r.IntN(100) < noise[c] {
					k = r.IntN(6)
				}
				b.WriteString(cell(k, i))
				b.WriteString([]string{" ", "  ", " | ", "\t"}[r.IntN(4)])
			}
			b.WriteString("message text follows here")
			heads[i] = b.String()
		}
		gv, gh := headerStats(heads)
		wv, wh := headerStatsReference(heads)
		if gv != wv || gh != wh {
			t.Fatalf("heads %q...: headerStats (%v, %d), a full read (%v, %d)", heads[:min(3, n)], gv, gh, wv, wh)
		}
	}
}
