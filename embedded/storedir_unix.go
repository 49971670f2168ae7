//go:build unix

package embedded

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkOwner refuses a file another user owns.
func checkOwner(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("is owned by uid %d, not this user (%d)", st.Uid, os.Getuid())
	}
	return nil
}
