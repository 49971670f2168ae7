package logs

// The reference for Analyze: its code before the fact memo
// (loganalysis_memo.go), each line's facts made afresh and headerStats
// reading the columns itself.

import (
	"slices"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

func analyzeReference(text string) Layout {
	var a refAnalysis
	a.headed = map[shapeKey]int{}
	const window = 96 << 10
	// Room for the heads, not grown line by line.
	heads := analysisLines
	if len(text) <= 3*window {
		heads = min(heads, strings.Count(text, "\n")+1)
	}
	a.heads, a.headShapes = make([]string, 0, heads), make([]shapeKey, 0, heads)
	if len(text) <= 3*window {
		a.scan(text, analysisLines)
	} else {
		a.scan(text[:window], analysisLines/3)
		mid := len(text)/2 - window/2
		a.scan(textkit.DropPartialLine(text[mid:mid+window]), analysisLines/3)
		a.scan(textkit.DropPartialLine(text[len(text)-window:]), analysisLines/3)
	}
	return a.layout()
}

type refAnalysis struct {
	lines int // non-blank lines
	heads []string
	// headShapes are the shapes of heads, in order.
	headShapes []shapeKey
	shapes     refShapeCounts
	// headed counts, per shape, the heads followed by a continuation
	// form: an exception's name over its frames, not a record.
	headed  map[shapeKey]int
	stamped int // lines a known time stamp opens
	json    int // lines holding one JSON object, maybe after a prefix
	logfmt  int // lines of key=value pairs
	access  int // lines of the NCSA common or combined log format
	escapes int // lines with ANSI escapes
}

type refShapeCounts struct {
	keys   []shapeKey
	counts []int
	index  map[shapeKey]int // position in keys, once there are many
}

func (c *refShapeCounts) add(k shapeKey) {
	if c.index == nil {
		for i := range c.keys {
			if c.keys[i] == k {
				c.counts[i]++
				return
			}
		}
		if len(c.keys) >= 16 {
			c.index = make(map[shapeKey]int, 64)
			for i, key := range c.keys {
				c.index[key] = i
			}
		}
	} else if i, ok := c.index[k]; ok {
		c.counts[i]++
		return
	}
	if c.index != nil {
		c.index[k] = len(c.keys)
	}
	c.keys = append(c.keys, k)
	c.counts = append(c.counts, 1)
}

func (a *refAnalysis) scan(s string, max int) {
	var prev shapeKey // the shape of the line before, when it was a head
	for n := 0; len(s) > 0 && n < max; {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		line = strings.TrimSuffix(line, "\r")
		if textkit.IsBlank(line) || textkit.IsProtectedLine(line) {
			continue
		}
		n++
		a.lines++
		if strings.IndexByte(line, 0x1b) >= 0 {
			a.escapes++
		}
		if continuationForm(line) {
			if prev.n > 0 {
				a.headed[prev]++
				prev = shapeKey{}
			}
			continue
		}
		if len(line) > 4096 {
			line = line[:4096] // a head is enough
		}
		a.heads = append(a.heads, line)
		prev = shapeOf(line)
		a.headShapes = append(a.headShapes, prev)
		a.shapes.add(prev)
		if textkit.IsStamped(line) {
			a.stamped++
		}
		if jsonPayloadStart(line) >= 0 {
			a.json++
		} else if _, end := accessRecord(line); end > 0 {
			a.access++
		} else if logfmtPairs(line) >= 3 {
			a.logfmt++
		}
	}
}

func (a *refAnalysis) layout() Layout {
	l := Layout{Analyzed: true}
	heads := len(a.heads)
	if heads == 0 {
		return l
	}
	type sc struct {
		key   shapeKey
		shape string
		n     int
	}
	all := make([]sc, 0, len(a.shapes.keys))
	for i, k := range a.shapes.keys {
		all = append(all, sc{k, string(k.b[:k.n]), a.shapes.counts[i]})
	}
	slices.SortFunc(all, func(x, y sc) int {
		if x.n != y.n {
			return y.n - x.n
		}
		return strings.Compare(x.shape, y.shape)
	})
	exceptions := 0 // heads of shapes that head stack traces
	for i, s := range all {
		// A shape opens records when it is the most frequent, or frequent
		// (2% of the heads, at least twice) and not mostly over stack
		// frames. Rare shapes (an exception's name, a stray line) and
		// exception names continue the record above.
		frequent := s.n >= 2 && s.n*50 >= heads && a.headed[s.key]*2 < s.n
		if (i == 0 || frequent) && len(l.Openers) < maxOpeners {
			l.Openers = append(l.Openers, s.shape)
		} else if a.headed[s.key]*2 >= s.n {
			exceptions += s.n
		}
	}
	slices.Sort(l.Openers)
	l.Fields = a.fieldSyntax(heads)
	// At most maxOpeners keys: a scan beats a map's hashing.
	openerKeys := make([]shapeKey, 0, maxOpeners)
	for _, s := range all {
		if slices.Contains(l.Openers, s.shape) {
			openerKeys = append(openerKeys, s.key)
		}
	}
	openers := make([]string, 0, len(a.heads))
	for i, h := range a.heads {
		if slices.Contains(openerKeys, a.headShapes[i]) {
			openers = append(openers, h)
		}
	}
	varying, header := headerStats(openers)
	if l.Fields == "" {
		l.HeaderCols = header
		l.StatusFields = statusFields(openers)
	}
	// Records must make up most of the text's lines, continuations aside.
	mostly := len(openers)*10 >= (heads-exceptions)*6 && len(openers) >= 1
	switch {
	case !mostly:
	case l.Fields != "":
		l.Records = true
	case a.stamped*2 >= heads:
		l.Records = true
	case varying:
		l.Records = true
	case a.escapes*20 < a.lines && repetitive(openers):
		l.Records, l.ByRepeats = true, true
	}
	return l
}

// fieldSyntax names the field syntax that six heads in ten share, if any.
func (a *refAnalysis) fieldSyntax(heads int) string {
	switch {
	case a.json*10 >= heads*6:
		return FieldsJSON
	case a.logfmt*10 >= heads*6:
		return FieldsLogfmt
	case a.access*10 >= heads*6:
		return FieldsAccess
	}
	return ""
}
