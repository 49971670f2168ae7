package jsonfold

import (
	"strings"
	"sync/atomic"
)

// A tape is the token stream of one valid JSON document as the literal
// tokenizer read it while Valid checked the document: what next leaves
// behind after each token (its kind, pos, and a literal's offsets and
// escape flag). The fold reads a tape instead of tokenizing the same
// bytes a second time.

// Tape is the recorded token stream of one JSON document (see ValidTape).
// It is read-only once made and safe to share.
type Tape struct {
	text string    // the document the tape was read from
	end  int       // where its root value closes
	toks []tapeTok // one a token
	read atomic.Int64
}

// Reads reports how many folds have read tp.
func (tp *Tape) Reads() int64 { return tp.read.Load() }

// tapeTok is one token: its kind and where it ends (pos after it; a
// key's literal end, its colon after that), and a literal's start.
type tapeTok struct {
	end  uint32 // jsonTok<<28 | offset
	from uint32 // tapeEsc | tapeKey | a string's or number's start; 0 for other tokens
}

const (
	tapeOffBits = 28
	tapeOff     = 1<<tapeOffBits - 1 // the offset bits
	tapeEsc     = 1 << 28            // a string literal that holds escapes
	tapeKey     = 1 << 29            // a key: pos is after the colon that follows
	// tapeMaxText bounds the documents a tape's offsets hold.
	tapeMaxText = 1 << tapeOffBits
)

// tapeBytesPerByte bounds a tape's size: at most this many bytes of
// tape per byte of its document (token-dense records take about 1.2).
// A document past it is walked without a tape, as is one too long for
// the tape's offsets.
const tapeBytesPerByte = 2

// tapeMaxToks is the most tokens a tape of a document of n bytes holds.
func tapeMaxToks(n int) int { return tapeBytesPerByte*n/8 + 64 }

// ValidTape is Valid, and the tape of text when the literal tokenizer
// judged it valid within the size bound; nil otherwise (simdjson-go
// judged it, or the tape grew past the bound and was dropped).
func ValidTape(text string) (bool, *Tape) {
	if simdJSON && len(text) > 0 && len(text) <= simdJSONMaxBytes && longASCIIStrings(text) {
		if valid, sure := validBySIMD(text); sure {
			return valid, nil
		}
	}
	return walkJSONTape(text)
}

// walkJSONTape is walkJSON recording the tape while it fits.
func walkJSONTape(text string) (bool, *Tape) {
	if len(text) >= tapeMaxText {
		return walkJSON(text), nil
	}
	pos := len(text) - len(strings.TrimLeft(text, " \t\r\n"))
	if pos == len(text) || (text[pos] != '{' && text[pos] != '[') {
		return false, nil
	}
	maxToks := tapeMaxToks(len(text))
	r := &tapeRec{toks: make([]tapeTok, 0, min(maxToks, estimateTokens(text))), max: maxToks}
	valid, end := walkTape(text, pos, r)
	if !valid || r.off {
		return valid, nil // r.off: too dense for its bound, the fold tokenizes
	}
	return true, &Tape{text: text, end: end, toks: r.toks}
}

// estimateTokens guesses the tokens of text from the punctuation of its
// head: about five tokens for every four commas, colons and openings.
func estimateTokens(text string) int {
	head := text[:min(len(text), 16<<10)]
	if head == "" {
		return 0
	}
	n := strings.Count(head, ",") + strings.Count(head, ":") + strings.Count(head, "{") + strings.Count(head, "[")
	return int(float64(n)*1.25*float64(len(text))/float64(len(head))) + 64
}

// tapeTok is the tape's record of the token t that next just returned.
func (s *jsonSource) tapeTok(t jsonTok) tapeTok {
	if t != tokString && t != tokInt && t != tokFloat {
		return tapeTok{end: uint32(t)<<tapeOffBits | uint32(s.pos)}
	}
	e := tapeTok{end: uint32(t)<<tapeOffBits | uint32(s.litTo), from: uint32(s.litFrom)}
	if t == tokString {
		if s.esc {
			e.from |= tapeEsc
		}
		if s.pos != s.litTo {
			e.from |= tapeKey
		}
	}
	return e
}

// Fits reports whether tp was read from text: text is tp's document, up
// to trailing space after the root value.
func (tp *Tape) Fits(text string) bool {
	return tp != nil && len(text) >= tp.end && len(text) <= len(tp.text) && tp.text[:len(text)] == text
}

// tapeSource returns a source that reads text's tokens from tp, which
// fits text.
func tapeSource(text string, tp *Tape) *jsonSource {
	tp.read.Add(1)
	return &jsonSource{s: text, taped: true, toks: tp.toks}
}

// tapeNext is next for a source that reads a tape.
func (s *jsonSource) tapeNext() jsonTok {
	if s.ti >= len(s.toks) {
		s.pos = len(s.s)
		return tokEnd
	}
	e := s.toks[s.ti]
	s.ti++
	t := jsonTok(e.end >> tapeOffBits)
	s.pos = int(e.end & tapeOff)
	if e.from == 0 { // no literal: a root value's literals start past 0
		return t
	}
	s.litFrom, s.litTo = int(e.from&tapeOff), s.pos
	if t == tokString {
		s.esc = e.from&tapeEsc != 0
		if e.from&tapeKey != 0 {
			// Space, if any, then the colon.
			p := s.pos
			for s.s[p] != ':' {
				p++
			}
			s.pos = p + 1
		}
	}
	return t
}

// tapeMember is member for a source that reads a tape: the key's token,
// then its value's by tapeNext, in one call. The tape holds the member
// or the closing brace an open object expects.
func (s *jsonSource) tapeMember() (key string, keyEsc bool, t jsonTok) {
	e := s.toks[s.ti]
	s.ti++
	if e.from == 0 {
		s.pos = int(e.end & tapeOff)
		return "", false, tokObjEnd
	}
	// The key's pos, after its colon, is never seen: its value's follows.
	s.litFrom, s.litTo, s.esc = int(e.from&tapeOff), int(e.end&tapeOff), e.from&tapeEsc != 0
	key, keyEsc = s.s[s.litFrom:s.litTo], s.esc
	return key, keyEsc, s.tapeNext()
}
