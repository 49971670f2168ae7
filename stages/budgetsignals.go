package stages

import "strings"

// LineSignal scores one line as the keywords node does: 3 for a failure, 2
// for a warning or summary, 1 for a weaker fact, 0 for nothing.
func LineSignal(line string) int { return lineSignal(line) }

// ProtectedLines marks the lines of text (split on "\n") that lie in a
// protected region (see Protect). All false when the mapping is unclear.
func ProtectedLines(text string) []bool {
	lines := strings.Split(text, "\n")
	marks := make([]bool, len(lines))
	prot, st := Protect(text)
	if st.Len() == 0 || st.escaped {
		return marks
	}
	i := 0
	for _, pl := range strings.Split(prot, "\n") {
		n := 1
		if IsProtectedLine(pl) && strings.HasSuffix(pl, string(protectClose)) {
			idx, ok := decodePlaceholder(pl[len(string(protectOpen)) : len(pl)-len(string(protectClose))])
			if !ok || idx-st.base < 0 || idx-st.base >= len(st.regions) {
				return make([]bool, len(lines))
			}
			n = strings.Count(st.regions[idx-st.base], "\n") + 1
			for j := i; j < i+n && j < len(marks); j++ {
				marks[j] = true
			}
		}
		i += n
	}
	if i != len(lines) {
		return make([]bool, len(lines))
	}
	return marks
}
