package pipeline

import (
	"fmt"
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Decoded is a document as the nodes see it.
//
// The rule for bytes that are not UTF-8 text, the same in process and on
// the fleet:
//   - UTF-16 and UTF-32 with a byte-order mark, and UTF-16 without one when
//     it is unmistakable (see guessUTF16), are decoded to UTF-8;
//   - every other invalid byte becomes one U+FFFD, so a document keeps its
//     character count; Replaced counts them;
//   - binary input (NUL-dense, or mostly invalid UTF-8) is not text: it
//     passes through byte for byte, with a reason, and is never compacted.
//
// Every output of a run is Text, or the binary original untouched; the
// stored original keeps the exact bytes.
type Decoded struct {
	Text     string // valid UTF-8, unless Binary is set (then the input)
	Encoding string // utf-8, utf-16le, utf-16be, utf-32le or utf-32be
	Replaced int    // invalid bytes or code units replaced by U+FFFD
	Binary   string // non-empty when the input is not text: why, in counts
	// Chars is Text's character count when Decode counted it while
	// checking the input (valid UTF-8 as given), else 0.
	Chars int
	// Form is Report.Form: set by the pipeline when it read the text in
	// another form than given.
	Form string
}

// Binary input thresholds. Text, even text with NUL-separated records
// (find -print0) or ANSI colours, stays well below them; executables,
// images and archives are above one of them.
const (
	binaryControlPercent = 10 // NUL and other C0 controls (not whitespace or ESC)
	binaryInvalidPercent = 25 // invalid UTF-8 bytes above this share
)

// Decode applies the rule above to raw.
func Decode(raw string) Decoded {
	switch {
	case strings.HasPrefix(raw, "\x00\x00\xfe\xff"):
		return checkWide(decodeUTF32(raw[4:], false), raw)
	case strings.HasPrefix(raw, "\xff\xfe\x00\x00"):
		return checkWide(decodeUTF32(raw[4:], true), raw)
	case strings.HasPrefix(raw, "\xfe\xff"):
		return checkWide(decodeUTF16(raw[2:], false), raw)
	case strings.HasPrefix(raw, "\xff\xfe"):
		return checkWide(decodeUTF16(raw[2:], true), raw)
	}
	ctrl, ascii := controlBytes(raw)
	if ctrl == 0 && ascii {
		return Decoded{Text: raw, Encoding: "utf-8", Chars: len(raw)} // one character a byte
	}
	if ctrl == 0 {
		if chars, valid := textkit.CharsValid(raw); valid {
			return Decoded{Text: raw, Encoding: "utf-8", Chars: chars}
		}
	}
	if ctrl*100 > binaryControlPercent*len(raw) {
		if le, ok := guessUTF16(raw); ok {
			if d := decodeUTF16(raw, le); mostlyText(d.Text) {
				return d
			}
		}
		return Decoded{Text: raw, Encoding: "binary", Binary: fmt.Sprintf("%d of %d bytes are NUL or control characters", ctrl, len(raw))}
	}
	text, replaced := replaceInvalid(raw)
	if replaced*100 > binaryInvalidPercent*len(raw) {
		return Decoded{Text: raw, Encoding: "binary", Binary: fmt.Sprintf("%d of %d bytes are not UTF-8", replaced, len(raw))}
	}
	return Decoded{Text: text, Encoding: "utf-8", Replaced: replaced}
}

// ReportEncoding fills r's Encoding and Replaced for the original raw, as
// Run does; for results that come back from the fleet, whose envelope
// does not carry them.
func ReportEncoding(r *Report, raw string) {
	d := Decode(raw)
	r.Encoding, r.Replaced = "", d.Replaced
	if d.Encoding != "utf-8" {
		r.Encoding = d.Encoding
	}
}

// checkWide keeps a decoding a byte-order mark asked for only when it
// reads as text: binary data that happens to start with a mark is binary.
func checkWide(d Decoded, raw string) Decoded {
	if mostlyText(d.Text) {
		return d
	}
	return Decoded{Text: raw, Encoding: "binary", Binary: "not " + d.Encoding + " text despite its byte-order mark"}
}

// oddControl marks the C0 control bytes text does not use: all but tab,
// newline, vertical tab, form feed, carriage return and ESC.
var oddControl = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	for _, c := range []byte{'\t', '\n', '\v', '\f', '\r', 0x1b} {
		t[c] = false
	}
	return t
}()

// byteLows and byteHighs are the low and high bit of every byte of a word.
const byteLows, byteHighs = 0x0101010101010101, 0x8080808080808080

// controlBytes counts the odd control bytes of s, and reports whether s
// is ASCII: then its characters need no second count. It runs on every
// input, so it reads 32 bytes a step and tests them at once for bytes
// outside 0x20-0x7f: only a step that holds one (a log has one or two a
// line: its line break) is looked at again, word by word.
func controlBytes(s string) (n int, ascii bool) {
	var all uint64 // the words of the steps looked at again, ORed: high bits are bytes >= 0x80
	i := 0
	for ; i+32 <= len(s); i += 32 {
		// Four words, indexed (not resliced). A byte below 0x20 sets its
		// high bit in w-0x20*byteLows (and may borrow from the bytes
		// above it), a byte of 0x80 or more in w: printable ASCII in
		// none.
		q := s[i : i+32]
		a, b, c, d := le64(q[:8]), le64(q[8:16]), le64(q[16:24]), le64(q[24:32])
		const k = 0x20 * byteLows
		if ((a-k)|a|(b-k)|b|(c-k)|c|(d-k)|d)&byteHighs == 0 {
			continue
		}
		all |= a | b | c | d
		if controlNotSpace(a)|controlNotSpace(b)|controlNotSpace(c)|controlNotSpace(d) == 0 {
			continue // blanks and bytes >= 0x80 only
		}
		n += lowControl(a) + lowControl(b) + lowControl(c) + lowControl(d)
	}
	for ; i+8 <= len(s); i += 8 {
		w := le64(s[i:])
		all |= w
		n += lowControl(w)
	}
	for ; i < len(s); i++ {
		all |= uint64(s[i])
		if oddControl[s[i]] {
			n++
		}
	}
	return n, all&byteHighs == 0
}

// le64 reads the eight bytes of b as a little-endian word.
func le64(b string) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// controlNotSpace sets the high bit of every byte of w below 0x20 but
// the blanks '\t' to '\r', and of no other byte: a word of text with its
// line breaks (LF or CRLF) and tabs has none.
func controlNotSpace(w uint64) uint64 {
	const lows7 = 0x7f * byteLows
	low7 := w & lows7
	below := ^(low7 + 0x60*byteLows | w)                                           // below 0x20
	blank := (low7 + (0x80-'\t')*byteLows) &^ (low7 + (0x80-'\r'-1)*byteLows) &^ w // '\t' to '\r'
	return below &^ blank & byteHighs
}

// lowControl counts the odd control bytes of the word w.
func lowControl(w uint64) int {
	n := 0
	// The high bit of every byte below 0x20 is set, and perhaps of a byte
	// a borrow reached: the table decides.
	for low := (w - 0x20*byteLows) &^ w & byteHighs; low != 0; low &= low - 1 {
		if oddControl[byte(w>>(bits.TrailingZeros64(low)&^7))] {
			n++
		}
	}
	return n
}

// guessUTF16 recognises UTF-16 without a byte-order mark by its NUL
// pattern: text in a Latin script has a zero high byte in nearly every
// code unit, so NULs sit at one parity only. It looks at the first 64 KiB.
func guessUTF16(raw string) (littleEndian, ok bool) {
	sample := raw[:min(len(raw), 64<<10)&^1]
	units := len(sample) / 2
	if units < 8 {
		return false, false
	}
	var evenNUL, oddNUL int
	for i := 0; i < len(sample); i += 2 {
		if sample[i] == 0 {
			evenNUL++
		}
		if sample[i+1] == 0 {
			oddNUL++
		}
	}
	switch {
	case oddNUL*10 >= units*6 && evenNUL*50 <= units:
		return true, true
	case evenNUL*10 >= units*6 && oddNUL*50 <= units:
		return false, true
	}
	return false, false
}

// mostlyText reports whether a guessed decoding reads as text: at most 2%
// control characters other than whitespace and ESC, and no more than 1%
// replacement characters.
func mostlyText(s string) bool {
	var n, ctrl, bad int
	for _, r := range s {
		n++
		switch {
		case r == utf8.RuneError:
			bad++
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != '\v' && r != 0x1b:
			ctrl++
		}
	}
	return ctrl*50 <= n && bad*100 <= n
}

func decodeUTF16(b string, littleEndian bool) Decoded {
	enc := "utf-16be"
	if littleEndian {
		enc = "utf-16le"
	}
	unit := func(i int) rune {
		if littleEndian {
			return rune(b[i]) | rune(b[i+1])<<8
		}
		return rune(b[i])<<8 | rune(b[i+1])
	}
	out := make([]byte, 0, len(b)/2+len(b)/8)
	replaced := 0
	i := 0
	for ; i+1 < len(b); i += 2 {
		u := unit(i)
		switch {
		case u < 0xd800 || u > 0xdfff:
			out = utf8.AppendRune(out, u)
		case u <= 0xdbff && i+3 < len(b):
			if lo := unit(i + 2); lo >= 0xdc00 && lo <= 0xdfff {
				out = utf8.AppendRune(out, 0x10000+(u-0xd800)<<10+(lo-0xdc00))
				i += 2
				continue
			}
			fallthrough
		default: // an unpaired surrogate
			out = utf8.AppendRune(out, utf8.RuneError)
			replaced++
		}
	}
	if i < len(b) { // an odd trailing byte
		out = utf8.AppendRune(out, utf8.RuneError)
		replaced++
	}
	return Decoded{Text: string(out), Encoding: enc, Replaced: replaced}
}

func decodeUTF32(b string, littleEndian bool) Decoded {
	enc := "utf-32be"
	if littleEndian {
		enc = "utf-32le"
	}
	out := make([]byte, 0, len(b)/4+len(b)/16)
	replaced := 0
	i := 0
	for ; i+3 < len(b); i += 4 {
		var r rune
		if littleEndian {
			r = rune(b[i]) | rune(b[i+1])<<8 | rune(b[i+2])<<16 | rune(b[i+3])<<24
		} else {
			r = rune(b[i])<<24 | rune(b[i+1])<<16 | rune(b[i+2])<<8 | rune(b[i+3])
		}
		if !utf8.ValidRune(r) {
			r = utf8.RuneError
			replaced++
		}
		out = utf8.AppendRune(out, r)
	}
	if i < len(b) {
		out = utf8.AppendRune(out, utf8.RuneError)
		replaced++
	}
	return Decoded{Text: string(out), Encoding: enc, Replaced: replaced}
}

// replaceInvalid turns every invalid byte into one U+FFFD, as
// stages.Chars counts it, and returns how many it replaced.
func replaceInvalid(s string) (string, int) {
	var b strings.Builder
	replaced, last := 0, 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size != 1 {
			i += size
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s) + 64)
		}
		b.WriteString(s[last:i])
		b.WriteString("\uFFFD")
		replaced++
		i++
		last = i
	}
	if replaced == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), replaced
}
