package stages

import (
	"slices"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Aligned tables: command output that lines its columns up with blanks
// under a header of column names (df, ps, top, kubectl get, docker ps,
// netstat). A column is the span of its header word; a value sits under
// it left-aligned (names) or right-aligned (numbers).

// alignedColumn is a header word's bytes.
type alignedColumn struct{ start, end int }

const (
	minAlignedColumns = 3
	maxAlignedHeader  = 400 // bytes
)

// alignedHeader returns the columns of a line of column names: three or
// more words of letters (and % _ - / + # .), none opening with a digit,
// two in three opening with a capital, and a run of two blanks or a
// word wholly in capitals among them (a sentence is neither). A line
// with a byte outside ASCII is none: such a byte is no name's.
func alignedHeader(line string) ([]alignedColumn, bool) {
	n, ok := headerWords(line, nil)
	if !ok {
		return nil, false
	}
	cols := make([]alignedColumn, 0, n)
	headerWords(line, &cols)
	return cols, true
}

// isAlignedHeader is alignedHeader's verdict alone, without allocating.
// Its first test, small enough to inline, turns away most lines of a log
// (see mayOpenAligned).
func isAlignedHeader(line string) bool {
	if line != "" && headerOpener[line[0]] {
		_, ok := headerWords(line, nil)
		return ok
	}
	return false
}

// mayOpenAligned is the cheap first test of alignedHeader: a line that
// opens with a letter or '%', past blanks, and whose first word has no
// digit.
func mayOpenAligned(line string) bool {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i == len(line) || !textkit.IsLetter(line[i]) && line[i] != '%' {
		return false
	}
	for ; i < len(line) && line[i] != ' '; i++ {
		if textkit.IsDigit(line[i]) {
			return false
		}
	}
	return true
}

// headerWords checks line as alignedHeader does and counts its columns,
// appending them to cols when cols is not nil.
func headerWords(line string, cols *[]alignedColumn) (int, bool) {
	if len(line) > maxAlignedHeader || !mayOpenAligned(line) {
		return 0, false
	}
	n, capitals, shouted, wide := 0, 0, false, false
	for i := 0; i < len(line); {
		if line[i] == ' ' {
			wide = wide || n > 0 && i+1 < len(line) && line[i+1] == ' '
			i++
			continue
		}
		s := i
		upper, letters := true, 0
		for ; i < len(line) && line[i] != ' '; i++ {
			switch headerByte[line[i]] {
			case headerUpper:
				if letters == 0 {
					capitals++ // the word's first letter is a capital
				}
				letters++
			case headerLower:
				letters++
				upper = false
			case headerDigit:
				if i == s {
					return 0, false
				}
			case headerPunct:
			default:
				return 0, false
			}
		}
		if letters == 0 {
			return 0, false
		}
		shouted = shouted || upper && letters >= 2
		if cols != nil {
			*cols = append(*cols, alignedColumn{s, i})
		}
		n++
	}
	if n < minAlignedColumns || capitals*3 < n*2 || !wide && !shouted {
		return 0, false
	}
	return n, true
}

// Classes of the bytes of a header word (see headerWords).
const (
	headerOther = iota
	headerUpper
	headerLower
	headerDigit
	headerPunct // one of %_-/+#.()
)

var headerByte = func() (t [256]uint8) {
	for c := range 256 {
		switch b := byte(c); {
		case b >= 'A' && b <= 'Z':
			t[c] = headerUpper
		case b >= 'a' && b <= 'z':
			t[c] = headerLower
		case textkit.IsDigit(b):
			t[c] = headerDigit
		case strings.IndexByte("%_-/+#.()", b) >= 0:
			t[c] = headerPunct
		}
	}
	return t
}()

// headerOpener holds the first bytes mayOpenAligned lets by: a blank, a
// letter, '%'.
var headerOpener = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == ' ' || c == '%' || textkit.IsLetter(byte(c))
	}
	return t
}()

// alignedRows returns how many lines from the start of lines line up
// under the header's columns, and the columns: header words that rows do
// not keep apart (df's "Mounted on") are one column.
func alignedRows(header []alignedColumn, lines func(int) string, n int) (int, []alignedColumn) {
	// Candidates: the run of lines that might be rows.
	c := 0
	for c < n && mayBeRow(columnView(lines(c)), header) {
		c++
	}
	if c <= minAlignedRows {
		return 0, nil
	}
	// A column edge holds when nine rows in ten have a blank there.
	cols := []alignedColumn{header[0]}
	for k := 1; k < len(header); k++ {
		apart := 0
		for r := range c {
			row := columnView(lines(r))
			if apartAt(row, header[k-1], header[k]) {
				apart++
			}
		}
		if apart*10 >= c*9 {
			cols = append(cols, header[k])
		} else {
			cols[len(cols)-1].end = header[k].end
		}
	}
	if len(cols) < minAlignedColumns {
		return 0, nil
	}
	rows := 0
	for rows < c && alignedRow(columnView(lines(rows)), cols) {
		rows++
	}
	return rows, cols
}

// mayBeRow reports a line that may be a row of a table under header: not
// blank, protected, tabbed or a log record, with a value under the first
// column.
func mayBeRow(row string, header []alignedColumn) bool {
	row = strings.TrimSuffix(row, "\r")
	if strings.TrimSpace(row) == "" || IsProtectedLine(row) || strings.IndexByte(row, '\t') >= 0 {
		return false
	}
	if stamped, _ := textkit.RecordStart(row); stamped {
		return false
	}
	return valueIn(row, header[0].start, header[0].end) >= 0
}

// alignedRow reports whether row lines up under cols: a value under four
// columns in five, and apart from its neighbour under four column
// edges in five.
func alignedRow(row string, cols []alignedColumn) bool {
	row = strings.TrimSuffix(row, "\r")
	filled, edges := 0, 0
	for k, c := range cols {
		if valueIn(row, c.start, c.end) >= 0 {
			filled++
		}
		if k > 0 && apartAt(row, cols[k-1], c) {
			edges++
		}
	}
	return filled*5 >= len(cols)*4 && edges*5 >= (len(cols)-1)*4
}

// valueIn returns the first non-blank byte of row in [start, end), or -1.
func valueIn(row string, start, end int) int {
	for i := start; i < end && i < len(row); i++ {
		if row[i] != ' ' {
			return i
		}
	}
	return -1
}

// apartAt reports whether row has a blank between columns a and b, or
// ends before b: what it holds under a and under b are apart.
func apartAt(row string, a, b alignedColumn) bool {
	for i := a.end; i < b.start; i++ {
		if i >= len(row) || row[i] == ' ' {
			return true
		}
	}
	return false
}

// alignedCells splits rows into the values under cols. A value that
// starts where its column does (a name, left-aligned) runs to the next
// column, words and all ("Up 5 minutes"), short of a value of the next
// column that spills left of it; another (a number, right-aligned) is
// the blank-free run that meets its column's span. The last column holds
// the rest of the row. A column with nothing under it has "".
func alignedCells(cols []alignedColumn) func(string) []string {
	return func(text string) []string {
		text = strings.TrimSuffix(text, "\r")
		row, offsets := columnView(text), []int(nil)
		if len(row) != len(text) {
			offsets = runeOffsets(text)
		}
		cut := func(s, e int) string { // row[s:e] as text's bytes
			if offsets != nil {
				return strings.TrimSpace(text[offsets[s]:offsets[e]])
			}
			return strings.TrimSpace(text[s:e])
		}
		cells := make([]string, len(cols))
		for k, c := range cols {
			i := valueIn(row, c.start, c.end)
			if i < 0 {
				continue
			}
			next := len(row)
			if k+1 < len(cols) {
				next = min(next, cols[k+1].start)
			}
			if i == c.start && (i == 0 || row[i-1] == ' ') && k+1 < len(cols) {
				e := next
				if next < len(row) && row[next] != ' ' && row[next-1] != ' ' {
					e = i + max(strings.LastIndexByte(row[i:next], ' '), 0) // the next value starts earlier
				}
				cells[k] = cut(i, e)
				continue
			}
			s, e := i, max(i, min(c.end, len(row))-1)
			for s > 0 && row[s-1] != ' ' {
				s--
			}
			for e < len(row) && row[e] != ' ' {
				e++
			}
			if k == len(cols)-1 {
				e = len(row) // the last column holds the rest (a command, a message)
			}
			cells[k] = cut(s, e)
		}
		return cells
	}
}

// columnView is row with each character one byte, so that byte offsets
// are the columns a terminal shows (an ellipsis, an accent: one column).
// A byte past ASCII that starts a character reads as '~'.
func columnView(row string) string {
	ascii := true
	for i := 0; i < len(row); i++ {
		if row[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return row
	}
	b := make([]byte, 0, len(row))
	for _, r := range row {
		if r < 0x80 {
			b = append(b, byte(r))
		} else {
			b = append(b, '~')
		}
	}
	return string(b)
}

// runeOffsets maps each character of text, and its end, to its byte
// offset: column c of columnView(text) is text[runeOffsets(text)[c]:].
func runeOffsets(text string) []int {
	offsets := make([]int, 0, len(text)+1)
	for i := range text {
		offsets = append(offsets, i)
	}
	return append(offsets, len(text))
}

// alignedTable returns the end of the aligned table whose header is line
// i (i when there is none), the first line of its body (past a rule
// under the header) and its columns.
func alignedTable(x textkit.LineIndex, i int) (end, body int, cols []alignedColumn) {
	// No columnView: a header is ASCII (see alignedHeader).
	header, ok := alignedHeader(strings.TrimSuffix(x.Line(i), "\r"))
	if !ok {
		return i, i, nil
	}
	body = i + 1
	if body < x.Len() && ruleRow(x.Line(body)) {
		body++ // "----  ------": part of the header
	}
	rows, cols := alignedRows(header, func(r int) string { return x.Line(body + r) }, x.Len()-body)
	return body + rows, body, cols
}

// ruleRow reports a line of dashes or equals signs under a header, with
// blanks between the columns' rules.
func ruleRow(l string) bool {
	t := strings.TrimSpace(l)
	return t != "" && strings.Trim(t, "-= \r") == "" && strings.Count(t, "-")+strings.Count(t, "=") >= 3
}

// alignedDocument reports a sample of lines three in four of which are
// aligned tables' headers and rows: the output of commands, not a log.
// Rows with a stamp (a CSV of events, records with a prefix before the
// clock) are a log's records, whatever their form: log_dedup keeps each
// of their events. A stamp outside the tables (top's first line) is the
// command's.
func alignedDocument(sample []string) bool {
	inTables := 0
	for i := 0; i < len(sample); {
		header, ok := alignedHeader(sample[i]) // ASCII: no columnView
		if !ok {
			i++
			continue
		}
		rows, _ := alignedRows(header, func(r int) string { return sample[i+1+r] }, len(sample)-i-1)
		if slices.ContainsFunc(sample[i:i+1+rows], hasStamp) {
			return false
		}
		inTables += 1 + rows
		i += 1 + rows
	}
	return len(sample) > 0 && inTables*4 >= len(sample)*3
}

// hasStamp reports a line holding a date (2024-03-01), or a clock with
// seconds (09:59:00) in its first stampReach bytes: a record's stamp. A
// table's times (ps's START 10:00, TIME 0:47 or 00:00:12 further on)
// are not.
func hasStamp(l string) bool {
	for i := 2; i < len(l); i++ {
		switch l[i] {
		case ':':
			if i < stampReach && i+5 < len(l) && digits2(l, i-2) && digits2(l, i+1) && l[i+3] == ':' && digits2(l, i+4) {
				return true
			}
		case '-':
			if i >= 4 && i+5 < len(l) && digits2(l, i-4) && digits2(l, i-2) && digits2(l, i+1) && l[i+3] == '-' && digits2(l, i+4) {
				return true
			}
		}
	}
	return false
}

// stampReach is how far into a line a record's clock starts at most,
// behind a level, a host or a prefix.
const stampReach = 24

// digits2 reports two digits at l[i:].
func digits2(l string, i int) bool {
	return i >= 0 && i+1 < len(l) && textkit.IsDigit(l[i]) && textkit.IsDigit(l[i+1])
}

// minAlignedRows is the fewest rows under a header that make a table.
const minAlignedRows = 4
