package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/embedded"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

// buildPublisher builds this command once per test into a temporary
// directory: the round trip runs it as separate processes.
func buildPublisher(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "publisher")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// execPublisher runs the built binary as its own process.
func execPublisher(t *testing.T, bin, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%v: %s", err, errb.String())
	}
	return out.String(), nil
}

// genLogs are logs of several formats, each with rare events among
// repeats, so that every kind of marker appears: count lines of records,
// keyword folds of build output, structured rows.
func genLogs(seed uint64) map[string]string {
	r := rand.New(rand.NewPCG(seed, 41))
	var iso, syslog, jsonl, build, table strings.Builder
	for i := range 2500 {
		level, msg := "INFO", fmt.Sprintf("request %d served in %dms for user%d", r.IntN(1e6), r.IntN(900), r.IntN(40))
		if r.IntN(300) == 0 {
			level, msg = "ERROR", fmt.Sprintf("upstream db-%d refused connection after %d retries", r.IntN(4), r.IntN(9))
		} else if r.IntN(4) == 0 {
			msg = fmt.Sprintf("cache evicted %d keys from shard-%d", r.IntN(500), r.IntN(8))
		}
		fmt.Fprintf(&iso, "2026-03-01T10:%02d:%02d.%03dZ %s %s\n", i/60%60, i%60, r.IntN(1000), level, msg)
		fmt.Fprintf(&syslog, "Mar  1 10:%02d:%02d web%d app[%d]: %s %s\r\n", i/60%60, i%60, r.IntN(3), 1000+r.IntN(50), level, msg)
		fmt.Fprintf(&jsonl, "{\"ts\":%d,\"level\":%q,\"msg\":%q}\n", 1772359200+i, strings.ToLower(level), msg)
		switch {
		case i == 1700:
			build.WriteString("--- FAIL: TestCheckout (0.42s)\n    checkout_test.go:88: expected 200, got 500\nFAIL\n")
		case i%50 == 0:
			fmt.Fprintf(&build, "=== RUN   TestStep%d\n", i)
		default:
			fmt.Fprintf(&build, "compiling pkg/mod%d/file%d.go (%d bytes)\n", r.IntN(30), i, r.IntN(90000))
		}
		if i < 400 {
			fmt.Fprintf(&table, "| %d | node-%d | %d.%d%% | %s |\n", i, r.IntN(20), r.IntN(99), r.IntN(9), []string{"ok", "ok", "ok", "degraded"}[r.IntN(4)])
		}
	}
	return map[string]string{"iso": iso.String(), "syslog-crlf": syslog.String(), "jsonl": jsonl.String(),
		"build": build.String(), "table": "| id | node | load | state |\n|---|---|---|---|\n" + table.String()}
}

// corpusDocs are the sample logs of ../shared by name, or none (with a
// note) when it is absent.
func corpusDocs(t *testing.T) map[string]string {
	docs := map[string]string{}
	files, _ := filepath.Glob("../../../shared/corpus/loghub/*/*_2k.log")
	ci, _ := filepath.Glob("../../../shared/corpus/ci_buildlogs_logchunks/logs/*.log")
	for _, f := range append(files, ci...) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[filepath.Base(f)] = string(raw)
	}
	if len(docs) == 0 {
		t.Log("../shared corpus absent: generated logs only")
	}
	return docs
}

// checkRefs resolves every reference in out with `get` in a new process
// (getArgs before the ref) and compares it with the original's lines. It
// returns how many it checked.
func checkRefs(t *testing.T, bin, name, text, out string, getArgs ...string) int {
	t.Helper()
	lines := strings.SplitAfter(text, "\n")
	refs := refInOutput.FindAllStringSubmatch(out, -1)
	for _, m := range refs {
		got, err := execPublisher(t, bin, "", append(getArgs, "get", m[1])...)
		if err != nil {
			t.Fatalf("%s: get %s: %v", name, m[1], err)
		}
		a, _ := strconv.Atoi(m[2])
		b, _ := strconv.Atoi(m[3])
		if b > len(lines) {
			t.Fatalf("%s: %s is past the end (%d lines)", name, m[1], len(lines))
		}
		if want := strings.Join(lines[a-1:b], ""); got != want {
			t.Fatalf("%s: get %s returned %d bytes, want the %d bytes of lines %d-%d", name, m[1], len(got), len(want), a, b)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "[... ") && !strings.Contains(l, " · ref ") {
			t.Errorf("%s: a marker without a reference: %q", name, l)
		}
	}
	return len(refs)
}

// TestRoundTripInFreshProcesses: every reference in the output of the
// built publisher, for the sample logs and generated logs of several
// formats, resolves with `publisher get REF` in a new process (same
// --store-dir) to exactly the original lines it names: after --local
// (every document), after the default embedded run and against a
// nats-server with --nats (the generated logs and a few samples: a fleet
// starts per run).
func TestRoundTripInFreshProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the publisher and runs it per reference")
	}
	bin := buildPublisher(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	gen := genLogs(1)
	corpus := corpusDocs(t)
	all := map[string]string{}
	for k, v := range gen {
		all["gen-"+k] = v
	}
	few := map[string]string{}
	for k, v := range all {
		few[k] = v
	}
	names := make([]string, 0, len(corpus))
	for k := range corpus {
		names = append(names, k)
	}
	sort.Strings(names)
	for i, k := range names {
		all[k] = corpus[k]
		if i%12 == 0 {
			few[k] = corpus[k]
		}
	}
	p, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	fleet, err := embedded.StartFleet(context.Background(), embedded.FleetOptions{StoreDir: t.TempDir(), Fleet: jetstream.DefaultConfig(), Pipeline: p})
	if err != nil {
		t.Fatal(err)
	}
	defer fleet.Close()
	for _, mode := range []struct {
		name      string
		docs      map[string]string
		run, get  []string
		storeDirs bool // each document its own --store-dir (the embedded fleet's too)
	}{
		{"--local", all, []string{"--local"}, nil, false},
		{"default", few, nil, nil, true},
		{"--nats", few, []string{"--nats", fleet.URL()}, []string{"--nats", fleet.URL()}, false},
	} {
		dir := t.TempDir()
		refs := 0
		for name, text := range mode.docs {
			if mode.storeDirs {
				dir = t.TempDir()
			}
			args := append(append([]string{"--store-dir", dir}, mode.run...), "-")
			out, err := execPublisher(t, bin, text, args...)
			if err != nil {
				t.Fatalf("%s %s: %v", mode.name, name, err)
			}
			n := checkRefs(t, bin, mode.name+" "+name, text, out, append([]string{"--store-dir", dir}, mode.get...)...)
			if n == 0 && strings.HasPrefix(name, "gen-") && name != "gen-table" {
				t.Errorf("%s %s: no references in the output:\n%.2000s", mode.name, name, out)
			}
			refs += n
		}
		t.Logf("%s: %d documents, %d references resolved", mode.name, len(mode.docs), refs)
	}
}
