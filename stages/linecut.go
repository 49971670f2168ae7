package stages

import "strings"

// lineCutter cuts a text into lines at "\n" and, with cr, at "\r\n" and a
// lone "\r", as nextLine does, with one search a line where nextLine with
// cr makes two. It finds the line feeds of a block of lines ahead, and a
// count of the block's carriage returns tells whether each of them sits
// right before one of those line feeds: then a line ends at its line feed,
// less the "\r" before it. A block with a lone "\r" is cut by lineBreak.
type lineCutter struct {
	text string
	cr   bool
	// ends[k:n] are the line feeds of the block ahead, each as its index
	// times two, plus one when a "\r" comes right before it.
	ends [64]int
	k, n int
	// slow: text before blockEnd has a lone "\r" and is cut by lineBreak.
	slow     bool
	blockEnd int
	// starts, when set, is text's line index (textkit.LineIndex.Starts):
	// line feeds are read from it, the next one from starts[lf] on (lf
	// is 1 or more).
	starts []int32
	lf     int
}

func newLineCutter(text string, cr bool) lineCutter {
	return lineCutter{text: text, cr: cr}
}

// newIndexedLineCutter is newLineCutter that reads the line feeds of
// text from starts, text's line index (textkit.LineIndex.Starts).
func newIndexedLineCutter(text string, cr bool, starts []int32) lineCutter {
	return lineCutter{text: text, cr: cr, starts: starts, lf: 1}
}

// cut returns the end of the line that starts at pos and where the next
// line starts; more is false for the last line, which runs to the end of
// the text. pos is where the previous cut said the next line starts (0
// first).
func (c *lineCutter) cut(pos int) (end, next int, more bool) {
	if !c.cr {
		j := c.lineFeed(pos)
		if j < 0 {
			return len(c.text), len(c.text), false
		}
		return j, j + 1, true
	}
	if c.k < c.n {
		v := c.ends[c.k]
		c.k++
		return v>>1 - v&1, v>>1 + 1, true
	}
	return c.cutBlock(pos)
}

// cutBlock is cut at the start of a block, or within a slow one.
func (c *lineCutter) cutBlock(pos int) (end, next int, more bool) {
	if !c.slow || pos >= c.blockEnd {
		c.fill(pos)
		if c.n > 0 {
			v := c.ends[0]
			c.k = 1
			return v>>1 - v&1, v>>1 + 1, true
		}
	}
	if !c.slow {
		return len(c.text), len(c.text), false // past the last line feed
	}
	s := c.text[pos:]
	i := lineBreak(s)
	if i < 0 {
		return len(c.text), len(c.text), false
	}
	if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
		return pos + i, pos + i + 2, true
	}
	return pos + i, pos + i + 1, true
}

// fill finds the line feeds of the block of lines at pos and whether
// every carriage return in it comes right before one.
func (c *lineCutter) fill(pos int) {
	text, n, pairs := c.text, 0, 0
	at := pos
	add := func(j int) {
		v := j << 1
		if j > pos && text[j-1] == '\r' {
			v++
			pairs++
		}
		c.ends[n] = v
		n++
		at = j + 1
	}
	if c.starts != nil {
		// The line feeds from the index: starts[k]-1 for k < len(starts)-1.
		k := c.lf
		for k < len(c.starts)-1 && int(c.starts[k])-1 < pos {
			k++
		}
		for ; n < len(c.ends) && k < len(c.starts)-1; k++ {
			add(int(c.starts[k]) - 1)
		}
		c.lf = k
	} else {
		for n < len(c.ends) {
			i := strings.IndexByte(text[at:], '\n')
			if i < 0 {
				break
			}
			add(at + i)
		}
	}
	c.k, c.n, c.slow = 0, n, false
	end := len(text)
	if n == len(c.ends) {
		end = at
	}
	if strings.Count(text[pos:end], "\r") != pairs {
		c.n, c.slow, c.blockEnd = 0, true, end
	}
}

// lineFeed returns the index of the first line feed at or after at, or
// -1. at never decreases from one call to the next.
func (c *lineCutter) lineFeed(at int) int {
	if c.starts == nil {
		if i := strings.IndexByte(c.text[at:], '\n'); i >= 0 {
			return at + i
		}
		return -1
	}
	// starts[k]-1 is the k-th line feed, for k from 1 to len(starts)-2.
	k := c.lf
	for k < len(c.starts)-1 && int(c.starts[k])-1 < at {
		k++
	}
	c.lf = k
	if k >= len(c.starts)-1 {
		return -1
	}
	return int(c.starts[k]) - 1
}
