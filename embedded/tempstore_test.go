//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package embedded

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTempStoreHelper is the child process of TestKilledRunIsSweptAtNextStart.
func TestTempStoreHelper(t *testing.T) {
	parent := os.Getenv("JETCOMPACT_TEMPSTORE_PARENT")
	if parent == "" {
		t.Skip("helper process only")
	}
	dir, _, err := TempStore(parent)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	os.WriteFile(filepath.Join(dir, "original.txt"), []byte("the whole original"), 0o600)
	fmt.Println(dir)
	time.Sleep(time.Minute) // killed long before
	os.Exit(0)
}

// TestKilledRunIsSweptAtNextStart is issue 15 item 9: a run killed with
// SIGKILL leaves its store; the next start removes it, while the store of
// a live run stays.
func TestKilledRunIsSweptAtNextStart(t *testing.T) {
	parent := t.TempDir()
	start := func() (*exec.Cmd, string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTempStoreHelper$")
		cmd.Env = append(os.Environ(), "JETCOMPACT_TEMPSTORE_PARENT="+parent)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || !strings.HasPrefix(filepath.Base(strings.TrimSpace(line)), TempPrefix) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("helper: %q %v", line, err)
		}
		return cmd, strings.TrimSpace(line)
	}
	killed, killedDir := start()
	killed.Process.Kill()
	killed.Wait()
	if _, err := os.Stat(filepath.Join(killedDir, "original.txt")); err != nil {
		t.Fatalf("the killed run left nothing to sweep: %v", err)
	}
	live, liveDir := start() // sweeps the killed run's store
	defer func() { live.Process.Kill(); live.Wait() }()

	dir, release, err := TempStore(parent) // the next start
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(killedDir); !os.IsNotExist(err) {
		t.Errorf("the killed run's store is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(liveDir, "original.txt")); err != nil {
		t.Errorf("the live run's store was removed: %v", err)
	}
	release()
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("release left %s", dir)
	}
}

// TestSweepLeavesWhatItCannotProveStale: symlinks, directories without a
// lock file, lock files that are symlinks and other names stay untouched.
func TestSweepLeavesWhatItCannotProveStale(t *testing.T) {
	parent, outside := t.TempDir(), t.TempDir()
	mk := func(path string) {
		if err := os.MkdirAll(path, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path string) {
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A stale store somewhere else, reached through a symlink.
	target := filepath.Join(outside, "victim")
	mk(target)
	write(filepath.Join(target, lockName))
	if err := os.Symlink(target, filepath.Join(parent, TempPrefix+"link")); err != nil {
		t.Fatal(err)
	}
	mk(filepath.Join(parent, TempPrefix+"nolock"))
	mk(filepath.Join(parent, TempPrefix+"locklink"))
	os.Symlink(filepath.Join(target, lockName), filepath.Join(parent, TempPrefix+"locklink", lockName))
	mk(filepath.Join(parent, "other-dir"))
	write(filepath.Join(parent, "other-dir", lockName))
	stale := filepath.Join(parent, TempPrefix+"stale")
	mk(stale)
	write(filepath.Join(stale, lockName))

	n, err := SweepStale(parent)
	if err != nil || n != 1 {
		t.Errorf("removed %d (%v), want 1", n, err)
	}
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Error("the stale store stays")
	}
	for _, keep := range []string{target, filepath.Join(parent, TempPrefix+"link"), filepath.Join(parent, TempPrefix+"nolock"),
		filepath.Join(parent, TempPrefix+"locklink"), filepath.Join(parent, "other-dir")} {
		if _, err := os.Lstat(keep); err != nil {
			t.Errorf("%s removed", keep)
		}
	}
}
