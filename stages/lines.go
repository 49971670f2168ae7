package stages

import (
	"context"
	"strconv"
	"strings"
)

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
