package stages

import (
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Markdown documents: a README, a wiki page, a report. Their headings open
// with '#' as a console line does, and a long table or a list of links
// opens every line alike as machine output does, but they are written to
// be read: prose, whose numbers and repeated lines are content.

// markdownDocument reports a sample of lines (no records among them)
// that is mostly Markdown: two headings or more, a sentence, and
// headings, table rows, list items, HTML block lines and sentences make
// up three lines in four.
func markdownDocument(sample []string) bool {
	headings, sentences, markup := 0, 0, 0
	for _, line := range sample {
		switch {
		case atxHeading(line):
			headings++
			markup++
		case isProseLine(line):
			sentences++
			markup++
		case markdownTableLine(line), markdownListItem(line), htmlBlockLine(line):
			markup++
		}
	}
	return headings >= 2 && sentences >= 1 && markup*4 >= len(sample)*3
}

// atxHeading reports "# Title" to "###### Title" at the start of a line.
func atxHeading(line string) bool {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && n+1 < len(line) && line[n] == ' ' && line[n+1] != ' '
}

// markdownTableLine reports a row of a pipe table: '|' first and again later.
func markdownTableLine(line string) bool {
	t := strings.TrimSpace(line)
	return len(t) >= 3 && t[0] == '|' && strings.IndexByte(t[1:], '|') >= 0
}

// markdownListItem reports "- item", "* item", "1. item" or "1) item",
// indented or not. "+ item" is left out: a shell's trace writes it.
func markdownListItem(line string) bool {
	t := strings.TrimLeft(line, " ")
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*') && t[1] == ' ' {
		return true
	}
	d := textkit.DigitRun(t, 0)
	return d > 0 && d <= 3 && d+1 < len(t) && (t[d] == '.' || t[d] == ')') && t[d+1] == ' '
}

// htmlBlockLine reports a line that is an HTML tag or opens with one, as
// Markdown embeds them: "<div>", "<p align=\"center\"> <a href=...>".
func htmlBlockLine(line string) bool {
	t := strings.TrimSpace(line)
	return len(t) >= 3 && t[0] == '<' && (textkit.IsLetter(t[1]) || t[1] == '/') && strings.IndexByte(t, '>') > 0
}

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

// headerNames reports a header row whose every field has a letter.
func headerNames(line string, sep byte) bool {
	for f := range strings.SplitSeq(strings.TrimSuffix(line, "\r"), string(sep)) {
		if !strings.ContainsFunc(f, func(r rune) bool { return r < 128 && textkit.IsLetter(byte(r)) || r >= 128 }) {
			return false
		}
	}
	return true
}
