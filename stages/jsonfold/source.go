package jsonfold

import (
	"errors"
	"math/bits"
	"strings"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// The JSON fold walks a stream of tokens read straight from the text: a
// value that is kept is copied as its literal, byte for byte (numbers keep
// 1.10 and 18446744073709551616; strings keep their escapes).

type jsonTok uint8

const (
	tokEnd jsonTok = iota // the document is over
	tokObjStart
	tokObjEnd
	tokArrStart
	tokArrEnd
	tokString // a key or a string value; text() holds its literal, str() its value
	tokInt    // an integer literal
	tokFloat  // any other number literal
	tokTrue
	tokFalse
	tokNull
)

// errBadJSON means the text is not one valid JSON value.
var errBadJSON = errors.New("malformed JSON")

// jsonSource is a pull tokenizer over one JSON object or array.
type jsonSource struct {
	s       string
	pos     int
	frames  []jsonFrame
	litFrom int  // the literal of the last string or number: s[litFrom:litTo]
	litTo   int  // (offsets, not a string: no write barrier per token)
	esc     bool // the last string literal holds escapes
	done    bool // the root value is closed
	started bool // the root value has begun
	// A source made by tapeSource reads its tokens from a tape.
	taped bool
	toks  []tapeTok
	ti    int // the next token's index in toks
}

// jsonFrame is one open container and where its grammar stands.
type jsonFrame struct {
	obj   bool
	state uint8 // frameStart, frameValue, frameAfter, frameNext
}

const (
	frameStart uint8 = iota // after the opening bracket
	frameValue              // object: after "key":
	frameAfter              // after a value: ',' or the closing bracket
	frameNext               // after ',': a key (object) or a value (array)
)

func newJSONSource(text string) *jsonSource {
	return &jsonSource{s: text, frames: make([]jsonFrame, 0, 16)}
}

// text returns the literal of the last tokString, tokInt or tokFloat.
func (s *jsonSource) text() string { return s.s[s.litFrom:s.litTo] }

// str returns the value of the last tokString.
func (s *jsonSource) str() string { return stringValue(s.text(), s.esc) }

func (s *jsonSource) skipSpace() {
	for s.pos < len(s.s) && s.s[s.pos] <= ' ' {
		switch s.s[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *jsonSource) next() (jsonTok, error) {
	if s.taped {
		return s.tapeNext(), nil
	}
	s.skipSpace()
	if s.done {
		if s.pos == len(s.s) {
			return tokEnd, nil
		}
		return tokEnd, errBadJSON
	}
	if len(s.frames) == 0 {
		if s.started {
			return tokEnd, errBadJSON
		}
		s.started = true
		if s.pos < len(s.s) && (s.s[s.pos] == '{' || s.s[s.pos] == '[') {
			return s.value()
		}
		return tokEnd, errBadJSON
	}
	if s.pos >= len(s.s) {
		return tokEnd, errBadJSON
	}
	top := &s.frames[len(s.frames)-1]
	c := s.s[s.pos]
	switch top.state {
	case frameStart, frameAfter:
		if (top.obj && c == '}') || (!top.obj && c == ']') {
			s.pos++
			s.frames = s.frames[:len(s.frames)-1]
			s.closed()
			if top.obj {
				return tokObjEnd, nil
			}
			return tokArrEnd, nil
		}
		if top.state == frameAfter {
			if c != ',' {
				return tokEnd, errBadJSON
			}
			s.pos++
			s.skipSpace()
			top.state = frameNext
		}
	}
	if top.obj && top.state != frameValue {
		// A key, then its colon.
		if s.pos >= len(s.s) || s.s[s.pos] != '"' {
			return tokEnd, errBadJSON
		}
		if err := s.stringLit(); err != nil {
			return tokEnd, err
		}
		s.skipSpace()
		if s.pos >= len(s.s) || s.s[s.pos] != ':' {
			return tokEnd, errBadJSON
		}
		s.pos++
		top.state = frameValue
		return tokString, nil
	}
	top.state = frameAfter
	return s.value()
}

// member reads the next member of the object that is the innermost open
// container, as two calls of next would: its key's literal and whether
// it holds escapes, then the first token of its value (text() holds a
// scalar's literal). At the closing brace it returns tokObjEnd.
func (s *jsonSource) member() (key string, keyEsc bool, t jsonTok, err error) {
	if s.taped {
		key, keyEsc, t = s.tapeMember()
		return key, keyEsc, t, nil
	}
	top := &s.frames[len(s.frames)-1]
	s.skipSpace()
	if s.pos >= len(s.s) {
		return "", false, tokEnd, errBadJSON
	}
	c := s.s[s.pos]
	if c == '}' {
		s.pos++
		s.frames = s.frames[:len(s.frames)-1]
		s.closed()
		return "", false, tokObjEnd, nil
	}
	if top.state == frameAfter {
		if c != ',' {
			return "", false, tokEnd, errBadJSON
		}
		s.pos++
		s.skipSpace()
	}
	if s.pos >= len(s.s) || s.s[s.pos] != '"' {
		return "", false, tokEnd, errBadJSON
	}
	if err := s.stringLit(); err != nil {
		return "", false, tokEnd, err
	}
	key, keyEsc = s.text(), s.esc
	s.skipSpace()
	if s.pos >= len(s.s) || s.s[s.pos] != ':' {
		return "", false, tokEnd, errBadJSON
	}
	s.pos++
	top.state = frameAfter
	t, err = s.value()
	return key, keyEsc, t, err
}

// stringValue is the value of a string literal that holds escapes when esc.
func stringValue(lit string, esc bool) string {
	body := lit[1 : len(lit)-1]
	if !esc {
		return body
	}
	return unquoteJSON(body)
}

// closed marks the end of a value in its container.
func (s *jsonSource) closed() {
	if len(s.frames) == 0 {
		s.done = true
		return
	}
	s.frames[len(s.frames)-1].state = frameAfter
}

func (s *jsonSource) value() (jsonTok, error) {
	s.skipSpace()
	if s.pos >= len(s.s) {
		return tokEnd, errBadJSON
	}
	switch c := s.s[s.pos]; {
	case c == '{' || c == '[':
		s.pos++
		s.frames = append(s.frames, jsonFrame{obj: c == '{'})
		if c == '{' {
			return tokObjStart, nil
		}
		return tokArrStart, nil
	case c == '"':
		return tokString, s.stringLit()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case strings.HasPrefix(s.s[s.pos:], "true"):
		s.pos += 4
		return tokTrue, nil
	case strings.HasPrefix(s.s[s.pos:], "false"):
		s.pos += 5
		return tokFalse, nil
	case strings.HasPrefix(s.s[s.pos:], "null"):
		s.pos += 4
		return tokNull, nil
	}
	return tokEnd, errBadJSON
}

// stringSpecial marks the bytes of w, eight bytes of a JSON string, that
// are not plain ASCII: a quote, a backslash, a control byte, a byte of a
// multi-byte rune. Its lowest mark is exact (the control test may mark
// bytes above a marked one).
func stringSpecial(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	return textkit.ZeroBytes(w^'"'*ones) | textkit.ZeroBytes(w^'\\'*ones) | (w-0x20*ones)&^w&highs | w&highs
}

// stringLit reads a string literal at pos, checking its escapes and that
// it holds no control characters or invalid UTF-8.
func (s *jsonSource) stringLit() error {
	start := s.pos
	s.esc = false
	i := s.pos + 1
	for i < len(s.s) {
		if i+8 <= len(s.s) {
			// Plain ASCII eight bytes a step, up to the first byte the
			// switch below must look at.
			m := stringSpecial(textkit.Load64(s.s[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		}
		c := s.s[i]
		switch {
		case c == '"':
			s.litFrom, s.litTo = start, i+1
			s.pos = i + 1
			return nil
		case c == '\\':
			s.esc = true
			if i+1 >= len(s.s) {
				return errBadJSON
			}
			switch s.s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s.s) || !isHex4(s.s[i+2:i+6]) {
					return errBadJSON
				}
				i += 6
			default:
				return errBadJSON
			}
		case c < 0x20:
			return errBadJSON
		case c < utf8.RuneSelf:
			i++
		default:
			// Multi-byte runes never hold an ASCII byte, so a run of
			// bytes above 0x7f is valid UTF-8 alone or not at all.
			end := nonASCIIRunEnd(s.s, i)
			if !utf8.ValidString(s.s[i:end]) {
				return errBadJSON
			}
			i = end
		}
	}
	return errBadJSON
}

// nonASCIIRunEnd returns the end of the run of bytes above 0x7f at i.
func nonASCIIRunEnd(s string, i int) int {
	const highs = 0x8080808080808080
	for i+8 <= len(s) {
		w := textkit.Load64(s[i:])
		if w&highs != highs {
			return i + bits.TrailingZeros64(^w&highs)/8
		}
		i += 8
	}
	for i < len(s) && s[i] >= utf8.RuneSelf {
		i++
	}
	return i
}

// isHex4 reports whether h's first four bytes are hex digits.
func isHex4(h string) bool {
	for i := 0; i < 4; i++ {
		if !textkit.IsHexDigit(h[i]) {
			return false
		}
	}
	return true
}

// number reads a number literal as JSON defines it.
func (s *jsonSource) number() (jsonTok, error) {
	start, i := s.pos, s.pos
	if s.s[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s.s) && isDigit(s.s[i]) {
			i++
		}
		return i - j
	}
	if i < len(s.s) && s.s[i] == '0' {
		i++
	} else if digits() == 0 {
		return tokEnd, errBadJSON
	}
	tok := tokInt
	if i < len(s.s) && s.s[i] == '.' {
		i++
		if digits() == 0 {
			return tokEnd, errBadJSON
		}
		tok = tokFloat
	}
	if i < len(s.s) && (s.s[i] == 'e' || s.s[i] == 'E') {
		i++
		if i < len(s.s) && (s.s[i] == '+' || s.s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return tokEnd, errBadJSON
		}
		tok = tokFloat
	}
	s.litFrom, s.litTo, s.pos = start, i, i
	return tok, nil
}

// skip consumes the rest of the container whose start token next just
// returned, up to and including its end token.
func (s *jsonSource) skip() error {
	for depth := 1; depth > 0; {
		t, err := s.next()
		if err != nil {
			return err
		}
		switch t {
		case tokObjStart, tokArrStart:
			depth++
		case tokObjEnd, tokArrEnd:
			depth--
		case tokEnd:
			return errBadJSON
		}
	}
	return nil
}

// unquoteJSON decodes the escapes of a string literal's body, which
// stringLit has checked. Lone surrogates become U+FFFD.
func unquoteJSON(body string) string {
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		switch body[i+1] {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r := hex4(body[i+2 : i+6])
			i += 6
			if r >= 0xD800 && r < 0xDC00 && i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
				if lo := hex4(body[i+2 : i+6]); lo >= 0xDC00 && lo < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					i += 6
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				r = utf8.RuneError
			}
			b.WriteRune(r)
			continue
		default: // " \ /
			b.WriteByte(body[i+1])
		}
		i += 2
	}
	return b.String()
}

func hex4(h string) rune {
	var r rune
	for i := 0; i < 4; i++ {
		c := h[i]
		switch {
		case isDigit(c):
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		default:
			r = r<<4 | rune(c-'A'+10)
		}
	}
	return r
}

// skipValidated is skip for text already read once with next: it finds
// the end of the container by its brackets, stepping over strings, with
// no other check.
func (s *jsonSource) skipValidated() error {
	depth := 1
	for i := s.pos; i < len(s.s); i++ {
		switch s.s[i] {
		case '"':
			for i++; i < len(s.s) && s.s[i] != '"'; i++ {
				if s.s[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				s.pos = i + 1
				s.frames = s.frames[:len(s.frames)-1]
				s.closed()
				return nil
			}
		}
	}
	return errBadJSON
}
