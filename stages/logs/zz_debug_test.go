package logs

import (
	"strings"
	"testing"
)

func TestDebugMRU(t *testing.T) {
	docs := logDocs64KiB(256)
	var lines, prev1, prev2, any int
	for _, d := range docs {
		var seen []string
		var last []string
		for _, l := range strings.Split(d, "\n") {
			if l == "" {
				continue
			}
			lines++
			hit := false
			for k := len(last) - 1; k >= 0 && k >= len(last)-1; k-- {
				if sameDigitShape(last[k], l) {
					prev1++
					hit = true
				}
			}
			for k := len(last) - 1; k >= 0 && k >= len(last)-4; k-- {
				if sameDigitShape(last[k], l) {
					prev2++
					break
				}
			}
			_ = hit
			for _, s := range seen {
				if sameDigitShape(s, l) {
					any++
					break
				}
			}
			seen = append(seen, l)
			last = append(last, l)
		}
	}
	t.Logf("lines %d prev1 %d within4 %d any %d", lines, prev1, prev2, any)
}
