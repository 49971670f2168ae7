package embedded

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// TempPrefix names the temp directories of one-shot embedded runs.
const TempPrefix = "jetcompact-"

// lockName is the file a live run holds locked inside its directory.
const lockName = ".lock"

// TempStore makes a private directory (mode 0700) under parent ("" = the
// system temp dir) for a one-shot run's JetStream store, holding its lock
// for the life of the process, after removing the directories of runs that
// died without cleaning up (SweepStale): a killed run's originals do not
// outlive the next start. release unlocks and removes the directory.
func TempStore(parent string) (dir string, release func(), err error) {
	if parent == "" {
		parent = os.TempDir()
	}
	_, _ = SweepStale(parent) // best effort: a failure must not stop a run
	dir, err = os.MkdirTemp(parent, TempPrefix)
	if err != nil {
		return "", nil, err
	}
	// Lock under a name the sweeper ignores, then rename: a sweeper never
	// sees an unlocked lock file of a live run.
	tmp := filepath.Join(dir, lockName+".new")
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		if err = lockFile(f); err == nil {
			_, _ = f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
			err = os.Rename(tmp, filepath.Join(dir, lockName))
		}
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("embedded: lock %s: %w", dir, err)
	}
	return dir, func() {
		f.Close()
		os.RemoveAll(dir)
	}, nil
}

// SweepStale removes the TempStore directories under parent whose run is
// gone: the directory is a real directory (not a symlink) owned by this
// user, holding a regular lock file that nobody holds locked. Anything
// else is left alone. It returns how many it removed.
func SweepStale(parent string) (int, error) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), TempPrefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		stale, err := staleStore(dir)
		if err != nil || !stale {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

// staleStore reports whether dir is a TempStore directory of a dead run.
func staleStore(dir string) (bool, error) {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || !ownedByMe(fi) {
		return false, err
	}
	lock := filepath.Join(dir, lockName)
	lfi, err := os.Lstat(lock)
	if err != nil || !lfi.Mode().IsRegular() || !ownedByMe(lfi) {
		return false, err
	}
	f, err := openNoFollow(lock)
	if err != nil {
		return false, err
	}
	defer f.Close()
	return tryLock(f), nil
}
