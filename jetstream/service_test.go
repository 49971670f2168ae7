package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/internal/poll"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
)

// serviceFleet starts a fused fleet, serves the micro service on its own
// connection and returns a service client on another.
func serviceFleet(t *testing.T, cfg Config) (*fleet, *ServiceClient) {
	t.Helper()
	f := startFleet(t, cfg)
	f.worker(cfg.Segments)
	nc, err := nats.Connect(f.srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	service := NewService(f.client(), "test")
	service.replyLife = time.Second
	svc, err := service.Serve(nc, "v1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Stop() })
	// The service's subscriptions are the server's once a flush returns:
	// a request on another connection finds them (else "no responders").
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	sc, err := NewServiceClient(context.Background(), f.nc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f, sc
}

// serviceLog is a job log of n records with a failure now and then.
func serviceLog(n int) string {
	var b strings.Builder
	for j := range n {
		fmt.Fprintf(&b, "2024-05-01 12:%02d:%02d INFO worker-%d step %d of job took %dms\n", j/60%60, j%60, j%7, j, j*13%97)
		if j%97 == 0 {
			fmt.Fprintf(&b, "2024-05-01 12:%02d:%02d ERROR worker-%d job failed: exit status %d\n", j/60%60, j%60, j%7, j%5+1)
		}
	}
	return b.String()
}

// serviceNotes is n lines of distinct prose: nothing repeats, so only a
// budget folds it.
func serviceNotes(n int) string {
	words := strings.Fields("alpha bravo cedar delta ember falcon garnet harbor island juniper kettle lantern meadow nectar orchard pepper quartz river saddle timber umber velvet willow yonder zephyr")
	var b strings.Builder
	for j := range n {
		fmt.Fprintf(&b, "Note %d:", j)
		for k := range 9 {
			b.WriteString(" " + words[(j*7+k*k*3+j/5)%len(words)])
		}
		b.WriteString(".\n")
	}
	return b.String()
}

var serviceRefRe = regexp.MustCompile(`ref ([0-9a-f]{32}):L(\d+)-(\d+)\]`)

func TestServiceCompactAndGetRoundTrip(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Segments = FusedSegments()
	f, sc := serviceFleet(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	text := serviceNotes(300)
	rep, err := sc.Compact(ctx, CompactRequest{Text: text, Kind: "prose", BudgetTokens: 200})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Report.Budget == nil || rep.Report.Budget.Tokens != 200 || rep.Report.CharsIn != len(text) {
		t.Errorf("report %+v, budget %+v", rep.Report, rep.Report.Budget)
	}
	if tokens := stages.EstimateTokens(rep.Text); tokens > 200 {
		t.Errorf("%d tokens, above the budget of 200 (references included)", tokens)
	}
	refs := serviceRefRe.FindAllStringSubmatch(rep.Text, -1)
	if len(refs) == 0 {
		t.Fatalf("no reference in the compacted text:\n%s", rep.Text)
	}
	lines := strings.SplitAfter(text, "\n")
	for _, m := range refs {
		from, _ := strconv.Atoi(m[2])
		to, _ := strconv.Atoi(m[3])
		got, err := sc.Get(ctx, m[1]+":L"+m[2]+"-"+m[3])
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Join(lines[from-1:to], ""); got != want {
			t.Errorf("get %s: %d bytes, want the %d bytes of lines %d-%d", m[0], len(got), len(want), from, to)
		}
	}
	if whole, err := sc.Get(ctx, rep.DocID); err != nil || whole != text {
		t.Errorf("get %s: %d bytes, %v; want the original", rep.DocID, len(whole), err)
	}

	// Any NATS client: the text as the body, the answer as the body.
	m := nats.NewMsg("jc.compact")
	m.Data = []byte(text)
	m.Header.Set(HeaderBudget, "200")
	m.Header.Set(HeaderKind, "prose")
	reply, err := f.nc.RequestMsgWithContext(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if string(reply.Data) != rep.Text || reply.Header.Get(HeaderDocID) != rep.DocID {
		t.Errorf("plain request: %q, doc %s; want the client's answer", reply.Data, reply.Header.Get(HeaderDocID))
	}
	var report pipeline.Report
	if err := json.Unmarshal([]byte(reply.Header.Get(HeaderReport)), &report); err != nil || report.Guard == "" {
		t.Errorf("Jc-Report %q: %v", reply.Header.Get(HeaderReport), err)
	}

	// `nats micro ls` / `nats micro stats`: the service and its endpoints.
	info, err := f.nc.RequestWithContext(ctx, "$SRV.INFO."+ServiceName, nil)
	if err != nil {
		t.Fatal(err)
	}
	var si micro.Info
	if err := json.Unmarshal(info.Data, &si); err != nil {
		t.Fatal(err)
	}
	subjects := []string{}
	for _, e := range si.Endpoints {
		subjects = append(subjects, e.Subject)
	}
	if si.Name != ServiceName || si.Version != "1.2.3" || !strings.Contains(strings.Join(subjects, " "), "jc.compact") || !strings.Contains(strings.Join(subjects, " "), "jc.get") {
		t.Errorf("service info: %s %s, endpoints %v", si.Name, si.Version, subjects)
	}
	// micro counts a request once its handler returns, which is after the
	// reply went out: poll until the last one is counted.
	want := 2 + len(refs) + 1
	requests := 0
	poll.Until(5*time.Second, func() bool {
		stats, err := f.nc.RequestWithContext(ctx, "$SRV.STATS."+ServiceName, nil)
		if err != nil {
			t.Fatal(err)
		}
		var ss micro.Stats
		if err := json.Unmarshal(stats.Data, &ss); err != nil {
			t.Fatal(err)
		}
		requests = 0
		for _, e := range ss.Endpoints {
			requests += e.NumRequests
		}
		return requests >= want
	})
	if requests != want {
		t.Errorf("stats count %d requests, want %d", requests, want)
	}
}

// TestServiceLargeText: 50 MB in through the originals object store, its
// compacted text out, and the whole original back through a reply blob.
func TestServiceLargeText(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB through the fleet")
	}
	cfg := DefaultConfig()
	cfg.Segments = FusedSegments()
	f, sc := serviceFleet(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// Under -race the fleet runs about ten times slower: twice the payload
	// limit still takes the blob path both ways.
	size := 50 << 20
	if raceEnabled {
		size = 2 * int(f.nc.MaxPayload())
	}
	var b strings.Builder
	for b.Len() < size {
		b.WriteString(serviceLog(5000))
	}
	text := b.String()
	if len(text) <= int(f.nc.MaxPayload()) {
		t.Fatal("the text must be above the payload limit")
	}
	rep, err := sc.Compact(ctx, CompactRequest{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Report.CharsIn != len(text) || len(rep.Text) == 0 || len(rep.Text) >= len(text)/100 {
		t.Errorf("%d bytes compacted to %d bytes, report chars in %d", len(text), len(rep.Text), rep.Report.CharsIn)
	}
	// Watch the work blobs from before the get: the reply blob may already
	// be deleted (its life here is a second) by the time get returns.
	work, err := f.js.ObjectStore(ctx, Names{cfg.Prefix}.BlobBucket())
	if err != nil {
		t.Fatal(err)
	}
	watcher, err := work.Watch(ctx, njs.IgnoreDeletes())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = watcher.Stop() }()
	whole, err := sc.Get(ctx, rep.DocID)
	if err != nil {
		t.Fatal(err)
	}
	if whole != text {
		t.Errorf("get: %d bytes, want the %d of the original", len(whole), len(text))
	}
	sawReply := false
	for wait := time.After(30 * time.Second); !sawReply; {
		select {
		case info := <-watcher.Updates():
			sawReply = info != nil && strings.Contains(info.Name, ":reply:")
		case <-wait:
			t.Fatal("the 50 MB original came back without a reply blob")
		}
	}
	// The service deletes its reply blobs once their client had time to read them.
	replies := func() (n int) {
		objs, _ := work.List(ctx)
		for _, o := range objs {
			if strings.Contains(o.Name, ":reply:") {
				n++
			}
		}
		return n
	}
	poll.Until(15*time.Second, func() bool { return replies() == 0 })
	if n := replies(); n > 0 {
		t.Errorf("%d reply blobs left behind", n)
	}
}

func TestServiceErrorsSayWhy(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Segments = FusedSegments()
	f, sc := serviceFleet(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for header, value := range map[string]string{HeaderBudget: "lots", HeaderKind: "yaml", HeaderMode: "turbo", HeaderBlob: "../etc/passwd"} {
		m := nats.NewMsg("jc.compact")
		m.Data = []byte("some text\n")
		m.Header.Set(header, value)
		reply, err := f.nc.RequestMsgWithContext(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		if code, desc := reply.Header.Get(micro.ErrorCodeHeader), reply.Header.Get(micro.ErrorHeader); code != ServiceBadRequest || !strings.Contains(desc, value) && !strings.Contains(desc, header) {
			t.Errorf("%s: %q: error %s %q, want 400 naming it", header, value, code, desc)
		}
	}
	_, err := sc.Compact(ctx, CompactRequest{Text: "x", BudgetTokens: -3})
	var se *ServiceError
	if !errors.As(err, &se) || se.Code != ServiceBadRequest {
		t.Errorf("budget -3: %v", err)
	}
	unknown := strings.Repeat("ab", 16) + ":L1-2"
	_, err = sc.Get(ctx, unknown)
	if !errors.As(err, &se) || se.Code != ServiceNotFound || !strings.Contains(se.Description, unknown) {
		t.Errorf("unknown reference: %v, want 404 naming %s", err, unknown)
	}
	_, err = sc.Get(ctx, "not a ref")
	if !errors.As(err, &se) || se.Code != ServiceBadRequest {
		t.Errorf("bad reference: %v, want 400", err)
	}
	// A known document, lines past its end.
	rep, err := sc.Compact(ctx, CompactRequest{Text: "one\ntwo\n"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err = sc.Get(ctx, rep.DocID+":L5-9"); !errors.As(err, &se) || se.Code != ServiceBadRequest || !strings.Contains(se.Description, "past the end") {
		t.Errorf("lines past the end: %v", err)
	}
}

func TestServiceVersionIsSemantic(t *testing.T) {
	for in, want := range map[string]string{"v1.2.3": "1.2.3", "1.2.3-rc.1+dirty": "1.2.3-rc.1+dirty", "dev": "0.0.0", "v1.2": "0.0.0", "1.2.x": "0.0.0", "": "0.0.0"} {
		if got := serviceVersion(in); got != want {
			t.Errorf("serviceVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// panicRequest is a micro.Request whose error reply is recorded.
type panicRequest struct {
	micro.Request
	code, desc string
}

func (r *panicRequest) Error(code, desc string, _ []byte, _ ...micro.RespondOpt) error {
	r.code, r.desc = code, desc
	return nil
}

func TestServiceHandlerPanicIsAnErrorReply(t *testing.T) {
	r := &panicRequest{}
	recovered(func(micro.Request) { panic("boom") })(r)
	if r.code != ServiceFailed || !strings.Contains(r.desc, "boom") {
		t.Errorf("reply %s %q, want a 500 saying why", r.code, r.desc)
	}
}
