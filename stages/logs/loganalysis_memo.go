package logs

import (
	"strings"
	"sync"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// lineFacts are what Analyze reads of a sampled line. Each test that
// makes them (continuationForm, appendShape, textkit.IsStamped,
// jsonPayloadStart, accessRecord, logfmtPairs, and headColumns.readTo for
// the header columns) decides by byte classes in which every digit is
// alike, and none reads a digit's value: lines of one digit shape (the
// same bytes but for the values of their digits, see digitshape.go)
// have the same facts, and factMemo makes them once a shape.
type lineFacts struct {
	shape        shapeKey
	escape       bool // holds an ANSI escape
	continuation bool // continuationForm
	stamped      bool // textkit.IsStamped
	fields       uint8
	opener       bool        // its shape opens records (layout)
	request      int8        // requestLine finds a request: 1, none: -1, not asked: 0
	heads        int32       // the heads of this digit shape sampled so far
	cols         headColumns // read by headerStats
}

// The field syntaxes of a head, as lineFacts hold them.
const (
	headFree = iota
	headJSON
	headAccess
	headLogfmt
)

// maxHeadLen bounds the head of a record: a head is enough to read.
const maxHeadLen = 4096

// factsOf reads the facts of a non-blank line from its bytes.
func factsOf(line string) lineFacts {
	var f lineFacts
	f.escape = strings.IndexByte(line, 0x1b) >= 0
	if continuationForm(line) {
		f.continuation = true
		return f
	}
	if len(line) > maxHeadLen {
		line = line[:maxHeadLen]
	}
	f.shape = shapeOf(line)
	f.stamped = textkit.IsStamped(line)
	if jsonPayloadStart(line) >= 0 {
		f.fields = headJSON
	} else if _, end := accessRecord(line); end > 0 {
		f.fields = headAccess
	} else if logfmtPairs(line) >= 3 {
		f.fields = headLogfmt
	}
	return f
}

// headColumns are the first columns of a head as headerStats reads them,
// read as far as it asks (readTo): which hold data, and where each
// one's token (brackets and quotes trimmed) stands in the head.
type headColumns struct {
	read  uint8 // columns read, or headerCols once the head ended
	n     uint8 // columns the head has among those read
	data  uint8 // bit c: column c holds data
	begun bool  // at is past the head's ANSI escapes
	at    uint16
	tok   [headerCols][2]uint16
	end   [headerCols]uint16 // where each column ends, untrimmed
	// heads of this digit shape among those headerStats reads, and the
	// first of them
	weight, first int32
}

// headerCols is how many leading columns headerStats reads.
const headerCols = 8

// readTo reads the columns of head (at most maxHeadLen long) up to
// column c, as readColumn does.
func (hc *headColumns) readTo(head string, c int) {
	if !hc.begun {
		hc.at, hc.begun = uint16(textkit.SkipANSI(head, 0)), true
	}
	i := int(hc.at)
	for ; int(hc.read) <= c; hc.read++ {
		if i >= len(head) {
			hc.read = headerCols
			break
		}
		for i < len(head) && (head[i] == ' ' || head[i] == '\t' || head[i] == '|') {
			i++
		}
		st := i
		var cnt uint64 // digits and letters, as in readColumn
		for ; i < len(head); i++ {
			v := colCount[head[i]]
			if v == colEnd {
				break
			}
			cnt += v
		}
		e := i
		hc.end[hc.read] = uint16(e)
		for st < e && trimmedByte(head[st]) {
			st++
		}
		for e > st && trimmedByte(head[e-1]) {
			e--
		}
		hc.tok[hc.read] = [2]uint16{uint16(st), uint16(e)}
		if d, l := cnt&(1<<32-1), cnt>>32; d > 0 && l <= d {
			hc.data |= 1 << hc.read
		}
		hc.n = hc.read + 1
	}
	hc.at = uint16(i)
}

// share takes the columns of lead, those of leadHead, that head shares:
// the columns whose bytes, and the byte that ends them, head holds in
// the same digit shape. readTo decides by byte classes, every digit
// alike, and reads no further than the byte that ends a column. hc must
// be unread.
func (hc *headColumns) share(lead *headColumns, leadHead, head string) {
	if hc.begun || lead.n == 0 {
		return
	}
	limit := min(len(leadHead), int(lead.end[lead.n-1])+1)
	same := digitShapePrefix(leadHead[:limit], head)
	c := 0 // columns shared
	for c < int(lead.n) && int(lead.end[c]) < same {
		c++
	}
	if c == 0 {
		return
	}
	hc.begun, hc.read, hc.n = true, uint8(c), uint8(c)
	hc.data = lead.data & (1<<c - 1)
	copy(hc.tok[:c], lead.tok[:c])
	copy(hc.end[:c], lead.end[:c])
	hc.at = lead.end[c-1]
}

// headerStatsByColumns is headerStats on heads whose columns cols[k]
// are those of heads[k], one headColumns for heads of one digit shape:
// the columns are read once a shape and counted by their weight, and
// tokens are compared only in the data columns that decide varying.
func headerStatsByColumns(heads []string, cols []*headColumns) (varying bool, header int) {
	heads = heads[:min(len(heads), maxHeaderHeads)]
	cols = cols[:len(heads)]
	n := len(heads)
	var shapesBuf [maxHeaderHeads]*headColumns
	shapes := shapesBuf[:0]
	for k, hc := range cols {
		if hc.weight == 0 {
			hc.first = int32(k)
			shapes = append(shapes, hc)
		}
		hc.weight++
	}
	defer func() {
		for _, hc := range shapes {
			hc.weight = 0
		}
	}()
	if len(shapes) > 1 {
		// The shapes of a log mostly share their header: the first
		// shape's columns are read, and the others take as many of them
		// as they share.
		lead := shapes[0]
		lead.readTo(heads[lead.first], headerCols-1)
		for _, hc := range shapes[1:] {
			hc.share(lead, heads[lead.first], heads[hc.first])
		}
	}
	gap := 0
	for c := range headerCols {
		// Once the heads left cannot change whether the column holds
		// data, the shapes left are not read (a later column reads it on
		// the way), unless columnChanges is to read the column.
		changes := c < 6 && !varying
		data, left := 0, n
		for _, hc := range shapes {
			if (data+left)*10 < n*8 || !changes && data*10 >= n*8 {
				break
			}
			if int(hc.read) <= c { // else read already
				hc.readTo(heads[hc.first], c)
			}
			data += int(hc.data>>c&1) * int(hc.weight)
			left -= int(hc.weight)
		}
		if data*10 < n*8 {
			gap++
		} else {
			if changes && columnChanges(heads, cols, c, (n*3+9)/10) {
				varying = true
			}
			if gap <= 1 && (header > 0 || c <= 1) {
				header, gap = c+1, 0
			}
		}
		// Settled, as in headerStats.
		if (gap >= 2 || header == 0 && c >= 1) && (varying || c >= 5) {
			break
		}
	}
	return varying, header
}

// columnChanges reports whether at least want heads hold data in column
// c that differs from the column of the last head above that has one.
// The heads' columns are read up to c.
func columnChanges(heads []string, cols []*headColumns, c, want int) bool {
	c &= headerCols - 1 // c < headerCols: no bounds checks
	bit := uint8(1) << c
	changesLeft, missesLeft := want, len(cols)-want
	prev := ""
	heads = heads[:len(cols)]
	for k, hc := range cols {
		if int(hc.n) <= c {
			if missesLeft--; missesLeft < 0 {
				return false // too few heads left to change
			}
			continue
		}
		t := hc.tok[c]
		tok := heads[k][t[0]:t[1]]
		changed := false
		if hc.data&bit != 0 {
			// Tokens of 8 to 16 bytes (most times and counters) are
			// compared a word from each end, the last first, here: a
			// call would spill the loop's registers.
			if n := len(tok); n != len(prev) {
				changed = true
			} else if p := prev[:n]; n >= 8 && n <= 16 {
				changed = textkit.Load64(tok[n-8:]) != textkit.Load64(p[n-8:]) || textkit.Load64(tok) != textkit.Load64(p)
			} else if n >= 4 && n < 8 {
				changed = load32(tok[n-4:]) != load32(p[n-4:]) || load32(tok) != load32(p)
			} else {
				changed = differ(tok, p)
			}
		}
		if changed {
			if changesLeft--; changesLeft == 0 {
				return true
			}
		} else if missesLeft--; missesLeft < 0 {
			return false
		}
		prev = tok
	}
	return false
}

// differ is a != b, its last bytes compared first: a time or a counter
// changes at its end.
func differ(a, b string) bool {
	return len(a) != len(b) || a != "" && a[len(a)-1] != b[len(a)-1] || a != b
}

// load32 reads the first four bytes of s as a little-endian word.
func load32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// maxHeaderHeads is how many heads headerStats reads: a header's shape
// does not change with the length of the log.
const maxHeaderHeads = 400

// factMemo keeps the facts of the digit shapes of the lines sampled,
// numbered by a shapeIndex.
type factMemo struct {
	shapes  shapeIndex
	facts   []lineFacts
	lookups int
	hits    int
	off     bool // too few hits to pay for the hashing
	// Room for logAnalysis's heads, kept between documents.
	heads       []string
	freshShapes []shapeKey
	headFacts   []int32
}

const (
	// Every factProbe lines the memo checks that the log repeats its
	// shapes, one line in four so far, or stops.
	factProbe = 128
	// factMaxFacts bounds the facts kept: Analyze samples 3000 lines.
	factMaxFacts = 4096
)

var factPool = sync.Pool{New: func() any { return new(factMemo) }}

func getFactMemo() *factMemo {
	m := factPool.Get().(*factMemo)
	m.shapes.reset()
	m.facts = m.facts[:0]
	m.lookups, m.hits, m.off = 0, 0, false
	return m
}

// release puts m back in the pool, with the room of the heads; nothing
// of it may be used after.
func (m *factMemo) release(heads []string, freshShapes []shapeKey, headFacts []int32) {
	if cap(heads) > factMaxFacts {
		return // a huge log's, let go
	}
	m.shapes.forget() // the text is not kept alive
	clear(heads)
	m.heads, m.freshShapes, m.headFacts = heads[:0], freshShapes[:0], headFacts[:0]
	factPool.Put(m)
}

// lookup returns the facts of line's digit shape, made now or before,
// and their number; -1 when the memo is off or full.
func (m *factMemo) lookup(line string) (f *lineFacts, i int32) {
	if m.off {
		return nil, -1
	}
	m.lookups++
	if m.lookups%factProbe == 0 && m.hits*4 < m.lookups {
		m.off = true
	}
	x := &m.shapes
	// find tries the shape last seen at the line's length first, unhashed.
	i, h, slot := x.find(line)
	if i < 0 {
		if slot < 0 || len(m.facts) >= factMaxFacts {
			return nil, -1
		}
		i = x.add(line, h, slot)
		m.facts = append(m.facts, factsOf(line))
	} else {
		m.hits++
	}
	return &m.facts[i], i
}
