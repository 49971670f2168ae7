package stages

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

func TestDetect(t *testing.T) {
	rep := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(f(i))
			b.WriteByte('\n')
		}
		return b.String()
	}
	for _, tc := range []struct {
		name string
		text string
		want Kind
	}{
		{"record log", rep(50, func(i int) string {
			return fmt.Sprintf("2024-01-01 10:00:%02d INFO worker-%d processed request in %dms", i%60, i%4, i)
		}), KindLog},
		{"syslog", rep(50, func(i int) string {
			return fmt.Sprintf("Jun 14 15:16:%02d combo sshd(pam_unix)[%d]: check pass; user unknown", i%60, 19000+i)
		}), KindLog},
		{"record log with stack traces", rep(20, func(i int) string {
			return fmt.Sprintf("2024-01-01 10:00:%02d ERROR query failed\njava.io.IOException: reset\n\tat a.B.c(B.java:%d)\n\tat a.B.d(B.java:9)", i, i)
		}), KindLog},
		{"build output with colours", "Build language: java\nBuild group: stable\nThis is free software; see the source for copying conditions.\n" + rep(40, func(i int) string {
			return fmt.Sprintf("\x1b[32m[%d/40]\x1b[0m Building C object src/f%d.c.o", i, i)
		}), KindLog},
		{"build output without colours", rep(40, func(i int) string {
			return fmt.Sprintf("   Compiling crate_%d v0.1.%d (/build/crates/c%d)", i, i, i)
		}) + "error[E0425]: cannot find value `x` in this scope\n", KindLog},
		{"transcript", rep(20, func(i int) string {
			return []string{"Alice: I think option A is cheaper for the team.", "Bob: I disagree, option B has lower risk overall."}[i%2]
		}), KindTranscript},
		{"levels first are no speakers", rep(40, func(i int) string {
			return fmt.Sprintf("Mar 01, 2024 9:59:%02d AM com.acme.Server handle\n%s: session opened for user u%d by the pool manager", i%60, []string{"INFO", "WARNING", "FINE"}[i%3], i)
		}), KindLog},
		{"key-value banner is not a transcript", rep(30, func(i int) string {
			return fmt.Sprintf("Receiving objects: %d%% (%d/300)", i*3, i*10)
		}) + "Build language: go\nBuild id: 1\nJob id: 2\n", KindLog},
		{"prose", rep(20, func(i int) string {
			return "The committee met on Tuesday and discussed the budget for the coming year in detail."
		}), KindProse},
		{"markdown chat with code", "#### add a test\n\nSure, here is the change you asked for, with a short test.\n\n```python\nimport os\nx = os.path.join('a', 'b')\nprint(x)\n```\n\nThe test now passes on my machine as expected.\n", KindProse},
		{"json", `{"a": [1, 2, 3], "b": {"c": "d"}}`, KindJSON},
		{"html", "<!doctype html><html><body><h1>x</h1></body></html>", KindHTML},
		{"empty", "", KindProse},
		{"blank", " \n\t\n", KindProse},
	} {
		if got := Detect(tc.text); got != tc.want {
			t.Errorf("%s: Detect = %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestDetectSamplesLongTexts: a long build log that opens with pages of
// prose-like banners is still a log, from the windows in its middle and end.
func TestDetectSamplesLongTexts(t *testing.T) {
	var b strings.Builder
	for b.Len() < 40<<10 {
		b.WriteString("This program is free software; you can redistribute it and modify it under the terms.\n")
	}
	for b.Len() < 200<<10 {
		fmt.Fprintf(&b, "\x1b[32m[ RUN ]\x1b[0m test %d \x1b[32mOK\x1b[0m\n", b.Len())
	}
	if got := Detect(b.String()); got != KindLog {
		t.Fatalf("Detect = %s, want log", got)
	}
}

// FuzzDetectShortcuts checks the cheap paths in Detect against what they
// stand for: mayStartTurn never rules out a turnStart match, and openingKey
// equals the first two of at least three fields with digits masked.
func FuzzDetectShortcuts(f *testing.F) {
	for _, s := range []string{
		"### Alice (moderator): we should ship", "**[Bob]**: hello there", "user: hi", "ai: ok",
		"Dr. O'Neil-Smith (chair, day 2): agreed", "#### x: no", "##### Alice: hi", "[Sun Dec 04 04:47:44 2005] [error] x",
		"081109 203615 148 INFO dfs.DataNode: ok", "  spaced\u00a0out\u2003tokens here", "Ünïcode: 日本語 (注記 注記): hi",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if turnStart.MatchString(s) && !mayStartTurn(s) {
			t.Fatalf("mayStartTurn rules out a turn start: %q", s)
		}
		want := ""
		if fs := strings.Fields(s); len(fs) >= 3 {
			k := []byte(fs[0] + " " + fs[1])
			for i, c := range k {
				if c >= '0' && c <= '9' {
					k[i] = '0'
				}
			}
			want = string(k)
		}
		if got := string(openingKey(s, nil)); got != want {
			t.Fatalf("openingKey(%q) = %q, want %q", s, got, want)
		}
	})
}

func FuzzLineBreak(f *testing.F) {
	f.Add("a\r\nb")
	f.Add(strings.Repeat("x", 700) + "\r" + strings.Repeat("y", 600) + "\n")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := lineBreak(s), strings.IndexAny(s, "\r\n"); got != want {
			t.Fatalf("lineBreak = %d, want %d", got, want)
		}
	})
}

// scanReference is kindStats.scan cutting lines with strings.IndexAny.
func (st *kindStats) scanReference(s string, max int) {
	fence := ""
	for n := 0; len(s) > 0 && n < max; {
		var line string
		if i := strings.IndexAny(s, "\r\n"); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			line, s = s, ""
		}
		if fence != "" {
			if strings.HasPrefix(strings.TrimSpace(line), fence) {
				fence = ""
			}
			continue
		}
		if f := textkit.FenceMarker(strings.TrimLeft(line, " ")); f != "" {
			fence = f
			continue
		}
		if strings.HasPrefix(line, ">") {
			line = strings.TrimLeft(line, "> ") // a quoted reply, by what it quotes
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		st.add(line)
		st.sample = append(st.sample, line)
		n++
	}
}

// FuzzDetectScan checks that scan samples the lines the reference does.
func FuzzDetectScan(f *testing.F) {
	for _, s := range []string{"a\r\nb\r\n\r\nc", "x\ry\n\rz", "```\r\ncode\r\n```\r\nafter\r\n", "2024-01-01 INFO a\n\n\r\r\n"} {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, max uint8) {
		got := kindStats{speakers: map[string]int{}}
		want := kindStats{speakers: map[string]int{}}
		got.sample = got.scan(s, int(max), got.sample)
		want.scanReference(s, int(max))
		if !slices.Equal(got.sample, want.sample) || got.kind() != want.kind() {
			t.Fatalf("scan(%q, %d) sampled %q, want %q", s, max, got.sample, want.sample)
		}
	})
}

// TestDetectLayoutOnce checks that DetectLayout hands over the analysis
// Detect made to decide, equal to a fresh one, so that the caller need
// not analyse the text again; and that it hands over none when it made
// none (a time-stamped log, prose).
func TestDetectLayoutOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("LineId,EventId\n")
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&b, "%d,E%d\n", i, 1+i*7%13)
	}
	idsOnly := b.String()
	k, lay := DetectLayout(idsOnly)
	if k != KindLog || !lay.Analyzed {
		t.Fatalf("numbered rows: kind %s, analysed %v; want a log analysed by Detect", k, lay.Analyzed)
	}
	if want := logs.Analyze(idsOnly); lay.String() != want.String() {
		t.Fatalf("Detect's layout %q, a fresh analysis %q", lay.String(), want.String())
	}
	for _, text := range []string{
		strings.Repeat("2024-05-01T10:00:00Z INFO served\n", 50),
		strings.Repeat("The quick brown fox jumps over the lazy dog.\n", 50),
	} {
		if k, lay := DetectLayout(text); lay.Analyzed || k != Detect(text) {
			t.Fatalf("%.30q: kind %s, analysed %v; want Detect's kind and no layout", text, k, lay.Analyzed)
		}
	}
}

// TestLabelledRecordsAreNoTurns: a log whose lines carry a label before
// an id (AWS Lambda's START, END and REPORT lines around each request's
// records) is a log, not a transcript of one speaker; a chat whose turns
// open with a list item's number is still a transcript.
func TestLabelledRecordsAreNoTurns(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		id := fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", uint32(i*2654435761), i%65536, i%4096, i*7%4096, i*1000003)
		fmt.Fprintf(&b, "START RequestId: %s Version: $LATEST\n", id)
		fmt.Fprintf(&b, "2024-03-01T10:%02d:%02d.%03dZ\t%s\tINFO\tfetched %d rows from the orders table\n", i/60%60, i%60, i%1000, id, i*7%500)
		fmt.Fprintf(&b, "END RequestId: %s\n", id)
		fmt.Fprintf(&b, "REPORT RequestId: %s\tDuration: %d.%02d ms\tBilled Duration: %d ms\tMemory Size: 128 MB\tMax Memory Used: %d MB\t\n", id, i%900, i%100, 1+i%900, 60+i%40)
	}
	if k := Detect(b.String()); k != KindLog {
		t.Errorf("Lambda log: kind %s, want log", k)
	}
	// A level right after a bracketed stamp (PHP-FPM) is no speaker.
	var f strings.Builder
	for i := range 300 {
		level := []string{"NOTICE", "WARNING", "ERROR", "INFO", "DEBUG"}[i*7%5]
		fmt.Fprintf(&f, "[01-Mar-2024 10:%02d:%02d] %s: [pool www] child %d said into stderr: \"request %d done\"\n", i/60%60, i%60, level, 1000+i, i)
	}
	if k := Detect(f.String()); k != KindLog {
		t.Errorf("PHP-FPM log: kind %s, want log", k)
	}
	var c strings.Builder
	for i := range 20 {
		fmt.Fprintf(&c, "User: how do I rotate the keys of service %c without downtime?\n\n", 'a'+i)
		c.WriteString("Assistant: 1. Create the new key first and deploy it next to the old one.\n2. Switch the readers over, then retire the old key.\n\n")
	}
	if k := Detect(c.String()); k != KindTranscript {
		t.Errorf("chat with numbered answers: kind %s, want transcript", k)
	}
	for tok, want := range map[string]bool{
		"9e3779b1-0001-4001-a007-0000000f4243": true, "404": true, "12:30": true, "2024-01-01": true, "deadbeef42": true,
		"2FA": false, "5G": false, "i18n": false, "1.": false, "12)": false, "hello": false, "abcdef": false,
	} {
		if got := opensWithID(tok); got != want {
			t.Errorf("opensWithID(%q) = %v, want %v", tok, got, want)
		}
	}
}

// TestQuotedRepliesAreProse: an e-mail thread, each reply quoting the
// ones before ("> > ..."), is prose whatever its depth: its quote
// markers open every line alike, as a build's output does, and read as a
// log its newest replies were folded around the one that said "failed".
// A log quoted in a reply stays a log.
func TestQuotedRepliesAreProse(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	names := []string{"Ana", "Ben", "Chloe", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun"}
	verbs := []string{"prune the old partitions", "buy more disk", "wait for the quarter", "move archives to cold storage"}
	for doc := range 20 {
		thread := "Hi team,\n\nThe nightly export failed again at 02:14 UTC because the disk on db-3 filled up.\n\nThanks,\nAna\n"
		for k := range 4 + r.IntN(7) {
			reply := fmt.Sprintf("%s wrote:\nI think we should %s, it is %s in my view.\n\n", names[(k+1)%len(names)], verbs[r.IntN(len(verbs))], []string{"cheaper", "safer", "faster"}[r.IntN(3)])
			quoted := strings.Split(strings.TrimSuffix(thread, "\n"), "\n")
			for i, l := range quoted {
				quoted[i] = strings.TrimRight("> "+l, " ")
			}
			thread = reply + strings.Join(quoted, "\n") + "\n"
		}
		if k := Detect(thread); k != KindProse {
			t.Errorf("doc %d: a thread read as %s:\n%s", doc, k, thread)
		}
	}
	var quotedLog strings.Builder
	quotedLog.WriteString("Ben wrote:\nHere is what the worker logged:\n\n")
	for i := range 40 {
		fmt.Fprintf(&quotedLog, "> 2024-03-01 10:00:%02d ERROR [worker-%d] export failed: disk full\n", i, i%3)
	}
	if k := Detect(quotedLog.String()); k != KindLog {
		t.Errorf("a quoted log read as %s", k)
	}
}

// FuzzDetectFirstTests checks the quick tests scan uses: textkit.IsBlank is
// strings.TrimSpace(s) == "", and a line cueTiming reads passes
// mayBeCueTiming.
func FuzzDetectFirstTests(f *testing.F) {
	for _, s := range []string{"00:00:01,000 --> 00:00:02,500", " \t01:02.345 --> 01:03.000 x", "\u00a0", " ", "a", "\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if textkit.IsBlank(s) != (strings.TrimSpace(s) == "") {
			t.Fatalf("IsBlank(%q) = %v", s, textkit.IsBlank(s))
		}
		if _, _, ok := cueTiming(s); ok && !mayBeCueTiming(s) {
			t.Fatalf("cueTiming reads %q, mayBeCueTiming does not pass it", s)
		}
	})
}
