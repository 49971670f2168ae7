package stages

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// mayOpenAlignedReference is the cheap first test of alignedHeader: a line that
// opens with a letter or '%', past blanks, and whose first word has no
// digit.
func mayOpenAlignedReference(line string) bool {
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

// headerWordsReference checks line as alignedHeader does and counts its columns,
// appending them to cols when cols is not nil.
func headerWordsReference(line string, cols *[]alignedColumn) (int, bool) {
	if len(line) > maxAlignedHeader || !mayOpenAlignedReference(line) {
		return 0, false
	}
	n, capitals, shouted, wide := 0, 0, false, false
	for i := 0; i < len(line); {
		if line[i] == ' ' {
			if i+1 < len(line) && line[i+1] == ' ' && n > 0 {
				wide = true
			}
			i++
			continue
		}
		s := i
		upper, letters := true, 0
		for ; i < len(line) && line[i] != ' '; i++ {
			switch c := line[i]; {
			case textkit.IsLetter(c):
				letters++
				upper = upper && c <= 'Z'
			case textkit.IsDigit(c) && i > s:
			case strings.IndexByte("%_-/+#.()", c) >= 0:
			default:
				return 0, false
			}
		}
		if letters == 0 {
			return 0, false
		}
		first := s
		for !textkit.IsLetter(line[first]) {
			first++
		}
		if line[first] <= 'Z' {
			capitals++
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

// checkHeaderWords compares headerWords with its reference on line.
func checkHeaderWords(t *testing.T, line string) {
	t.Helper()
	var got, want []alignedColumn
	n, ok := headerWords(line, &got)
	wn, wok := headerWordsReference(line, &want)
	if n != wn || ok != wok || ok && !slicesEqualColumns(got, want) {
		t.Fatalf("headerWords(%q) = %d %v %v, reference %d %v %v", line, n, ok, got, wn, wok, want)
	}
	if isAlignedHeader(line) != wok {
		t.Fatalf("isAlignedHeader(%q) = %v, reference %v", line, !wok, wok)
	}
}

func slicesEqualColumns(a, b []alignedColumn) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// genHeaderLine returns a line of words built from the bytes a header's
// test turns on: capitals, small letters, digits, its punctuation, other
// bytes, runs of blanks.
func genHeaderLine(r *rand.Rand) string {
	parts := []string{"NAME", "Name", "name", "READY", "%CPU", "Mounted", "on", "1K-blocks", "ID", "x1", "1x", "a.b", "(s)", "_x", "-", "%", "9", "Up", ":", "é", "a=b", "UP2", "Z"}
	var b strings.Builder
	for range r.IntN(8) {
		b.WriteString(strings.Repeat(" ", r.IntN(4)))
		b.WriteString(parts[r.IntN(len(parts))])
	}
	b.WriteString(strings.Repeat(" ", r.IntN(2)))
	return b.String()
}

// TestHeaderWordsReference compares headerWords with its reference on
// generated header-like lines and on every line of texts of every class.
func TestHeaderWordsReference(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 19))
	for range 20000 {
		checkHeaderWords(t, genHeaderLine(r))
	}
	for _, s := range classTexts(13) {
		for _, l := range strings.Split(s, "\n") {
			checkHeaderWords(t, strings.TrimSuffix(l, "\r"))
		}
	}
	checkHeaderWords(t, strings.Repeat("NAME  ", 80))
}

func FuzzHeaderWords(f *testing.F) {
	for _, s := range []string{"NAME   READY   STATUS", "Filesystem  1K-blocks  Used Available Use% Mounted on", "%CPU MEM PID", "  PID TTY TIME CMD", "a b c", "ID 2x Y"} {
		f.Add(s)
	}
	f.Fuzz(checkHeaderWords)
}
