// Package docstore keeps the originals of compacted documents on local disk,
// one owner-only file per document id, so that a fold marker's reference
// still resolves after the process that wrote it has exited.
package docstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Retention defaults: what the store keeps before pruning oldest first.
const (
	DefaultMaxBytes int64         = 1 << 30
	DefaultMaxAge   time.Duration = 7 * 24 * time.Hour
)

// Errors a lookup returns, wrapped with the reference it was given.
var (
	ErrUnknown   = errors.New("unknown reference")
	ErrAmbiguous = errors.New("ambiguous reference")
)

// Store is a directory of originals. Safe for use by several processes:
// every write is a rename of a complete file.
type Store struct {
	dir      string
	maxBytes int64
	maxAge   time.Duration
}

// DefaultDir is $XDG_STATE_HOME/jetcompact, else ~/.local/state/jetcompact.
func DefaultDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "jetcompact"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("docstore: no state directory: %w", err)
	}
	return filepath.Join(home, ".local", "state", "jetcompact"), nil
}

// Open makes dir (owner-only) if it is missing and returns its store.
// dir must be a real directory, not a symlink. maxBytes and maxAge of 0
// take the defaults.
func Open(dir string, maxBytes int64, maxAge time.Duration) (*Store, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("docstore: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("docstore: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("docstore: %s is not a directory (a symlink is refused)", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, fmt.Errorf("docstore: %w", err)
		}
	}
	return &Store{dir: dir, maxBytes: maxBytes, maxAge: maxAge}, nil
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// validID: lower-case hex, as jetstream.DocumentID makes, 8 to 64 digits.
func validID(id string) bool {
	if len(id) < 8 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Put stores text under id, atomically (a temp file renamed), owner-only,
// then prunes. Storing an id again refreshes its age.
func (s *Store) Put(id, text string) error {
	if !validID(id) {
		return fmt.Errorf("docstore: invalid document id %q", id)
	}
	f, err := os.CreateTemp(s.dir, ".put-*")
	if err != nil {
		return fmt.Errorf("docstore: %w", err)
	}
	tmp := f.Name()
	_, werr := f.WriteString(text)
	if err := errors.Join(werr, f.Chmod(0o600), f.Sync(), f.Close()); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("docstore: write %s: %w", id, err)
	}
	if err := os.Rename(tmp, filepath.Join(s.dir, id)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("docstore: %w", err)
	}
	return s.Prune(time.Now())
}

// Get returns the original stored under the whole id.
func (s *Store) Get(id string) (string, error) {
	if !validID(id) {
		return "", fmt.Errorf("%w: %s", ErrUnknown, id)
	}
	path := filepath.Join(s.dir, id)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s", ErrUnknown, id)
	}
	if err != nil {
		return "", fmt.Errorf("docstore: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("docstore: %s is not a regular file (a symlink is refused)", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "", fmt.Errorf("docstore: %w", err)
	}
	defer f.Close()
	var b strings.Builder
	b.Grow(int(fi.Size()))
	buf := make([]byte, 64<<10)
	for {
		n, err := f.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			if errors.Is(err, io.EOF) {
				return b.String(), nil
			}
			return "", fmt.Errorf("docstore: read %s: %w", id, err)
		}
	}
}

// Resolve returns the one stored id that starts with prefix: an error
// naming prefix when none does, listing the candidates when several do.
func (s *Store) Resolve(prefix string) (string, error) {
	ids, err := s.ids()
	if err != nil {
		return "", err
	}
	var match []string
	for _, e := range ids {
		if strings.HasPrefix(e.id, prefix) && prefix != "" {
			match = append(match, e.id)
		}
	}
	switch len(match) {
	case 0:
		return "", fmt.Errorf("%w: %s", ErrUnknown, prefix)
	case 1:
		return match[0], nil
	}
	slices.Sort(match)
	return "", fmt.Errorf("%w: %s matches %s", ErrAmbiguous, prefix, strings.Join(match, ", "))
}

// UniquePrefix is the shortest prefix of id, at least min long, that no
// other stored id shares.
func (s *Store) UniquePrefix(id string, min int) string {
	ids, _ := s.ids()
	n := min
	for _, e := range ids {
		if e.id == id {
			continue
		}
		common := 0
		for common < len(id) && common < len(e.id) && id[common] == e.id[common] {
			common++
		}
		n = max(n, common+1)
	}
	return id[:clamp(n, len(id))]
}

func clamp(n, hi int) int { return max(0, min(n, hi)) }

type entry struct {
	id   string
	size int64
	mod  time.Time
}

// ids lists the stored originals; other names are not the store's.
func (s *Store) ids() ([]entry, error) {
	des, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("docstore: %w", err)
	}
	var out []entry
	for _, de := range des {
		if !validID(de.Name()) || !de.Type().IsRegular() {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, entry{de.Name(), fi.Size(), fi.ModTime()})
	}
	return out, nil
}

// Prune removes originals older than the max age, then the oldest until
// the rest fit in the max bytes.
func (s *Store) Prune(now time.Time) error {
	ids, err := s.ids()
	if err != nil {
		return err
	}
	slices.SortFunc(ids, func(a, b entry) int { return a.mod.Compare(b.mod) })
	var total int64
	for _, e := range ids {
		total += e.size
	}
	var errs []error
	for _, e := range ids {
		if now.Sub(e.mod) <= s.maxAge && total <= s.maxBytes {
			break
		}
		if err := os.Remove(filepath.Join(s.dir, e.id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		total -= e.size
	}
	return errors.Join(errs...)
}
