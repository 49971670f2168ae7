package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/internal/poll"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestProgressOnATerminal(t *testing.T) {
	var buf lockedBuffer
	p := &Progress{w: &buf, tty: true, total: 2}
	p.Start("small.log", 10) // below the size that shows progress
	p.Done()
	p.Start("big.log", 3<<20)
	// The line is redrawn every 200 ms: wait for a redraw.
	poll.Until(5*time.Second, func() bool { return strings.Count(buf.String(), "compacting big.log") >= 2 })
	p.Done()
	out := buf.String()
	if strings.Contains(out, "small.log") {
		t.Errorf("a small input showed progress: %q", out)
	}
	if !strings.Contains(out, "[##########          ] 1/2 done, compacting big.log (3.1 MB)") {
		t.Errorf("no bar for the large input: %q", out)
	}
	if strings.Count(out, "compacting big.log") < 2 || !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("the line is not redrawn while it runs, or not cleared after: %q", out)
	}
}
