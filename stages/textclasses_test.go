package stages

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Text classes for the equivalence tests of fast paths: each fast path is
// compared with the straightforward computation on generated texts of
// every class, in every line ending.
var textClasses = []string{"log", "markdown", "code", "transcript", "prose", "patch", "progress"}

// genClassText returns a text of the class, of about lines lines, its
// line breaks written as ending says: "lf", "crlf", "mixed" (lone CRs and
// CRLFs among LFs) or "cr" (lone CRs only).
func genClassText(r *rand.Rand, class, ending string, lines int) string {
	var ls []string
	words := []string{"the", "request", "failed", "after", "retry", "cache", "user", "dead", "beef", "code", "block", "diff", "Begin", "source", "#", "*", "`", "~", "<", "d"}
	word := func() string { return words[r.IntN(len(words))] }
	sentence := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = word()
		}
		return strings.Join(ws, pickOf(r, " ", " ", "  ", "\t", " \t "))
	}
	for len(ls) < lines {
		switch class {
		case "log":
			ls = append(ls, fmt.Sprintf("2024-03-%02d %02d:%02d:%02d %s [%s] %s id=%x",
				1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), pickOf(r, "INFO", "WARN", "ERROR"), pickOf(r, "main", "db", "http-1"), sentence(1+r.IntN(8)), r.Uint32()))
			if r.IntN(9) == 0 {
				ls = append(ls, "\tat com.example.Foo.bar(Foo.java:"+fmt.Sprint(r.IntN(900))+")")
			}
		case "markdown":
			switch r.IntN(6) {
			case 0:
				fence := pickOf(r, "```", "~~~", "````")
				ls = append(ls, fence+pickOf(r, "go", "", "python"), "x := "+sentence(3), "  "+sentence(2), fence)
			case 1:
				ls = append(ls, pickOf(r, "# ", "## User", "#### ", "### ")+sentence(3))
			case 2:
				ls = append(ls, "", "> "+sentence(5))
			default:
				ls = append(ls, sentence(4+r.IntN(10)))
			}
		case "code":
			ls = append(ls, strings.Repeat("    ", r.IntN(3))+pickOf(r, "func ", "if ", "return ", "x := ", "// ", "}")+sentence(r.IntN(5)))
		case "transcript":
			ls = append(ls, pickOf(r, "User: ", "Assistant: ", "**User:** ", "## Assistant", "[tool] ")+sentence(3+r.IntN(8)), "")
		case "prose":
			ls = append(ls, sentence(6+r.IntN(20)))
			if r.IntN(4) == 0 {
				ls = append(ls, "", "")
			}
		case "patch":
			switch r.IntN(5) {
			case 0:
				ls = append(ls, "diff --git a/x.go b/x.go", "--- a/x.go", "+++ b/x.go", "@@ -1,2 +1,2 @@", "-"+sentence(3), "+"+sentence(3))
			case 1:
				ls = append(ls, "*** Begin Patch", "*** Update File: a.py", "+"+sentence(2), "*** End Patch")
			case 2:
				ls = append(ls, "<<<<<<< SEARCH", sentence(3), "=======", sentence(3), ">>>>>>> REPLACE")
			case 3:
				ls = append(ls, "<source>", sentence(4), "</source>")
			default:
				ls = append(ls, sentence(5))
			}
		case "progress":
			ls = append(ls, fmt.Sprintf("Downloading %d%%", r.IntN(101)), sentence(3))
		}
	}
	var b strings.Builder
	for i, l := range ls {
		if r.IntN(12) == 0 {
			l += pickOf(r, " ", "\t", "  ")
		}
		b.WriteString(l)
		if i == len(ls)-1 && r.IntN(3) == 0 {
			break // no break after the last line
		}
		switch ending {
		case "lf":
			b.WriteByte('\n')
		case "crlf":
			b.WriteString("\r\n")
		case "cr":
			b.WriteByte('\r')
		default:
			b.WriteString(pickOf(r, "\n", "\n", "\r\n", "\r\n", "\r\n", "\r", "\r\r\n", "\n\r"))
		}
	}
	return b.String()
}

var lineEndings = []string{"lf", "crlf", "mixed", "cr"}

func pickOf(r *rand.Rand, s ...string) string { return s[r.IntN(len(s))] }

// classTexts returns generated texts of every class and line ending, some
// longer than a lineCutter block.
func classTexts(seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 19))
	var out []string
	for _, class := range textClasses {
		for _, ending := range lineEndings {
			for _, n := range []int{0, 1, 3, 63, 64, 65, 200, 700} {
				out = append(out, genClassText(r, class, ending, n))
			}
		}
	}
	// A CRLF text with one lone CR or LF somewhere: the block that holds
	// it is cut the slow way, the others the fast way.
	for range 40 {
		s := genClassText(r, "log", "crlf", 300)
		i := r.IntN(len(s))
		out = append(out, s[:i]+pickOf(r, "\r", "\n", "\r\r", "\n\n")+s[i:])
	}
	return out
}
