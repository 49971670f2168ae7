package stages

import (
	"context"
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// lineHead returns line without its leading blanks and ANSI sequences.
func lineHead(line string) string {
	i := 0
	for i < len(line) {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == 0x1b:
			i = textkit.SkipANSI(line, i)
		default:
			return line[i:]
		}
	}
	return ""
}

// stripANSI returns s without its ANSI escape sequences.
func stripANSI(s string) string {
	i := strings.IndexByte(s, 0x1b)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[textkit.SkipANSI(s, i):]
		i = strings.IndexByte(s, 0x1b)
	}
	b.WriteString(s)
	return b.String()
}

// lineBreak is strings.IndexAny(s, "\r\n") with vectorised scans, over
// windows so that a text without one kind of break stays linear.
func lineBreak(s string) int {
	const window = 512
	for off := 0; off < len(s); off += window {
		w := s[off:min(off+window, len(s))]
		i := strings.IndexByte(w, '\n')
		if i < 0 {
			i = len(w)
		}
		if j := strings.IndexByte(w[:i], '\r'); j >= 0 {
			return off + j
		}
		if i < len(w) {
			return off + i
		}
	}
	return -1
}

// fixpoint applies f until its output stops changing, at most max times.
// Nodes whose decisions depend on text-wide statistics use it so that
// node(node(x)) == node(x). f also reports whether its output is settled:
// true when it knows a further pass would change nothing, which saves that
// pass on large inputs.
func fixpoint(ctx context.Context, text string, max int, f func(context.Context, string) (string, bool, error)) (string, error) {
	for i := 0; i < max; i++ {
		out, settled, err := f(ctx, text)
		if err != nil {
			return "", err
		}
		if out == text || settled {
			return out, nil
		}
		text = out
	}
	return text, nil
}

// newLineWriter returns a textkit.LineWriter with room for size bytes.
func newLineWriter(size int) *textkit.LineWriter {
	w := &textkit.LineWriter{}
	w.Grow(size)
	return w
}

// splitLines splits text on "\n"; joinLines reverses it exactly.
func splitLines(text string) []string { return strings.Split(text, "\n") }

func joinLines(lines []string) string { return strings.Join(lines, "\n") }

// canceled reports ctx's error every 4096 calls, to keep hot loops cheap.
type canceled struct {
	ctx context.Context
	n   int
}

func (c *canceled) check() error {
	c.n++
	if c.n&4095 != 0 {
		return nil
	}
	return c.ctx.Err()
}

// foldMarker is the line that replaces n folded lines.
func foldMarker(n int, what string) string {
	if n == 1 {
		return "[... 1 line " + what + " ...]"
	}
	return "[... " + strconv.Itoa(n) + " lines " + what + " ...]"
}
