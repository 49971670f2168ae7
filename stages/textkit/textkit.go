// Package textkit holds the text helpers stages and its subpackages share:
// the one character count and the Markdown fence rule.
package textkit

import "unicode/utf8"

// Chars is the one definition of "characters" in jetcompact: runes, as
// utf8.RuneCountInString counts them (an invalid byte is one), with ASCII
// taken 32 or 8 bytes at a time. Every node's input and output is counted.
func Chars(s string) int {
	n, _ := CharsValid(s)
	return n
}

// CharsValid is Chars and utf8.ValidString in one pass.
func CharsValid(s string) (n int, valid bool) {
	const hi = 0x8080808080808080
	valid = true
	for len(s) > 0 {
		if len(s) >= 32 && (le64(s)|le64(s[8:])|le64(s[16:])|le64(s[24:]))&hi == 0 {
			n, s = n+32, s[32:]
			continue
		}
		if len(s) >= 8 && le64(s)&hi == 0 {
			n, s = n+8, s[8:]
			continue
		}
		size := 1
		if s[0] >= utf8.RuneSelf {
			var r rune
			if r, size = utf8.DecodeRuneInString(s); r == utf8.RuneError && size == 1 {
				valid = false
			}
		}
		n, s = n+1, s[size:]
	}
	return n, valid
}

// le64 reads the first eight bytes of s as a little-endian word.
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
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
