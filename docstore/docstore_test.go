package docstore

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPutGetResolve(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "s"), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put("00aa11bb22cc", "one\ntwo\n"); err != nil {
		t.Fatal(err)
	}
	if err := st.Put("00aa11bb99dd", "other"); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Get("00aa11bb22cc"); err != nil || got != "one\ntwo\n" {
		t.Errorf("Get = %q, %v", got, err)
	}
	if id, err := st.Resolve("00aa11bb2"); err != nil || id != "00aa11bb22cc" {
		t.Errorf("Resolve = %q, %v", id, err)
	}
	if _, err := st.Resolve("00aa"); !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), "00aa11bb99dd") {
		t.Errorf("ambiguous: %v", err)
	}
	if _, err := st.Resolve("ffff"); !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "ffff") {
		t.Errorf("unknown: %v", err)
	}
	if p := st.UniquePrefix("00aa11bb22cc", 4); p != "00aa11bb2" {
		t.Errorf("UniquePrefix = %q", p)
	}
	fi, err := os.Stat(filepath.Join(st.Dir(), "00aa11bb22cc"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, %v", fi.Mode(), err)
	}
	if err := st.Put("../escape", "x"); err == nil {
		t.Error("a path as id was stored")
	}
}

func TestPruneOldestFirst(t *testing.T) {
	st, err := Open(t.TempDir(), 10, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"aaaaaaaa", "bbbbbbbb", "cccccccc"}
	now := time.Now()
	for i, id := range ids {
		if err := os.WriteFile(filepath.Join(st.Dir(), id), []byte("12345"), 0o600); err != nil {
			t.Fatal(err)
		}
		mod := now.Add(time.Duration(i-3) * time.Minute)
		os.Chtimes(filepath.Join(st.Dir(), id), mod, mod)
	}
	if err := st.Prune(now); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get("aaaaaaaa"); !errors.Is(err, ErrUnknown) {
		t.Error("oldest kept over max bytes")
	}
	for _, id := range ids[1:] {
		if _, err := st.Get(id); err != nil {
			t.Errorf("%s pruned: %v", id, err)
		}
	}
	if err := st.Prune(now.Add(2 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Resolve("c"); !errors.Is(err, ErrUnknown) {
		t.Error("original kept past max age")
	}
}

func TestSymlinksRefused(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	os.Mkdir(real, 0o700)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, err := Open(link, 0, 0); err == nil {
		t.Error("a symlinked store directory was opened")
	}
	st, err := Open(real, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("secret"), 0o600)
	os.Symlink(secret, filepath.Join(real, "deadbeef00"))
	if got, err := st.Get("deadbeef00"); err == nil {
		t.Errorf("followed a symlink: %q", got)
	}
}

func TestDefaultDirFollowsXDG(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if d, _ := DefaultDir(); d != "/x/state/jetcompact" {
		t.Errorf("DefaultDir = %q", d)
	}
	t.Setenv("XDG_STATE_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if d, _ := DefaultDir(); d != "/home/u/.local/state/jetcompact" {
		t.Errorf("DefaultDir = %q", d)
	}
}
