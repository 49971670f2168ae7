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
	i := strings.LastIndex(line, CountOpen)
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

// WithCount appends the count suffix when n > 1.
func WithCount(line string, n int) string {
	if n < 2 {
		return line
	}
	return line + CountOpen + strconv.Itoa(n) + countClose
}
