package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// genServiceLog is a service log of n records: a few common templates with
// varying numbers, and a handful of failures at random places.
func genServiceLog(seed uint64, n int) (string, []string) {
	r := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	var failures []string
	for i := range n {
		ts := fmt.Sprintf("2026-03-01 10:%02d:%02d.%03d", i/3600%60, i/60%60, i%1000)
		switch {
		case r.IntN(400) == 0:
			f := fmt.Sprintf("%s ERROR worker-%d failed to connect to db-%d: connection refused", ts, r.IntN(9), r.IntN(5))
			failures = append(failures, f)
			b.WriteString(f)
		case r.IntN(3) == 0:
			fmt.Fprintf(&b, "%s INFO request %d served in %dms", ts, r.IntN(100000), r.IntN(900))
		case r.IntN(2) == 0:
			fmt.Fprintf(&b, "%s DEBUG cache hit key=user:%d size=%d", ts, r.IntN(100000), r.IntN(4096))
		default:
			fmt.Fprintf(&b, "%s INFO heartbeat from node-%d load=%d.%d queue=%d", ts, r.IntN(40), r.IntN(9), r.IntN(9), r.IntN(50))
		}
		b.WriteByte('\n')
	}
	return b.String(), failures
}

func TestFitBudgetNeverAbove(t *testing.T) {
	for seed := range uint64(6) {
		text, failures := genServiceLog(seed, 3000)
		for _, budget := range []int{1, 50, 500, 2000, 8000} {
			out, rep := FitBudget(text, budget, stages.KindLog, 0)
			got := stages.EstimateTokens(out)
			if got > budget && strings.Count(strings.TrimSuffix(out, "\n"), "\n") > 0 {
				t.Fatalf("seed %d budget %d: %d tokens", seed, budget, got)
			}
			if got != rep.TokensOut {
				t.Errorf("seed %d budget %d: report says %d tokens, output has %d", seed, budget, rep.TokensOut, got)
			}
			folded := 0
			for _, n := range rep.Folded {
				folded += n
			}
			if folded == 0 {
				t.Errorf("seed %d budget %d: nothing reported folded", seed, budget)
			}
			if budget >= 2000 {
				for _, f := range failures {
					if !strings.Contains(out, f) {
						t.Errorf("seed %d budget %d: failure line folded: %q", seed, budget, f)
					}
				}
				if rep.Folded[BudgetFailure] != 0 {
					t.Errorf("seed %d budget %d: %d failure lines folded", seed, budget, rep.Folded[BudgetFailure])
				}
			}
			if !strings.HasSuffix(out, "\n") {
				t.Errorf("seed %d budget %d: trailing newline lost", seed, budget)
			}
		}
	}
}

func TestFitBudgetMarkersCountFoldedLines(t *testing.T) {
	text, _ := genServiceLog(1, 2000)
	out, _ := FitBudget(text, 1500, stages.KindLog, 0)
	kept, folded := 0, 0
	re := regexp.MustCompile(`^\[\.\.\. (\d+) lines? folded\]$`)
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			var n int
			fmt.Sscan(m[1], &n)
			folded += n
			continue
		}
		if !strings.Contains(text, l+"\n") {
			t.Fatalf("kept line not in the input: %q", l)
		}
		kept++
	}
	if kept+folded != 2000 {
		t.Errorf("kept %d + folded %d != 2000 lines", kept, folded)
	}
}

func TestFitBudgetUnchangedWhenItFits(t *testing.T) {
	text := "one\ntwo\n"
	for _, b := range []int{0, -1, 100} {
		if out, _ := FitBudget(text, b, stages.KindLog, 0); out != text {
			t.Errorf("budget %d changed a text that fits: %q", b, out)
		}
	}
}

func TestFitBudgetTranscriptMarkersHaveNoCounts(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "assistant: step %d looked at the file and found nothing new here\n", i)
	}
	out, _ := FitBudget(b.String(), 300, stages.KindTranscript, 0)
	if regexp.MustCompile(`\[\.\.\. \d`).MatchString(out) {
		t.Errorf("transcript marker carries a count:\n%s", out)
	}
	if !strings.Contains(out, "[... lines folded]") {
		t.Errorf("no marker:\n%s", out)
	}
}

func TestFitBudgetCJK(t *testing.T) {
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, "第%d行 服务器日志信息正常运行中\n", i)
	}
	out, _ := FitBudget(b.String(), 400, stages.KindLog, 0)
	if got := stages.EstimateTokens(out); got > 400 {
		t.Errorf("CJK text: %d tokens > 400", got)
	}
}

func TestFitBudgetFencesFoldFromTheMiddle(t *testing.T) {
	var b strings.Builder
	b.WriteString("intro\n```go\n")
	for i := range 300 {
		fmt.Fprintf(&b, "x%d := compute(%d) // a line of code\n", i, i)
	}
	b.WriteString("```\noutro\n")
	out, rep := FitBudget(b.String(), 200, stages.KindProse, 0)
	if strings.Count(out, "```") != 2 {
		t.Errorf("fence lines folded:\n%s", out)
	}
	if rep.Folded[BudgetProtected] == 0 {
		t.Errorf("protected lines not reported: %v", rep.Folded)
	}
}

func TestPipelineRunBudget(t *testing.T) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := genServiceLog(3, 5000)
	res, err := p.Run(context.Background(), Request{Text: text, BudgetTokens: 300})
	if err != nil {
		t.Fatal(err)
	}
	if got := stages.EstimateTokens(res.Text); got > 300 {
		t.Errorf("%d tokens > 300", got)
	}
	if res.Report.Budget == nil || res.Report.Budget.Tokens != 300 {
		t.Errorf("report budget: %+v", res.Report.Budget)
	}
	if res.Report.CharsOut != stages.Chars(res.Text) {
		t.Errorf("chars out %d, text has %d", res.Report.CharsOut, stages.Chars(res.Text))
	}
}

// TestBudgetCorpus runs the LogHub samples and the labelled CI logs at
// three budgets: never above, and template coverage logged per budget.
// At 2000 and 8000 every alert template (LogHub Label not "-", as
// ../shared/eval/score.py reads it) is kept, and every labelled CI failure
// reason that fits the budget by itself: all 46 at 8000; at 2000 three
// labels are longer than the budget (about 2,200, 6,300 and 7,000
// tokens), the other 43 are kept.
func TestBudgetCorpus(t *testing.T) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range readLoghub(t) {
		text := strings.Join(s.lines, "\n") + "\n"
		alerts := distinct(s.template, s.alert)
		all := distinct(s.template, nil)
		for _, budget := range []int{500, 2000, 8000} {
			res, err := p.Run(context.Background(), Request{Text: text, BudgetTokens: budget})
			if err != nil {
				t.Fatal(err)
			}
			if got := stages.EstimateTokens(res.Text); got > budget {
				t.Errorf("%s budget %d: %d tokens", s.name, budget, got)
			}
			cov, _ := coverage(all, res.Text)
			alertCov, missing := coverage(alerts, res.Text)
			t.Logf("%s budget %d: %d tokens, templates %.3f, alerts %.3f (%d), folded %v", s.name, budget, stages.EstimateTokens(res.Text), cov, alertCov, len(alerts), foldedOf(res.Report))
			if floor := alertFloor[budget]; len(alerts) > 0 && alertCov < floor {
				t.Errorf("%s budget %d: alert coverage %.3f < %.3f, folded: %q", s.name, budget, alertCov, floor, missing)
			}
		}
	}
	f, err := os.Open(filepath.Join(loghubDir, "..", "ci_buildlogs_logchunks", "labels.jsonl"))
	if err != nil {
		t.Logf("no CI labels: %v", err)
		return
	}
	defer f.Close()
	kept := map[int]int{}
	fits := map[int]int{} // reasons no longer than the budget
	docs := 0
	dec := json.NewDecoder(f)
	for dec.More() {
		var lab struct {
			File          string `json:"file"`
			FailureReason string `json:"failure_reason"`
		}
		if err := dec.Decode(&lab); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(loghubDir, "..", "ci_buildlogs_logchunks", lab.File))
		if err != nil {
			continue
		}
		docs++
		for _, budget := range []int{500, 2000, 8000} {
			res, err := p.Run(context.Background(), Request{Text: string(raw), BudgetTokens: budget})
			if err != nil {
				t.Fatal(err)
			}
			if got := stages.EstimateTokens(res.Text); got > budget {
				t.Errorf("%s budget %d: %d tokens", lab.File, budget, got)
			}
			fit := stages.EstimateTokens(lab.FailureReason) < budget
			if fit {
				fits[budget]++
			}
			switch {
			case strings.Contains(blanksFolded(res.Text), blanksFolded(lab.FailureReason)):
				kept[budget]++
			case budget >= 2000 && fit:
				t.Errorf("%s budget %d: labelled failure reason folded (folded %v)", lab.File, budget, foldedOf(res.Report))
			}
		}
	}
	for _, budget := range []int{500, 2000, 8000} {
		t.Logf("CI logs budget %d: %d/%d reasons kept (%d fit the budget)", budget, kept[budget], docs, fits[budget])
	}
	if docs > 0 && fits[8000] != docs {
		t.Errorf("CI logs: %d/%d reasons fit 8000 tokens; the corpus changed, revisit", fits[8000], docs)
	}
}

// Measured floors (share kept) of TestBudgetCorpus, by budget.
var alertFloor = map[int]float64{2000: 1, 8000: 1}

func foldedOf(r Report) map[string]int {
	if r.Budget == nil {
		return nil
	}
	return r.Budget.Folded
}

// blanksFolded folds whitespace runs to one space, as the scorer compares
// CI failure reasons.
func blanksFolded(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestConfigBudgetTokens(t *testing.T) {
	c, err := parse(t, "pipeline:\n  budget_tokens: 250\n")
	if err != nil || c.BudgetTokens != 250 {
		t.Fatalf("budget_tokens: %+v %v", c.BudgetTokens, err)
	}
	p, err := New(c, stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec")
	for i := range 2000 { // distinct events: they survive the nodes
		fmt.Fprintf(&b, "2026-03-01 10:00:%02d INFO %s %s finished %s job\n", i%60, words[i%len(words)], words[(i*7+3)%len(words)], words[(i*13+5)%len(words)])
	}
	text := b.String()
	res, err := p.Run(context.Background(), Request{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if got := stages.EstimateTokens(res.Text); got > 250 {
		t.Errorf("config budget: %d tokens > 250", got)
	}
	res, err = p.Run(context.Background(), Request{Text: text, BudgetTokens: 600})
	if err != nil {
		t.Fatal(err)
	}
	if got := stages.EstimateTokens(res.Text); got <= 250 || got > 600 {
		t.Errorf("request budget 600 over config 250: %d tokens", got)
	}
}

func TestFieldDump(t *testing.T) {
	for line, want := range map[string]bool{
		"RAS KERNEL FATAL machine state register: 0x00002000 [×4]":  true,
		"RAS KERNEL FATAL floating pt ex mode 0 enable......0 [×5]": true,
		"kernel: RIP: 0010": true,
		"RAS KERNEL FATAL data TLB error interrupt [×60]":                                   false,
		"ERROR worker-3 failed to connect to db-1: connection refused":                      false,
		"FAIL: TestCheckout (0.42s)":                                                        false,
		"RAS KERNEL FATAL rts: kernel terminated for reason 1003 [×6]":                      false,
		"error: expected 3 arguments, got 2":                                                false,
		"ciod: failed to read message prefix (CioStream socket to 172.16.96.116:33569 [×3]": false,
		"RAS KERNEL FATAL lr:00004ed0":                                                      true,
	} {
		if got := fieldDump(line); got != want {
			t.Errorf("fieldDump(%q) = %v, want %v", line, got, want)
		}
	}
}

// TestFitBudgetLeavesRoomForRefs: a fit that counts the markers'
// references in still fits once AddMarkerRefs has added them.
func TestFitBudgetLeavesRoomForRefs(t *testing.T) {
	for seed := range uint64(4) {
		for _, text := range []string{genBuildLog(seed, 3000), func() string { s, _ := genServiceLog(seed, 3000); return s }()} {
			refChars := len([]rune(RefSep)) + len("abcd1234:L-") + 2*len(strconv.Itoa(strings.Count(text, "\n")+1))
			for _, budget := range []int{60, 500, 2000} {
				out, _ := FitBudget(text, budget, stages.KindLog, refChars)
				withRefs := AddMarkerRefs(text, out, "abcd1234")
				if got := stages.EstimateTokens(withRefs); got > budget && strings.Count(strings.TrimSuffix(withRefs, "\n"), "\n") > 0 {
					t.Fatalf("seed %d budget %d: %d tokens with references", seed, budget, got)
				}
				if !strings.Contains(withRefs, RefSep) {
					t.Fatalf("seed %d budget %d: no reference added:\n%s", seed, budget, withRefs)
				}
			}
		}
	}
}

func TestRegisterDump(t *testing.T) {
	for msg, want := range map[string]bool{
		"dbcr0=0x00000000 dbsr=0x00000000 ccr0=0x40002000": true,
		"fpr29=0xffffffff ffffffff ffffffff ffffffff":      true,
		"rts internal error":                               false,
		"ffffffff 0000abcd":                                false,
		"total=2691015 cpu=105 bad message header":         false,
	} {
		if got := registerDump(msg); got != want {
			t.Errorf("registerDump(%q) = %v, want %v", msg, got, want)
		}
	}
}

func TestRecordLevel(t *testing.T) {
	for line, want := range map[string]int{
		"- 1117838570 2005.06.03 R02-M1-N0-C:J12-U11 RAS KERNEL INFO instruction cache parity error corrected": levelInfo,
		"2026-03-01 10:00:00 ERROR worker-3 failed to connect":                                                 levelError,
		"[12:00:01] [warn] disk almost full":                                                                   levelWarn,
		"ts=1 level=debug msg=\"error budget recomputed\"":                                                     levelInfo,
		"error: expected 3 arguments, got 2":                                                                   levelNone,
	} {
		if got, _ := recordLevel(line); got != want {
			t.Errorf("recordLevel(%q) = %d, want %d", line, got, want)
		}
	}
}
