package pipeline

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/stages"
)

// RefSep opens the reference a fold marker carries: "[... 540 lines folded
// · ref 3f9a1c2b:L120-659]".
const RefSep = " · ref "

// AddRefs rewrites every fold marker of compacted (a line that opens
// "[... " or "…[" and closes with "]") to carry a reference to the lines
// of original it stands for: idPrefix, then the 1-based inclusive range
// ":L<a>-<b>". The range is the gap between the kept lines either side of
// the marker, found by a monotonic alignment with original that compares
// lines with numbers and placeholders masked (number_normalize rewrites
// them) and a log_dedup count removed. A marker whose gap is empty or
// whose neighbours do not align keeps no reference. An empty idPrefix
// returns compacted unchanged.
func AddRefs(original, compacted, idPrefix string) string {
	return addRefs(original, compacted, idPrefix, true, nil)
}

// AddMarkerRefs is AddRefs for fold markers only: count lines stay as
// they are (a budget too tight for their references).
func AddMarkerRefs(original, compacted, idPrefix string) string {
	return addRefs(original, compacted, idPrefix, false, nil)
}

// addRefs is AddRefs; spans, when not nil, are the template spans count
// lines take (else original is mined for them).
func addRefs(original, compacted, idPrefix string, counts bool, spans map[int]int) string {
	if idPrefix == "" || !strings.Contains(compacted, "[") && !strings.Contains(compacted, "| ... ") {
		return compacted
	}
	if strings.Contains(compacted, `"_omitted`) || strings.Contains(compacted, ` more items]"`) || strings.Contains(compacted, ` levels]"`) {
		compacted = addJSONRefs(original, compacted, idPrefix)
	}
	body, trailingNL := strings.CutSuffix(compacted, "\n")
	out := strings.Split(body, "\n")
	isMarker, isCount, any := classifyRefLines(out, counts)
	if !any || json.Valid([]byte(compacted)) {
		// A JSON document's markers are values (addJSONRefs above): a
		// line that looks like a count or marker is data.
		return compacted
	}
	segs, line := splitSegments(original)
	exact, where := indexSegments(out, isMarker, segs)
	pos := alignKept(out, isMarker, exact, where)
	addFoldMarkerRefs(out, isMarker, pos, segs, line, idPrefix)
	addCountRefs(out, isCount, pos, segs, line, where, original, idPrefix, spans)
	res := strings.Join(out, "\n")
	if trailingNL {
		res += "\n"
	}
	return res
}

// classifyRefLines marks the fold markers and, when counts is set, the
// count lines of out; any reports whether there is one.
func classifyRefLines(out []string, counts bool) (isMarker, isCount []bool, any bool) {
	isMarker = make([]bool, len(out))
	isCount = make([]bool, len(out))
	for i, l := range out {
		isMarker[i] = foldMarkerLine(l)
		isCount[i] = counts && countLine(l)
		any = any || isMarker[i] || isCount[i]
	}
	return isMarker, isCount, any
}

// splitSegments splits original into the segments kept lines align on: a
// line split at lone carriage returns too, as Decode and the nodes read
// progress output. line maps a segment back to its line of original
// (split on "\n" only).
func splitSegments(original string) (segs []string, line []int) {
	for i, l := range strings.Split(strings.TrimSuffix(original, "\n"), "\n") {
		if l = strings.TrimSuffix(l, "\r"); strings.IndexByte(l, '\r') < 0 {
			segs, line = append(segs, l), append(line, i)
			continue
		}
		for _, s := range strings.Split(l, "\r") {
			segs, line = append(segs, s), append(line, i)
		}
	}
	return segs, line
}

// indexSegments indexes only the segments a kept line of out may align
// with: exact maps a segment equal to one to its indexes, ascending;
// where maps a masked segment (alignKey) to its indexes.
func indexSegments(out []string, isMarker []bool, segs []string) (exact, where map[string][]int) {
	exact, where = map[string][]int{}, map[string][]int{}
	for i, l := range out {
		if !isMarker[i] {
			exact[l] = nil
			where[alignKey(l)] = nil
		}
	}
	var key []byte
	for i, s := range segs {
		if idx, ok := exact[s]; ok {
			exact[s] = append(idx, i)
		}
		key = appendAlignKey(key[:0], s)
		if idx, ok := where[string(key)]; ok {
			where[string(key)] = append(idx, i)
		}
	}
	return exact, where
}

// alignKept is the segment each kept line of out aligns with, -1 when
// unknown (and for markers): monotonic, exact matches before masked ones,
// first at the place a marker's count points to, then at the next segment
// left.
func alignKept(out []string, isMarker []bool, exact, where map[string][]int) []int {
	pos := make([]int, len(out))
	next, hint := 0, 0 // next: the first segment left; hint: where a marker's count says to look
	for i, l := range out {
		pos[i] = -1
		if isMarker[i] {
			hint += markerLines(l)
			continue
		}
	search:
		for _, from := range []int{hint, next} {
			for _, idx := range [][]int{exact[l], where[alignKey(l)]} {
				if j, _ := slices.BinarySearch(idx, from); j < len(idx) {
					pos[i], next = idx[j], idx[j]+1
					break search
				}
			}
		}
		hint = next
	}
	return pos
}

// addFoldMarkerRefs gives every fold marker of out the range of segments
// between the kept lines either side of it, shared among markers in a row.
func addFoldMarkerRefs(out []string, isMarker []bool, pos []int, segs []string, line []int, idPrefix string) {
	for i := 0; i < len(out); i++ {
		if !isMarker[i] {
			continue
		}
		k := i // markers i..k-1 stand in a row between the same kept lines
		for k < len(out) && isMarker[k] {
			k++
		}
		lo, hi := gapStart(pos, i), gapEnd(pos, k, len(segs)) // the gap in segments, inclusive
		if n := markerLines(out[i]); k == i+1 && n > hi-lo+1 && hi < len(segs)-1 {
			hi = extendOverKept(pos, lo, n, len(segs))
		}
		for m, r := range splitGap(out[i:k], lo, hi) {
			if r[0] <= r[1] {
				out[i+m] = withRef(out[i+m], idPrefix+":L"+strconv.Itoa(line[r[0]]+1)+"-"+strconv.Itoa(line[r[1]]+1))
			}
		}
		i = k - 1
	}
}

// gapStart is the first segment after the last kept line aligned before
// out[i], or 0.
func gapStart(pos []int, i int) int {
	for j := i - 1; j >= 0; j-- {
		if pos[j] >= 0 {
			return pos[j] + 1
		}
	}
	return 0
}

// gapEnd is the last segment before the first kept line aligned at or
// after out[k], or the last of nsegs.
func gapEnd(pos []int, k, nsegs int) int {
	for j := k; j < len(pos); j++ {
		if pos[j] >= 0 {
			return pos[j] - 1
		}
	}
	return nsegs - 1
}

// foldMarkerLine reports a line that stands for removed lines: the
// nodes' "[... N lines folded by keywords ...]", a budget's "[... N lines
// folded]", structured "[... N rows folded ...]" and "| ... N rows folded
// ... |", a transcript's "…[lines folded]…".
func foldMarkerLine(l string) bool {
	t := strings.TrimSpace(l)
	if strings.Contains(t, RefSep) {
		return false
	}
	switch {
	case strings.HasPrefix(t, "[... ") && strings.HasSuffix(t, "]"):
		// "compressed": a debate answer's "[... N lines compressed. Key points: …]".
		return strings.Contains(t, "folded") || strings.Contains(t, "omitted") || strings.Contains(t, " compressed")
	case strings.HasPrefix(t, "…[") && strings.HasSuffix(t, "]…"):
		return true
	case strings.HasPrefix(t, "| ... ") && strings.HasSuffix(t, " |"):
		return strings.Contains(t, "folded") // a table's "| ... 394 rows folded ... |"
	}
	return false
}

// addCountRefs gives every count line (log_dedup's and near_dup's
// "head [×N…]", kept at its first record) a reference from that record to
// the last line its template stood for: the template's span as log_dedup
// mines the original, else the last line that aligns with the head, or the
// run of lines up to the next kept line. The range may hold other records
// too; get returns all of it.
func addCountRefs(out []string, isCount []bool, pos []int, segs []string, line []int, where map[string][]int, original, idPrefix string, spans map[int]int) {
	mined := spans != nil
	for i, l := range out {
		if !isCount[i] || pos[i] < 0 {
			continue
		}
		if !mined {
			spans, mined = stages.LogTemplateSpans(original), true
		}
		first := line[pos[i]]
		last, ok := spans[first]
		if !ok {
			last = first
			if idx := where[alignKey(l)]; len(idx) > 0 {
				last = max(last, line[idx[len(idx)-1]])
			}
			if end := gapEnd(pos, i+1, len(segs)); end >= 0 {
				last = max(last, line[end])
			}
		}
		out[i] = withRef(l, idPrefix+":L"+strconv.Itoa(first+1)+"-"+strconv.Itoa(last+1))
	}
}

// countLine reports a line that ends in a log_dedup or near_dup count,
// " [×N]" or " [×N; what varied]".
func countLine(l string) bool {
	i := strings.LastIndex(l, " [×")
	return i >= 0 && strings.HasSuffix(l, "]") && !strings.Contains(l[i:], RefSep)
}

// extendOverKept is the end of a range from lo that holds n segments no
// kept line aligns with: a marker that stands for n lines, some kept after
// it (a debate's code blocks follow its marker), spans them too.
func extendOverKept(pos []int, lo, n, segs int) int {
	kept := make(map[int]bool, len(pos))
	for _, p := range pos {
		kept[p] = true
	}
	hi := lo - 1
	for folded := 0; folded < n && hi < segs-1; {
		hi++
		if !kept[hi] {
			folded++
		}
	}
	return hi
}

// splitGap shares the gap lo..hi among markers in a row by their stated
// counts, the last taking the rest; when a count is missing or too large,
// each gets the whole gap.
func splitGap(markers []string, lo, hi int) [][2]int {
	r := make([][2]int, len(markers))
	at := lo
	for m, l := range markers {
		n := markerLines(l)
		if m == len(markers)-1 {
			r[m] = [2]int{at, hi}
			break
		}
		if n <= 0 || at+n-1 >= hi {
			for m := range r {
				r[m] = [2]int{lo, hi}
			}
			return r
		}
		r[m], at = [2]int{at, at + n - 1}, at+n
	}
	return r
}

// markerLines is the N of "[... N line(s) …" or of a table's "[... N
// rows folded ...]" (a row is a line), or 0.
func markerLines(l string) int {
	rest, ok := strings.CutPrefix(strings.TrimSpace(l), "[... ")
	if !ok {
		return 0
	}
	num, what, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || !strings.HasPrefix(what, "line") && !strings.HasPrefix(what, "row") {
		return 0
	}
	return n
}

// withRef puts " · ref R" before a marker's last "]", or a table
// marker's last " |".
func withRef(marker, ref string) string {
	i := strings.LastIndexByte(marker, ']')
	if t := strings.TrimRight(marker, " \t\r"); strings.HasPrefix(strings.TrimSpace(t), "| ... ") && strings.HasSuffix(t, " |") {
		i = len(t) - len(" |")
	}
	if i < 0 {
		return marker
	}
	end := marker[:i]
	end = strings.TrimSuffix(end, " ...") // "[... 5 lines folded by keywords · ref …]": the ref closes it
	return end + RefSep + ref + marker[i:]
}

// alignKey is a line as the nodes may have left it: words that hold a
// digit (numbers, hex, ids) and "<N>"-style placeholders masked, runs of
// masks as one, a log_dedup " [×N…]" count removed, blanks folded.
func alignKey(l string) string { return string(appendAlignKey(nil, l)) }

// appendAlignKey appends alignKey(l) to b.
func appendAlignKey(b []byte, l string) []byte {
	if i := strings.LastIndex(l, " [×"); i >= 0 && strings.HasSuffix(l, "]") {
		l = l[:i]
	}
	start := len(b)
	mask := func() {
		if len(b) == start || b[len(b)-1] != '#' {
			b = append(b, '#')
		}
	}
	space := false
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case isAlnum(c):
			j := wordEnd(l, i)
			if hasDigit(l[i:j]) {
				mask()
			} else {
				b = append(b, l[i:j]...)
			}
			i, space = j-1, false
		case c == '<':
			if j := placeholderEnd(l, i); j > i {
				mask()
				i = j
			} else {
				b = append(b, c)
			}
			space = false
		case c == ' ' || c == '\t' || c == '\r':
			if !space && len(b) > start {
				b = append(b, ' ')
			}
			space = true
		default:
			b = append(b, c)
			space = false
		}
	}
	for len(b) > start && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return b
}

// wordEnd is the end of the run of ASCII letters and digits at l[i].
func wordEnd(l string, i int) int {
	for i < len(l) && isAlnum(l[i]) {
		i++
	}
	return i
}

func hasDigit(w string) bool {
	return strings.ContainsAny(w, "0123456789")
}

// placeholderEnd is the index of the ">" closing a "<N>"-style
// placeholder (capital letters) at l[i], or i when there is none.
func placeholderEnd(l string, i int) int {
	if i+2 >= len(l) || l[i+1] < 'A' || l[i+1] > 'Z' {
		return i
	}
	j := i + 1
	for j < len(l) && l[j] >= 'A' && l[j] <= 'Z' {
		j++
	}
	if j < len(l) && l[j] == '>' {
		return j
	}
	return i
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Ref is a parsed reference: a document id or a prefix of one, and a
// 1-based inclusive range of lines, or of bytes when Bytes is set (From 0:
// the whole document).
type Ref struct {
	ID       string
	From, To int
	Bytes    bool
}

// ParseRef reads "ID", "ID:L<a>-<b>", "ID:L<a>" or "ID:B<a>-<b>" (bytes:
// a JSON fold inside one long line).
func ParseRef(s string) (Ref, error) {
	id, lines, hasLines := strings.Cut(strings.TrimSpace(s), ":")
	r := Ref{ID: id}
	if id == "" {
		return r, fmt.Errorf("reference %q: no document id", s)
	}
	if !hasLines {
		return r, nil
	}
	rest, ok := strings.CutPrefix(lines, "L")
	if !ok {
		if rest, ok = strings.CutPrefix(lines, "B"); !ok {
			return r, fmt.Errorf("reference %q: want ID:L<from>-<to> or ID:B<from>-<to>", s)
		}
		r.Bytes = true
	}
	a, b, isRange := strings.Cut(rest, "-")
	if !isRange {
		b = a
	}
	from, err1 := strconv.Atoi(a)
	to, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || from < 1 || to < from {
		return r, fmt.Errorf("reference %q: want ID:L<from>-<to>, 1 <= from <= to", s)
	}
	r.From, r.To = from, to
	return r, nil
}

// Range is the range part of r: "L3-9", "B10-200", or "" for a whole
// document.
func (r Ref) Range() string {
	switch {
	case r.From == 0:
		return ""
	case r.Bytes:
		return "B" + strconv.Itoa(r.From) + "-" + strconv.Itoa(r.To)
	}
	return "L" + strconv.Itoa(r.From) + "-" + strconv.Itoa(r.To)
}

// Slice is the part of text r names: all of it, its lines (see Lines) or
// its bytes From..To (1-based, inclusive; past the end is an error).
func (r Ref) Slice(text string) (string, error) {
	switch {
	case r.From == 0:
		return text, nil
	case r.From < 0 || r.To < r.From: // a Ref built by hand, not by ParseRef
		return "", fmt.Errorf("range %d-%d: want 1 <= from <= to", r.From, r.To)
	case !r.Bytes:
		return Lines(text, r.From, r.To)
	case r.To > len(text):
		return "", fmt.Errorf("byte %d is past the end (%d bytes)", r.To, len(text))
	}
	return text[r.From-1 : r.To], nil
}

// Lines is the text of lines from..to (1-based, inclusive) of text, each
// with its own line end as in text. A range past the end is an error.
func Lines(text string, from, to int) (string, error) {
	start, line := 0, 1
	for line < from {
		i := strings.IndexByte(text[start:], '\n')
		if i < 0 {
			return "", fmt.Errorf("line %d is past the end (%d lines)", from, line)
		}
		start, line = start+i+1, line+1
	}
	if start == len(text) && from > 1 {
		return "", fmt.Errorf("line %d is past the end (%d lines)", from, line-1)
	}
	end := start
	for ; line <= to; line++ {
		i := strings.IndexByte(text[end:], '\n')
		if i < 0 {
			if line < to || end == len(text) {
				return "", fmt.Errorf("line %d is past the end", to)
			}
			end = len(text)
			break
		}
		end += i + 1
	}
	return text[start:end], nil
}
