package pipeline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// captionFile writes n cues of utterances as SRT, WebVTT with voice tags,
// or a rolling auto-caption WebVTT (each cue repeats the line before
// it, after a flash of that line alone). It returns the file and the
// utterances in the order said.
func captionFile(r *rand.Rand, format, n int) (string, []string) {
	common := []string{"Yes.", "No.", "What?", "I don't know.", "Thank you.", "Okay.", "Where is the key?"}
	var said []string
	for i := range n {
		if r.IntN(2) == 0 {
			said = append(said, common[r.IntN(len(common))])
		} else {
			said = append(said, fmt.Sprintf("Cue %d tells of the %s near gate %d.", i, []string{"storm", "train", "harbour", "market"}[r.IntN(4)], r.IntN(90)))
		}
	}
	clock := func(ms int, sep string) string {
		return fmt.Sprintf("%02d:%02d:%02d%s%03d", ms/3600000, ms/60000%60, ms/1000%60, sep, ms%1000)
	}
	var b strings.Builder
	if format > 0 {
		b.WriteString("WEBVTT\nKind: captions\nLanguage: en\n\n")
	}
	t := r.IntN(5000)
	for i, s := range said {
		start, end := t, t+800+r.IntN(2500)
		t = end + r.IntN(6000)
		switch format {
		case 0:
			fmt.Fprintf(&b, "%d\n%s --> %s\n%s\n\n", i+1, clock(start, ","), clock(end, ","), s)
		case 1:
			fmt.Fprintf(&b, "%s --> %s align:start position:0%%\n<v Speaker %d>%s</v>\n\n", clock(start, "."), clock(end, "."), 1+i%2, s)
		default:
			prev := ""
			if i > 0 {
				prev = said[i-1] + "\n"
				// The step's flash: the line before alone, for 10 ms.
				fmt.Fprintf(&b, "%s --> %s\n%s\n", clock(start-10, "."), clock(start, "."), prev)
			}
			fmt.Fprintf(&b, "%s --> %s\n%s<c>%s</c>\n\n", clock(start, "."), clock(end, "."), prev, s)
		}
	}
	return b.String(), said
}

// TestCaptionsKeepEveryUtterance: a caption file keeps what was said, in
// order, a line said twice twice (it was read as a log, and its lines
// merged into templates), and sheds its cue numbers and timings: SRT,
// WebVTT with voice tags, and rolling auto-captions.
func TestCaptionsKeepEveryUtterance(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for doc := range 24 {
		format := doc % 3
		text, said := captionFile(r, format, 40+r.IntN(300))
		out, ratio := compactLog(t, text)
		at := 0
		for i, s := range said {
			if i > 0 && s == said[i-1] && format == 2 {
				continue // a rolling caption cannot tell a line said again from its repeat
			}
			k := strings.Index(out[at:], s)
			if k < 0 {
				t.Fatalf("doc %d (format %d): utterance %d %q missing or out of order:\n%.2000s", doc, format, i, s, out)
			}
			at += k + len(s)
			if strings.HasPrefix(s, "Cue ") && strings.Count(out, s) != 1 {
				t.Errorf("doc %d (format %d): %q written %d times", doc, format, s, strings.Count(out, s))
			}
		}
		if strings.Contains(out, "-->") {
			t.Errorf("doc %d (format %d): timings left:\n%.1000s", doc, format, out)
		}
		if ratio > 0.7 {
			t.Errorf("doc %d (format %d): ratio %.3f", doc, format, ratio)
		}
	}
}
