package pipeline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// failureDialects write one failing test's message, headline first, in
// the shapes test runners print: an indented YAML body (TAP), a JS stack,
// a Python traceback's frames, and a headline with its expected, actual
// and "at" frames flush left between blank lines (Pester).
var failureDialects = map[string]func(r *rand.Rand, name string) []string{
	"tap": func(r *rand.Rand, name string) []string {
		m := []string{"not ok 6 " + name, "  ---", "    operator: equal", fmt.Sprintf("    expected: %d", r.IntN(9)), fmt.Sprintf("    actual:   %d", 10+r.IntN(9)), "    stack: |-", "      Error: " + name}
		for k := range 8 {
			m = append(m, fmt.Sprintf("          at Test.step%d (/home/ci/build/pkg/test/%s.js:%d:%d)", k, name, r.IntN(300), r.IntN(40)))
		}
		return append(m, "  ...")
	},
	"js": func(r *rand.Rand, name string) []string {
		m := []string{"TypeError: Cannot read properties of undefined (reading '" + name + "')"}
		for k := range 10 {
			m = append(m, fmt.Sprintf("    at Object.fn%d (/srv/app/src/%s.js:%d:%d)", k, name, r.IntN(300), r.IntN(40)))
		}
		return m
	},
	"python": func(r *rand.Rand, name string) []string {
		m := []string{"Traceback (most recent call last):"}
		for k := range 5 {
			m = append(m, fmt.Sprintf("  File \"/src/pkg/mod%d.py\", line %d, in %s%d", k, r.IntN(400), name, k), fmt.Sprintf("    result = %s%d(value)", name, k+1))
		}
		return append(m, "ValueError: invalid literal for int() with base 10: '"+name+"'")
	},
	"pester": func(r *rand.Rand, name string) []string {
		m := []string{"[-] " + name + " -> Expected and actual values differ!", "", fmt.Sprintf("Expected: 'dir/file%d.Tests.ps1'", r.IntN(9)), "", "Actual  : 'file.Tests.ps1'"}
		for k := range 7 {
			m = append(m, "", fmt.Sprintf("at <ScriptBlock>, /build/src/%s%d.ps1:%d", name, k, r.IntN(300)))
		}
		return m
	},
}

// genFailedBuild is a CI log around one failing test: a runner's
// bookkeeping, progress, commands and deprecation warnings, many passing
// tests (some named with failure words), the failure's message, the exit
// line.
func genFailedBuild(seed uint64, dialect string) (string, []string) {
	r := rand.New(rand.NewPCG(seed, 19))
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("travis_fold:start:install")
	for p := 0; p <= 100; p += 5 {
		line("Receiving objects: %3d%% (%d/%d), %d KiB | %d MiB/s", p, p*37, 3700, p*91, r.IntN(20))
	}
	line("travis_time:end:%08x:start=%d,finish=%d", r.Uint32(), r.Int64(), r.Int64())
	for k := range 15 {
		line("$ ./ci/step%d.sh --target %s", k, words[r.IntN(len(words))])
		line("npm WARN deprecated %s@%d.%d.0: this version is no longer supported", words[r.IntN(len(words))], r.IntN(9), r.IntN(9))
	}
	line("$ npm test")
	passing := []string{"ok %d handles %s input", "✓ %d rejects a failed %s upload", "[+] %d mock does not leak %s errors", "[       OK ] Suite.Case%d_%s (3 ms)"}
	n := 150 + r.IntN(100)
	fail := n/3 + r.IntN(n/3)
	var msg []string
	for i := range n {
		if i == fail {
			msg = failureDialects[dialect](r, fmt.Sprintf("case%d", r.IntN(1000)))
			for _, l := range msg {
				line("%s", l)
			}
			continue
		}
		line(passing[r.IntN(len(passing))], i, words[r.IntN(len(words))])
	}
	line("# tests %d, pass %d, fail 1", n, n-1)
	line("travis_time:end:%08x:start=%d,finish=%d", r.Uint32(), r.Int64(), r.Int64())
	line("The command \"npm test\" exited with 1.")
	line("Done. Your build exited with 1.")
	return b.String(), msg
}

var words = strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november")

// TestFitBudgetKeepsFailureMessages: under a budget that leaves room for
// little more than the failure, every line of a failing test's message
// (headline, body, stack) is kept, and passing tests and progress fold
// first, whatever the runner's dialect.
func TestFitBudgetKeepsFailureMessages(t *testing.T) {
	for dialect := range failureDialects {
		for seed := range uint64(6) {
			text, msg := genFailedBuild(seed, dialect)
			budget := stages.EstimateTokens(strings.Join(msg, "\n")) + 100
			if budget >= stages.EstimateTokens(text) {
				t.Fatalf("%s seed %d: the log fits %d tokens already", dialect, seed, budget)
			}
			out, rep := FitBudget(text, budget, stages.KindLog, 0)
			if got := stages.EstimateTokens(out); got > budget {
				t.Errorf("%s seed %d: %d tokens > %d", dialect, seed, got, budget)
			}
			for _, l := range msg {
				if !strings.Contains(out, l) {
					t.Errorf("%s seed %d: budget %d folded %q of the failure:\n%s", dialect, seed, budget, l, out)
					break
				}
			}
			if rep.Folded[BudgetChatter] == 0 {
				t.Errorf("%s seed %d: no passing test or progress folded: %v", dialect, seed, rep.Folded)
			}
		}
	}
}

func TestChatterAndStackFrames(t *testing.T) {
	for line, want := range map[string]bool{
		"ok 12 handles empty input":                         true,
		"\x1b[32m[+] - mock does not leak into the next It": true,
		"[       OK ] Suite.Case (3 ms)":                    true,
		"travis_fold:start:install":                         true,
		"##[group]Run npm test":                             true,
		"Receiving objects:  45% (450/1000)":                true,
		"not ok 6 no errors":                                false,
		"[-] - Running without params -> Expected":          false,
		"Coverage dropped to 45% (failed threshold)":        false,
	} {
		if got := stages.Chatter(line); got != want {
			t.Errorf("Chatter(%q) = %v, want %v", line, got, want)
		}
	}
	for line, want := range map[string]bool{
		"    at Object.fn (/srv/app.js:1:2)":  true,
		`  File "/src/x.py", line 3, in f`:    true,
		"=     #0 0x455083 in atomic_compare": true,
		"\t... 12 more":                       true,
		"attention: retrying":                 false,
		"#include <stdio.h>":                  false,
	} {
		if got := stages.StackFrame(line); got != want {
			t.Errorf("StackFrame(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestFitBudgetCutsSummariesFirst: over budget, a count's summary of what
// varied goes before any line: a budget the counts alone fit keeps every
// line and every count.
func TestFitBudgetCutsSummariesFirst(t *testing.T) {
	var with, without strings.Builder
	for i := range 40 {
		head := fmt.Sprintf("2026-03-01 10:00:%02d INFO worker-%d job %s finished", i, i, words[i%len(words)])
		fmt.Fprintf(&with, "%s [×%d; 10:00:00–11:%02d:00; user: %d distinct (alice, bob, …)]\n", head, 3+i, i, 2+i)
		fmt.Fprintf(&without, "%s [×%d]\n", head, 3+i)
	}
	budget := stages.EstimateTokens(without.String()) + 5
	if stages.EstimateTokens(with.String()) <= budget {
		t.Fatal("the summaries fit already")
	}
	out, rep := FitBudget(with.String(), budget, stages.KindLog, 0)
	if out != without.String() {
		t.Errorf("want every line with its count and no summary, got:\n%s", out)
	}
	if rep.Folded[BudgetSummary] != 40 {
		t.Errorf("folded %v, want 40 summaries", rep.Folded)
	}
}
