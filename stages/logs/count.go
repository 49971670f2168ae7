package logs

import (
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// CountOpen and countClose are what log_dedup appends to a kept line that
// stands for several: " [×57]".
const (
	CountOpen  = " [×"
	countClose = "]"
)

// SplitCount splits a trailing count suffix off line, with the summary
// that may follow the count (" [×57; …]"). It returns the line without it
// and the count (1 when there is none).
func SplitCount(line string) (string, int) {
	if !strings.HasSuffix(line, countClose) {
		return line, 1
	}
	i := lastCountOpen(line)
	if i < 0 {
		return line, 1
	}
	digits := line[i+len(CountOpen) : len(line)-len(countClose)]
	if j := strings.IndexByte(digits, ';'); j >= 0 {
		if strings.IndexByte(digits[j:], ']') >= 0 {
			return line, 1 // a bracket inside: not a summary of ours
		}
		digits = digits[:j]
	}
	if digits == "" || len(digits) > 12 || textkit.DigitRun(digits, 0) != len(digits) {
		return line, 1
	}
	n := 0
	for j := 0; j < len(digits); j++ {
		n = n*10 + int(digits[j]-'0')
	}
	if n < 2 {
		return line, 1
	}
	return line[:i], n
}

// lastCountOpen is strings.LastIndex(line, CountOpen), found from the
// last '[' first: on a count line it is the count's, a few bytes from the
// end, and a line without a '×' needs no backward search at all.
func lastCountOpen(line string) int {
	if i := strings.LastIndexByte(line, '['); i > 0 && strings.HasPrefix(line[i-1:], CountOpen) {
		return i - 1
	}
	if strings.IndexByte(line, CountOpen[2]) < 0 {
		return -1
	}
	return strings.LastIndex(line, CountOpen)
}

// WithCount appends the count suffix when n > 1.
func WithCount(line string, n int) string {
	if n < 2 {
		return line
	}
	return line + CountOpen + strconv.Itoa(n) + countClose
}
