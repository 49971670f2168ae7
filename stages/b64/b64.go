// Package b64 folds base64 blobs: long runs of the base64 alphabet
// (standard or URL-safe, optionally wrapped at a fixed width as in MIME and
// PEM) and data: URIs become a marker giving their length and the kind of
// content, sniffed from the magic bytes of the decoded prefix. One pass,
// linear.
package b64

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf8"
)

var b64Alphabet = func() (t [256]bool) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	t['+'], t['/'], t['-'], t['_'] = true, true, true, true
	return t
}()

// minWrapWidth and maxWrapWidth bound the lines of a wrapped base64
// block (PEM wraps at 64, MIME at 76).
const (
	minWrapWidth = 40
	maxWrapWidth = 120
)

// maxMimeChars bounds the content kind a marker repeats from a data: URI.
const maxMimeChars = 30

// b64Run is a candidate: text[start:end] holds count alphabet characters,
// maybe padding and line breaks.
type b64Run struct {
	start, end, count int
}

// scanB64Run returns the run that starts at i, where text[i] is in the
// alphabet and text[i-1] is not. count includes padding, not line breaks.
func scanB64Run(text string, i int) b64Run {
	j := i
	for j < len(text) && b64Alphabet[text[j]] {
		j++
	}
	r := b64Run{start: i, end: skipPadding(text, j)}
	r.count = r.end - i
	width := j - i
	atLineStart := i == 0 || text[i-1] == '\n'
	if !atLineStart || width < minWrapWidth || width > maxWrapWidth || r.end != j || !lineEndsAt(text, j) {
		return r
	}
	// A wrapped block: whole lines of the alphabet, all as wide as the
	// first; the last one may be narrower, padded, and completes a
	// multiple of four characters.
	pos := j
	for {
		next := pos
		if next < len(text) && text[next] == '\r' {
			next++
		}
		if next >= len(text) || text[next] != '\n' {
			return r
		}
		next++
		k := next
		for k < len(text) && b64Alphabet[text[k]] {
			k++
		}
		w := k - next
		end := skipPadding(text, k)
		if w == 0 || w > width || !lineEndsAt(text, end) {
			return r
		}
		count := r.count + end - next
		if w < width || end != k {
			if count%4 == 0 {
				r.end, r.count = end, count
			}
			return r
		}
		r.end, r.count = end, count
		pos = end
	}
}

func skipPadding(text string, j int) int {
	for n := 0; n < 2 && j < len(text) && text[j] == '='; n++ {
		j++
	}
	return j
}

func lineEndsAt(text string, j int) bool {
	return j == len(text) || text[j] == '\n' || (text[j] == '\r' && j+1 < len(text) && text[j+1] == '\n')
}

// looksBase64 tells encoded bytes from long words, paths and identifiers:
// all three character classes, one variant of the two extra characters,
// and those rare, as they are in encoded data.
func looksBase64(run string) bool {
	var upper, lower, digit, std, url, n int
	for i := 0; i < len(run); i++ {
		c := run[i]
		switch {
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= 'a' && c <= 'z':
			lower++
		case c >= '0' && c <= '9':
			digit++
		case c == '+' || c == '/':
			std++
		case c == '-' || c == '_':
			url++
		default:
			continue
		}
		n++
	}
	if upper == 0 || lower == 0 || digit == 0 || (std > 0 && url > 0) {
		return false
	}
	return (std+url)*16 <= n
}

// b64Prefix returns up to 64 alphabet characters from the start of run,
// line breaks dropped, cut to a multiple of 4.
func b64Prefix(run string) (string, bool) {
	var buf [64]byte
	n, url := 0, false
	for i := 0; i < len(run) && n < len(buf); i++ {
		c := run[i]
		if !b64Alphabet[c] {
			continue
		}
		if c == '-' || c == '_' {
			url = true
		}
		buf[n] = c
		n++
	}
	return string(buf[:n&^3]), url
}

// sniffBase64 names the content of a base64 run from its decoded prefix.
func sniffBase64(run string) string {
	prefix, url := b64Prefix(run)
	enc := base64.StdEncoding
	if url {
		enc = base64.URLEncoding
	}
	b, err := enc.DecodeString(prefix)
	if err != nil || len(b) == 0 {
		return "binary"
	}
	magic := []struct {
		prefix, kind string
	}{
		{"\x89PNG", "image/png"},
		{"\xff\xd8\xff", "image/jpeg"},
		{"GIF8", "image/gif"},
		{"%PDF", "application/pdf"},
		{"\x1f\x8b", "application/gzip"},
		{"PK\x03\x04", "application/zip"},
		{"\x7fELF", "application/x-elf"},
		{"\x00asm", "application/wasm"},
		{"<svg", "image/svg+xml"},
		{"<?xml", "text/xml"},
	}
	for _, m := range magic {
		if bytes.HasPrefix(b, []byte(m.prefix)) {
			return m.kind
		}
	}
	if len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP" {
		return "image/webp"
	}
	// Text when the prefix is UTF-8 (its last rune may be cut) and printable.
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			if len(b)-i < utf8.UTFMax && !utf8.FullRune(b[i:]) {
				break
			}
			return "binary"
		}
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' {
			return "binary"
		}
		i += size
	}
	return "text"
}

// base64Marker is the text that replaces a blob.
func base64Marker(count int, kind string, transcript bool) string {
	if transcript {
		return "[base64 blob, " + kind + "]"
	}
	return "[base64 blob: " + strconv.Itoa(count) + " chars, " + kind + "]"
}

// dataURIStart returns where the data: URI whose payload starts at i
// begins, and its media type, or -1.
func dataURIStart(text string, i int) (int, string) {
	const tag = ";base64,"
	if i < len(tag) || text[i-len(tag):i] != tag {
		return -1, ""
	}
	head := text[:i-len(tag)]
	from := max(0, len(head)-128)
	p := strings.LastIndex(head[from:], "data:")
	if p < 0 {
		return -1, ""
	}
	p += from
	mime := head[p+len("data:"):]
	if strings.ContainsAny(mime, " \t\r\n\"'<>()") {
		return -1, ""
	}
	if k := strings.IndexByte(mime, ';'); k >= 0 {
		mime = mime[:k] // drop parameters such as charset
	}
	return p, mime
}

func blobKind(mime, run string) string {
	if mime == "" {
		return sniffBase64(run)
	}
	if len(mime) > maxMimeChars {
		mime = mime[:maxMimeChars]
	}
	return mime
}

// Value returns the marker for a string value (a JSON string, say) that
// is wholly a base64 blob or a data: URI of at least minChars characters.
func Value(s string, minChars int) (string, bool) {
	start, mime := 0, ""
	if strings.HasPrefix(s, "data:") {
		k := strings.Index(s, ";base64,")
		if k < 0 || k > 128 {
			return "", false
		}
		if p, m := dataURIStart(s, k+len(";base64,")); p == 0 {
			start, mime = k+len(";base64,"), m
		} else {
			return "", false
		}
	}
	run := s[start:]
	count, i := 0, 0
	for i < len(run) {
		c := run[i]
		switch {
		case b64Alphabet[c] || c == '=':
			count++
		case c == '\n' || c == '\r':
		default:
			return "", false
		}
		i++
	}
	if trimmed := strings.TrimRight(run, "=\r\n"); strings.Contains(trimmed, "=") || len(run)-len(trimmed) > 4 {
		return "", false // padding only at the end
	}
	if count < minChars || !looksBase64(run) {
		return "", false
	}
	return base64Marker(count, blobKind(mime, run), false), true
}

// Fold replaces every base64 blob of at least minChars characters in text
// with its marker; transcript drops the length from the marker. check is
// called in the scan loop and its error, a canceled context's say, stops
// the fold.
func Fold(text string, minChars int, transcript bool, check func() error) (string, error) {
	var out strings.Builder
	last := 0
	// Runs shorter than minRun are words: too short to fold, and too narrow
	// to open a wrapped block (padding adds two at most).
	minRun := max(1, min(minWrapWidth, minChars-2))
	// Only a run of longRun or more folds where it stands; a shorter one
	// opens a wrapped block or is left. Lines with neither are skipped.
	longRun := max(minRun, minChars-2)
	for i := nextLineMayFold(text, 0, longRun); i+minRun <= len(text); {
		// No run of minRun starts in [i, j], where j is the last byte of
		// [i, i+minRun) outside the alphabet: it would cover j. Scanning
		// back from the end skips about minRun bytes at a time through
		// text without long runs.
		j := i + minRun - 1
		for j >= i && b64Alphabet[text[j]] {
			j--
		}
		if j >= i {
			i = j + 1
			continue
		}
		if err := check(); err != nil {
			return "", err
		}
		// A run of minRun or more starts at i.
		r := scanB64Run(text, i)
		if r.count >= minChars && looksBase64(text[r.start:r.end]) {
			from, mime := dataURIStart(text, r.start)
			if from < last {
				from, mime = r.start, ""
			}
			if out.Len() == 0 {
				out.Grow(len(text) / 2)
			}
			out.WriteString(text[last:from])
			out.WriteString(base64Marker(r.count, blobKind(mime, text[r.start:r.end]), transcript))
			last = r.end
		}
		i = nextLineMayFold(text, max(r.end, i+1), longRun)
	}
	if last == 0 {
		return text, nil
	}
	out.WriteString(text[last:])
	return out.String(), nil
}

// nextLineMayFold returns i when the rest of its line may hold a blob,
// else the start of the first line after it that may (see lineMayFold),
// or len(text). What it skips Fold would leave: runs too short to fold
// that open no wrapped block.
func nextLineMayFold(text string, i, longRun int) int {
	lineStart := i == 0 || i <= len(text) && text[i-1] == '\n'
	for i < len(text) {
		end := strings.IndexByte(text[i:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += i
		}
		if lineMayFold(text[i:end], lineStart, longRun) {
			return i
		}
		i, lineStart = end+1, true
	}
	return len(text)
}

// LineMayFold reports whether a line of a text may hold a run Fold
// folds: when no line of a text may, Fold returns the text as it is.
func LineMayFold(line string, minChars int) bool {
	longRun := max(1, minChars-2) // as Fold's
	if len(line) < longRun {
		// Too short for a long run: only a wrapped block's first line.
		return len(line) >= minWrapWidth && allAlphabet(line[:minWrapWidth])
	}
	return lineMayFold(line, true, longRun)
}

// lineMayFold reports a line (or the rest of one) that holds a run of
// longRun alphabet characters, or that opens with minWrapWidth of them
// (the first line of a wrapped block) when it is a whole line.
func lineMayFold(line string, whole bool, longRun int) bool {
	if whole && len(line) >= minWrapWidth && allAlphabet(line[:minWrapWidth]) {
		return true
	}
	for i := 0; i+longRun <= len(line); {
		j := i + longRun - 1
		for j >= i && b64Alphabet[line[j]] {
			j--
		}
		if j < i {
			return true
		}
		i = j + 1
	}
	return false
}

// allAlphabet reports whether every byte of s is in the alphabet. It
// first looks eight bytes at a time, from the end, for a byte below '+'
// (a blank, say): none is in the alphabet.
func allAlphabet(s string) bool {
	for j := len(s) - 8; j >= 0; j -= 8 {
		if hasByteBelowPlus(load64(s[j:])) {
			return false
		}
	}
	for j := len(s) - 1; j >= 0; j-- {
		if !b64Alphabet[s[j]] {
			return false
		}
	}
	return true
}

// load64 returns the first eight bytes of s, little-endian.
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// hasByteBelowPlus reports whether a byte of w is below '+': subtracting
// '+' from each byte borrows, setting its top bit, only under one that
// is below; bytes with their own top bit set are masked out.
func hasByteBelowPlus(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	return (w-ones*'+')&^w&highs != 0
}
