package main

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
)

type benchOptions struct {
	docs, size, window, latencyDocs int
	rounds, concurrency, pullBatch  int
	workers                         int
	latencyWarmup                   int
	latencyLoad                     float64
	workerBin, benthosBin, corpus   string
	only, workerProfiles            string
}

type scenario struct {
	name     string
	segments [][]stages.Key
	noop     bool
}

type outcome struct {
	mbps    float64
	peakRSS map[string]int64   // KiB per process
	cpu     map[string]float64 // CPU seconds per process
	elapsed time.Duration
}

func runBench(ctx context.Context, o benchOptions) error {
	tmp, err := os.MkdirTemp("", "fleetbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if o.workerBin == "" {
		if o.workerBin, err = buildWorker(tmp); err != nil {
			return fmt.Errorf("build worker: %w", err)
		}
	}
	docs := makeDocs(o)
	fmt.Printf("fleetbench: %d documents of %d bytes, window %d, %d handlers and pulls of %d per consumer, %d worker(s) a segment, %d rounds\n", o.docs, o.size, o.window, o.concurrency, o.pullBatch, max(o.workers, 1), o.rounds)
	scenarios := []scenario{
		{"a raw transport (split hops, no-op stages)", jetstream.SplitSegments(), true},
		{"b split fleet", jetstream.SplitSegments(), false},
		{"c fused fleet", jetstream.FusedSegments(), false},
	}
	type runner struct {
		name string
		run  func(dir string) (outcome, error)
	}
	var runners []runner
	for _, sc := range scenarios {
		runners = append(runners, runner{sc.name, func(dir string) (outcome, error) { return runScenario(ctx, o, sc, dir, docs, pacing{}) }})
	}
	peers := []relayPeer{rawRelayPeer(o)}
	if wanted(o, 'e') {
		if o.benthosBin == "" {
			if o.benthosBin, err = buildBenthos(tmp); err != nil {
				fmt.Printf("e Benthos relay: skipped, bench/benthosrelay did not build: %v\n", err)
			}
		}
		if o.benthosBin != "" {
			peers = append(peers, benthosPeer(o))
		}
	}
	for _, peer := range peers {
		runners = append(runners, runner{peer.name, func(dir string) (outcome, error) { return runRelay(ctx, o, peer, dir, docs) }})
	}
	// Rounds run the scenarios in turn, so that a slow spell of the machine
	// falls on all of them; each scenario's figure is its median round.
	runs := map[string][]outcome{}
	for round := 1; round <= o.rounds; round++ {
		for i, r := range runners {
			if !wanted(o, r.name[0]) {
				continue
			}
			res, err := r.run(filepath.Join(tmp, fmt.Sprintf("%d-%d", round, i)))
			if err != nil {
				return fmt.Errorf("%s: %w", r.name, err)
			}
			runs[r.name] = append(runs[r.name], res)
			fmt.Printf("round %d %-45s %8.1f MB/s  peak RSS %s\n", round, r.name, res.mbps, formatRSS(res.peakRSS))
			fmt.Printf("        %-45s %s\n", "", formatCPU(res.cpu, res.elapsed))
		}
	}
	names := make([]string, len(runners))
	for i, r := range runners {
		names[i] = r.name
	}
	median := printMedians(names, runs)
	printRatios(median)
	if o.latencyDocs <= 0 || !wanted(o, 'b') && !wanted(o, 'c') {
		return nil
	}
	return runLatency(ctx, o, scenarios[1:], median, tmp, docs)
}

// printMedians prints each scenario's median round and its spread, and
// returns the medians by scenario letter.
func printMedians(names []string, runs map[string][]outcome) map[byte]float64 {
	median := map[byte]float64{}
	for _, name := range names {
		rs := runs[name]
		if len(rs) == 0 {
			continue
		}
		mbps := make([]float64, len(rs))
		for i, r := range rs {
			mbps[i] = r.mbps
		}
		slices.Sort(mbps)
		median[name[0]] = mbps[len(mbps)/2]
		fmt.Printf("median of %d: %-38s %8.1f MB/s  (%.1f to %.1f)\n", len(mbps), name, median[name[0]], mbps[0], mbps[len(mbps)-1])
	}
	return median
}

// printRatios prints the ratios of medians the targets are stated in.
func printRatios(median map[byte]float64) {
	var ratios []string
	for _, q := range []struct {
		label    string
		num, den byte
		target   string
	}{
		{"split/raw", 'b', 'a', " (target >= 0.70)"},
		{"fused/split", 'c', 'b', " (target >= 3)"},
		{"fused/(d)", 'c', 'd', ""},
		{"fused/(e)", 'c', 'e', " (target >= 1)"},
	} {
		if median[q.num] > 0 && median[q.den] > 0 {
			ratios = append(ratios, fmt.Sprintf("%s = %.2f%s", q.label, median[q.num]/median[q.den], q.target))
		}
	}
	if len(ratios) > 0 {
		fmt.Printf("ratios of medians: %s\n", strings.Join(ratios, ", "))
	}
}

// runLatency runs each fleet paced below its own saturation: a rate the
// split fleet cannot sustain would measure its queue, not its latency.
// The first -latency-warmup documents of a run are timed apart: a fresh
// server and worker start with empty caches and heaps. After the fused
// fleet, the same rate goes through the fused topology with no-op stages,
// so the transport's own share of the tail shows.
func runLatency(ctx context.Context, o benchOptions, fleets []scenario, median map[byte]float64, tmp string, docs []string) error {
	fmt.Printf("latency at %.0f%% of each fleet's own median throughput, %d documents after %d warm-up ones:\n", o.latencyLoad*100, o.latencyDocs, o.latencyWarmup)
	if c := freshPageCost(); c > 0 {
		fmt.Printf("  (a fresh 4 KiB page takes %.2f µs to fault in here: %.1f ms for a 4 MB store buffer)\n", c.Seconds()*1e6, c.Seconds()*1e3*1024)
	}
	runDocs := make([]string, 0, o.latencyWarmup+o.latencyDocs)
	for len(runDocs) < cap(runDocs) {
		runDocs = append(runDocs, docs[:min(len(docs), cap(runDocs)-len(runDocs))]...)
	}
	for i, sc := range fleets {
		if median[sc.name[0]] == 0 {
			continue
		}
		rate := o.latencyLoad * median[sc.name[0]] * 1e6 / float64(o.size)
		runs := []scenario{sc}
		if !sc.noop && len(sc.segments) == 1 {
			runs = append(runs, scenario{name: "  the same, no-op stages (transport alone)", segments: sc.segments, noop: true})
		}
		for j, run := range runs {
			dir := filepath.Join(tmp, fmt.Sprintf("lat%d-%d", i, j))
			if _, err := runScenario(ctx, o, run, dir, runDocs, pacing{rate: rate, warmup: o.latencyWarmup}); err != nil {
				return fmt.Errorf("%s latency: %w", run.name, err)
			}
		}
	}
	return nil
}

// wanted reports whether -only lets the scenario of this letter run.
func wanted(o benchOptions, letter byte) bool {
	return o.only == "" || strings.IndexByte(o.only, letter) >= 0
}

func makeDocs(o benchOptions) []string {
	var src []byte
	if files, _ := filepath.Glob(filepath.Join(o.corpus, "*", "*_2k.log")); len(files) > 0 {
		for _, f := range files {
			b, _ := os.ReadFile(f)
			src = append(src, b...)
		}
	}
	if len(src) < o.size*2 {
		var b strings.Builder
		for i := 0; b.Len() < 4<<20; i++ {
			fmt.Fprintf(&b, "2024-03-01 10:%02d:%02d INFO [worker-%d] request %d served in %dms path=/api/items/%d\n", i/60%60, i%60, i%8, i, i%97, i%1000)
		}
		src = []byte(b.String())
	}
	docs := make([]string, o.docs)
	for i := range docs {
		start := (i * 7919 * 64) % (len(src) - o.size)
		if j := strings.IndexByte(string(src[start:start+200]), '\n'); j >= 0 {
			start += j + 1
		}
		docs[i] = strings.ToValidUTF8(string(src[start:start+o.size]), "?")
	}
	return docs
}

// pacing is a latency run's publishing rate in documents a second, and how
// many of its first documents are warm-up; a zero rate publishes at once.
type pacing struct {
	rate   float64
	warmup int
}

// runScenario starts a server and workers as processes, pushes docs and
// measures. A paced run reports latency percentiles.
func runScenario(ctx context.Context, o benchOptions, sc scenario, dir string, docs []string, pace pacing) (outcome, error) {
	var procs procGroup
	defer procs.stop()
	url, err := procs.startServer(dir)
	if err != nil {
		return outcome{}, err
	}
	cfgPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(configYAML(o, sc)), 0o600); err != nil {
		return outcome{}, err
	}
	for _, seg := range sc.segments {
		var segArg []string
		for _, k := range seg {
			segArg = append(segArg, string(k))
		}
		// -workers processes share each segment's durable consumer.
		for n := range max(o.workers, 1) {
			name := "worker " + string(seg[0])
			if n > 0 {
				name += " #" + strconv.Itoa(n+1)
			}
			args := []string{"--config", cfgPath, "--nats", url, "--segment", strings.Join(segArg, ","), "--http-addr", ""}
			if o.workerProfiles != "" {
				args = append(args, "--cpuprofile", filepath.Join(o.workerProfiles, fmt.Sprintf("%s-%s-%d.pprof", filepath.Base(dir), seg[0], n)))
			}
			w, err := start(name, o.workerBin, args...)
			if err != nil {
				return outcome{}, err
			}
			procs = append(procs, w)
		}
	}
	nc, err := nats.Connect(url)
	if err != nil {
		return outcome{}, err
	}
	defer nc.Close()
	js, _ := njs.New(nc)
	fleetCfg := benchFleetConfig(o, sc)
	// Workers create the topology; wait for every consumer.
	for _, seg := range sc.segments {
		if err := waitConsumer(ctx, js, fleetCfg, seg[0]); err != nil {
			return outcome{}, err
		}
	}
	client, err := jetstream.NewClient(ctx, js, fleetCfg)
	if err != nil {
		return outcome{}, err
	}
	defer client.Close()

	lat := make([]time.Duration, len(docs))
	sem := make(chan struct{}, o.window)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	selfCPU := cpuSeconds("/proc/self/stat")
	begin := time.Now()
	for i, d := range docs {
		if pace.rate > 0 {
			next := begin.Add(time.Duration(float64(i) / pace.rate * float64(time.Second)))
			time.Sleep(time.Until(next))
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			t0 := time.Now()
			_, err := client.Compact(ctx, jetstream.Document{ID: fmt.Sprintf("d%d", i), Text: d})
			lat[i] = time.Since(t0)
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(begin)
	if firstErr != nil {
		return outcome{}, firstErr
	}
	res := procs.outcome(len(docs)*o.size, elapsed, selfCPU)
	if pace.rate > 0 {
		warm := min(pace.warmup, len(lat)-1)
		measured, cold := lat[warm:], lat[:warm]
		warmNote := ""
		if len(cold) > 0 {
			warmNote = fmt.Sprintf("; warm-up p99 %.1f ms", ms(percentile(cold, 99)))
		}
		fmt.Printf("  %-43s p50 %7.1f ms  p99 %7.1f ms  (%d docs at %.0f docs/s%s)\n",
			sc.name, ms(percentile(measured, 50)), ms(percentile(measured, 99)), len(measured), pace.rate, warmNote)
	}
	return res, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// percentile returns the p-th percentile of ds (nearest rank, on a sorted
// copy); 0 for none.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

func benchFleetConfig(o benchOptions, sc scenario) jetstream.Config {
	c := jetstream.DefaultConfig()
	c.Segments = sc.segments
	c.MaxAckPending = 512
	c.PullBatch = o.pullBatch
	c.Concurrency = o.concurrency
	c.InlineMaxBytes = 1 << 20
	return c
}

func configYAML(o benchOptions, sc scenario) string {
	c := benchFleetConfig(o, sc)
	var segs []string
	for _, s := range c.Segments {
		var keys []string
		for _, k := range s {
			keys = append(keys, string(k))
		}
		segs = append(segs, "["+strings.Join(keys, ",")+"]")
	}
	return fmt.Sprintf(`pipeline:
  enabled: %v
fleet:
  max_ack_pending: %d
  pull_batch: %d
  concurrency: %d
  inline_max_bytes: %d
  segments: [%s]
telemetry:
  exporter: none
  metrics: false
`, !sc.noop, c.MaxAckPending, c.PullBatch, c.Concurrency, c.InlineMaxBytes, strings.Join(segs, ","))
}

func waitConsumer(ctx context.Context, js njs.JetStream, c jetstream.Config, first stages.Key) error {
	n := jetstream.Names{Prefix: c.Prefix}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := js.Consumer(ctx, n.WorkStream(), n.Consumer(first)); err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("consumer %s never appeared", n.Consumer(first))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// procGroup is the processes one run starts.
type procGroup []*proc

// stop stops the processes, the last started first (a pointer receiver:
// a deferred stop sees the processes started after it).
func (g *procGroup) stop() {
	for i := len(*g) - 1; i >= 0; i-- {
		(*g)[i].stop()
	}
}

// startServer starts a nats-server process (this binary's serve) storing
// under dir, and returns its URL once it is ready.
func (g *procGroup) startServer(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	port, err := freePort()
	if err != nil {
		return "", err
	}
	self, _ := os.Executable()
	srv, err := start("nats-server", self, "serve", filepath.Join(dir, "store"), strconv.Itoa(port))
	if err != nil {
		return "", err
	}
	*g = append(*g, srv)
	if err := srv.waitLine("ready", 15*time.Second); err != nil {
		return "", err
	}
	return fmt.Sprintf("nats://127.0.0.1:%d", port), nil
}

// outcome is a run's measure: bytes through in elapsed, and the peak RSS
// and CPU of each process and of this one (its CPU since selfCPU).
func (g procGroup) outcome(bytes int, elapsed time.Duration, selfCPU float64) outcome {
	res := outcome{mbps: float64(bytes) / 1e6 / elapsed.Seconds(), peakRSS: map[string]int64{}, cpu: map[string]float64{}, elapsed: elapsed}
	for _, p := range g {
		res.peakRSS[p.name] = p.peakRSS()
		res.cpu[p.name] = cpuSeconds(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	}
	res.peakRSS["publisher (this process)"] = selfPeakRSS()
	res.cpu["publisher (this process)"] = cpuSeconds("/proc/self/stat") - selfCPU
	return res
}

type proc struct {
	name  string
	cmd   *exec.Cmd
	lines chan string
}

func start(name, bin string, args ...string) (*proc, error) {
	cmd := exec.Command(bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = nil
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
	}()
	return p, nil
}

func (p *proc) waitLine(want string, d time.Duration) error {
	timer := time.After(d)
	for {
		select {
		case l := <-p.lines:
			if strings.Contains(l, want) {
				return nil
			}
		case <-timer:
			return fmt.Errorf("%s: no %q within %s", p.name, want, d)
		}
	}
}

func (p *proc) peakRSS() int64 { return vmHWM(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid)) }

func (p *proc) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

func selfPeakRSS() int64 { return vmHWM("/proc/self/status") }

// vmHWM reads the peak resident set size, in KiB.
func vmHWM(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				return n
			}
		}
	}
	return -1
}

func formatRSS(m map[string]int64) string {
	others, workers := byRole(m)
	var parts []string
	for _, k := range others {
		parts = append(parts, fmt.Sprintf("%s %d MiB", k, m[k]/1024))
	}
	var peak int64
	for _, k := range workers {
		peak = max(peak, m[k])
	}
	if len(workers) > 0 {
		parts = append(parts, fmt.Sprintf("max of %d workers %d MiB", len(workers), peak/1024))
	}
	return strings.Join(parts, ", ")
}

// byRole splits a per-process map's names into the workers and the
// others, each sorted.
func byRole[V any](m map[string]V) (others, workers []string) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if strings.HasPrefix(k, "worker ") {
			workers = append(workers, k)
		} else {
			others = append(others, k)
		}
	}
	return others, workers
}

// cpuSeconds reads user plus system CPU time from a /proc stat file.
func cpuSeconds(path string) float64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	// Fields after the parenthesised command name; utime and stime are 14 and 15.
	rest := string(data[strings.LastIndexByte(string(data), ')')+2:])
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // USER_HZ is 100 on Linux
}

func formatCPU(m map[string]float64, elapsed time.Duration) string {
	others, workers := byRole(m)
	var total, inWorkers float64
	var parts []string
	for _, k := range others {
		total += m[k]
		parts = append(parts, fmt.Sprintf("%s %.1fs", k, m[k]))
	}
	for _, k := range workers {
		inWorkers += m[k]
	}
	total += inWorkers
	if len(workers) > 0 {
		parts = append(parts, fmt.Sprintf("%d workers %.1fs", len(workers), inWorkers))
	}
	return fmt.Sprintf("CPU %.1fs over %.1fs wall (%s)", total, elapsed.Seconds(), strings.Join(parts, ", "))
}
