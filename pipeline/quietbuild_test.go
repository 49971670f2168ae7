package pipeline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// TestQuietBuildIsLog: a build that prints each step as a tool and its
// target ("  CC      kernel/fork.o", Kbuild's quiet output) is build
// output: it folds, and the compiler error that stopped it stays.
func TestQuietBuildIsLog(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	tools := []string{"CC", "CC", "CC", "LD", "AR", "GEN", "AS", "HOSTCC", "CC [M]", "LD [M]"}
	dirs := []string{"kernel", "drivers/net", "fs/ext4", "mm", "net/ipv4", "lib", "sound/core"}
	for doc := range 20 {
		var b strings.Builder
		fmt.Fprintf(&b, "make -C /src/tree O=/build -j%d\n", 2+r.IntN(30))
		steps, fail := 200+r.IntN(600), r.IntN(2) == 0
		stop := r.IntN(steps)
		var reason string
		for i := range steps {
			tool, dir := tools[r.IntN(len(tools))], dirs[r.IntN(len(dirs))]
			ext := ".o"
			if strings.HasSuffix(tool, "[M]") {
				ext = ".ko"
			}
			fmt.Fprintf(&b, "  %-8s%s/unit%d%s\n", tool, dir, i, ext)
			if fail && i == stop {
				reason = fmt.Sprintf("%s/unit%d.c:%d:9: error: implicit declaration of function 'probe_%d'", dir, i, 10+r.IntN(900), r.IntN(99))
				fmt.Fprintf(&b, "%s\nmake[3]: *** [scripts/Makefile.build:243: %s/unit%d.o] Error 1\n", reason, dir, i)
				break
			}
		}
		b.WriteString("make[1]: Leaving directory '/build'\n")
		text := b.String()
		if k := stages.Detect(text); k != stages.KindLog {
			t.Errorf("doc %d: read as %s", doc, k)
		}
		out, ratio := compactLog(t, text)
		if reason != "" && !strings.Contains(out, reason+"\n") {
			t.Errorf("doc %d: the error is lost:\n%s", doc, out)
		}
		if lines := strings.Count(text, "\n"); lines > 150 && ratio > 0.25 {
			t.Errorf("doc %d: %d lines, ratio %.2f", doc, lines, ratio)
		}
	}
}
