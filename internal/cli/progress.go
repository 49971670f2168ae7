package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Progress shows a one-line status on a terminal for large inputs: the
// files done so far as a bar, and the time the current one has taken.
type Progress struct {
	w             io.Writer
	tty           bool
	total, idx    int
	stop, stopped chan struct{}
}

// NewProgress shows progress on w when w is a terminal.
func NewProgress(w io.Writer, total int) *Progress {
	f, ok := w.(*os.File)
	tty := false
	if ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &Progress{w: w, tty: tty, total: total}
}

const progressMinBytes = 1 << 20

// Start shows that the input name of size bytes is being compacted, when
// it is large enough to take a while.
func (p *Progress) Start(name string, size int) {
	p.idx++
	if !p.tty || size < progressMinBytes {
		return
	}
	begin, doneBefore := time.Now(), p.idx-1
	draw := func() {
		bar := strings.Repeat("#", doneBefore*20/max(p.total, 1))
		fmt.Fprintf(p.w, "\r[%-20s] %d/%d done, compacting %s (%.1f MB) %s ", bar, doneBefore, p.total, name, float64(size)/1e6,
			time.Since(begin).Round(100*time.Millisecond))
	}
	draw()
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.stopped)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
				draw()
			}
		}
	}()
}

// Done clears the line Start drew.
func (p *Progress) Done() {
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
		p.stop = nil
	}
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
