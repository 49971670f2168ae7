package stages

import (
	"strings"
)

// Placeholder lines stand in for protected regions while nodes run. They are
// made of private-use runes only, so no node mistakes them for text, digits
// or words. A node that drops lines must keep every line IsProtectedLine
// reports.
const (
	protectOpen  = '\uE000'
	protectClose = '\uE001'
	protectDigit = 0xE010 // base of the 16 runes that encode the index
)

// IsProtectedLine reports whether line is a placeholder for a protected region.
func IsProtectedLine(line string) bool {
	return strings.HasPrefix(line, string(protectOpen))
}

// Stash holds the regions taken out of a text by Protect.
type Stash struct {
	regions []string
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

// MayHaveFence reports whether text could hold a fenced block at all.
func MayHaveFence(text string) bool {
	return strings.Contains(text, "```") || strings.Contains(text, "~~~")
}

// Protect replaces each complete fenced code block (an opening line that
// starts with ``` or ~~~ and the matching closing line) with a one-line
// placeholder. Unclosed fences are left as text. A text that already holds
// placeholder runes is returned as it is, with an empty stash.
func Protect(text string) (string, *Stash) {
	st := &Stash{}
	if !MayHaveFence(text) {
		return text, st
	}
	if strings.ContainsRune(text, protectOpen) {
		return text, st
	}
	var out strings.Builder
	out.Grow(len(text))
	pos := 0
	lineStart := 0
	for lineStart < len(text) {
		lineEnd := strings.IndexByte(text[lineStart:], '\n')
		if lineEnd < 0 {
			lineEnd = len(text)
		} else {
			lineEnd += lineStart
		}
		fence := fenceMarker(text[lineStart:lineEnd])
		if fence == "" {
			lineStart = lineEnd + 1
			continue
		}
		closeEnd, ok := findFenceClose(text, lineEnd+1, fence)
		if !ok {
			lineStart = lineEnd + 1
			continue
		}
		out.WriteString(text[pos:lineStart])
		out.WriteString(placeholder(len(st.regions)))
		st.regions = append(st.regions, text[lineStart:closeEnd])
		pos = closeEnd
		lineStart = closeEnd + 1
	}
	if len(st.regions) == 0 {
		return text, st
	}
	out.WriteString(text[pos:])
	return out.String(), st
}

// fenceMarker returns "```" or "~~~" (with its full run length) when line opens a fence.
func fenceMarker(line string) string {
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

// findFenceClose finds the line at or after from that closes fence and
// returns the offset just past that line's content (before its newline).
func findFenceClose(text string, from int, fence string) (int, bool) {
	for from <= len(text) && from < len(text) {
		end := strings.IndexByte(text[from:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += from
		}
		line := strings.TrimRight(text[from:end], " \t\r")
		if strings.HasPrefix(line, fence) && strings.Trim(line, fence[:1]) == "" {
			return end, true
		}
		from = end + 1
	}
	return 0, false
}

// Restore puts the stashed regions back. It reports false when a placeholder
// is missing or repeated, which means a node broke its contract.
func (s *Stash) Restore(text string) (string, bool) {
	if len(s.regions) == 0 {
		return text, true
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
		if !ok || idx >= len(s.regions) || seen[idx] {
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
	return out.String(), true
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
