package stages

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Placeholder lines stand in for protected regions while nodes run. They are
// made of private-use runes only, so no node mistakes them for text, digits
// or words. A node that drops lines must keep every line IsProtectedLine
// reports.
//
// The runes U+E000 to U+E03F are reserved for this. A text that already
// holds some has each of them escaped (protectEscape and an offset rune)
// before placeholders go in, and put back by Restore, so a stray
// private-use character neither switches protection off nor passes for a
// placeholder.
const (
	protectOpen   = textkit.ProtectOpen
	protectClose  = '\uE001'
	protectEscape = '\uE002' // followed by protectEscBase + (r - reservedLo)
	protectDigit  = 0xE010   // base of the 16 runes that encode the index
	reservedLo    = 0xE000
	reservedHi    = 0xE03F
	protectEscLo  = 0xE020 // escapes use runes protectEscLo .. protectEscLo+31
)

// IsProtectedLine reports whether line is a placeholder for a protected region.
func IsProtectedLine(line string) bool { return textkit.IsProtectedLine(line) }

// Stash holds the regions taken out of a text by Protect.
type Stash struct {
	regions []string
	escaped bool // reserved runes of the text were escaped
	base    int  // index of the first region: placeholders below it were in the text already
}

// Len is the number of stashed regions.
func (s *Stash) Len() int { return len(s.regions) }

func placeholder(i int) string {
	var b strings.Builder
	b.WriteRune(protectOpen)
	// Hex digits as private-use runes, most significant first.
	var digits [16]rune
	n := 0
	for {
		digits[n] = rune(protectDigit + i%16)
		n++
		i /= 16
		if i == 0 {
			break
		}
	}
	for j := n - 1; j >= 0; j-- {
		b.WriteRune(digits[j])
	}
	b.WriteRune(protectClose)
	return b.String()
}

// MayHaveFence reports whether text could hold a protected region at all.
// The pipeline asks it before every node, so it looks at line starts
// first (one IndexByte a line), and reads the whole text for the markers
// only when a line starts like a region.
func MayHaveFence(text string) bool {
	return hasOpenerLine(text) && mayHoldOpener(text)
}

// hasOpenerLine reports a line that starts the way a region's first line
// must (see regionEnd): one look at each line start, where mayHoldOpener
// reads the whole text once per marker.
func hasOpenerLine(text string) bool {
	for start := 0; start < len(text); {
		if openerFirst[text[start]] && opensLikeRegion(text[start:]) {
			return true
		}
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			return false
		}
		start += end + 1
	}
	return false
}

// openerLineStarts is hasOpenerLine that appends to starts, up to its
// capacity, the start of each line it passes, as textkit.NewLineIndex
// gives them. starts comes back whole, the end mark included, when it
// finds no opener line and so reads them all, and they fit; else nil.
func openerLineStarts(text string, starts []int32) (bool, []int32) {
	starts = append(starts, 0)
	for start := 0; start < len(text); {
		if openerFirst[text[start]] && opensLikeRegion(text[start:]) {
			return true, nil
		}
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			break
		}
		start += end + 1
		if len(starts) < cap(starts) {
			starts = append(starts, int32(start))
		} else {
			starts = starts[:0:0] // too many lines: no growing
		}
	}
	if len(starts) == cap(starts) {
		return false, nil
	}
	return false, append(starts, int32(len(text)+1))
}

// lineStartsCap is the capacity given to a text's line starts kept in a
// run's memo: a text of shorter lines on average is not kept, so that a
// memo holds at most an eighth of its text's bytes.
func lineStartsCap(text string) int { return len(text)/32 + 2 }

// openerFirst marks the bytes that a region's first line may start with.
var openerFirst = [256]bool{'`': true, '~': true, '#': true, '<': true, '*': true, 'd': true}

// opensLikeRegion reports whether line starts the way a region's first
// line must; line starts with a byte of openerFirst.
func opensLikeRegion(line string) bool {
	switch line[0] {
	case '`', '~', '#':
		return true
	case '<':
		return strings.HasPrefix(line, "<source") || strings.HasPrefix(line, "<<<<<<< ")
	case '*':
		return strings.HasPrefix(line, "*** Begin Patch")
	case 'd':
		return strings.HasPrefix(line, "diff --git ")
	}
	return false
}

// mayHoldOpener is the markers' test on the whole text.
func mayHoldOpener(text string) bool {
	return strings.Contains(text, "```") || strings.Contains(text, "~~~") || strings.Contains(text, "*** Begin Patch") ||
		strings.IndexByte(text, '<') >= 0 && (strings.Contains(text, "<source") || strings.Contains(text, "<<<<<<< ")) ||
		strings.Contains(text, "--git ") && strings.Contains(text, "diff --git ") ||
		strings.Contains(text, "# ") && (strings.Contains(text, "#### ") || strings.Contains(text, "# User") ||
			strings.Contains(text, "# user") || strings.Contains(text, "# Human"))
}

// Protect replaces each protected region with a one-line placeholder:
//
//   - a complete fenced code block (an opening line that starts with ```
//     or ~~~ and the first later line of at least as many of the same
//     character and nothing else);
//   - a <source> … </source> block;
//   - outside those, a SEARCH/REPLACE block (<<<<<<< … >>>>>>>), an
//     apply_patch envelope (*** Begin Patch … *** End Patch) and a git diff
//     (from "diff --git" while lines read as diff lines);
//   - a user's request: a run of aider "#### " lines, or a Markdown user
//     turn ("## User" to the next heading).
//
// An edit block takes its file-name line with it: a line right above the
// region that names a file. Unclosed openers are left as text. Protect is
// linear in the text (an index of closing lines answers each opener).
func Protect(text string) (string, *Stash) {
	out, st, _ := ProtectContext(context.Background(), text)
	return out, st
}

// ProtectContext is Protect that gives up when ctx ends, returning the
// text as it is with an empty stash and ctx's error.
func ProtectContext(ctx context.Context, text string) (string, *Stash, error) {
	if !MayHaveFence(text) {
		return text, &Stash{}, nil
	}
	return protectRegions(ctx, text)
}

// protectRegions is ProtectContext without the MayHaveFence shortcut.
func protectRegions(ctx context.Context, text string) (string, *Stash, error) {
	st := &Stash{}
	if hasReserved(text) {
		// Placeholder lines already in the text (a text protected twice)
		// stay as they are; this stash numbers its regions after them.
		text, st.base = escapeReserved(text)
		st.escaped = true
	}
	cc := canceled{ctx: ctx}
	idx := newCloserIndex(text)
	var out strings.Builder
	pos := 0        // text before pos is written (or stashed)
	prevStart := -1 // start of the line before the current one, -1 if none
	for lineStart := 0; lineStart < len(text); {
		if err := cc.check(); err != nil {
			return unescapeIf(text, st.escaped), &Stash{}, err
		}
		lineEnd := strings.IndexByte(text[lineStart:], '\n')
		if lineEnd < 0 {
			lineEnd = len(text)
		} else {
			lineEnd += lineStart
		}
		closeEnd, edit, ok := idx.regionEnd(text, lineStart, lineEnd)
		if !ok {
			prevStart = lineStart
			lineStart = lineEnd + 1
			continue
		}
		start := lineStart
		if edit && prevStart >= pos && namesEditedFile(text, prevStart, lineStart, lineEnd) {
			start = prevStart
		}
		out.WriteString(text[pos:start])
		out.WriteString(placeholder(st.base + len(st.regions)))
		st.regions = append(st.regions, text[start:closeEnd])
		pos = closeEnd
		prevStart = -1
		lineStart = closeEnd + 1
	}
	if len(st.regions) == 0 {
		return unescapeIf(text, st.escaped), &Stash{}, nil
	}
	out.WriteString(text[pos:])
	return out.String(), st, nil
}

// isFileNameLine reports a line that names a file, as edit formats write
// it above a block: a path or a name with an extension, perhaps in
// backticks or bold, and nothing else.
func isFileNameLine(line string) bool {
	s := strings.TrimSpace(strings.TrimSuffix(line, "\r"))
	s = strings.Trim(s, "`*")
	s = strings.TrimSuffix(s, ":")
	if s == "" || len(s) > 200 || strings.ContainsAny(s, " \t<>|\"'") || strings.HasPrefix(s, "#") || strings.HasPrefix(s, "-") {
		return false
	}
	if strings.Contains(s, "/") || strings.Contains(s, "\\") {
		return true
	}
	dot := strings.LastIndexByte(s, '.')
	if dot <= 0 || dot == len(s)-1 || len(s)-dot > 8 {
		return s == "Makefile" || s == "Dockerfile"
	}
	for _, c := range s[dot+1:] {
		if !isWordByte(byte(c)) {
			return false
		}
	}
	return !textkit.IsDigit(s[dot+1])
}

// closerIndex lists, in order, the lines that can close a region: fence
// lines (only ` or ~, at least three), "</source>", ">>>>>>> …" and
// "*** End Patch". Each opener finds its closer by a search over the list
// of its kind, so no line is read more than a few times.
type closerIndex struct {
	fence  [2]fenceClosers // ` and ~
	source []int           // line starts of </source>
	merge  []int           // line starts of >>>>>>> lines
	patch  []int           // line starts of *** End Patch
}

// fenceClosers holds the fence lines of one character and a max tree over
// their lengths, to find the first at or after a line with a long enough run.
type fenceClosers struct {
	at   []int // line starts
	end  []int // line ends (before the line break)
	n    []int // run length
	tree []int // max of n over ranges, size 2*size
	size int
}

func newCloserIndex(text string) *closerIndex {
	idx := &closerIndex{}
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		line := strings.TrimRight(text[start:end], " \t\r")
		switch {
		case line == "":
		case line[0] == '`' || line[0] == '~':
			if k := strings.TrimLeft(line, line[:1]); k == "" && len(line) >= 3 {
				f := &idx.fence[fenceSlot(line[0])]
				f.at, f.end, f.n = append(f.at, start), append(f.end, end), append(f.n, len(line))
			}
		case line == "</source>":
			idx.source = append(idx.source, start)
		case strings.HasPrefix(line, ">>>>>>> "):
			idx.merge = append(idx.merge, start)
		case line == "*** End Patch":
			idx.patch = append(idx.patch, start)
		}
		start = end + 1
	}
	for i := range idx.fence {
		idx.fence[i].build()
	}
	return idx
}

func fenceSlot(c byte) int {
	if c == '~' {
		return 1
	}
	return 0
}

func (f *fenceClosers) build() {
	f.size = 1
	for f.size < len(f.n) {
		f.size *= 2
	}
	f.tree = make([]int, 2*f.size)
	for i, n := range f.n {
		f.tree[f.size+i] = n
	}
	for i := f.size - 1; i >= 1; i-- {
		f.tree[i] = max(f.tree[2*i], f.tree[2*i+1])
	}
}

// first returns the index of the first closer at or after index from with
// a run of at least n, or -1.
func (f *fenceClosers) first(from, n int) int {
	if from >= len(f.n) {
		return -1
	}
	return f.descend(1, 0, f.size, from, n)
}

func (f *fenceClosers) descend(node, lo, hi, from, n int) int {
	if hi <= from || f.tree[node] < n {
		return -1
	}
	if hi-lo == 1 {
		return lo
	}
	mid := (lo + hi) / 2
	if r := f.descend(2*node, lo, mid, from, n); r >= 0 {
		return r
	}
	return f.descend(2*node+1, mid, hi, from, n)
}

// after returns the first entry of starts past offset pos, or -1.
func after(starts []int, pos int) int {
	lo, hi := 0, len(starts)
	for lo < hi {
		m := (lo + hi) / 2
		if starts[m] <= pos {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(starts) {
		return -1
	}
	return starts[lo]
}

// namesEditedFile reports whether the line at prevStart names the file
// of the block opening at lineStart: a file name, or above a
// SEARCH/REPLACE body any one word (.gitignore, LICENSE), as aider reads
// the line above the fence.
func namesEditedFile(text string, prevStart, lineStart, lineEnd int) bool {
	prev := text[prevStart : lineStart-1]
	if isFileNameLine(prev) {
		return true
	}
	search := strings.HasPrefix(text[lineStart:lineEnd], "<<<<<<< ") || opensEditBody(text, lineEnd)
	name := strings.Trim(strings.TrimSpace(strings.TrimSuffix(prev, "\r")), "`*")
	return search && name != "" && len(name) <= 200 && !strings.ContainsAny(name, " \t<>|\"'") && !strings.HasPrefix(name, "#")
}

// opensEditBody reports whether the lines after the fence line ending at
// end open a SEARCH/REPLACE body: "<<<<<<< SEARCH" next, or after a
// file-name line (aider's diff-fenced format).
func opensEditBody(text string, end int) bool {
	for range 2 {
		if end+1 >= len(text) {
			return false
		}
		next := text[end+1 : lineEndAt(text, end+1)]
		if strings.HasPrefix(next, "<<<<<<< ") {
			return true
		}
		if !isFileNameLine(next) {
			return false
		}
		end += 1 + len(next)
	}
	return false
}

// lineEndAt returns the offset of the end of the line that starts at s.
func lineEndAt(text string, s int) int {
	if e := strings.IndexByte(text[s:], '\n'); e >= 0 {
		return s + e
	}
	return len(text)
}

// regionEnd reports whether the line [start, end) opens a protected
// region and, if so, the offset just past the region's last line; edit
// tells an edit block (which takes its file-name line) from a request.
func (idx *closerIndex) regionEnd(text string, start, end int) (int, bool, bool) {
	line := text[start:end]
	if line == "" {
		return 0, false, false
	}
	switch c := line[0]; {
	case c == '`' || c == '~':
		marker := textkit.FenceMarker(line)
		if marker == "" {
			return 0, false, false
		}
		f := &idx.fence[fenceSlot(c)]
		from := after(f.at, start)
		if from < 0 {
			return 0, false, false
		}
		if opensEditBody(text, end) {
			// A SEARCH/REPLACE block may hold fences of its own (an edit
			// of a Markdown file): it closes after its ">>>>>>> REPLACE".
			if m := after(idx.merge, start); m >= 0 && m > from {
				if from = after(f.at, m); from < 0 {
					return 0, false, false
				}
			}
		}
		// after gives an offset; find its index among the closers.
		i := indexOf(f.at, from)
		if k := f.first(i, len(marker)); k >= 0 {
			return f.end[k], true, true
		}
	case c == '<':
		if strings.HasPrefix(line, "<source") {
			if s := after(idx.source, start); s >= 0 {
				return lineEndAt(text, s), true, true
			}
		} else if strings.HasPrefix(line, "<<<<<<< ") {
			if s := after(idx.merge, start); s >= 0 {
				return lineEndAt(text, s), true, true
			}
		}
	case c == '*':
		if strings.TrimRight(line, " \t\r") == "*** Begin Patch" {
			if s := after(idx.patch, start); s >= 0 {
				return lineEndAt(text, s), true, true
			}
		}
	case c == 'd':
		if strings.HasPrefix(line, "diff --git ") {
			return diffEnd(text, end), true, true
		}
	case c == '#':
		if isRequestLine(line) {
			// aider's user requests: each short, each carries intent.
			return requestEnd(text, end), false, true
		}
		if isUserHeading(line) {
			return userTurnEnd(text, end), false, true
		}
	}
	return 0, false, false
}

// requestEnd returns the end of a run of request lines whose first ends at end.
func requestEnd(text string, end int) int {
	for pos := end + 1; pos < len(text); {
		e := lineEndAt(text, pos)
		if !isRequestLine(text[pos:e]) {
			break
		}
		end, pos = e, e+1
	}
	return end
}

// isUserHeading reports a Markdown heading that opens a user's turn.
func isUserHeading(line string) bool {
	if !strings.HasPrefix(line, "#") || !isTurnHeading(line) {
		return false
	}
	role := strings.ToLower(strings.Trim(strings.TrimSpace(strings.TrimLeft(line, "#")), "*: \r"))
	return role == "user" || role == "human"
}

// userTurnEnd returns the end of the last non-blank line of a user turn
// whose heading ends at end: the turn runs to the next heading.
func userTurnEnd(text string, end int) int {
	last := end
	for pos := end + 1; pos < len(text); {
		e := lineEndAt(text, pos)
		l := text[pos:e]
		if strings.HasPrefix(l, "#") && (isTurnHeading(l) || strings.HasPrefix(l, "## ") || isRequestLine(l)) {
			break
		}
		if strings.TrimSpace(l) != "" {
			last = e
		}
		pos = e + 1
	}
	return last
}

func indexOf(starts []int, v int) int {
	lo, hi := 0, len(starts)
	for lo < hi {
		m := (lo + hi) / 2
		if starts[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// diffEnd returns the end of a git diff whose first line ends at end: the
// diff runs while lines read as diff lines.
func diffEnd(text string, end int) int {
	last := end
	for pos := end + 1; pos < len(text); {
		e := lineEndAt(text, pos)
		if !isDiffLine(text[pos:e]) {
			break
		}
		last, pos = e, e+1
	}
	return last
}

func isDiffLine(l string) bool {
	if l == "" {
		return false
	}
	switch l[0] {
	case ' ', '+', '-', '\\':
		return true
	}
	for _, p := range [...]string{"@@", "diff --git ", "index ", "new file", "deleted file", "similarity", "rename ", "old mode", "new mode", "Binary files"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// hasReserved reports a rune of the placeholder range in text.
func hasReserved(text string) bool {
	// U+E000..U+E03F is EE 80 80 .. EE 80 BF in UTF-8.
	for i := 0; ; {
		k := strings.Index(text[i:], "\xee\x80")
		if k < 0 {
			return false
		}
		i += k
		if i+2 < len(text) && text[i+2] >= 0x80 && text[i+2] <= 0xbf {
			return true
		}
		i += 2
	}
}

// escapeReserved escapes the reserved runes of text, except on lines that
// are placeholders already; base is one past the highest of those.
func escapeReserved(text string) (string, int) {
	var b strings.Builder
	b.Grow(len(text) + 64)
	base := 0
	for start := 0; start < len(text); {
		end := lineEndAt(text, start)
		line := text[start:end]
		if idx, ok := placeholderLine(strings.TrimSuffix(line, "\r")); ok {
			base = max(base, idx+1)
			b.WriteString(line)
		} else {
			for i := 0; i < len(line); {
				r, size := utf8.DecodeRuneInString(line[i:])
				if r >= reservedLo && r <= reservedHi {
					b.WriteRune(protectEscape)
					b.WriteRune(rune(protectEscLo + (r - reservedLo)))
				} else {
					b.WriteString(line[i : i+size]) // invalid bytes stay as they are
				}
				i += size
			}
		}
		if end < len(text) {
			b.WriteByte('\n')
		}
		start = end + 1
	}
	return b.String(), base
}

// placeholderLine reports a line that is one placeholder and its index.
func placeholderLine(line string) (int, bool) {
	if !strings.HasPrefix(line, string(protectOpen)) || !strings.HasSuffix(line, string(protectClose)) || len(line) < 2*len(string(protectOpen)) {
		return 0, false
	}
	return decodePlaceholder(line[len(string(protectOpen)) : len(line)-len(string(protectClose))])
}

// unescapeIf undoes escapeReserved when escaped is set.
func unescapeIf(text string, escaped bool) string {
	if !escaped || !strings.ContainsRune(text, protectEscape) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == protectEscape {
			if n, size2 := utf8.DecodeRuneInString(text[i+size:]); n >= protectEscLo && n < protectEscLo+reservedHi-reservedLo+1 {
				b.WriteRune(rune(reservedLo + (n - protectEscLo)))
				i += size + size2
				continue
			}
		}
		b.WriteString(text[i : i+size])
		i += size
	}
	return b.String()
}

// Restore puts the stashed regions back. It reports false when a placeholder
// is missing or repeated, which means a node broke its contract.
func (s *Stash) Restore(text string) (string, bool) {
	if len(s.regions) == 0 {
		return unescapeIf(text, s.escaped), true
	}
	var out strings.Builder
	out.Grow(len(text) + len(text)/2)
	seen := make([]bool, len(s.regions))
	rest := text
	for {
		i := strings.IndexRune(rest, protectOpen)
		if i < 0 {
			out.WriteString(rest)
			break
		}
		out.WriteString(rest[:i])
		j := strings.IndexRune(rest[i:], protectClose)
		if j < 0 {
			return "", false
		}
		idx, ok := decodePlaceholder(rest[i+len(string(protectOpen)) : i+j])
		if ok && idx < s.base {
			// An outer stash's placeholder: not ours to restore.
			out.WriteString(rest[i : i+j+len(string(protectClose))])
			rest = rest[i+j+len(string(protectClose)):]
			continue
		}
		idx -= s.base
		if !ok || idx < 0 || idx >= len(s.regions) || seen[idx] {
			return "", false
		}
		seen[idx] = true
		out.WriteString(s.regions[idx])
		rest = rest[i+j+len(string(protectClose)):]
	}
	for _, ok := range seen {
		if !ok {
			return "", false
		}
	}
	return unescapeIf(out.String(), s.escaped), true
}

func decodePlaceholder(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for _, r := range s {
		d := int(r) - protectDigit
		if d < 0 || d >= 16 {
			return 0, false
		}
		n = n*16 + d
	}
	return n, true
}
