package stages

import (
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Box tables: the result tables of database shells. psql writes a header
// of names between '|', a rule of '-' and '+' under it and one row a line;
// MySQL, SQLite's box mode and most ASCII-art printers draw borders of
// '+' and '-' above the header, under it and under the last row.

// boxRule reports a border or rule row: '-' (or '=') and '+' alone, both
// present, blanks around ("+-----+------+", "-----+------").
func boxRule(line string) bool {
	if line != "" && !mayOpenRule(line[0]) {
		return false // most lines: no trimming, no search for '+'
	}
	t := strings.TrimSpace(line)
	if len(t) < 3 || strings.IndexByte(t, '+') < 0 {
		return false
	}
	dash := false
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '-', '=':
			dash = true
		case '+':
		default:
			return false
		}
	}
	return dash
}

// mayOpenRule reports a first byte a rule may have before it is trimmed:
// a blank, a byte of a longer character (Unicode spaces trim too) or a
// rule's own.
func mayOpenRule(c byte) bool {
	switch c {
	case '-', '=', '+', ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return c >= 0x80
}

// boxTable returns the lines of the box table that starts on line i: its
// head (header and the rules around it) ends at body and its rows at end.
// end == i means none starts there.
func boxTable(x textkit.LineIndex, i int) (end, body int) {
	switch {
	case i+2 < x.Len() && boxRule(x.Line(i)) && strings.Contains(x.Line(i+1), "|") && boxRule(x.Line(i+2)):
		body = i + 3 // MySQL: a border, the header, a border
	case i+1 < x.Len() && strings.Count(x.Line(i), "|") >= 1 && boxRule(x.Line(i+1)) && !boxRule(x.Line(i)):
		body = i + 2 // psql: the header, a rule
	default:
		return i, i
	}
	end = body
	for end < x.Len() && isTableRow(x.Line(end)) && !boxRule(x.Line(end)) {
		end++
	}
	return end, body
}

// boxDocument reports a sample that is mostly a box table: its rules,
// and rows with as many '|' as a rule has '+' (psql's "1 | alice" under
// "---+------"; MySQL's "| 1 | alice |" under "+---+-------+"), three
// lines in four.
func boxDocument(sample []string) bool {
	plus := -1
	for _, line := range sample {
		if boxRule(line) {
			plus = strings.Count(line, "+")
			break
		}
	}
	if plus < 1 {
		return false
	}
	rules, rows := 0, 0
	for _, line := range sample {
		switch {
		case boxRule(line):
			rules++
		case strings.Count(line, "|") == plus:
			rows++
		}
	}
	return rows >= 8 && (rules+rows)*4 >= len(sample)*3
}
