package jsonfold

import (
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/jetcompact/jetcompact/stages/textkit"
	"github.com/minio/simdjson-go"
)

// simdJSON says whether Valid may use simdjson-go: it needs AVX2 (and
// CLMUL); without them the literal tokenizer checks every document.
var simdJSON = simdjson.SupportedCPU()

// simdJSONMaxBytes bounds the documents given to simdjson-go, whose tape
// takes several times a document's size; larger ones are walked.
const simdJSONMaxBytes = 16 << 20

// parsedPool reuses simdjson-go's tape between documents.
var parsedPool sync.Pool

// Valid reports whether text is one JSON object or array of valid UTF-8.
// Both paths give the same verdict; which one runs decides only the cost.
// simdjson-go's cost grows with the tokens, the literal tokenizer's with
// the bytes (most with non-ASCII ones, whose UTF-8 simdjson-go leaves to a
// second pass), so documents of long ASCII strings go to simdjson-go and
// the rest to the tokenizer: token-dense records of short fields and
// numbers, pretty-printed listings, non-Latin text. What simdjson-go
// refuses is walked again by the tokenizer, which accepts all of JSON's
// grammar (numbers beyond float64 such as 1e400 among them).
func Valid(text string) bool {
	if simdJSON && len(text) > 0 && len(text) <= simdJSONMaxBytes && longASCIIStrings(text) {
		if valid, sure := validBySIMD(text); sure {
			return valid
		}
	}
	return walkJSON(text)
}

// validBySIMD is Valid by simdjson-go; sure is false when simdjson-go
// refused text, which the tokenizer must then judge.
func validBySIMD(text string) (valid, sure bool) {
	reuse, _ := parsedPool.Get().(*simdjson.ParsedJson)
	// simdjson-go reads its input and never writes it. Only validity is
	// asked: strings stay in the input, not copied to the tape.
	pj, err := simdjson.Parse(unsafe.Slice(unsafe.StringData(text), len(text)), reuse, simdjson.WithCopyStrings(false))
	if pj != nil {
		parsedPool.Put(pj)
	}
	if err != nil {
		return false, false
	}
	if hasNonJSONControl(text) || badUnicodeEscape(text) {
		return false, false // simdjson-go takes a form feed for a blank, ' ' to '/' for hex digits
	}
	// simdjson-go does not check the UTF-8 inside strings.
	return utf8.ValidString(text), true
}

// hasNonJSONControl reports a control byte other than JSON's blanks
// (tab, newline, carriage return): never valid JSON anywhere. Eight bytes
// are tested at once; only a word holding some byte below 0x20 (a line
// feed, mostly) is read byte by byte.
func hasNonJSONControl(text string) bool {
	i := 0
	for ; i+8 <= len(text); i += 8 {
		if w := textkit.Load64(text[i:]); (w-0x2020202020202020)&^w&0x8080808080808080 != 0 && nonJSONControlIn(text[i:i+8]) {
			return true
		}
	}
	return nonJSONControlIn(text[i:])
}

func nonJSONControlIn(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return true
		}
	}
	return false
}

// badUnicodeEscape reports a \u escape whose four characters are not all
// hex digits. Escapes are read in order, so an escaped backslash before a
// 'u' opens none.
func badUnicodeEscape(text string) bool {
	for i := strings.IndexByte(text, '\\'); i >= 0 && i+1 < len(text); {
		skip := 2
		if text[i+1] == 'u' {
			if i+6 > len(text) || !isHex4(text[i+2:]) {
				return true
			}
			skip = 6
		}
		i += skip
		j := strings.IndexByte(text[i:], '\\')
		if j < 0 {
			break
		}
		i += j
	}
	return false
}

// bytesPerTokenForSIMD is where simdjson-go starts to pay: 16 or more
// bytes a quote, comma or colon (measured on one core, on generated
// documents and the sample's API fixtures).
const bytesPerTokenForSIMD = 16

// longASCIIStrings reports whether text's head is ASCII with few tokens
// for its size.
func longASCIIStrings(text string) bool {
	head := text[:min(len(text), 16<<10)]
	for i := 0; i+8 <= len(head); i += 8 {
		if textkit.Load64(head[i:])&0x8080808080808080 != 0 {
			return false
		}
	}
	tokens := strings.Count(head, `"`) + strings.Count(head, ",") + strings.Count(head, ":")
	return len(head) >= bytesPerTokenForSIMD*(tokens+1)
}

// walkJSON is Valid by the literal tokenizer alone.
func walkJSON(text string) bool {
	src := newJSONSource(text)
	first := true
	for {
		t, err := src.next()
		if err != nil {
			return false
		}
		if first && t != tokObjStart && t != tokArrStart {
			return false
		}
		if t == tokEnd {
			return true
		}
		first = false
	}
}
