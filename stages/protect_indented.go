package stages

import (
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// ProtectIndented is Protect that also takes the fenced blocks Protect
// leaves alone, as Markdown renderers read them: a fence opened after
// white space (code in a list item) or closed by an indented line. The
// class is prose written by people and models (debate answers), where a
// fence is rarely at column 0; the pipeline's nodes keep Protect. Such a
// block never spans a region Protect took: its opener is then left as text.
// Linear in the text.
func ProtectIndented(text string) (string, *Stash) {
	out, st := Protect(text)
	if !strings.Contains(out, "```") && !strings.Contains(out, "~~~") {
		return out, st
	}
	escapedHere := false
	if !st.escaped && hasReserved(text) {
		// Protect found no region and gave the text back as it was.
		out, st.base = escapeReserved(out)
		st.escaped, escapedHere = true, true
	}
	lines := strings.Split(out, "\n")
	closers := indentedClosers(lines)
	kept := make([]string, 0, len(lines))
	added := 0
	for i := 0; i < len(lines); i++ {
		end := closers.blockEnd(lines, i)
		if end < 0 {
			kept = append(kept, lines[i])
			continue
		}
		kept = append(kept, placeholder(st.base+len(st.regions)))
		st.regions = append(st.regions, strings.Join(lines[i:end+1], "\n"))
		added++
		i = end
	}
	if added == 0 {
		if escapedHere {
			return text, &Stash{}
		}
		return out, st
	}
	return strings.Join(kept, "\n"), st
}

// indentedFence returns the run of ` or ~ (three or more) that opens line
// after any leading white space, or "".
func indentedFence(line string) string {
	return textkit.FenceMarker(strings.TrimLeft(line, " \t"))
}

// indentedFences indexes the closing lines of each fence character (with
// protect.go's max tree over run lengths) and the placeholder lines, so each
// opener finds its closer in logarithmic time.
type indentedFences struct {
	closers         [2]fenceClosers // at: line numbers
	nextPlaceholder []int           // first placeholder line at or after each line
}

func indentedClosers(lines []string) *indentedFences {
	r := &indentedFences{nextPlaceholder: make([]int, len(lines)+1)}
	r.nextPlaceholder[len(lines)] = len(lines)
	for i := len(lines) - 1; i >= 0; i-- {
		r.nextPlaceholder[i] = r.nextPlaceholder[i+1]
		if IsProtectedLine(lines[i]) {
			r.nextPlaceholder[i] = i
		}
	}
	for i, l := range lines {
		if ch, n := closingRun(l); n > 0 {
			f := &r.closers[fenceSlot(ch)]
			f.at, f.n = append(f.at, i), append(f.n, n)
		}
	}
	for i := range r.closers {
		r.closers[i].build()
	}
	return r
}

// closingRun reports a line of only ` or only ~ (three or more), white
// space around it allowed, and the run's length.
func closingRun(line string) (byte, int) {
	l := strings.TrimSpace(line)
	if len(l) < 3 || (l[0] != '`' && l[0] != '~') || strings.Trim(l, l[:1]) != "" {
		return 0, 0
	}
	return l[0], len(l)
}

// blockEnd returns the line that closes the fence line i opens, or -1:
// the first later line of at least as many of the same character, before
// any placeholder line.
func (r *indentedFences) blockEnd(lines []string, i int) int {
	fence := indentedFence(lines[i])
	if fence == "" {
		return -1
	}
	f := &r.closers[fenceSlot(fence[0])]
	k := f.first(indexOf(f.at, i+1), len(fence))
	if k < 0 || r.nextPlaceholder[i+1] < f.at[k] {
		return -1
	}
	return f.at[k]
}
