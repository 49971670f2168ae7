package logs

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// refTokenizeHexFirst is tokenize as first written: every token that
// opens with a hex digit is tried as a MAC or IPv6 address before its
// bytes are scanned.
func refTokenizeHexFirst(line string, dst []Tok) []Tok {
	first := len(dst) // this line's tokens start there
	for i := 0; i < len(line); i++ {
		seen := tokClass[line[i]] // the classes of the token's bytes
		if seen&tcSep != 0 {
			if opensValue[line[i]] {
				dst, i = bracketedValue(line, i, dst)
			}
			continue
		}
		if line[i] == '\\' {
			if d, last := quotedPhrase(line, i, 2, dst); last > i {
				dst, i = d, last
				continue
			}
		}
		if seen&tcHex != 0 && mayOpenHexGroups(line, i) {
			if e := hexGroupsEnd(line, i); e > 0 {
				dst = append(dst, Tok{h: fnvOffset, Start: int32(i), End: int32(e), flags: tokVariable})
				i = e - 1
				continue
			}
		}
		start := i
		i, seen = tokenBytes(line, i, seen)
		end := i
		if seen&tcHigh != 0 || i < len(line) && line[i] == 0x1b {
			end, i, seen = tokenEnd(line, start, i, seen)
		}
		t := line[start:end]
		if seen&(tcDigit|tcSlash) == 0 {
			// A word, the most common token: a calendar word (letters
			// only) or a generated name is a variable, any other its own
			// shape.
			k := Tok{h: fnvOffset, Start: int32(start), End: int32(end), flags: tokVariable}
			if !(len(t) == 3 && textkit.IsCalendarName(t)) && (seen&(tcDash|tcNet) == 0 || !isDataWord(t, seen)) {
				k.h, k.flags = wordHash(t), k.flags&^tokVariable
			}
			dst = append(dst, k)
			continue
		}
		k := Tok{h: fnvOffset, Start: int32(start), End: int32(end), flags: tokVariable}
		switch {
		case len(t) == 3 && textkit.IsCalendarName(t): // isCalendarWord
		case seen&tcSlash != 0 && len(t) >= 3:
			k = slashToken(line, dst[first:], t)
			k.Start, k.End = int32(start), int32(end)
		case seen&tcDigit == 0:
			k.h, k.flags = wordHash(t), k.flags&^tokVariable
		case seen&tcLetter == 0:
			// Numbers and punctuation only (dates, times, addresses): a
			// variable, whose hash no one reads (see TokenID).
		case hexValue(line, start, t, seen):
			k.flags |= flagIf(hexLiteralShape(t), tokDigitValued)
		default:
			if n := dashedIDName(t, seen); n > 0 {
				// A named id (OpenStack req-<uuid>, span_<uuid>): its
				// name is the shape, the id a value.
				k.h, k.flags = wordHash(t[:n])^'I', k.flags&^tokVariable
				break
			}
			k = maskToken(t)
			k.Start, k.End = int32(start), int32(end)
			k.flags |= flagIf(hexLiteralShape(t), tokDigitValued)
		}
		dst = append(dst, k)
	}
	return dst
}

// hexColonLine draws a line of hex digits, other letters, ':' and
// separators, with MAC and IPv6 addresses and clocks among them.
func hexColonLine(r *rand.Rand) string {
	const alphabet = "0123456789abcdefABCDEFxyz:::  -_./[]=\"\\"
	var b []byte
	for range r.IntN(60) {
		switch r.IntN(8) {
		case 0:
			b = fmt.Appendf(b, "fa:16:3e:%02x:%02x:%02x", r.IntN(256), r.IntN(256), r.IntN(256))
		case 1:
			b = fmt.Appendf(b, "fe80::%x:%x:%x:%x", r.IntN(1<<16), r.IntN(1<<16), r.IntN(99), r.IntN(9))
		case 2:
			b = fmt.Appendf(b, "%02d:%02d:%02d", r.IntN(24), r.IntN(60), r.IntN(60))
		default:
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
	}
	return string(b)
}

// TestTokenizeHexGroupsAfterScan: tokenize, which tries a token as an
// address only when it is at most four bytes before a ':', gives the
// tokens of the loop that tried every token opening with a hex digit.
func TestTokenizeHexGroupsAfterScan(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 83))
	for n := range 50000 {
		line := hexColonLine(r)
		if got, want := fmt.Sprint(tokenize(line, nil)), fmt.Sprint(refTokenizeHexFirst(line, nil)); got != want {
			t.Fatalf("line %d %q: tokens %s, want %s", n, line, got, want)
		}
	}
}

func FuzzTokenizeHexGroupsAfterScan(f *testing.F) {
	f.Add("mac fa:16:3e:0c:1d:2e up at 10:00:01 from fe80::1:2:3:4")
	f.Add("a:b:c:d:e:1 ab:cd:ef:01:23")
	f.Fuzz(func(t *testing.T, line string) {
		if got, want := fmt.Sprint(tokenize(line, nil)), fmt.Sprint(refTokenizeHexFirst(line, nil)); got != want {
			t.Fatalf("%q: tokens %s, want %s", line, got, want)
		}
	})
}
