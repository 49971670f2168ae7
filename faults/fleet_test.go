package faults

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/config"
	"github.com/jetcompact/jetcompact/internal/poll"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
)

// setup says how a case's fleet is configured.
type setup struct {
	Segments [][]stages.Key
	Replicas int
	AckWait  time.Duration
	MaxBytes int64 // 0 = unlimited
	// MaxBacklog bounds the documents waiting at the intake; 0 = unlimited.
	MaxBacklog int
	// Extra is appended to the config file (pipeline and llm sections).
	Extra string
	// Env is given to every worker.
	Env []string
}

// cluster is one case's servers, workers and publisher connection.
type cluster struct {
	t       *testing.T
	dir     string
	setup   setup
	cfgPath string
	file    config.File
	names   jetstream.Names
	servers []*natsNode
	workers []*workerProc
	nc      *nats.Conn
	js      njs.JetStream
}

type natsNode struct {
	*proc
	server string // server_name
	port   int
	store  string
}

type workerProc struct {
	*proc
	segment  string
	httpAddr string
}

func newCluster(t *testing.T, s setup) *cluster {
	t.Helper()
	if s.Replicas == 0 {
		s.Replicas = 1
	}
	if s.AckWait == 0 {
		s.AckWait = 2 * time.Second
	}
	c := &cluster{t: t, dir: t.TempDir(), setup: s}
	var segs []string
	for _, seg := range s.Segments {
		keys := make([]string, len(seg))
		for i, k := range seg {
			keys[i] = string(k)
		}
		segs = append(segs, "["+strings.Join(keys, ", ")+"]")
	}
	maxBytes := s.MaxBytes
	if maxBytes == 0 {
		maxBytes = -1
	}
	yaml := fmt.Sprintf(`fleet:
  prefix: ft
  storage: file
  replicas: %d
  ack_wait: %s
  max_bytes: %d
  max_backlog: %d
  segments: [%s]
telemetry:
  exporter: none
%s`, s.Replicas, s.AckWait, maxBytes, s.MaxBacklog, strings.Join(segs, ", "), s.Extra)
	c.cfgPath = filepath.Join(c.dir, "jetcompact.yaml")
	if err := os.WriteFile(c.cfgPath, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	var err error
	if c.file, err = config.Load(c.cfgPath); err != nil {
		t.Fatalf("config:\n%s\n%v", yaml, err)
	}
	c.names = jetstream.Names{Prefix: c.file.Fleet.Prefix}
	return c
}

// startServers starts n nats-servers with JetStream; more than one form a
// cluster with routes between all of them.
func (c *cluster) startServers(n int) {
	c.t.Helper()
	free := freePorts(c.t, 2*n)
	ports, routes := free[:n], free[n:]
	for i := range n {
		name := fmt.Sprintf("n%d", i+1)
		store := filepath.Join(c.dir, name+"-store")
		conf := fmt.Sprintf("server_name: %s\nhost: 127.0.0.1\nport: %d\njetstream {\n  store_dir: %q\n  max_memory_store: 256MB\n  max_file_store: 4GB\n}\n", name, ports[i], store)
		if n > 1 {
			var rs []string
			for j, p := range routes {
				if j != i {
					rs = append(rs, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
				}
			}
			conf += fmt.Sprintf("cluster {\n  name: jc\n  host: 127.0.0.1\n  port: %d\n  routes: [%s]\n}\n", routes[i], strings.Join(rs, ", "))
		}
		path := filepath.Join(c.dir, name+".conf")
		if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
			c.t.Fatal(err)
		}
		node := &natsNode{proc: newProc(c.t, c.dir, name, binary(c.t, "nats-server"), []string{"-c", path}, nil), server: name, port: ports[i], store: store}
		c.servers = append(c.servers, node)
		node.Start()
	}
	c.waitJetStream(30 * time.Second)
	nc, err := jetstream.Connect(jetstream.ConnectOptions{URL: c.url(), Name: "faults-publisher"})
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(nc.Close)
	c.nc = nc
	if c.js, err = njs.New(nc); err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Every 200 ms: a cluster still electing its leaders fails fast.
	if !poll.Every(200*time.Millisecond, 30*time.Second, func() bool {
		err = jetstream.EnsureTopology(ctx, c.js, c.file.Fleet)
		return err == nil
	}) {
		c.t.Fatalf("topology: %v", err)
	}
}

// url lists every server, so clients fail over.
func (c *cluster) url() string {
	var urls []string
	for _, s := range c.servers {
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", s.port))
	}
	return strings.Join(urls, ",")
}

// waitJetStream waits until JetStream answers (on a cluster: a meta leader exists).
func (c *cluster) waitJetStream(d time.Duration) {
	c.t.Helper()
	ok := poll.Until(d, func() bool {
		nc, err := nats.Connect(c.url(), nats.Timeout(time.Second))
		if err != nil {
			return false
		}
		defer nc.Close()
		js, _ := njs.New(nc)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err = js.AccountInfo(ctx)
		return err == nil
	})
	if !ok {
		c.t.Fatal("JetStream not ready")
	}
}

// startWorker runs the worker command on one segment ("all" for every one).
func (c *cluster) startWorker(segment string) *workerProc {
	c.t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(c.t))
	name := fmt.Sprintf("worker-%d-%s", len(c.workers)+1, strings.ReplaceAll(segment, ",", "+"))
	if len(name) > 40 {
		name = name[:40]
	}
	args := []string{"--config", c.cfgPath, "--nats", c.url(), "--segment", segment, "--http-addr", addr, "--drain-timeout", "2s"}
	w := &workerProc{proc: newProc(c.t, c.dir, name, binary(c.t, "worker"), args, c.setup.Env), segment: segment, httpAddr: addr}
	c.workers = append(c.workers, w)
	w.Start()
	c.waitReady(w)
	return w
}

// startWorkers runs one worker per configured segment.
func (c *cluster) startWorkers() {
	for _, seg := range c.file.Fleet.Segments {
		keys := make([]string, len(seg))
		for i, k := range seg {
			keys[i] = string(k)
		}
		c.startWorker(strings.Join(keys, ","))
	}
}

func (c *cluster) waitReady(w *workerProc) {
	c.t.Helper()
	ok := poll.Until(30*time.Second, func() bool {
		resp, err := http.Get("http://" + w.httpAddr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if !ok {
		c.t.Fatalf("%s not ready:\n%s", w.name, tail(w.logPath, 20, ""))
	}
}

// metric sums a Prometheus counter over every series a worker exposes.
func (w *workerProc) metric(name string) (float64, error) {
	resp, err := http.Get("http://" + w.httpAddr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) {
			continue
		}
		rest := strings.TrimPrefix(line, name)
		if rest == "" || (rest[0] != ' ' && rest[0] != '{') {
			continue
		}
		fields := strings.Fields(line)
		v, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err == nil {
			sum += v
		}
	}
	return sum, sc.Err()
}

// redeliveries sums the redelivery counters of the running workers (a
// restarted worker counts from zero).
func (c *cluster) redeliveries() float64 {
	c.t.Helper()
	var sum float64
	for _, w := range c.workers {
		v, err := w.metric("jetcompact_segment_redeliveries_total")
		if err != nil {
			c.t.Errorf("%s metrics: %v", w.name, err)
		}
		sum += v
	}
	return sum
}

func (c *cluster) client() *jetstream.Client {
	c.t.Helper()
	cl, err := jetstream.NewClient(context.Background(), c.js, c.file.Fleet)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(cl.Close)
	return cl
}

// streamState is the state of a stream, or zero when it does not answer.
func (c *cluster) streamState(name string) (njs.StreamState, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	st, err := c.js.Stream(ctx, name)
	if err != nil {
		return njs.StreamState{}, false
	}
	info, err := st.Info(ctx)
	if err != nil {
		return njs.StreamState{}, false
	}
	return info.State, true
}

func (c *cluster) streamInfo(name string) (*njs.StreamInfo, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	st, err := c.js.Stream(ctx, name)
	if err != nil {
		return nil, err
	}
	return st.Info(ctx)
}

// settle waits until the work stream is empty and no consumer, the
// intake included, holds unacknowledged work: every hop has been
// acknowledged.
func (c *cluster) settle(d time.Duration) {
	c.t.Helper()
	ok := poll.Until(d, func() bool {
		s, ok := c.streamState(c.names.WorkStream())
		if !ok || s.Msgs != 0 {
			return false
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		type durable struct{ stream, name string }
		all := []durable{{c.names.OriginalsStream(), c.names.IntakeConsumer()}}
		for _, seg := range c.file.Fleet.Segments {
			all = append(all, durable{c.names.WorkStream(), c.names.Consumer(seg[0])})
		}
		for _, d := range all {
			ci, err := c.consumerInfo(ctx, d.stream, d.name)
			if err != nil || ci.NumAckPending != 0 || ci.NumPending != 0 {
				return false
			}
		}
		return true
	})
	if !ok {
		s, _ := c.streamState(c.names.WorkStream())
		c.t.Errorf("fleet did not settle in %s: work stream holds %d messages", d, s.Msgs)
	}
}

// consumerInfo reads a consumer's state.
func (c *cluster) consumerInfo(ctx context.Context, stream, name string) (*njs.ConsumerInfo, error) {
	cons, err := c.js.Consumer(ctx, stream, name)
	if err != nil {
		return nil, err
	}
	return cons.Info(ctx)
}

// segmentConsumer is the consumer that carries a segment's load: the
// intake for the first segment, its work consumer for the others.
func (c *cluster) segmentConsumer(ctx context.Context, first string) (njs.Consumer, error) {
	if first == string(c.file.Fleet.Segments[0][0]) {
		return c.js.Consumer(ctx, c.names.OriginalsStream(), c.names.IntakeConsumer())
	}
	return c.js.Consumer(ctx, c.names.WorkStream(), c.names.Consumer(stages.Key(first)))
}

// doc is one document of a case.
type doc struct{ id, text string }

// expected runs every document through the in-process pipeline of the
// same config: the --local output.
func (c *cluster) expected(docs []doc, deps stages.Deps) []string {
	c.t.Helper()
	p, err := pipeline.New(c.file.Pipeline, deps)
	if err != nil {
		c.t.Fatal(err)
	}
	want := make([]string, len(docs))
	var wg sync.WaitGroup
	var next atomic.Int64
	for range 2 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(docs); i = int(next.Add(1) - 1) {
				res, err := p.Run(context.Background(), pipeline.Request{Text: docs[i].text, AllowLLM: true})
				if err != nil {
					c.t.Error(err)
					return
				}
				want[i] = res.Text
			}
		})
	}
	wg.Wait()
	return want
}

// pubStats is what the publisher saw.
type pubStats struct {
	results []jetstream.Result
	failed  []error // permanent failures, by document
	retries int64
	errs    map[string]*errSpan // retried errors by kind
	wall    time.Duration
}

// errSpan counts one kind of retried error and when it was seen, relative
// to the start of publishing.
type errSpan struct {
	n           int
	first, last time.Duration
}

// attemptTimeout bounds one Compact call of the harness. A publish whose
// acknowledgement was lost (the server died after receiving it) blocks
// Client.Submit until its context ends, so the bound also bounds that.
const attemptTimeout = 10 * time.Second

// docDeadline is how long the harness keeps retrying one document before
// it counts it as failed: far longer than any recovery here takes.
const docDeadline = 90 * time.Second

// publishAll compacts every document with at most window in flight and,
// when rate > 0, starts at most rate documents a second. A
// failed Compact is retried with the same document id, so a publish that
// reached JetStream before the error is deduplicated by its message id;
// done counts documents whose result arrived.
func (c *cluster) publishAll(ctx context.Context, cl *jetstream.Client, docs []doc, window int, rate float64, done *atomic.Int64) pubStats {
	st := pubStats{results: make([]jetstream.Result, len(docs)), failed: make([]error, len(docs)), errs: map[string]*errSpan{}}
	var mu sync.Mutex
	var retries atomic.Int64
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range window {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(docs); i = int(next.Add(1) - 1) {
				if rate > 0 {
					if wait := time.Until(start.Add(time.Duration(float64(i) / rate * float64(time.Second)))); wait > 0 {
						time.Sleep(wait)
					}
				}
				d := docs[i]
				giveUp := time.Now().Add(docDeadline)
				for attempt := 0; ; attempt++ {
					actx, cancel := context.WithTimeout(ctx, attemptTimeout)
					res, err := cl.Compact(actx, jetstream.Document{ID: d.id, Text: d.text, AllowLLM: true})
					cancel()
					if err == nil {
						st.results[i] = res
						done.Add(1)
						break
					}
					if jetstream.IsPermanent(err) || ctx.Err() != nil || time.Now().After(giveUp) {
						st.failed[i] = err
						break
					}
					retries.Add(1)
					mu.Lock()
					at := time.Since(start)
					sp := st.errs[errKind(err)]
					if sp == nil {
						sp = &errSpan{first: at}
						st.errs[errKind(err)] = sp
					}
					sp.n++
					sp.last = at
					mu.Unlock()
					time.Sleep(min(100*time.Millisecond<<min(attempt, 5), 2*time.Second))
				}
			}
		})
	}
	wg.Wait()
	st.retries = retries.Load()
	st.wall = time.Since(start)
	return st
}

// errKind shortens an error to its class for the figures: which step of
// Compact failed (storing the original, publishing the work, waiting for
// the result) and why.
func errKind(err error) string {
	s := err.Error()
	step := "other"
	switch {
	case strings.HasPrefix(s, "store original"):
		step = "store original"
	case strings.HasPrefix(s, "publish "):
		step = "publish"
	case strings.HasPrefix(s, "waiting for result"):
		step = "wait for result"
	case strings.HasPrefix(s, "watch results"):
		step = "watch results"
	}
	why := s
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		why = "deadline exceeded"
	case strings.Contains(s, "maximum bytes"):
		why = "maximum bytes exceeded"
	case strings.Contains(s, "no responders"):
		why = "no responders"
	case strings.Contains(s, "connection closed"), strings.Contains(s, "disconnected"):
		why = "disconnected"
	default:
		if i := strings.LastIndex(s, ": "); i >= 0 {
			why = s[i+2:]
		}
		if len(why) > 80 {
			why = why[:80]
		}
	}
	return step + ": " + why
}

// tally is the Jepsen-style outcome of a case.
type tally struct {
	published, results, lastSeq, duplicates, lost, wrong, dead int
	wrongIDs                                                   []string
}

// check reads every document's result from the results stream and
// compares it with want (want[i] == "" accepts any text; accept, when
// set, decides instead).
func (c *cluster) check(docs []doc, want []string, accept func(i int, text string) bool) tally {
	c.t.Helper()
	tl := tally{published: len(docs)}
	rs, ok := c.streamState(c.names.ResultsStream())
	if !ok {
		c.t.Fatal("results stream does not answer")
	}
	tl.results, tl.lastSeq = int(rs.Msgs), int(rs.LastSeq)
	tl.duplicates = int(rs.LastSeq - rs.Msgs)
	ds, _ := c.streamState(c.names.DeadStream())
	tl.dead = int(ds.Msgs)
	ctx := context.Background()
	st, err := c.js.Stream(ctx, c.names.ResultsStream())
	if err != nil {
		c.t.Fatal(err)
	}
	var mu sync.Mutex
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(docs); i = int(next.Add(1) - 1) {
				raw, err := st.GetLastMsgForSubject(ctx, c.names.ResultSubject(docs[i].id))
				mu.Lock()
				switch {
				case errors.Is(err, njs.ErrMsgNotFound):
					tl.lost++
				case err != nil:
					c.t.Errorf("read result %s: %v", docs[i].id, err)
				case raw.Header.Get(jetstream.HeaderBlob) != "":
					// Small documents never move by reference.
					tl.wrong++
					tl.wrongIDs = append(tl.wrongIDs, docs[i].id+" (blob)")
				case accept != nil && !accept(i, string(raw.Data)), accept == nil && want[i] != string(raw.Data):
					tl.wrong++
					tl.wrongIDs = append(tl.wrongIDs, docs[i].id)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	sort.Strings(tl.wrongIDs)
	return tl
}

// report prints the figures and fails the test on any loss or duplicate.
func (c *cluster) report(name string, tl tally, ps pubStats, extra ...string) {
	c.t.Helper()
	failed := 0
	for _, err := range ps.failed {
		if err != nil {
			failed++
		}
	}
	var errs []string
	for k, sp := range ps.errs {
		errs = append(errs, fmt.Sprintf("%q×%d (from %s to %s)", k, sp.n, sp.first.Round(100*time.Millisecond), sp.last.Round(100*time.Millisecond)))
	}
	sort.Strings(errs)
	c.t.Logf("%s: published=%d results=%d duplicates=%d lost=%d wrong=%d dead-letters=%d publisher-failures=%d publisher-retries=%d wall=%s",
		name, tl.published, tl.results, tl.duplicates, tl.lost, tl.wrong, tl.dead, failed, ps.retries, ps.wall.Round(time.Millisecond))
	if len(errs) > 0 {
		c.t.Logf("%s: retried publisher errors: %s", name, strings.Join(errs, ", "))
	}
	for _, e := range extra {
		c.t.Logf("%s: %s", name, e)
	}
	if tl.results != tl.published || tl.lastSeq != tl.published {
		c.t.Errorf("%s: results stream holds %d messages after %d publishes, want %d and %d", name, tl.results, tl.lastSeq, tl.published, tl.published)
	}
	if tl.lost > 0 || tl.duplicates > 0 || tl.wrong > 0 || failed > 0 {
		ids := tl.wrongIDs
		if len(ids) > 10 {
			ids = ids[:10]
		}
		c.t.Errorf("%s: lost %d, duplicated %d, wrong %d %v, failed %d", name, tl.lost, tl.duplicates, tl.wrong, ids, failed)
		for i, err := range ps.failed {
			if err != nil {
				c.t.Errorf("%s: %s: %v", name, "doc "+strconv.Itoa(i), err)
				break
			}
		}
	}
	if tl.dead > 0 {
		c.t.Errorf("%s: %d dead letters; no fault here should make a message permanent", name, tl.dead)
		cl, err := jetstream.NewClient(context.Background(), c.js, c.file.Fleet)
		if err == nil {
			dl, _ := cl.DeadLetters(context.Background())
			for i, d := range dl {
				if i == 5 {
					break
				}
				c.t.Logf("%s: dead letter %d: doc %s stage %s: %s", name, d.Sequence, d.DocID, d.Stage, d.Reason)
			}
		}
	}
}

// docCount is FAULTS_DOCS, default 2000.
func docCount(t *testing.T) int {
	if s := os.Getenv("FAULTS_DOCS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 10 {
			t.Fatalf("FAULTS_DOCS=%q: want a number >= 10", s)
		}
		return n
	}
	return 2000
}

// monitor samples the results stream's last sequence, so recovery times
// can be read off afterwards.
type monitor struct {
	mu      sync.Mutex
	samples []sample
	stop    chan struct{}
	done    chan struct{}
}

type sample struct {
	at  time.Time
	seq uint64
	ok  bool
}

func (c *cluster) monitor() *monitor {
	m := &monitor{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			s, ok := c.streamState(c.names.ResultsStream())
			m.mu.Lock()
			m.samples = append(m.samples, sample{time.Now(), s.LastSeq, ok})
			m.mu.Unlock()
			select {
			case <-m.stop:
				return
			case <-t.C:
			}
		}
	}()
	c.t.Cleanup(m.Close)
	return m
}

func (m *monitor) Close() {
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	<-m.done
}

// progressAfter returns how long after from the results stream first grew
// beyond its last value at or before from; false if it never did.
func (m *monitor) progressAfter(from time.Time) (time.Duration, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var base uint64
	for _, s := range m.samples {
		if s.ok && !s.at.After(from) {
			base = s.seq
		}
		if s.at.After(from) && s.ok && s.seq > base {
			return s.at.Sub(from), true
		}
	}
	return 0, false
}

// waitProgress blocks until the results stream grows past its value at from.
func (m *monitor) waitProgress(from time.Time, d time.Duration) (time.Duration, bool) {
	var got time.Duration
	ok := poll.Until(d, func() bool {
		var ok bool
		got, ok = m.progressAfter(from)
		return ok
	})
	return got, ok
}

func waitDone(done *atomic.Int64, n int64, d time.Duration) bool {
	return poll.Until(d, func() bool { return done.Load() >= n })
}
