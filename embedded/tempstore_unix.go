//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package embedded

import (
	"os"
	"syscall"
)

func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// tryLock reports whether f's lock was free (its holder is gone). The
// lock is released when f is closed.
func tryLock(f *os.File) bool { return lockFile(f) == nil }

func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW, 0)
}

func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
