package stages

import (
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Build logs are read the way an engineer reads one: find the steps, find
// the one that failed, keep the story of its failure, and fold the steps
// that passed down to their header.

// buildStep is one step of a build log: lines [start, end), opened by the
// header line at start.
type buildStep struct {
	start, end int
	// exit is the last exit status the step reports, -1 when it reports none.
	exit int
}

func (s buildStep) failed() bool    { return s.exit > 0 }
func (s buildStep) succeeded() bool { return s.exit == 0 }

// findSteps splits a build log into steps at the headers of the common CI
// systems and shells (see stepHeader). Lines before the first header are
// no step. A log without headers has no steps.
func findSteps(x textkit.LineIndex) []buildStep {
	var steps []buildStep
	f := newStepFilter(x.Text)
	for i := 0; i < x.Len(); i++ {
		l := x.Line(i)
		if f.mayOpen(l) && stepHeader(l) {
			if len(steps) > 0 {
				steps[len(steps)-1].end = i
			}
			steps = append(steps, buildStep{start: i, end: x.Len(), exit: -1})
			continue
		}
		if len(steps) == 0 {
			continue
		}
		if code, ok := exitStatus(l); ok {
			s := &steps[len(steps)-1]
			// A step that failed once stays failed.
			if s.exit <= 0 {
				s.exit = code
			}
		}
	}
	return steps
}

// terminalView returns what a terminal shows of a line: the part after
// its last carriage return, without ANSI sequences or a leading
// ISO-8601 time stamp (GitHub Actions prefixes every line with one).
func terminalView(line string) string {
	if i := strings.LastIndexByte(line, '\r'); i >= 0 && i+1 < len(line) {
		line = line[i+1:]
	}
	s := stripANSI(line)
	if len(s) > 20 && textkit.IsDigit(s[0]) && s[4] == '-' && s[10] == 'T' {
		if sp := strings.IndexByte(s, ' '); sp > 0 && sp < 40 {
			s = s[sp+1:]
		}
	}
	return s
}

// stepFilter rejects most lines that cannot open a step by their first
// byte, without stepHeader's look at the whole line: the text-wide checks
// say when that is safe (no fold or section markers, no carriage return
// or ANSI escape that would change what a terminal shows first).
type stepFilter struct{ exact bool }

func newStepFilter(text string) stepFilter {
	return stepFilter{exact: hasStepMarker(text) || strings.IndexByte(text, '\r') >= 0 || strings.IndexByte(text, 0x1b) >= 0}
}

// hasStepMarker reports a Travis fold or GitLab section start in text, in
// one pass over it: both markers end in "start:".
func hasStepMarker(text string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], "start:")
		if j < 0 {
			return false
		}
		i += j
		if strings.HasSuffix(text[:i], "travis_fold:") || strings.HasSuffix(text[:i], "section_") {
			return true
		}
		i++
	}
}

// stepOpeners are the first bytes of the lines stepHeader accepts, a time
// stamp (a digit) aside.
var stepOpeners = func() (t [256]bool) {
	for _, c := range []byte("$#[m> R=-+~0123456789") {
		t[c] = true
	}
	return t
}()

// mayOpen is false only for a line stepHeader rejects.
func (f stepFilter) mayOpen(line string) bool {
	return f.exact || len(line) > 0 && stepOpeners[line[0]]
}

// stepHeader reports a line that opens a step:
//   - Travis fold starts (travis_fold:start:install),
//   - GitHub Actions groups (##[group]Run npm test), Azure Pipelines tasks
//     (##[section]Starting: Build), TeamCity blocks (##teamcity[blockOpened
//     name='Build']), CircleCI step scripts (#!/bin/bash -eo pipefail),
//   - GitLab sections (section_start:1700000000:step_script),
//   - Jenkins stages ([Pipeline] { (Build)),
//   - Buildkite groups (--- Build, +++ Test, ~~~ Setup), not diff headers,
//   - shell prompts ($ make test), as Travis and most runners echo them,
//   - tool banners: make entering a directory, an npm script ("> app@1.0.0
//     test"), a Maven plugin run ("[INFO] --- surefire:3.2:test"), a Gradle
//     task ("> Task :test"), a cargo test binary ("Running unittests"), a
//     pytest session ("=== test session starts ===").
func stepHeader(line string) bool {
	if strings.Contains(line, "travis_fold:start:") || strings.Contains(line, "section_start:") {
		return true
	}
	s := terminalView(line)
	return runnerStepStart(s) || toolBanner(s) || buildkiteGroup(s)
}

// runnerStepStart reports a runner's own step opener: a shell prompt,
// a GitHub Actions, Azure Pipelines, TeamCity, CircleCI or Jenkins step.
func runnerStepStart(s string) bool {
	switch {
	case strings.HasPrefix(s, "$ ") && len(s) > 2 && s[2] != ' ':
		return true
	case strings.HasPrefix(s, "##[group]") || strings.HasPrefix(s, "##[section]Starting: "):
		// GitHub Actions groups, Azure Pipelines tasks.
		return true
	case strings.HasPrefix(s, "##teamcity[blockOpened "):
		// TeamCity blocks.
		return true
	case strings.HasPrefix(s, "#!/bin/") && strings.HasSuffix(s, " -eo pipefail"):
		// CircleCI echoes each run step's script from its shebang.
		return true
	case strings.HasPrefix(s, "[Pipeline] { ("):
		return true
	}
	return false
}

// toolBanner reports a build tool's banner for a step: make, npm, Gradle,
// Maven, cargo test, pytest.
func toolBanner(s string) bool {
	switch {
	case strings.HasPrefix(s, "make") && strings.Contains(s, ": Entering directory"):
		return true
	case strings.HasPrefix(s, "> "):
		// "> Task :app:test", or an npm script "> app@1.0.0 test".
		tok, _, _ := strings.Cut(s[2:], " ")
		if strings.HasPrefix(s, "> Task :") {
			// A Gradle task that did no work (UP-TO-DATE, NO-SOURCE, SKIPPED,
			// FROM-CACHE) prints nothing: the lines below are another task's.
			return !gradleIdleTask(s)
		}
		return strings.IndexByte(tok, '@') > 0 && len(tok) < 80
	case strings.HasPrefix(s, "[INFO] --- "):
		return true
	case strings.HasPrefix(s, "     Running ") || strings.HasPrefix(s, "Running unittests "):
		return true
	case strings.HasPrefix(s, "===") && strings.Contains(s, " test session starts "):
		return true
	}
	return false
}

// buildkiteGroup reports a Buildkite group ("--- Build", "+++ Test",
// "~~~ Setup"), not a diff header or a Go test verdict.
func buildkiteGroup(s string) bool {
	if len(s) <= 4 || !strings.HasPrefix(s, "--- ") && !strings.HasPrefix(s, "+++ ") && !strings.HasPrefix(s, "~~~ ") {
		return false
	}
	rest := s[4:]
	// A diff's file header ("--- a/x.go", "+++ /dev/null") is no step,
	// nor is a Go test verdict ("--- FAIL: TestX").
	return rest[0] != '-' && rest[0] != '/' && !strings.HasPrefix(rest, "a/") &&
		!strings.HasPrefix(rest, "b/") && strings.IndexByte(rest, '\t') < 0 &&
		!strings.HasPrefix(rest, "FAIL:") && !strings.HasPrefix(rest, "PASS:") && !strings.HasPrefix(rest, "SKIP:")
}

// gradleIdleTask reports a Gradle task header with a no-work outcome.
func gradleIdleTask(s string) bool {
	s = strings.TrimRight(s, " ")
	for _, o := range [...]string{" UP-TO-DATE", " NO-SOURCE", " SKIPPED", " FROM-CACHE"} {
		if strings.HasSuffix(s, o) {
			return true
		}
	}
	return false
}

// exitPhrases are how runners report a command's exit status: Travis
// ("exited with 1"), GitHub Actions ("Process completed with exit code 1"),
// GitLab ("Job failed: exit code 1"), Jenkins ("script returned exit code
// 2"), Buildkite ("The command exited with status 1"), shells and Go
// ("exit status 2").
var exitPhrases = [...]string{"exited with status ", "exited with code ", "exited with ", "exit code ", "exit status ", "exit code: ", "exit status: "}

// buildVerdicts are the last words of a build tool that failed without
// a number: Maven, Gradle, Jenkins, make ("*** [all] Error 2" has one).
var buildVerdicts = [...]string{"BUILD FAILURE", "BUILD FAILED", "Finished: FAILURE"}

// exitStatus reads an exit status reported on a line.
func exitStatus(line string) (code int, ok bool) {
	if len(line) > 2000 {
		return 0, false
	}
	if strings.Contains(line, "*** [") || strings.Contains(line, "BUILD FAIL") || strings.Contains(line, "Finished: FAILURE") {
		s := terminalView(line)
		for _, v := range buildVerdicts {
			if strings.Contains(s, v) {
				return 1, true
			}
		}
		// make: *** [Makefile:12: test] Error 2
		if i := strings.Index(s, "] Error "); i > 0 && strings.Contains(s[:i], "*** [") {
			if e := textkit.DigitRun(s, i+8); e > i+8 && e-i-8 <= 4 {
				return atoiDigits(s[i+8 : e]), true
			}
		}
	}
	if !strings.Contains(line, "xit") {
		return 0, false
	}
	s := strings.ToLower(terminalView(line))
	if strings.Contains(s, "your build exited") {
		// Travis's verdict on the whole job, after each command reported its own.
		return 0, false
	}
	for _, p := range exitPhrases {
		i := strings.LastIndex(s, p)
		if i < 0 {
			continue
		}
		j := i + len(p)
		if j < len(s) && s[j] == '\'' {
			j++ // Azure Pipelines: "Bash exited with code '1'."
		}
		e := textkit.DigitRun(s, j)
		if e == j || e-j > 4 {
			continue
		}
		return atoiDigits(s[j:e]), true
	}
	return 0, false
}

// tailStart returns the first line of the last budget characters of lines
// [start, end), never past the last line.
func tailStart(x textkit.LineIndex, start, end, budget int) int {
	used := 0
	i := end
	for i > start {
		c := Chars(x.Line(i-1)) + 1
		if used+c > budget && i < end {
			break
		}
		used += c
		i--
	}
	return i
}

// failingTails returns, for a build log, the byte ranges of the tail of
// each failing step that keywords keeps whole (at the default budget):
// text that number normalization must leave as it is. It returns nothing
// for text without steps.
func failingTails(text string) byteRanges {
	if !stepMayFail(text) {
		return byteRanges{}
	}
	return failingTailsOf(textkit.NewLineIndex(text))
}

// failingTailsOf is failingTails over the lines of x.
func failingTailsOf(x textkit.LineIndex) byteRanges {
	var r byteRanges
	for _, s := range findSteps(x) {
		if !s.failed() {
			continue
		}
		t := tailStart(x, s.start, s.end, DefaultKeywordsOptions().TailChars)
		r.r = append(r.r, [2]int{int(x.Starts[t]), int(x.Starts[s.end]) - 1})
	}
	return r
}

// exitMarks are what every line exitStatus reads a code from holds. The
// first is also the gate: a text without it has no step runner's exit line,
// so no step of it counts as failed.
var exitMarks = []string{"xit", "*** [", "BUILD FAIL", "Finished: FAILURE"}

// stepMayFail reports a text that holds "xit" and a line with a failing
// exit status (see exitStatus): without both no step fails. It reads only
// the lines that hold one of exitMarks, found by searching the whole text.
func stepMayFail(text string) bool {
	for m, mark := range exitMarks {
		for i := 0; ; {
			j := strings.Index(text[i:], mark)
			if j < 0 {
				if m == 0 && i == 0 {
					return false
				}
				break
			}
			j += i
			start := strings.LastIndexByte(text[:j], '\n') + 1
			end := len(text)
			if k := strings.IndexByte(text[j:], '\n'); k >= 0 {
				end = j + k
			}
			if code, ok := exitStatus(text[start:end]); ok && code > 0 {
				return true
			}
			i = end
		}
	}
	return false
}

// failingTailLines marks the lines of x in failingTails, or is nil when
// there are none.
func failingTailLines(x textkit.LineIndex) []bool {
	if !stepMayFail(x.Text) {
		return nil
	}
	r := failingTailsOf(x)
	if len(r.r) == 0 {
		return nil
	}
	marks := make([]bool, x.Len())
	for i := range marks {
		marks[i] = r.holds(int(x.Starts[i]))
	}
	return marks
}

// byteRanges are sorted, disjoint byte ranges, asked about offsets in
// increasing order.
type byteRanges struct {
	r [][2]int
	k int
}

// holds reports whether off lies in a range. Offsets must not decrease
// from one call to the next.
func (b *byteRanges) holds(off int) bool {
	for b.k < len(b.r) && off >= b.r[b.k][1] {
		b.k++
	}
	return b.k < len(b.r) && off >= b.r[b.k][0]
}

// markSteps applies the step structure of a build log to a pass of
// keywords: the tail of each failing step is kept whole, and the lines of
// each step that succeeded are folded under its header.
func (n keywordsNode) markSteps(x textkit.LineIndex, steps []buildStep, score []int8, keep []bool) {
	failed := false
	for _, s := range steps {
		failed = failed || s.failed()
	}
	for _, s := range steps {
		switch {
		case s.failed():
			for i := tailStart(x, s.start, s.end, n.opt.TailChars); i < s.end; i++ {
				// Tests that passed are no part of the failure's story.
				if l := x.Line(i); !substantial(l) || !passed(l) {
					keep[i] = true
				}
			}
		case (s.succeeded() || (failed && s.exit < 0)) && !n.reportsFailure(x, s):
			if stepWeight(x, s) > n.opt.MinFold {
				keep[s.start] = true // the header stands for the folded step
			}
			for i := s.start + 1; i < s.end; i++ {
				if score[i] < 0 || IsProtectedLine(x.Line(i)) {
					continue
				}
				keep[i], score[i] = false, 0
			}
		}
	}
}

// reportsFailure reports a step that prints a failure among its key lines.
func (n keywordsNode) reportsFailure(x textkit.LineIndex, s buildStep) bool {
	for i := s.start + 1; i < s.end; i++ {
		if l := x.Line(i); lineSignal(l) >= 3 && reportsFailure(l) {
			return true
		}
	}
	return false
}

// atoiDigits reads a short run of ASCII digits.
func atoiDigits(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// stepWeight counts the lines a step stands for, its fold markers' counts
// included, so that a folded step reads the same when folded again.
func stepWeight(x textkit.LineIndex, s buildStep) int {
	w := 0
	for i := s.start; i < s.end; i++ {
		if m := textkit.ParseFoldMarker(x.Line(i)); m > 0 {
			w += m
		} else {
			w++
		}
	}
	return w
}
