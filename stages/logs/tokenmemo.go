package logs

import "github.com/jetcompact/jetcompact/stages/textkit"

// tokenMemo hands a record line the tokens of an earlier line of the same
// digit shape: the same bytes but for the values of its digits (the same
// record at another time, for another block or pid). tokenize decides by
// byte classes, and every digit has the same class, so such lines have
// the same tokens; the few decisions that read a digit's value mark their
// token digitValued, and a line with one is never reused. Four record
// lines in five of a service log repeat an earlier line's shape.
type tokenMemo struct {
	index   map[uint64]int32 // digit shape hash -> entries
	entries []memoEntry
	block   []Tok // the entries' tokens
	lookups int
	hits    int
	off     bool // too few hits to pay for the hashing
}

type memoEntry struct {
	line        string
	from, to    int32 // its tokens in block
	digitValued bool
}

const (
	memoMaxEntries = 1 << 14
	memoMaxTokens  = 1 << 18
	// memoProbe lines tell whether a log repeats its shapes: at least
	// one hit in eight, or the memo stops.
	memoProbe = 1024
)

func newTokenMemo() *tokenMemo { return &tokenMemo{index: make(map[uint64]int32, 64)} }

// lineTokens appends the tokens of line, as lineTokens does.
func (m *tokenMemo) lineTokens(line string, dst []Tok) []Tok {
	if m.off {
		return lineTokens(line, dst)
	}
	m.lookups++
	if m.lookups == memoProbe && m.hits*8 < m.lookups {
		m.off = true
	}
	key := digitShapeHash(line)
	if i, ok := m.index[key]; ok {
		if e := &m.entries[i]; !e.digitValued && sameDigitShape(line, e.line) {
			m.hits++
			return append(dst, m.block[e.from:e.to]...)
		}
		return lineTokens(line, dst) // another shape under the same hash
	}
	at := len(dst)
	dst = lineTokens(line, dst)
	if len(m.entries) < memoMaxEntries && len(m.block)+len(dst)-at <= memoMaxTokens {
		e := memoEntry{line: line, from: int32(len(m.block))}
		for _, t := range dst[at:] {
			e.digitValued = e.digitValued || t.digitValued
		}
		m.block = append(m.block, dst[at:]...)
		e.to = int32(len(m.block))
		m.index[key] = int32(len(m.entries))
		m.entries = append(m.entries, e)
	}
	return dst
}

// lineTokens appends the tokens of a line of free text: tokenize's, lists
// joined.
func lineTokens(line string, dst []Tok) []Tok {
	at := len(dst)
	return joinLists(line, tokenize(line, dst), at)
}

// digitsAsZero returns w, eight bytes of text, with each ASCII digit
// replaced by '0'.
func digitsAsZero(w uint64) uint64 {
	const (
		zeros = 0x3030303030303030
		hi    = 0xF0F0F0F0F0F0F0F0
		lo    = 0x0F0F0F0F0F0F0F0F
		six   = 0x0606060606060606
		carry = 0x1010101010101010
	)
	// A byte of x is a digit's value when its high nibble is 0 and its
	// low nibble under 10 (adding 6 does not carry into bit 4).
	x := w ^ zeros
	notDigit := x&hi | (x&lo+six)&carry
	digits := (textkit.ZeroBytes(notDigit) >> 7) * 0xFF
	return w&^digits | zeros&digits
}

// digitShapeHash hashes s with its digits as '0'.
func digitShapeHash(s string) uint64 {
	const m = 0x9E3779B97F4A7C15
	h := uint64(len(s)) * m
	for ; len(s) >= 8; s = s[8:] {
		h = (h ^ digitsAsZero(textkit.Load64(s))) * m
		h ^= h >> 32
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if textkit.IsDigit(c) {
			c = '0'
		}
		h = (h ^ uint64(c)) * m
	}
	h ^= h >> 29
	return h
}

// sameDigitShape reports whether a and b differ at most in the values
// of their digits.
func sameDigitShape(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for ; len(a) >= 8; a, b = a[8:], b[8:] {
		if x, y := textkit.Load64(a), textkit.Load64(b); x != y && digitsAsZero(x) != digitsAsZero(y) {
			return false
		}
	}
	for i := 0; i < len(a); i++ {
		if x, y := a[i], b[i]; x != y && !(textkit.IsDigit(x) && textkit.IsDigit(y)) {
			return false
		}
	}
	return true
}
