package stages

import (
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// delimitedDocument reports a sample that is one CSV or TSV table of
// data: a header of three names or more (no field a number), nine
// sampled lines in ten with as many fields, and fewer than one row in
// four with words in it. Read as prose, structured folds it as
// a table, keeping its outlier rows; read as a log, rows of one shape
// merged and a spike in a column went with them.
func delimitedDocument(sample []string) bool {
	if len(sample) < 10 {
		return false
	}
	sep, fields := delimiterOf(sample[0])
	if fields < 3 || !headerNames(sample[0], sep) {
		return false
	}
	same, texts := 0, 0
	for _, line := range sample[1:] {
		if s, f := delimiterOf(line); s == sep && f == fields {
			same++
		}
		if strings.Count(line, " ") >= 2 {
			texts++
		}
	}
	// Rows with sentences in them (a log exported as CSV: its message
	// column) are events, which log_dedup groups by what they say.
	return same*10 >= (len(sample)-1)*9 && texts*4 < len(sample)-1
}

// headerNames reports a header row whose every field has a letter (or a
// character past ASCII).
func headerNames(line string, sep byte) bool {
	for f := range strings.SplitSeq(strings.TrimSuffix(line, "\r"), string(sep)) {
		if !strings.ContainsFunc(f, isNameRune) {
			return false
		}
	}
	return true
}

func isNameRune(r rune) bool { return r >= 128 || textkit.IsLetter(byte(r)) }
