package stages

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var ablateWords = flag.Bool("ablate-words", false, "also switch each vocabulary entry off in turn and log those that change nothing")

// ablationInput is a text with the reasons that must survive in it.
type ablationInput struct {
	name     string
	text     string
	reasons  []string
	original string // the text before any node: its log analysis is what nodes get
}

// ablationInputs are the sample CI logs (when present), the build repros
// and the generated build logs of every dialect and failure shape.
func ablationInputs(t *testing.T) []ablationInput {
	var in []ablationInput
	if _, err := os.Stat(filepath.Join(ciCorpusDir, "labels.jsonl")); err == nil {
		for _, l := range readCILabels(t) {
			b, err := os.ReadFile(filepath.Join(ciCorpusDir, l.File))
			if err != nil {
				t.Fatal(err)
			}
			in = append(in, ablationInput{name: l.File, text: strings.ToValidUTF8(string(b), "\uFFFD"), reasons: []string{l.Reason}})
		}
	}
	for _, r := range []struct{ file, reason string }{
		{"E_reason_no_keywords.log", "Needs attention:\n  - 404 https://example.org/gone (in intro.md)"},
		{"E2_diff_reason.log", "==== please apply the changes below ====\ndiff --git a/docs/setup.md b/docs/setup.md"},
		{"F_dash_mark.log", ""},
	} {
		if b, err := os.ReadFile(filepath.Join(reprosDir, r.file)); err == nil {
			in = append(in, ablationInput{name: r.file, text: string(b), reasons: []string{r.reason}})
		}
	}
	// A problem list far above the exit line, beyond the tail's budget:
	// only its heading says it matters (the class "problem heading").
	var far strings.Builder
	far.WriteString("$ ./tools/linkcheck docs/\nScanning docs/ for links\nNeeds attention:\n  - 404 https://example.org/gone (in intro.md)\n")
	for i := range 400 {
		fmt.Fprintf(&far, "  checked https://example.org/guide/page-%d (in chapter-%d.md)\n", i, i%9)
	}
	far.WriteString("The command \"./tools/linkcheck docs/\" exited with 1.\n")
	in = append(in, ablationInput{name: "generated/problem list far above the exit", text: far.String(),
		reasons: []string{"Needs attention:\n  - 404 https://example.org/gone (in intro.md)"}})
	for di, d := range buildDialects {
		for si, shape := range failureShapes {
			log, reason := generatedBuildLog(d, si, int64(di*100+si*10))
			in = append(in, ablationInput{name: d.name + "/" + shape.name, text: log, reasons: []string{reason}})
		}
	}
	return in
}

// signalNames lists every switchable signal: the vocabulary classes and
// the signals found by shape.
func signalNames() []string {
	seen := map[string]bool{}
	var names []string
	for _, c := range signalClasses {
		if !seen[c.name] {
			seen[c.name] = true
			names = append(names, c.name)
		}
	}
	return append(names, signalErrorType, signalCompilerCode, signalFailMark, signalProblemHeading, signalAssertionReport)
}

// ablate runs keywords and headtail over every input (already through the
// nodes before them) with the named signals off, and returns each output
// and where reasons were lost.
func ablate(t *testing.T, inputs []ablationInput, off ...string) (outs []string, lost []string) {
	setSignalsOff(off...)
	defer setSignalsOff()
	keywords, headtail := NewKeywords(DefaultKeywordsOptions()), NewHeadTail(DefaultHeadTailOptions())
	for _, in := range inputs {
		out := applyNodeAs(t, headtail, applyNodeAs(t, keywords, in.text, KindLog, in.original), KindLog, in.original)
		outs = append(outs, out)
		for _, r := range in.reasons {
			if r != "" && !keptLoosely(out, r) {
				lost = append(lost, in.name)
			}
		}
	}
	return outs, lost
}

// Switch each signal off in turn over the sample CI logs, the repros and
// the generated build logs. Every signal stands for a named class (see
// signalClasses); one that changes no output anywhere is dead weight and
// fails the test, so it gets removed.
func TestSignalAblation(t *testing.T) {
	if testing.Short() {
		t.Skip("ablation runs the corpus once per signal")
	}
	inputs := ablationInputs(t)
	_, err := os.Stat(filepath.Join(ciCorpusDir, "labels.jsonl"))
	haveCorpus := err == nil
	if !haveCorpus {
		t.Log("the CI sample corpus is absent: every class is still run, but a class that changes no generated output is not an error")
	}
	// The nodes before keywords run once, with every signal on.
	for i := range inputs {
		inputs[i].original = inputs[i].text
		for _, k := range []Key{KeyStructured, KeyDedup, KeyWhitespace, KeyLogDedup, KeyNearDup, KeyNumberNormalize} {
			n, err := New(k, DefaultOptions(), Deps{})
			if err != nil {
				t.Fatal(err)
			}
			inputs[i].text = applyNodeAs(t, n, inputs[i].text, KindLog, inputs[i].original)
		}
	}
	base, baseLost := ablate(t, inputs)
	for _, name := range baseLost {
		t.Errorf("with every signal on, the reason is lost in %s", name)
	}
	for _, name := range signalNames() {
		outs, lost := ablate(t, inputs, name)
		lost = newlyLost(lost, baseLost)
		changed := 0
		for i := range outs {
			if outs[i] != base[i] {
				changed++
			}
		}
		t.Logf("%-18s off: %3d of %d outputs change, reasons lost in %d %v", name, changed, len(inputs), len(lost), lost)
		if changed == 0 && haveCorpus {
			t.Errorf("signal class %q changes no output: remove it or give it the inputs it is for", name)
		}
	}
	for _, c := range signalClasses {
		if c.name == "" || len(c.words) == 0 {
			t.Errorf("a vocabulary entry without a class: %+v", c)
		}
	}
	if !*ablateWords {
		return
	}
	var unused []string
	for _, c := range signalClasses {
		for _, w := range c.words {
			outs, lost := ablate(t, inputs, w)
			lost = newlyLost(lost, baseLost)
			changed := 0
			for i := range outs {
				if outs[i] != base[i] {
					changed++
				}
			}
			if changed == 0 {
				unused = append(unused, c.name+": "+w)
			} else if len(lost) > 0 {
				t.Logf("%q off: reasons lost in %v", w, lost)
			}
		}
	}
	sort.Strings(unused)
	t.Logf("entries that change no output here (kept for their class): %v", unused)
}

// newlyLost returns the names in lost that are not in base.
func newlyLost(lost, base []string) []string {
	var out []string
	for _, l := range lost {
		found := false
		for _, b := range base {
			found = found || b == l
		}
		if !found {
			out = append(out, l)
		}
	}
	return out
}
