package faults

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The binaries every case runs, built once per test binary.
var (
	buildOnce sync.Once
	buildErr  error
	binDir    string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "jc-faults-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binary returns the path of the worker or nats-server binary, building
// both on first use: the worker from this repository, nats-server from the
// module version go.mod requires. They are built without -race even when
// the suite runs with it: the race detector would slow the fleet down by an
// order of magnitude and the point here is process-level faults.
func binary(t testing.TB, name string) string {
	t.Helper()
	buildOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			buildErr = fmt.Errorf("go env GOMOD: %w", err)
			return
		}
		gomod := strings.TrimSpace(string(out))
		if gomod == "" || gomod == os.DevNull {
			buildErr = fmt.Errorf("not inside the module (GOMOD=%q)", gomod)
			return
		}
		for _, b := range []struct{ out, pkg string }{
			{"worker", "./cmd/worker"},
			{"nats-server", "github.com/nats-io/nats-server/v2"},
		} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, b.out), b.pkg)
			cmd.Dir = filepath.Dir(gomod)
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(binDir, name)
}

// proc is a child process that can be killed, stopped and started again
// with the same arguments; its output goes to a log file.
type proc struct {
	t       testing.TB
	name    string
	path    string
	args    []string
	env     []string
	logPath string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	peakKB int64 // the highest VmHWM over every incarnation
	starts int
}

func newProc(t testing.TB, dir, name, path string, args, env []string) *proc {
	p := &proc{t: t, name: name, path: path, args: args, env: env, logPath: filepath.Join(dir, name+".log")}
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("--- last lines of %s:\n%s", p.name, tail(p.logPath, 25, "[INF]"))
		}
	})
	return p
}

// cleanEnv drops variables that would change how a child behaves.
func cleanEnv(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "NATS_") || strings.HasPrefix(k, "OTEL_") || strings.HasPrefix(k, "JETCOMPACT_") || strings.HasPrefix(k, "OPENAI_") || k == "GOFLAGS" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// Start runs a new incarnation.
func (p *proc) Start() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		p.t.Fatalf("%s already running", p.name)
	}
	f, err := os.OpenFile(p.logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		p.t.Fatal(err)
	}
	p.starts++
	fmt.Fprintf(f, "=== start %d at %s\n", p.starts, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(p.path, p.args...)
	cmd.Env = cleanEnv(p.env)
	cmd.Stdout, cmd.Stderr = f, f
	// If the test binary dies, its children die with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		p.t.Fatalf("start %s: %v", p.name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		f.Close()
		close(exited)
	}()
	p.cmd, p.exited = cmd, exited
}

// Kill sends SIGKILL (a no-op when not running) and waits for the exit.
func (p *proc) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return
	}
	p.sampleLocked()
	_ = p.cmd.Process.Signal(syscall.SIGCONT) // a stopped process dies too, but be explicit
	_ = p.cmd.Process.Kill()
	<-p.exited
	p.cmd = nil
}

// Stop and Cont send SIGSTOP and SIGCONT.
func (p *proc) Stop() { p.signal(syscall.SIGSTOP) }
func (p *proc) Cont() { p.signal(syscall.SIGCONT) }

func (p *proc) signal(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		_ = p.cmd.Process.Signal(sig)
	}
}

// PeakRSS samples the running incarnation and returns the highest VmHWM
// (peak resident set) seen over every incarnation, in bytes.
func (p *proc) PeakRSS() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sampleLocked()
	return p.peakKB << 10
}

func (p *proc) sampleLocked() {
	if p.cmd == nil {
		return
	}
	if kb := vmHWM(p.cmd.Process.Pid); kb > p.peakKB {
		p.peakKB = kb
	}
}

// vmHWM reads the peak resident set size of pid from /proc, in KiB.
func vmHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// tail returns the last n lines of a log file, leaving out lines that
// contain skip (when not empty).
func tail(path string, n int, skip string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if skip == "" || !strings.Contains(l, skip) {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	return freePorts(t, 1)[0]
}

// freePorts returns k distinct free ports: every listener stays open until
// all are taken, since a port closed at once may be handed out again (a
// cluster once got one route port twice).
func freePorts(t testing.TB, k int) []int {
	t.Helper()
	ports := make([]int, k)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ports[i] = ln.Addr().(*net.TCPAddr).Port
	}
	return ports
}
