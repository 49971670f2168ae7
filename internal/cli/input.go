package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// ErrTooLarge: the input is above its limit (max_document_bytes).
var ErrTooLarge = errors.New("above max_document_bytes")

// ReadLimited reads name ("-" = stdin) if it holds at most limit bytes: a
// regular file is checked by its size before it is read, a stream is read
// through a limit. Memory stays near the document's size.
func ReadLimited(name string, stdin io.Reader, limit int64) (string, error) {
	r := stdin
	var b strings.Builder
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", name, err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if fi.Size() > limit {
				return "", fmt.Errorf("read %s: %d bytes, %w (%d)", name, fi.Size(), ErrTooLarge, limit)
			}
			b.Grow(int(fi.Size()))
		}
		r = f
	}
	n, err := io.Copy(&b, io.LimitReader(r, limit+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	if n > limit {
		return "", fmt.Errorf("read %s: more than %d bytes, %w", name, limit, ErrTooLarge)
	}
	return b.String(), nil
}
