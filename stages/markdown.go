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
