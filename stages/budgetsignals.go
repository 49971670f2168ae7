package stages

import (
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// LineSignal scores one line as the keywords node does: 3 for a failure, 2
// for a warning or summary, 1 for a weaker fact, 0 for nothing.
func LineSignal(line string) int { return lineSignal(line) }

// ProtectedLines marks the lines of text (split on "\n") that lie in a
// protected region (see Protect). All false when the mapping is unclear.
func ProtectedLines(text string) []bool {
	lines := strings.Split(text, "\n")
	marks := make([]bool, len(lines))
	prot, st := Protect(text)
	if st.Len() == 0 || st.escaped {
		return marks
	}
	i := 0
	for _, pl := range strings.Split(prot, "\n") {
		n := 1
		if IsProtectedLine(pl) && strings.HasSuffix(pl, string(protectClose)) {
			idx, ok := decodePlaceholder(pl[len(string(protectOpen)) : len(pl)-len(string(protectClose))])
			if !ok || idx-st.base < 0 || idx-st.base >= len(st.regions) {
				return make([]bool, len(lines))
			}
			n = strings.Count(st.regions[idx-st.base], "\n") + 1
			for j := i; j < i+n && j < len(marks); j++ {
				marks[j] = true
			}
		}
		i += n
	}
	if i != len(lines) {
		return make([]bool, len(lines))
	}
	return marks
}

// Chatter reports a line a reader of a failed build needs least: a test
// that passed (TAP "ok 3", "✓ name", Pester's "[+] name", gtest's
// "[       OK ] name"), a CI runner's bookkeeping (Travis "travis_fold:"
// and "travis_time:", GitHub Actions "##[group]" and "::group::", GitLab
// "section_start:"), or a progress line ("45%", "[=====>    ]"). Any
// words a passing test's name holds ("mock does not leak") are no failure.
func Chatter(line string) bool {
	if passed(line) {
		return true
	}
	s := strings.TrimLeft(stripANSI(line), " \t\r")
	if i := strings.LastIndexByte(s, '\r'); i >= 0 { // a terminal shows the last write
		s = strings.TrimLeft(s[i+1:], " \t")
	}
	for _, p := range [...]string{"[+] ", "[ OK ]", "[       OK ]", "[PASS]", "[ PASS ]", "travis_fold:", "travis_time:", "##[group]", "##[endgroup]", "::group::", "::endgroup::", "section_start:", "section_end:"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return progressLine(s)
}

// progressLine reports a download or build progress line: a percentage
// ("Receiving objects:  45% (450/1000)") or a bar ("[=====>    ]"), and
// no failure word.
func progressLine(s string) bool {
	pct := false
	for i := 1; i < len(s); i++ {
		if s[i] == '%' && textkit.IsDigit(s[i-1]) {
			pct = true
			break
		}
	}
	bar := strings.Contains(s, "=>") && strings.Contains(s, "[") || strings.Contains(s, "###########")
	return (pct || bar) && rawSignal(s) == 0
}

// StackFrame reports a line of a stack trace: "at fn (file:1:2)" (JS,
// Java, C#, PowerShell), Python's `File "x.py", line 3`, a native frame
// "#3 0x4550 in fn" (gdb, sanitizers), "... 12 more".
func StackFrame(line string) bool {
	s := strings.TrimLeft(stripANSI(line), " \t=")
	switch {
	case strings.HasPrefix(s, "at ") && len(s) > 3:
		return true
	case strings.HasPrefix(s, `File "`):
		return true
	case strings.HasPrefix(s, "... ") && strings.HasSuffix(s, " more"):
		return true
	case len(s) > 2 && s[0] == '#' && textkit.IsDigit(s[1]):
		j := 1
		for j < len(s) && textkit.IsDigit(s[j]) {
			j++
		}
		return strings.HasPrefix(s[j:], " 0x") || strings.HasPrefix(s[j:], "  0x")
	}
	return false
}

// Indent is the width of a line's leading blanks once terminal escapes
// are removed, a tab as four.
func Indent(line string) int {
	n := 0
	for _, c := range stripANSI(line) {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}
