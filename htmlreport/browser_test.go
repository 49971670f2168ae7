package htmlreport_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"golang.org/x/net/html"

	"github.com/jetcompact/jetcompact/htmlreport"
	"github.com/jetcompact/jetcompact/pipeline"
)

var update = flag.Bool("update", false, "rewrite docs/report.png from the browser test's screenshot")

// chromiumPath finds headless Chromium; .ci/run installs it from Debian's
// packages (apt-get install -y chromium).
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (apt-get install -y chromium): the real-browser check of the HTML report did not run")
	return ""
}

// plantHostile puts the hostile lines into a log as error records, one
// every step lines, so that some are kept and some folded.
func plantHostile(log string, step int) string {
	lines := strings.SplitAfter(log, "\n")
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l)
		if i > 0 && i%step == 0 {
			fmt.Fprintf(&b, "2026-11-02 09:04:%02d.000 ERROR [http-9] rejected request body %s\n", i%60, hostileLines[(i/step)%len(hostileLines)])
		}
	}
	return b.String()
}

// browserPage is a report opened in headless Chromium.
type browserPage struct {
	t        *testing.T
	ctx      context.Context
	root     *html.Node
	inputs   []htmlreport.Input
	dir      string
	mu       sync.Mutex
	problems []string // console errors, exceptions, browser log errors
}

// openReport writes inputs' report and opens it in headless Chromium.
func openReport(t *testing.T, inputs []htmlreport.Input, opt htmlreport.Options) *browserPage {
	t.Helper()
	bin := chromiumPath(t)
	p := &browserPage{t: t, inputs: inputs, dir: t.TempDir()}
	page := filepath.Join(p.dir, "report.html")
	var b strings.Builder
	if err := htmlreport.Write(&b, inputs, opt); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := html.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	p.root = root
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.WindowSize(1100, 1300), chromedp.Flag("disable-dev-shm-usage", true))
	ctx := startBrowser(t, opts)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(cancelTimeout)
	p.ctx = ctx
	consoleCtx, stopConsole := context.WithCancel(ctx)
	consoleDone := make(chan struct{})
	messages := chromedp.Console(consoleCtx)
	go func() {
		defer close(consoleDone)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				p.mu.Lock()
				p.problems = append(p.problems, fmt.Sprintf("%s: %s", m.Type, m.Text))
				p.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { stopConsole(); <-consoleDone })
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	return p
}

// startBrowser starts Chromium, up to three times on a loaded box. Each
// try has its own allocator and context: chromedp must not allocate twice
// for one context (the second browser's exit closes a closed channel).
func startBrowser(t *testing.T, opts []chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	for attempt := 1; ; attempt++ {
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(actx)
		err := chromedp.Do(ctx) // no actions: starts the browser and its tab
		if err == nil {
			t.Cleanup(cancelAlloc)
			t.Cleanup(cancel)
			return ctx
		}
		cancel()
		cancelAlloc()
		if attempt == 3 {
			t.Fatalf("Chromium did not start: %v", err)
		}
		t.Logf("Chromium did not start (try %d): %v", attempt, err)
	}
}

func (p *browserPage) folds() []*html.Node {
	return elements(p.root, func(n *html.Node) bool { return n.Data == "details" && hasClass(n, "fold") })
}

// checkAllFolds opens every fold and checks that each shows exactly the
// original lines its data-lines names, that no planted script ran and
// that the console stayed clean.
func (p *browserPage) checkAllFolds() (shown map[string]string) {
	t := p.t
	t.Helper()
	if err := chromedp.Do(p.ctx,
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("details.fold").forEach(d => d.open = true); 0`),
	); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](`[...document.querySelectorAll("details.fold pre.orig")].every(p => p.dataset.filled && p.childNodes.length > 0)`, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(p.ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries([...document.querySelectorAll("details.fold")].map(d => [d.id, d.querySelector("pre.orig").textContent]))`))
	if err != nil {
		t.Fatal(err)
	}
	numbers, err := chromedp.Run(p.ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries([...document.querySelectorAll("details.fold")].map(d => [d.id, [...d.querySelectorAll("pre.orig span.l")].map(s => s.dataset.n).join(",")]))`))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range p.folds() {
		id, _ := attr(d, "id")
		doc, _ := attr(d, "data-doc")
		spec, _ := attr(d, "data-lines")
		i, _ := strconv.Atoi(doc)
		var want strings.Builder
		var wantNumbers []string
		for _, r := range strings.Split(spec, ",") {
			a, z, ok := strings.Cut(r, "-")
			if !ok {
				z = a
			}
			from, _ := strconv.Atoi(a)
			to, _ := strconv.Atoi(z)
			part, err := pipeline.Lines(p.inputs[i].Original, from, to)
			if err != nil {
				t.Fatal(err)
			}
			want.WriteString(strings.TrimSuffix(part, "\n") + "\n")
			for n := from; n <= to; n++ {
				wantNumbers = append(wantNumbers, strconv.Itoa(n))
			}
		}
		if strings.TrimSuffix(got[id], "\n") != strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("fold %s (lines %s) shows %.200q, want %.200q", id, spec, got[id], want.String())
		}
		// Each line carries its number in the original (shown before it).
		if numbers[id] != strings.Join(wantNumbers, ",") {
			t.Errorf("fold %s (lines %s) numbers its lines %.100s", id, spec, numbers[id])
		}
	}
	title, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`document.title`))
	if err != nil {
		t.Fatal(err)
	}
	pwned, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](`typeof window.__pwned`))
	if err != nil {
		t.Fatal(err)
	}
	if pwned != "undefined" || title != "jetcompact report" {
		t.Errorf("a planted script ran: window.__pwned is %s, title %q", pwned, title)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.problems) > 0 {
		t.Errorf("console errors: %q", p.problems)
	}
	return got
}

// TestReportInARealBrowser opens a report of the sample log (with hostile
// lines planted, under a token budget so that it has folds) and of a large
// generated build log (its original gzipped) in headless Chromium: a fold
// opens onto its original lines, every fold does, no console error, no
// planted script ran.
func TestReportInARealBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	sample, err := os.ReadFile("../testdata/app.log")
	if err != nil {
		t.Fatal(err)
	}
	inputs := []htmlreport.Input{
		compact(t, "testdata/app.log", plantHostile(string(sample), 150), 600),
		compact(t, "build.log", buildLog(6000), 0),
		countLineInput(),
	}
	inputs[0].Took, inputs[1].Took = 41*time.Millisecond, 17*time.Millisecond
	p := openReport(t, inputs, htmlreport.Options{})
	folds := p.folds()
	if len(folds) < 2 {
		t.Fatalf("the report has %d folds", len(folds))
	}
	if len(elements(p.root, func(n *html.Node) bool { enc, _ := attr(n, "data-enc"); return enc == "gzip" })) == 0 {
		t.Fatal("no original is gzipped: DecompressionStream is not exercised")
	}
	// A person opens the first fold.
	first, _ := attr(folds[0], "id")
	if err := chromedp.Do(p.ctx,
		chromedp.Click("#"+first+" > summary"),
		chromedp.WaitVisible("#"+first+" pre.orig span.l"),
	); err != nil {
		t.Fatal(err)
	}
	if *update {
		// The README's picture: the first input's header, chart, failures
		// and its first fold open.
		err := chromedp.Do(p.ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("#doc-0").scrollIntoView(); 0`), chromedp.Sleep(200*time.Millisecond))
		var top []byte
		if err == nil {
			top, err = chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("../docs/report.png", top, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shot, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(90))
	if err != nil {
		t.Fatal(err)
	}
	shotPath := filepath.Join(p.dir, "report.jpg")
	if err := os.WriteFile(shotPath, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shotPath)

	got := p.checkAllFolds()
	hostileShown := false
	for _, txt := range got {
		hostileShown = hostileShown || strings.Contains(txt, "<script>window.__pwned")
	}
	if !hostileShown {
		t.Error("no opened fold holds a planted script: the check proves nothing")
	}
	if !strings.Contains(got["d2-l2"], "worker 7 done in 3ms\nworker 12 done in 41ms") {
		t.Errorf("the count line does not list its template's lines: %q", got["d2-l2"])
	}
}

// countLineInput is a log_dedup count line with a reference, as the
// pipeline writes them: opened, it lists the lines of its template only.
func countLineInput() htmlreport.Input {
	original := "start\nworker 7 done in 3ms\nworker 12 done in 41ms\ncache miss <script>window.__pwned=8</script>\nworker 9 done in 5ms\nstop\n"
	text := "start\nworker 7 done in 3ms [×3; 3ms–41ms · ref " + testDocID[:8] + ":L2-5]\ncache miss <script>window.__pwned=8</script>\nstop\n"
	return htmlreport.Input{File: "count.log", DocID: testDocID, Original: original, Text: text,
		Report: pipeline.Report{Kind: "log", Mode: "algorithmic", CharsIn: len(original), CharsOut: len(text)}}
}

// TestCappedReportInABrowser: over the cap, a fold shows the lines next to
// the kept lines around it and says how many it leaves out.
func TestCappedReportInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	in := compact(t, "build.log", buildLog(6000), 0)
	p := openReport(t, []htmlreport.Input{in}, htmlreport.Options{MaxOriginal: 20000})
	var partial string
	for _, d := range p.folds() {
		if hasClass(d, "partial") {
			partial, _ = attr(d, "id")
			break
		}
	}
	if partial == "" {
		t.Fatal("no partial fold under the cap")
	}
	if err := chromedp.Do(p.ctx, chromedp.Click("#"+partial+" > summary"), chromedp.WaitVisible("#"+partial+" pre.orig span.gap")); err != nil {
		t.Fatal(err)
	}
	gap, err := chromedp.Run(p.ctx, chromedp.Text("#"+partial+" pre.orig span.gap"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gap, "lines not embedded: publisher get "+testDocID[:8]) {
		t.Errorf("the gap says %q", gap)
	}
	note, err := chromedp.Run(p.ctx, chromedp.Text("p.cap"))
	if err != nil || !strings.Contains(note, "over the 20000-byte cap") {
		t.Errorf("the cap note: %q %v", note, err)
	}
}

// TestCorpusReportsInABrowser does the same on real CI and build logs of
// the shared corpus, a hostile line planted in each.
func TestCorpusReportsInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	var files []string
	for _, pattern := range []string{"../../shared/corpus/ci_buildlogs_logchunks/logs/*.log", "../../shared/corpus/logs_large/php_test_buildlog/*.log"} {
		m, _ := filepath.Glob(pattern)
		sort.Strings(m)
		files = append(files, m[:min(len(m), 6)]...)
	}
	if len(files) == 0 {
		t.Skip("../shared/corpus is absent: no corpus logs to open")
	}
	var inputs []htmlreport.Input
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, compact(t, filepath.Base(f), plantHostile(string(data), 400), 0))
	}
	p := openReport(t, inputs, htmlreport.Options{})
	if len(p.folds()) < len(files) {
		t.Fatalf("%d folds in %d logs", len(p.folds()), len(files))
	}
	p.checkAllFolds()
}
