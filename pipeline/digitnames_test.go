package pipeline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDigitNamesAreCounted: records that differ only in a name with
// digits (host2, worker-7, node04.example.org), which the template masks,
// merge into one line that says how many names it stands for, in every
// record format; one name alone is no variation.
func TestDigitNamesAreCounted(t *testing.T) {
	shapes := []string{"host%d", "worker-%d", "node%02d.example.org", "Dev%d", "db%d-replica"}
	formats := []func(i int, name string) string{
		func(i int, name string) string {
			return fmt.Sprintf("2024-03-01 10:%02d:%02d INFO session opened for %s", i/60%60, i%60, name)
		},
		func(i int, name string) string {
			return fmt.Sprintf("Mar  1 10:%02d:%02d gw01 sshd[%d]: Accepted key for deploy on %s", i/60%60, i%60, 1000+i, name)
		},
		func(i int, name string) string {
			return fmt.Sprintf("[2024-03-01T10:%02d:%02dZ] WARN heartbeat missed by %s, rescheduling", i/60%60, i%60, name)
		},
	}
	r := rand.New(rand.NewPCG(81, 82))
	for doc := range 30 {
		shape, format := shapes[doc%len(shapes)], formats[doc%len(formats)]
		k := 1 + r.IntN(9)
		var b strings.Builder
		for i := range 120 {
			b.WriteString(format(i, fmt.Sprintf(shape, 1+(i%k)*3)) + "\n")
		}
		out, _ := compactLog(t, b.String())
		if lines := strings.Count(strings.TrimSpace(out), "\n") + 1; lines != 1 {
			t.Errorf("doc %d: %d lines, want one:\n%s", doc, lines, out)
			continue
		}
		want := fmt.Sprintf(" %d distinct]", k)
		if k == 1 && strings.Contains(out, "distinct") || k > 1 && !strings.Contains(out, want) {
			t.Errorf("doc %d: %d names, want %q:\n%s", doc, k, want, out)
		}
	}
}
