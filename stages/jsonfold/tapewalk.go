package jsonfold

import "slices"

// tapeRec collects a tape's tokens up to its bound.
type tapeRec struct {
	toks []tapeTok
	max  int
	off  bool // past the bound: nothing more is kept
}

func (r *tapeRec) add(e tapeTok) {
	if len(r.toks) == cap(r.toks) && !r.grow() {
		return
	}
	r.toks = append(r.toks, e)
}

// grow doubles the room for tokens, up to the bound; false when the
// bound is reached, and the tape is dropped.
func (r *tapeRec) grow() bool {
	if r.off || len(r.toks) >= r.max {
		r.off, r.toks = true, nil
		return false
	}
	r.toks = slices.Grow(r.toks, min(r.max, 2*cap(r.toks)+16)-len(r.toks))
	return true
}

// walkTape is walkJSON's grammar in one loop rather than a call of next
// per token: it reports whether text is one valid JSON object or array
// and records each token as next leaves it (see tapeTok) into r. end is
// where the root value closes.
func walkTape(text string, r *tapeRec) (valid bool, end int) {
	s := &jsonSource{s: text}
	var open []bool // the open containers: object or not
	s.skipSpace()
	if s.pos >= len(text) || (text[s.pos] != '{' && text[s.pos] != '[') {
		return false, 0
	}
	for {
		// At a value.
		s.skipSpace()
		if s.pos >= len(text) {
			return false, 0
		}
		c := text[s.pos]
		switch {
		case c == '{' || c == '[':
			s.pos++
			t := tokArrStart
			if c == '{' {
				t = tokObjStart
			}
			r.add(tapeTok{end: uint32(t)<<tapeOffBits | uint32(s.pos)})
			open = append(open, c == '{')
			s.skipSpace()
			if s.pos < len(text) && text[s.pos] == c+2 { // '}' or ']': empty
				break
			}
			if c == '{' && !s.tapeKey(r) {
				return false, 0
			}
			continue
		case c == '"':
			if s.stringLit() != nil {
				return false, 0
			}
			r.add(s.tapeTok(tokString))
		case c == '-' || (c >= '0' && c <= '9'):
			t, err := s.number()
			if err != nil {
				return false, 0
			}
			r.add(s.tapeTok(t))
		default:
			t, err := s.value()
			if err != nil {
				return false, 0
			}
			r.add(tapeTok{end: uint32(t)<<tapeOffBits | uint32(s.pos)})
		}
		// After a value: close containers, or go on after a comma.
		for {
			s.skipSpace()
			if s.pos >= len(text) {
				return false, 0
			}
			c := text[s.pos]
			obj := open[len(open)-1]
			if c == ',' {
				s.pos++
				if obj {
					s.skipSpace()
					if !s.tapeKey(r) {
						return false, 0
					}
				}
				break
			}
			if (obj && c != '}') || (!obj && c != ']') {
				return false, 0
			}
			s.pos++
			t := tokArrEnd
			if obj {
				t = tokObjEnd
			}
			r.add(tapeTok{end: uint32(t)<<tapeOffBits | uint32(s.pos)})
			if open = open[:len(open)-1]; len(open) == 0 {
				end = s.pos
				s.skipSpace()
				return s.pos == len(text), end
			}
		}
	}
}

// tapeKey reads an object's key and its colon at pos and records it.
func (s *jsonSource) tapeKey(r *tapeRec) bool {
	if s.pos >= len(s.s) || s.s[s.pos] != '"' || s.stringLit() != nil {
		return false
	}
	s.skipSpace()
	if s.pos >= len(s.s) || s.s[s.pos] != ':' {
		return false
	}
	s.pos++
	r.add(s.tapeTok(tokString))
	return true
}
