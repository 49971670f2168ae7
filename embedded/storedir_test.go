package embedded

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestStoreDirRefusesPreparedDirectories: the default store directory is
// refused when a level of it is a symlink, a file, or writable by others,
// as another user of a shared temp directory could prepare it.
func TestStoreDirRefusesPreparedDirectories(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix permissions")
	}
	for name, prepare := range map[string]func(t *testing.T, base string){
		"fresh": func(*testing.T, string) {},
		"symlink": func(t *testing.T, base string) {
			target := t.TempDir()
			if err := os.Symlink(target, filepath.Join(base, "jetcompact")); err != nil {
				t.Fatal(err)
			}
		},
		"world-writable": func(t *testing.T, base string) {
			dir := filepath.Join(base, "jetcompact")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
		},
		"inner-symlink": func(t *testing.T, base string) {
			if err := os.Mkdir(filepath.Join(base, "jetcompact"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(t.TempDir(), filepath.Join(base, "jetcompact", "worker")); err != nil {
				t.Fatal(err)
			}
		},
		"file": func(t *testing.T, base string) {
			if err := os.WriteFile(filepath.Join(base, "jetcompact"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			t.Setenv("XDG_CACHE_HOME", base)
			t.Setenv("HOME", base)
			prepare(t, base)
			dir, err := StoreDir("")
			if name == "fresh" {
				if err != nil || !strings.HasPrefix(dir, base) {
					t.Fatalf("a fresh default: %q, %v", dir, err)
				}
				if err := checkPrivateDir(dir); err != nil {
					t.Errorf("created %s: %v", dir, err)
				}
				return
			}
			if err == nil {
				t.Errorf("a prepared default was used: %s", dir)
			}
		})
	}
}
