package logs

import (
	"sync"
	"unsafe"
)

// tokenMemo hands a record line the tokens of an earlier line of the same
// digit shape: the same bytes but for the values of its digits (the same
// record at another time, for another block or pid). tokenize decides by
// byte classes, and every digit has the same class, so such lines have
// the same tokens; the few decisions that read a digit's value mark their
// token digitValued, and a line with one is never reused. In the 64 KiB
// documents cut from the LogHub sample, 84% of the record lines repeat an
// earlier line's shape. Field values (JSON lines, logfmt) and
// continuation lines (stack frames) go through memos of their own.
type tokenMemo struct {
	shapes  shapeIndex // numbers the entries
	entries []memoEntry
	block   chunks[Tok] // the entries' tokens
	lookups int
	hits    int
	off     bool // too few hits to pay for the hashing
	// of is what the memo remembers: lineTokens, or tokenize alone
	// (continuation lines).
	of func(string, []Tok) []Tok
}

type memoEntry struct {
	toks        []Tok // its tokens, in block (whose chunks never move)
	digitValued bool
	// keyed: key is the group key of the entry's tokens with the
	// continuation hash keyCont (see mineTemplates).
	keyed        bool
	key, keyCont uint64
	// kept is 1 + how many of the tokens a record line keeps after
	// dropCorrelation, 0 until recordTokens knows.
	kept int32
}

// useTokenMemo is false only in tests that mine without the memo to
// compare.
var useTokenMemo = true

const (
	memoMaxEntries = 1 << 14
	memoMaxTokens  = 1 << 18
	// The largest chunk of the arena, in tokens.
	memoChunkToks = 4 << 10
	// Every memoProbe lines the memo checks that the log repeats its
	// shapes, one hit in eight so far, or stops: a line of a new shape
	// costs its hashing and keeping on top of its tokenizing.
	memoProbe = 128
	// memoMinValue: a shorter field value (a word, a small number) costs
	// less to tokenize than to look up.
	memoMinValue = 8
)

func newTokenMemo() *tokenMemo {
	return &tokenMemo{of: lineTokens}
}

// memoPool keeps memos between documents: a memo's arena and index
// would otherwise be allocated, zeroed and grown again for each one.
var memoPool = sync.Pool{New: func() any { return newTokenMemo() }}

// memoKeepBytes bounds the arena of a memo put back in the pool: one
// that grew on a huge log is let go.
const memoKeepBytes = 512 << 10

// getTokenMemo returns an empty memo of the tokens of, lineTokens or
// tokenize; release it when done.
func getTokenMemo(of func(string, []Tok) []Tok) *tokenMemo {
	m := memoPool.Get().(*tokenMemo)
	m.of = of
	m.shapes.reset()
	m.entries = m.entries[:0]
	m.block.reset()
	m.lookups, m.hits, m.off = 0, 0, false
	return m
}

// release puts m back in the pool; nothing of it may be used after.
func (m *tokenMemo) release() {
	if len(m.entries) > 4096 {
		return
	}
	m.shapes.forget() // the text is not kept alive
	clear(m.entries)  // nor the chunks keep lets go
	m.block.keep(memoKeepBytes / int(unsafe.Sizeof(Tok{})))
	memoPool.Put(m)
}

// lineTokens appends the tokens of line, as m.of does.
func (m *tokenMemo) lineTokens(line string, dst []Tok) []Tok {
	dst, _ = m.entryTokens(line, dst)
	return dst
}

// entryTokens is lineTokens, and the entry that holds the tokens of
// line's shape, or -1 when none does (the memo off or full, or a token
// digitValued): every line of the shape has those tokens.
func (m *tokenMemo) entryTokens(line string, dst []Tok) ([]Tok, int32) {
	i, h, slot := m.lookup(line)
	if i >= 0 {
		return append(dst, m.entries[i].toks...), i
	}
	return m.fill(line, dst, h, slot)
}

// recordTokens is entryTokens for a record line of free text, its
// tokens as Layout.templateTokens gives them: dropCorrelation done. On
// a hit the tokens are the entry's own (shared), to be read only: the
// number dropCorrelation keeps of them is the same for every line of
// the shape, and kept in the entry.
func (m *tokenMemo) recordTokens(line string, dst []Tok) (_ []Tok, e int32, shared bool) {
	i, h, slot := m.lookup(line)
	if i >= 0 {
		en := &m.entries[i]
		toks := en.toks
		if en.kept == 0 {
			en.kept = int32(len(dropCorrelation(line, toks, 0))) + 1
		}
		return toks[: en.kept-1 : en.kept-1], i, true
	}
	at := len(dst)
	dst, e = m.fill(line, dst, h, slot)
	return dropCorrelation(line, dst, at), e, false
}

// lookup returns the entry of line's shape, or -1 when it holds none to
// reuse, with the hash and slot fill adds one with (slot -1: none to
// add).
func (m *tokenMemo) lookup(line string) (i int32, h uint64, slot int) {
	if m.off {
		return -1, 0, -1
	}
	m.lookups++
	if m.lookups%memoProbe == 0 && m.hits*8 < m.lookups {
		m.off = true
	}
	i, h, slot = m.shapes.find(line)
	if i >= 0 {
		if m.entries[i].digitValued {
			return -1, h, -1
		}
		m.hits++
	}
	return i, h, slot
}

// fill appends the tokens of line, that lookup did not find, as m.of
// does, and keeps them in an entry numbered in slot when there is room:
// it returns the entry, as entryTokens does.
func (m *tokenMemo) fill(line string, dst []Tok, h uint64, slot int) ([]Tok, int32) {
	at := len(dst)
	dst = m.of(line, dst)
	toks := dst[at:]
	if slot >= 0 && len(m.entries) < memoMaxEntries && m.block.held+len(toks) <= memoMaxTokens {
		var flags tokFlags
		for _, t := range toks {
			flags |= t.flags
		}
		e := memoEntry{toks: m.block.at(m.block.add(toks, memoChunkToks)), digitValued: flags&tokDigitValued != 0}
		m.shapes.add(line, h, slot)
		m.entries = append(m.entries, e)
		if !e.digitValued {
			return dst, int32(len(m.entries) - 1)
		}
	}
	return dst, -1
}

// groupKey returns the group key of entry e's tokens with the
// continuation hash cont, as key computes it, computed once a shape and
// continuation: toks are the record's tokens, e's as templateTokens
// gave them.
func (m *tokenMemo) groupKey(e int32, toks []Tok, cont uint64) uint64 {
	if e < 0 {
		return groupKey(toks, cont)
	}
	en := &m.entries[e]
	if !en.keyed || en.keyCont != cont {
		en.key, en.keyCont, en.keyed = groupKey(toks, cont), cont, true
	}
	return en.key
}

// tokensAt is tokenizeAt by way of the memo, when there is one: a field's
// value (a time, a user, a route) repeats its digit shape like a line.
func (m *tokenMemo) tokensAt(s string, off int, dst []Tok) []Tok {
	if m == nil || len(s) < memoMinValue {
		return tokenizeAt(s, off, dst)
	}
	from := len(dst)
	dst = m.lineTokens(s, dst)
	for k := from; k < len(dst); k++ {
		dst[k].Start += int32(off)
		dst[k].End += int32(off)
	}
	return dst
}

// lineTokens appends the tokens of a line of free text: tokenize's, lists
// joined.
func lineTokens(line string, dst []Tok) []Tok {
	at := len(dst)
	return joinLists(line, tokenize(line, dst), at)
}

// chunks is an append-only store in chunks that never move: growing it
// copies nothing, and a pooled memo keeps its first chunks.
type chunks[T any] struct {
	list [][]T
	cur  int // the chunk being filled
	held int // elements added since reset
}

// chunkRef is where add put a run: chunk, offset and length.
type chunkRef struct{ chunk, off, n int32 }

// add copies xs into a chunk. Chunks double from 256 elements up to
// size, and a run longer than size gets a chunk of its own.
func (c *chunks[T]) add(xs []T, size int) chunkRef {
	if c.cur < len(c.list) && cap(c.list[c.cur])-len(c.list[c.cur]) < len(xs) {
		c.cur++
	}
	if c.cur == len(c.list) {
		n := 256
		if c.cur > 0 {
			n = min(2*cap(c.list[c.cur-1]), size)
		}
		c.list = append(c.list, make([]T, 0, max(n, len(xs))))
	}
	ch := c.list[c.cur]
	r := chunkRef{chunk: int32(c.cur), off: int32(len(ch)), n: int32(len(xs))}
	c.list[c.cur] = append(ch, xs...)
	c.held += len(xs)
	return r
}

func (c *chunks[T]) at(r chunkRef) []T { return c.list[r.chunk][r.off : r.off+r.n] }

// reset empties every chunk, keeping their memory.
func (c *chunks[T]) reset() {
	for i := range c.list {
		c.list[i] = c.list[i][:0]
	}
	c.cur, c.held = 0, 0
}

// keep lets go of the chunks past the first holding max elements.
func (c *chunks[T]) keep(max int) {
	n := 0
	for i, ch := range c.list {
		if n += cap(ch); n > max {
			clear(c.list[i:])
			c.list = c.list[:i]
			break
		}
	}
}
