package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jetcompact/jetcompact/docstore"
	"github.com/jetcompact/jetcompact/embedded"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

// TestMain keeps every test's originals out of the user's state directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "publisher-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var refInOutput = regexp.MustCompile(` · ref ([0-9a-f]+:L(\d+)-(\d+))(?:\]| \|)`)

// roundTripLog is build-like output keywords folds: passing steps around
// one failure, with ids and sizes that number_normalize rewrites.
func roundTripLog() string {
	var b strings.Builder
	for i := range 4000 {
		switch {
		case i == 2500:
			b.WriteString("FAIL: TestCheckout (0.42s)\n    checkout_test.go:88: expected 200, got 500\n")
		case i%97 == 0:
			fmt.Fprintf(&b, "=== step %d: %s\n", i, words[i%len(words)])
		default:
			fmt.Fprintf(&b, "%s %s compiled unit %d in %dms\n", words[i%len(words)], words[(i*5+1)%len(words)], i*7919%100003, i%977)
		}
	}
	return b.String()
}

// TestGetRoundTrip: every reference in the output of --local and of the
// default embedded run resolves, in a later run, to exactly the original
// lines it names; whole ids and prefixes give the whole original.
func TestGetRoundTrip(t *testing.T) {
	text := roundTripLog()
	lines := strings.SplitAfter(text, "\n")
	for _, mode := range [][]string{{"--local"}, nil, {"--local", "--budget-tokens", "400"}, {"--budget-tokens", "400"}} {
		t.Setenv("XDG_STATE_HOME", t.TempDir())
		out, _, err := runPublisher(t, text, append(mode, "-")...)
		if err != nil {
			t.Fatal(err)
		}
		refs := refInOutput.FindAllStringSubmatch(out, -1)
		if len(refs) == 0 {
			t.Fatalf("%v: no references in the output:\n%s", mode, out)
		}
		for _, m := range refs {
			got, _, err := runPublisher(t, "", "get", m[1])
			if err != nil {
				t.Fatalf("%v: get %s: %v", mode, m[1], err)
			}
			a, _ := strconv.Atoi(m[2])
			b, _ := strconv.Atoi(m[3])
			if want := strings.Join(lines[a-1:b], ""); got != want {
				t.Fatalf("%v: get %s:\n%q\nwant\n%q", mode, m[1], got, want)
			}
		}
		prefix, _, _ := strings.Cut(refs[0][1], ":")
		for _, ref := range []string{prefix, prefix[:6]} {
			if got, _, err := runPublisher(t, "", "get", ref); err != nil || got != text {
				t.Errorf("%v: get %s: %v (whole original: %v)", mode, ref, err, got == text)
			}
		}
	}
}

func TestGetPrefixErrors(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	st, err := docstore.Open(filepath.Join(state, "jetcompact", "originals"), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"abcdef0011", "abcdef0022", "12345678aa"} {
		if err := st.Put(id, "text of "+id+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = runPublisher(t, "", "get", "abcdef00")
	if err == nil || !strings.Contains(err.Error(), "abcdef0011") || !strings.Contains(err.Error(), "abcdef0022") {
		t.Errorf("ambiguous prefix: %v", err)
	}
	_, _, err = runPublisher(t, "", "get", "feedbeef:L1-2")
	if err == nil || !strings.Contains(err.Error(), "feedbeef") {
		t.Errorf("unknown reference: %v", err)
	}
	if got, _, err := runPublisher(t, "", "get", "1234:L1"); err != nil || got != "text of 12345678aa\n" {
		t.Errorf("get 1234:L1 = %q, %v", got, err)
	}
	if _, _, err := runPublisher(t, "", "get", "1234:L2-3"); err == nil {
		t.Error("a range past the end resolved")
	}
}

func TestNoStoreLeavesMarkersBare(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	out, _, err := runPublisher(t, roundTripLog(), "--local", "--no-store", "-")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, " · ref ") {
		t.Error("--no-store output carries references")
	}
	if !strings.Contains(out, "lines folded") {
		t.Fatalf("nothing folded:\n%s", out)
	}
	if entries, _ := os.ReadDir(filepath.Join(state, "jetcompact", "originals")); len(entries) > 0 {
		t.Errorf("--no-store stored %d files", len(entries))
	}
}

// lockedBuffer is a bytes.Buffer safe for the writes a NATS callback makes
// through the default logger after run has returned.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestGetRoundTripNATS: against a cluster (--nats), references resolve from
// its originals stream, the prefix expanded by the local store; with the
// local store gone, a whole id still resolves.
func TestGetRoundTripNATS(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	p, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	fleet, err := embedded.StartFleet(context.Background(), embedded.FleetOptions{StoreDir: t.TempDir(), Fleet: jetstream.DefaultConfig(), Pipeline: p})
	if err != nil {
		t.Fatal(err)
	}
	defer fleet.Close()
	text := roundTripLog()
	lines := strings.SplitAfter(text, "\n")
	out, report, err := runPublisher(t, text, "--nats", fleet.URL(), "--report", "-")
	if err != nil {
		t.Fatal(err)
	}
	refs := refInOutput.FindAllStringSubmatch(out, -1)
	if len(refs) == 0 {
		t.Fatalf("no references:\n%s", out)
	}
	for _, m := range refs {
		got, _, err := runPublisher(t, "", "--nats", fleet.URL(), "get", m[1])
		a, _ := strconv.Atoi(m[2])
		b, _ := strconv.Atoi(m[3])
		if err != nil || got != strings.Join(lines[a-1:b], "") {
			t.Fatalf("get %s: %v\n%q", m[1], err, got)
		}
	}
	id := regexp.MustCompile(`doc id: (\S+)`).FindStringSubmatch(report)
	if id == nil {
		t.Fatalf("no doc id in the report:\n%s", report)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	if got, _, err := runPublisher(t, "", "--nats", fleet.URL(), "get", id[1]+":L1-2"); err != nil || got != lines[0]+lines[1] {
		t.Errorf("get %s:L1-2 from the cluster alone = %q, %v", id[1], got, err)
	}
}
