package jsonfold

import "slices"

// tapeRec collects a tape's tokens up to its bound.
type tapeRec struct {
	toks []tapeTok
	max  int
	off  bool // past the bound: the tape is dropped
}

// push appends e to toks, the tape's tokens as the walk holds them.
func (r *tapeRec) push(toks []tapeTok, e tapeTok) []tapeTok {
	if len(toks) == cap(toks) {
		toks = r.more(toks)
	}
	return append(toks, e)
}

// more doubles the room for tokens, up to the bound. Past it the tape
// is dropped, and its room is written over until the walk ends. Not
// inlined: push, which is, stays small.
//
//go:noinline
func (r *tapeRec) more(toks []tapeTok) []tapeTok {
	if r.off || len(toks) >= r.max {
		r.off = true
		return toks[:0]
	}
	return slices.Grow(toks, min(r.max, 2*cap(toks)+16)-len(toks))
}

// walkTape is walkJSON's grammar in one loop rather than a call of next
// per token: it reports whether text is one valid JSON object or array
// and records each token as next leaves it (see tapeTok) into r. end is
// where the root value closes.
func walkTape(text string, r *tapeRec) (valid bool, end int) {
	s := &jsonSource{s: text}
	toks := r.toks
	defer func() {
		if r.toks = toks; r.off {
			r.toks = nil
		}
	}()
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
			toks = r.push(toks, tapeTok{end: uint32(t)<<tapeOffBits | uint32(s.pos)})
			open = append(open, c == '{')
			s.skipSpace()
			if s.pos < len(text) && text[s.pos] == c+2 { // '}' or ']': empty
				break
			}
			if c == '{' {
				if toks = s.tapeKey(r, toks); toks == nil {
					return false, 0
				}
			}
			continue
		case c == '"':
			if s.stringLit() != nil {
				return false, 0
			}
			toks = r.push(toks, s.tapeTok(tokString))
		case c == '-' || (c >= '0' && c <= '9'):
			t, err := s.number()
			if err != nil {
				return false, 0
			}
			toks = r.push(toks, s.tapeTok(t))
		default:
			t, err := s.value()
			if err != nil {
				return false, 0
			}
			toks = r.push(toks, tapeTok{end: uint32(t)<<tapeOffBits | uint32(s.pos)})
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
					if toks = s.tapeKey(r, toks); toks == nil {
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
			toks = r.push(toks, tapeTok{end: uint32(t)<<tapeOffBits | uint32(s.pos)})
			if open = open[:len(open)-1]; len(open) == 0 {
				end = s.pos
				s.skipSpace()
				return s.pos == len(text), end
			}
		}
	}
}

// tapeKey reads an object's key and its colon at pos and records it;
// nil when they are not there.
func (s *jsonSource) tapeKey(r *tapeRec, toks []tapeTok) []tapeTok {
	if s.pos >= len(s.s) || s.s[s.pos] != '"' || s.stringLit() != nil {
		return nil
	}
	s.skipSpace()
	if s.pos >= len(s.s) || s.s[s.pos] != ':' {
		return nil
	}
	s.pos++
	return r.push(toks, s.tapeTok(tokString))
}
