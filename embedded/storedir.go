package embedded

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// StoreDir returns dir, created with mode 0700, or, when dir is "", a
// default under the user's cache directory, or the system temp directory
// if there is none. The levels of the default below that base are
// checked as another user could have prepared them (a shared /tmp): each
// must be a real directory, not a symlink, owned by this user and not
// writable by group or others.
func StoreDir(dir string) (string, error) {
	if dir != "" {
		return dir, os.MkdirAll(dir, 0o700)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir = base
	for _, level := range []string{"jetcompact", "worker"} {
		dir = filepath.Join(dir, level)
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("store dir: %w", err)
		}
		if err := checkPrivateDir(dir); err != nil {
			return "", fmt.Errorf("store dir %s: %w; pass --store-dir", dir, err)
		}
	}
	return dir, nil
}

// checkPrivateDir refuses a symlink, a non-directory, a directory another
// user owns, or one that group or others may write.
func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return errors.New("is a symlink")
	case !fi.IsDir():
		return errors.New("is not a directory")
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("is writable by group or others (mode %v)", fi.Mode().Perm())
	}
	return checkOwner(fi)
}
