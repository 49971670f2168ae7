package htmlreport

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/jetcompact/jetcompact/stages"
)

// refPattern finds the reference a fold marker carries (pipeline.RefSep,
// then "<idprefix>:L<a>-<b>"), whatever made the marker: keywords,
// headtail, budget, log_dedup count lines, near_dup, structured.
var refPattern = regexp.MustCompile(` · ref ([0-9a-f]+):L(\d+)-(\d+)`)

// markerPattern is a fold marker with or without a reference: "[... N
// lines folded …]", "[... N rows omitted …]", a transcript's "…[…]…".
var markerPattern = regexp.MustCompile(`^\s*(\[\.\.\. .*(folded|omitted).*\]|…\[.*\]…)\s*$`)

// maxTemplateLines caps the lines a count line lists when opened.
const maxTemplateLines = 200

// fold is one expandable line of the compacted text.
type fold struct {
	Ref      string // "3f9a1c2b:L120-659"
	From, To int    // the reference's 1-based inclusive range
	// Lines are the original lines the fold shows, as ascending ranges.
	Lines [][2]int
	// Template: a count line ("[×N…]"); Lines are those of the range that
	// match its template, Matched counts them all (Lines holds at most
	// maxTemplateLines).
	Template bool
	Matched  int
	// Stated is the count line's N. Guess: no way of matching found N
	// lines, and Lines are those of the one that came closest.
	Stated int
	Guess  bool
}

// Spec is Lines as "12-14,19": the data-lines attribute the script reads.
func (f *fold) Spec() string {
	var b strings.Builder
	for i, r := range f.Lines {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(r[0]))
		if r[1] != r[0] {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(r[1]))
		}
	}
	return b.String()
}

// Count is how many lines Lines holds.
func (f *fold) Count() int {
	n := 0
	for _, r := range f.Lines {
		n += r[1] - r[0] + 1
	}
	return n
}

// More is how many matching lines a count line does not list.
func (f *fold) More() int { return f.Matched - f.Count() }

// original is the document a report's folds open onto.
type original struct {
	lines []string
	// slots are the slot names of every count line of the compacted text.
	slots map[string]bool
	// byKey indexes the lines by their template under slots, one index
	// per way of matching (coarse, fine), each built on first use: a count
	// line's candidates are looked up, not scanned.
	byKey [2]map[string][]int
	// members are log_dedup's templates of the original (see
	// stages.LogTemplateMembers), keys the first lines of those with more
	// than one record, ascending; mined on first use, nil when the
	// original is not a log of records.
	members map[int][]int
	keys    []int
	mined   bool
}

// templateMembers lists the records of the template a count line stands
// for: the one whose first record starts its reference (pipeline's
// addCountRefs), else the first in the reference's range whose first
// record reads as kept. Either must hold the stated count of records.
func (o *original) templateMembers(kept string, from, to, stated int) (lines [][2]int, ok bool) {
	if !o.mined {
		o.mined = true
		o.members = stages.LogTemplateMembers(strings.Join(o.lines, "\n") + "\n")
		for k, m := range o.members {
			if len(m) > 1 {
				o.keys = append(o.keys, k)
			}
		}
		slices.Sort(o.keys)
	}
	m, ok := o.members[from-1]
	if !ok || len(m) != stated {
		m, ok = o.templateReading(kept, from, to, stated)
	}
	if !ok {
		return nil, false
	}
	for _, i := range m[:min(len(m), maxTemplateLines)] {
		n := i + 1
		if k := len(lines); k > 0 && lines[k-1][1] == n-1 {
			lines[k-1][1] = n
		} else {
			lines = append(lines, [2]int{n, n})
		}
	}
	return lines, true
}

// templateReading is the first template of stated records whose first
// record lies in from..to and reads as kept, digits aside.
func (o *original) templateReading(kept string, from, to, stated int) ([]int, bool) {
	want := templateOf(kept, nil, true)
	lo, _ := slices.BinarySearch(o.keys, from-1)
	for _, k := range o.keys[lo:] {
		if k > to-1 {
			break
		}
		if m := o.members[k]; len(m) == stated && sameTemplate(want, templateOf(o.lines[k], nil, true)) {
			return m, true
		}
	}
	return nil, false
}

func newOriginal(lines, compacted []string) *original {
	o := &original{lines: lines, slots: map[string]bool{}}
	for _, l := range compacted {
		if m := refPattern.FindStringIndex(l); m != nil {
			if kept, ok := countLineHead(l[:m[0]]); ok {
				for name := range slotNames(l[len(kept):m[0]]) {
					o.slots[name] = true
				}
			}
		}
	}
	return o
}

// candidates are the lines from..to whose template (coarse or fine),
// with every slot of the document masked, is that of kept.
func (o *original) candidates(kept string, from, to int, fine bool) []int {
	way := 0
	if fine {
		way = 1
	}
	if o.byKey[way] == nil {
		o.byKey[way] = map[string][]int{}
		for i, l := range o.lines {
			k := strings.Join(templateOf(l, o.slots, fine), "\x00")
			o.byKey[way][k] = append(o.byKey[way][k], i+1)
		}
	}
	idx := o.byKey[way][strings.Join(templateOf(kept, o.slots, fine), "\x00")]
	lo, _ := slices.BinarySearch(idx, from)
	hi, _ := slices.BinarySearch(idx, to+1)
	return idx[lo:hi]
}

// parseFold reads the reference of line. ok is false when line carries
// none, or one that is not this document's (idPrefix is a prefix of docID)
// or points past its lines: a log line that imitates a marker expands to
// nothing.
func parseFold(line, docID string, o *original) (f fold, ok bool) {
	m := refPattern.FindAllStringSubmatchIndex(line, -1)
	if len(m) == 0 {
		return f, false
	}
	last := m[len(m)-1]
	id := line[last[2]:last[3]]
	from, err1 := strconv.Atoi(line[last[4]:last[5]])
	to, err2 := strconv.Atoi(line[last[6]:last[7]])
	if err1 != nil || err2 != nil || from < 1 || to < from || to > len(o.lines) || docID == "" || !strings.HasPrefix(docID, id) {
		return f, false
	}
	f = fold{Ref: line[last[2]:last[7]], From: from, To: to}
	kept, isCount := countLineHead(line[:last[0]])
	if !isCount {
		f.Lines = [][2]int{{from, to}}
		return f, true
	}
	f.Template = true
	f.Stated = statedCount(line[len(kept):last[0]])
	if lines, ok := o.templateMembers(kept, from, to, f.Stated); ok {
		f.Lines, f.Matched = lines, f.Stated
		return f, true
	}
	slots := slotNames(line[len(kept):last[0]])
	// Coarse first (a token with a digit is a value); when that does not
	// find the stated count, fine (only the digits of a token are): a
	// query string or a path with a number in it is then not any other.
	f.Lines, f.Matched = matchTemplate(o, kept, slots, from, to, false)
	if f.Matched != f.Stated {
		lines, matched := matchTemplate(o, kept, slots, from, to, true)
		if matched == f.Stated || abs(matched-f.Stated) < abs(f.Matched-f.Stated) {
			f.Lines, f.Matched = lines, matched
		}
		f.Guess = f.Matched != f.Stated
	}
	return f, true
}

// matchTemplate is the lines from..to of kept's template (at most
// maxTemplateLines of them, as ascending ranges) and how many there are.
func matchTemplate(o *original, kept string, slots map[string]bool, from, to int, fine bool) (lines [][2]int, matched int) {
	want := templateOf(kept, slots, fine)
	for _, n := range o.candidates(kept, from, to, fine) {
		if !sameTemplate(want, templateOf(o.lines[n-1], slots, fine)) {
			continue
		}
		matched++
		if matched > maxTemplateLines {
			continue
		}
		if k := len(lines); k > 0 && lines[k-1][1] == n-1 {
			lines[k-1][1] = n
		} else {
			lines = append(lines, [2]int{n, n})
		}
	}
	return lines, matched
}

// statedCount is the N of a count (" [×N; …"), -1 when unreadable.
func statedCount(count string) int {
	digits := strings.TrimPrefix(count, " [×")
	end := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(digits)
	}
	n, err := strconv.Atoi(digits[:end])
	if err != nil {
		return -1
	}
	return n
}

func abs(n int) int { return max(n, -n) }

// countLineHead splits a log_dedup count line ("kept line [×311; 0–2")
// into its kept line; isCount is false for any other line.
func countLineHead(s string) (kept string, isCount bool) {
	i := strings.LastIndex(s, " [×")
	if i < 0 {
		return s, false
	}
	return s[:i], true
}

// slotNames are the names of a count's slot summaries: "pkg" and "at" of
// " [×420; pkg: 7 distinct (…); at: 1–9".
func slotNames(count string) map[string]bool {
	names := map[string]bool{}
	for _, part := range strings.Split(count, "; ")[1:] {
		if name, _, ok := strings.Cut(part, ": "); ok && name != "" && !strings.ContainsAny(name, " ") {
			names[name] = true
		}
	}
	return names
}

// templateOf is a line's constant tokens, with variable ones masked as
// "": a token holding a digit (numbers, hex, ids, times), a placeholder
// ("<N>", "<IP>"), or the value after a slot's name; runs of masks as one.
// fine masks only the parts of a token with letters that hold a digit or
// a placeholder (see maskDigits). Class: the template a log_dedup count
// stands for, whatever the values.
func templateOf(line string, slots map[string]bool, fine bool) []string {
	var out []string
	afterSlot := false
	for _, tok := range strings.Fields(line) {
		masked := afterSlot || variable(tok)
		if masked && !afterSlot && fine && hasWord(tok) {
			tok, masked = maskDigits(tok), false
		}
		afterSlot = slots[strings.TrimSuffix(tok, ":")] || slots[strings.TrimRight(tok, ":=")]
		if masked {
			if len(out) > 0 && out[len(out)-1] == "" {
				continue
			}
			tok = ""
		}
		out = append(out, tok)
	}
	return out
}

// maskDigits writes every run of letters and digits of tok that holds a
// digit or a placeholder (an id, a version, a count), with the runs joined
// to it by dots or commas, as one "\x01": "/api/v1/users" is
// "/api/\x01/users", "[req-0000fa]" "[req-\x01]", "HTTP/1.1" and
// "HTTP/<N>" "HTTP/\x01".
func maskDigits(tok string) string {
	b := make([]byte, 0, len(tok))
	for i := 0; i < len(tok); {
		j, digit := alnumRun(tok, i)
		switch {
		case j == i:
			b = append(b, tok[i])
			j++
		case !digit:
			b = append(b, tok[i:j]...)
		default:
			for j < len(tok) && (tok[j] == '.' || tok[j] == ',') {
				k, d := alnumRun(tok, j+1)
				if k == j+1 || !d {
					break
				}
				j = k
			}
			if len(b) == 0 || b[len(b)-1] != 1 {
				b = append(b, 1)
			}
		}
		i = j
	}
	return string(b)
}

// alnumRun is the end of the run of letters, digits and placeholders at
// tok[i:], and whether it holds a digit or a placeholder.
func alnumRun(tok string, i int) (end int, digit bool) {
	for i < len(tok) {
		c := tok[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
		case c == '<' && placeholderEnd(tok, i) > 0:
			i, digit = placeholderEnd(tok, i), true
			continue
		default:
			return i, digit
		}
		i++
	}
	return i, digit
}

// placeholderEnd is the end of the placeholder ("<N>", "<IP>") at tok[i:],
// 0 if there is none.
func placeholderEnd(tok string, i int) int {
	j := i + 1
	for j < len(tok) && (tok[j] >= 'A' && tok[j] <= 'Z' || tok[j] == '_') {
		j++
	}
	if j == i+1 || j == len(tok) || tok[j] != '>' {
		return 0
	}
	return j + 1
}

// hasWord reports a letter in tok outside its placeholders.
func hasWord(tok string) bool {
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c == '<' {
			if k := placeholderEnd(tok, i); k > 0 {
				i = k - 1
				continue
			}
		}
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			return true
		}
	}
	return false
}

func variable(tok string) bool {
	for i, r := range tok {
		if unicode.IsDigit(r) {
			return true
		}
		if r == '<' && i+2 < len(tok) {
			j := strings.IndexByte(tok[i:], '>')
			if j > 1 && strings.ToUpper(tok[i+1:i+j]) == tok[i+1:i+j] {
				return true
			}
		}
	}
	return false
}

func sameTemplate(a, b []string) bool {
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

// isMarker reports a fold marker line, with or without a reference.
func isMarker(line string) bool { return markerPattern.MatchString(line) }

// embedPlan chooses the original lines to embed. Under maxBytes the whole
// original; over it, the first and last depth lines each fold shows (the
// lines nearest to the kept lines around it), depth the largest that fits
// (0: none fit). covered lists the embedded lines as ascending ranges.
func embedPlan(lines []string, folds []*fold, total, maxBytes int) (covered [][2]int, depth int, capped bool) {
	if total <= maxBytes {
		return [][2]int{{1, len(lines)}}, 0, false
	}
	prefix := make([]int, len(lines)+1) // bytes of lines 1..n, each with its "\n"
	for i, l := range lines {
		prefix[i+1] = prefix[i] + len(l) + 1
	}
	at := func(d int) [][2]int {
		var rs [][2]int
		for _, f := range folds {
			rs = appendEnds(rs, f.Lines, d)
		}
		return mergeRanges(rs)
	}
	cost := func(rs [][2]int) int {
		n := 0
		for _, r := range rs {
			n += prefix[r[1]] - prefix[r[0]-1]
		}
		return n
	}
	lo, hi := 0, len(lines) // largest d with cost(at(d)) <= maxBytes
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if cost(at(mid)) <= maxBytes {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return nil, 0, true
	}
	return at(lo), lo, true
}

// appendEnds appends the first d and the last d lines of lines (ascending
// ranges) to rs: a count line's first records, next to it, and its last.
func appendEnds(rs, lines [][2]int, d int) [][2]int {
	n := 0
	for _, r := range lines {
		n += r[1] - r[0] + 1
	}
	if n <= 2*d {
		return append(rs, lines...)
	}
	left := d
	for _, r := range lines {
		if left == 0 {
			break
		}
		take := min(left, r[1]-r[0]+1)
		rs = append(rs, [2]int{r[0], r[0] + take - 1})
		left -= take
	}
	left = d
	for i := len(lines) - 1; i >= 0 && left > 0; i-- {
		r := lines[i]
		take := min(left, r[1]-r[0]+1)
		rs = append(rs, [2]int{r[1] - take + 1, r[1]})
		left -= take
	}
	return rs
}

func mergeRanges(rs [][2]int) [][2]int {
	sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] })
	var out [][2]int
	for _, r := range rs {
		if r[1] < r[0] {
			continue
		}
		if k := len(out); k > 0 && r[0] <= out[k-1][1]+1 {
			out[k-1][1] = max(out[k-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

// coveredAll reports whether every line of f lies in covered.
func coveredAll(f *fold, covered [][2]int) bool {
	for _, r := range f.Lines {
		i := sort.Search(len(covered), func(i int) bool { return covered[i][1] >= r[0] })
		if i == len(covered) || covered[i][0] > r[0] || covered[i][1] < r[1] {
			return false
		}
	}
	return true
}
