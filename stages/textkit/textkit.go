// Package textkit holds the text helpers stages and its subpackages share:
// the one character count, the Markdown fence rule and the classifiers
// of long text (patch, code, failure line).
package textkit

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Chars is the one definition of "characters" in jetcompact: runes, as
// utf8.RuneCountInString counts them (an invalid byte is one), with ASCII
// taken 64 or 8 bytes at a time. Every node's input and output is counted.
func Chars(s string) int {
	n, _ := CharsValid(s)
	return n
}

// CharsValid is Chars and utf8.ValidString in one pass. Past each
// non-ASCII rune it goes back to taking ASCII by words.
func CharsValid(s string) (n int, valid bool) {
	const hi = 0x8080808080808080
	valid = true
	for len(s) > 0 {
		if len(s) >= 8 {
			w := Load64(s) & hi
			if w == 0 {
				n, s = n+8, s[8:]
				// ASCII text: 64 bytes a step, one test.
				for len(s) >= 64 && (Load64(s)|Load64(s[8:])|Load64(s[16:])|Load64(s[24:])|
					Load64(s[32:])|Load64(s[40:])|Load64(s[48:])|Load64(s[56:]))&hi == 0 {
					n, s = n+64, s[64:]
				}
				continue
			}
			// The ASCII bytes before the word's first high one.
			k := bits.TrailingZeros64(w) >> 3
			n, s = n+k, s[k:]
		} else if s[0] < utf8.RuneSelf {
			n, s = n+1, s[1:]
			continue
		}
		r, size := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && size == 1 {
			valid = false
		}
		n, s = n+1, s[size:]
	}
	return n, valid
}

// Load64 reads the first eight bytes of s as a little-endian word.
func Load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// ZeroBytes sets the high bit of each byte of v that is zero, and of no
// other (exact, unlike the usual shortcut that may mark a byte above a
// zero one).
func ZeroBytes(v uint64) uint64 {
	const lo7 = 0x7f7f7f7f7f7f7f7f
	return ^((v&lo7 + lo7) | v | lo7)
}

// FenceMarker returns "```" or "~~~" (with its full run length) when line opens a fence.
func FenceMarker(line string) string {
	for _, ch := range []byte{'`', '~'} {
		n := 0
		for n < len(line) && line[n] == ch {
			n++
		}
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// WordCut trims a partial word from the end (or, from start, the start) of r.
func WordCut(r []rune, fromStart bool) []rune {
	const reach = 16
	if fromStart {
		for i := 0; i < len(r) && i < reach; i++ {
			if r[i] == ' ' || r[i] == '\n' {
				return r[i+1:]
			}
		}
		return r
	}
	for i := len(r) - 1; i >= 0 && i >= len(r)-reach; i-- {
		if r[i] == ' ' || r[i] == '\n' {
			return r[:i]
		}
	}
	return r
}

// IsPatch reports a unified diff, a git patch or an apply_patch envelope.
func IsPatch(v string) bool {
	return strings.HasPrefix(v, "diff --git ") || strings.Contains(v, "\ndiff --git ") ||
		strings.Contains(v, "*** Begin Patch") ||
		(strings.Contains(v, "\n@@ ") || strings.HasPrefix(v, "@@ ")) && strings.Contains(v, "\n+") ||
		strings.HasPrefix(v, "--- ") && strings.Contains(v, "\n+++ ")
}

// IsCode reports lines of source code: most of them indented or
// ending in punctuation that code ends lines with.
func IsCode(lines []string) bool {
	code, nonBlank := 0, 0
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		nonBlank++
		last := t[len(t)-1]
		switch {
		case last == '{' || last == '}' || last == ';' || last == ')' || last == ':' || last == ',' || last == '(' || last == ']':
			code++
		case strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t"):
			code++
		case strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "return"):
			code++
		}
	}
	return nonBlank > 0 && code*2 >= nonBlank
}

// IsFailureLine reports a line that tells of a failure.
func IsFailureLine(l string) bool {
	for i := 0; i+1 < len(l); i++ {
		c, d := l[i]|0x20, l[i+1]|0x20
		if c < 'a' || c > 'z' || d < 'a' || d > 'z' || !failurePairs[c-'a'][d-'a'] {
			continue
		}
		for _, w := range failureByFirst[c-'a'] {
			if len(l)-i >= len(w) && asciiFoldEqual(l[i+1:i+len(w)], w[1:]) {
				return true
			}
		}
	}
	return false
}

var failureWords = [...]string{"error", "exception", "fail", "fatal", "panic", "traceback", "caused by", "denied", "refused", "timeout", "timed out"}

// failureByFirst holds failureWords by their first letter, and
// failurePairs marks their first two letters.
var (
	failureByFirst [26][]string
	failurePairs   [26][26]bool
)

func init() {
	for _, w := range failureWords {
		failureByFirst[w[0]-'a'] = append(failureByFirst[w[0]-'a'], w)
		failurePairs[w[0]-'a'][w[1]-'a'] = true
	}
}

// asciiFoldEqual reports whether s equals lower, a lower-case ASCII word,
// ASCII letters compared without case.
func asciiFoldEqual(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// HeadFailuresTail keeps the head, the tail and the failure lines of
// output that is neither a log nor code (len(lines) >= 12).
func HeadFailuresTail(lines []string) string {
	const headLines, tailLines, signals = 4, 6, 20
	var b strings.Builder
	b.WriteString(strings.Join(lines[:headLines], "\n"))
	skipped, kept := 0, 0
	for _, l := range lines[headLines : len(lines)-tailLines] {
		if kept < signals && IsFailureLine(l) {
			if skipped > 0 {
				b.WriteString("\n…[" + strconv.Itoa(skipped) + " lines]…")
				skipped = 0
			}
			b.WriteString("\n" + l)
			kept++
			continue
		}
		skipped++
	}
	if skipped > 0 {
		b.WriteString("\n…[" + strconv.Itoa(skipped) + " lines]…")
	}
	b.WriteString("\n" + strings.Join(lines[len(lines)-tailLines:], "\n"))
	return b.String()
}

// FNVOffset and FNVPrime are the 64-bit FNV-1a constants the hashes of
// lines and tokens use.
const (
	FNVOffset = 14695981039346656037
	FNVPrime  = 1099511628211
)

// IsStatusField names a field or a column whose rare values set a record
// apart: a status, a state, a result, a level, an error.
func IsStatusField(name string) bool {
	l := strings.ToLower(name)
	for _, w := range [...]string{"status", "state", "error", "err", "level", "severity", "result", "conclusion", "outcome", "code", "ok", "success", "fail", "exception", "type", "kind"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// RareValue reports a value held by count of n records, the most common
// value by top of them, that sets its records apart: at most one in
// fifty, or one or two of ten or more, hold it while at least half share
// one value (FAILED among ok).
func RareValue(count, top, n int) bool {
	return count > 0 && (count*50 <= n || count <= 2 && count*10 <= n) && top*2 >= n
}

// Rarest keeps the Max rarest items offered, in the order they were
// offered; of equal rarity the earlier stays. An item's rarity is how
// many records share what sets it apart, at least 1.
type Rarest[T any] struct {
	Max    int
	Items  []T
	rarity []int
}

// Offer adds item when it is among the Max rarest so far.
func (r *Rarest[T]) Offer(item T, rarity int) {
	if len(r.Items) == r.Max {
		worst := 0
		for k := range r.rarity {
			if r.rarity[k] >= r.rarity[worst] {
				worst = k
			}
		}
		if rarity >= r.rarity[worst] {
			return
		}
		r.Items = slices.Delete(r.Items, worst, worst+1)
		r.rarity = slices.Delete(r.rarity, worst, worst+1)
	}
	r.Items = append(r.Items, item)
	r.rarity = append(r.rarity, rarity)
}

// BoolOrder orders false before true: 0 for false, 1 for true.
func BoolOrder(b bool) int {
	if b {
		return 1
	}
	return 0
}

// IsBlank reports a line of white space only (strings.TrimSpace(s) ==
// ""); a line that opens with a printable ASCII byte answers at once.
func IsBlank(s string) bool {
	if s != "" && s[0] > ' ' && s[0] < 0x7f {
		return false
	}
	return isBlankSlow(s)
}

// isBlankSlow is IsBlank past its first byte's test, apart so that the
// test inlines.
//
//go:noinline
func isBlankSlow(s string) bool { return strings.TrimSpace(s) == "" }
