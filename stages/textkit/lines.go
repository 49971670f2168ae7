package textkit

import "strings"

// LineIndex gives random access to the lines of a text for 4 bytes a line
// instead of the 16 of a []string: nodes that look around a line (context,
// events) use it, so a text of millions of short lines stays cheap.
type LineIndex struct {
	Text   string
	Starts []int32 // start of each line, then len(Text)+1
}

// NewLineIndex indexes the lines of text.
func NewLineIndex(text string) LineIndex {
	n := strings.Count(text, "\n") + 1
	starts := make([]int32, 0, n+1)
	starts = append(starts, 0)
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, int32(i))
	}
	starts = append(starts, int32(len(text)+1))
	return LineIndex{Text: text, Starts: starts}
}

// Len is the number of lines, as len(strings.Split(text, "\n")).
func (x LineIndex) Len() int { return len(x.Starts) - 1 }

// Line returns line i without its line break.
func (x LineIndex) Line(i int) string {
	b := x.Starts[i : i+2] // one bounds check for both ends
	return x.Text[b[0] : b[1]-1]
}

// Span returns lines [i, j) joined by their line breaks.
func (x LineIndex) Span(i, j int) string {
	if i >= j {
		return ""
	}
	return x.Text[x.Starts[i] : x.Starts[j]-1]
}

// Lines returns lines [i, j) as a slice (for small spans only).
func (x LineIndex) Lines(i, j int) []string {
	out := make([]string, 0, max(j-i, 0))
	for k := i; k < j; k++ {
		out = append(out, x.Line(k))
	}
	return out
}

// LineWriter joins lines with "\n" into a builder; the zero value is empty.
type LineWriter struct {
	b       strings.Builder
	started bool
}

// Grow makes room for n more bytes.
func (w *LineWriter) Grow(n int) { w.b.Grow(n) }

// Add appends line, after a line break unless it is the first.
func (w *LineWriter) Add(line string) {
	if w.started {
		w.b.WriteByte('\n')
	}
	w.b.WriteString(line)
	w.started = true
}

// String returns the lines joined so far.
func (w *LineWriter) String() string { return w.b.String() }

// ProtectOpen opens the placeholder of a protected region (see
// stages.Protect); a protected line starts with it.
const ProtectOpen = '\uE000'

// IsProtectedLine reports whether line is a placeholder for a protected region.
func IsProtectedLine(line string) bool {
	return strings.HasPrefix(line, string(ProtectOpen))
}
