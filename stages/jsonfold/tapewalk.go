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
// (whose first byte is at pos, after space) and records each token as
// next leaves it (see tapeTok) into r. end is where the root value
// closes.
func walkTape(text string, pos int, r *tapeRec) (valid bool, end int) {
	s := &jsonSource{s: text, pos: pos}
	toks := r.toks
	defer func() {
		if r.toks = toks; r.off {
			r.toks = nil
		}
	}()
	var closers []byte // the closing bracket of each open container
	for {
		// At a value.
		s.skipSpace()
		if s.pos >= len(text) {
			return false, 0
		}
		if c := text[s.pos]; c == '{' || c == '[' {
			s.pos++
			toks = r.push(toks, tapeTok{end: uint32(openTok(c))<<tapeOffBits | uint32(s.pos)})
			closers = append(closers, c+2) // '}' or ']'
			s.skipSpace()
			if c == '[' && (s.pos >= len(text) || text[s.pos] != ']') {
				continue // the first item
			}
			if c == '{' && (s.pos >= len(text) || text[s.pos] != '}') {
				e, ok := s.tapeKey()
				if !ok {
					return false, 0
				}
				toks = r.push(toks, e)
				continue // the first member's value
			}
		} else {
			e, ok := s.tapeScalar(c)
			if !ok {
				return false, 0
			}
			toks = r.push(toks, e)
		}
		// After a value: close containers, or go on after a comma.
		for {
			s.skipSpace()
			if s.pos >= len(text) {
				return false, 0
			}
			c, closer := text[s.pos], closers[len(closers)-1]
			if c == ',' {
				s.pos++
				if closer == '}' {
					s.skipSpace()
					e, ok := s.tapeKey()
					if !ok {
						return false, 0
					}
					toks = r.push(toks, e)
				}
				break
			}
			if c != closer {
				return false, 0
			}
			s.pos++
			toks = r.push(toks, tapeTok{end: uint32(closeTok(c))<<tapeOffBits | uint32(s.pos)})
			if closers = closers[:len(closers)-1]; len(closers) == 0 {
				end = s.pos
				s.skipSpace()
				return s.pos == len(text), end
			}
		}
	}
}

func openTok(c byte) jsonTok {
	if c == '{' {
		return tokObjStart
	}
	return tokArrStart
}

func closeTok(c byte) jsonTok {
	if c == '}' {
		return tokObjEnd
	}
	return tokArrEnd
}

// tapeScalar reads the string, number or literal at pos, whose first
// byte is c, and returns its token for the tape.
func (s *jsonSource) tapeScalar(c byte) (tapeTok, bool) {
	switch {
	case c == '"':
		if s.stringLit() != nil {
			return tapeTok{}, false
		}
		return s.tapeTok(tokString), true
	case c == '-' || (c >= '0' && c <= '9'):
		t, err := s.number()
		return s.tapeTok(t), err == nil
	}
	t, err := s.value()
	return tapeTok{end: uint32(t)<<tapeOffBits | uint32(s.pos)}, err == nil
}

// tapeKey reads an object's key and its colon at pos and returns its
// token for the tape.
func (s *jsonSource) tapeKey() (tapeTok, bool) {
	if s.pos >= len(s.s) || s.s[s.pos] != '"' || s.stringLit() != nil {
		return tapeTok{}, false
	}
	s.skipSpace()
	if s.pos >= len(s.s) || s.s[s.pos] != ':' {
		return tapeTok{}, false
	}
	s.pos++
	return s.tapeTok(tokString), true
}
