package logs

// The header-column merge as it was written first: every column's end
// found again from the line's start, every column scanning all cells.
// The equivalence tests check the one templates.go runs against it.

import (
	"cmp"
	"slices"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// refMergeHeaderColumns merges templates that differ only in word columns
// that do not depend on the message: a host, a program or a container
// that logs every kind of event (syslog's host, Proxifier's program, a
// node's name and id in JSON fields). Candidates are the word columns of
// the records' header (between its data columns, or right after them)
// and, in records with fields, the values of one token, by key. A column
// takes several names under most frequent messages; an event name or a
// component belongs to its message and takes one. Columns that vary
// together (a node's name and id) are judged on the message alone. Levels
// never merge. It reports whether any templates merged.
func (t *templates) refMergeHeaderColumns() bool {
	hc := refHeaderCells{cells: make([][]cell, len(t.groups)), names: map[uint64]int{}}
	var toks []Tok
	for i := range t.groups {
		g := &t.groups[i]
		if g.parent != i || g.toks == nil {
			continue
		}
		toks = g.firstTokens(toks[:0])
		if len(toks) != len(g.toks) {
			continue
		}
		if t.lay.Fields != "" {
			t.refMarkFieldCells(&hc, i, toks)
		} else {
			t.refMarkHeaderCells(&hc, i, toks)
		}
	}
	cols := hc.candidates()
	if len(cols) == 0 {
		return false
	}
	message := t.refMessageKeys(&hc)
	wild := map[uint64]bool{}
	for _, col := range cols {
		if t.refIndependentColumn(col, hc.cells, message) {
			wild[col] = true
		}
	}
	if len(wild) == 0 {
		return false
	}
	return t.dropColumns(hc.cells, wild)
}

// refHeaderCells are the groups' tokens in candidate columns, and how many
// groups take a name in each column.
type refHeaderCells struct {
	cells [][]cell
	flat  []cell // the backing of cells: a group's cells are marked together
	names map[uint64]int
}

func (hc *refHeaderCells) mark(g *tgroup, i int, col uint64, p int, v string) {
	if textkit.UpperLevelAt(v) || len(hc.cells[i]) >= 16 {
		return
	}
	c := cell{col: col, pos: p, name: g.toks[p] > varToken && len(v) >= 3}
	// Group i's cells so far are the last of flat: extend them in place.
	n := len(hc.cells[i])
	hc.flat = append(hc.flat, c)
	hc.cells[i] = hc.flat[len(hc.flat)-n-1 : len(hc.flat) : len(hc.flat)]
	if c.name {
		hc.names[col]++
	}
}

// candidates returns the columns with names in three groups or more, sorted.
func (hc *refHeaderCells) candidates() []uint64 {
	var cols []uint64
	for col, n := range hc.names {
		if n >= 3 {
			cols = append(cols, col)
		}
	}
	slices.Sort(cols)
	return cols
}

// refMarkFieldCells marks group i's values of one token, by key. Key
// tokens carry no offsets (fieldTokens).
func (t *templates) refMarkFieldCells(hc *refHeaderCells, i int, toks []Tok) {
	g := &t.groups[i]
	isKey := func(p int) bool { return p >= len(toks) || toks[p].End == 0 }
	for p := 1; p < len(toks); p++ {
		if !isKey(p) && isKey(p-1) && isKey(p+1) {
			hc.mark(g, i, g.toks[p-1], p, g.head[toks[p].Start:toks[p].End])
		}
	}
}

// refMarkHeaderCells marks group i's first token after each header column,
// and the values of the key=value pairs in its message.
func (t *templates) refMarkHeaderCells(hc *refHeaderCells, i int, toks []Tok) {
	g := &t.groups[i]
	prev := -1 // the token the column before opened
	for c := 0; c <= t.lay.HeaderCols; c++ {
		he := HeaderEnd(g.head, c)
		p := 0
		for p < len(toks) && int(toks[p].Start) < he {
			p++
		}
		if p == prev {
			// A column without a token (a terminal's color reset, alone
			// between blanks) opens none: the next column's token is
			// that column's, not a second column varying with it.
			continue
		}
		prev = p
		// Without a header, only a label opens a column: the service
		// of a multiplexed log ("web: ...", "[api] ...", "web.1 | ..."),
		// not the first word of a message.
		if p < len(toks) && (t.lay.HeaderCols > 0 || labelAt(g.head, toks[p])) {
			hc.mark(g, i, uint64(c), p, g.head[toks[p].Start:toks[p].End])
			// A level after the header leaves the column after it a
			// header's too: "10:00:01 INFO [worker-a] ...".
			if c == t.lay.HeaderCols && p+1 < len(toks) && textkit.UpperLevelAt(g.head[toks[p].Start:toks[p].End]) {
				hc.mark(g, i, uint64(c+1), p+1, g.head[toks[p+1].Start:toks[p+1].End])
			}
		}
	}
	// A pair's value is a column too, by its key: klog's structured
	// records and text loggers write the host, the pod or the node that
	// logged an event as a pair after its message (node="worker-a"), or
	// in a field line under it (_HOSTNAME=). A message key's value is
	// what happened (journalctl's MESSAGE=).
	from := HeaderEnd(g.head, t.lay.HeaderCols)
	for p := 1; p < len(toks); p++ {
		if k := toks[p-1]; int(k.Start) >= from && pairValue(g.head, k, toks[p]) && !messageKey(g.head[k.Start:k.End]) {
			hc.mark(g, i, g.toks[p-1]^pairColumn, p, g.head[toks[p].Start:toks[p].End])
		}
	}
}

// refMessageKeys returns the message of each group: its tokens but the
// candidate columns (names in three groups or more).
func (t *templates) refMessageKeys(hc *refHeaderCells) []uint64 {
	message := make([]uint64, len(t.groups))
	for i, cs := range hc.cells {
		g := &t.groups[i]
		k := g.sum
		for _, c := range cs {
			if hc.names[c.col] >= 3 {
				k -= mix(c.pos, g.toks[c.pos])
			}
		}
		message[i] = k ^ (g.cont^uint64(len(g.toks)))*fnvPrime
	}
	return message
}

// refIndependentColumn reports whether column col is independent of the
// message, as a host is: three messages at least take several names
// there, and so do half of the messages seen four times or more; and the
// names come evenly, three of them (or all) with two in three messages
// seen ten times or more. An HTTP method before a route is not: DELETE
// comes with few routes.
func (t *templates) refIndependentColumn(col uint64, cells [][]cell, message []uint64) bool {
	// The column's cells as (message, name) pairs, sorted: a message's
	// pairs are a run, its distinct names runs within it.
	type pair struct {
		msg, name uint64
		named     bool
		n         int
	}
	var pairs []pair
	for i, cs := range cells {
		for _, c := range cs {
			if c.col != col {
				continue
			}
			p := pair{msg: message[i], n: t.groups[i].count, named: c.name}
			if c.name {
				p.name = t.groups[i].toks[c.pos]
			}
			pairs = append(pairs, p)
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if c := cmp.Compare(a.msg, b.msg); c != 0 {
			return c
		}
		if a.named != b.named {
			return textkit.BoolOrder(a.named) - textkit.BoolOrder(b.named)
		}
		return cmp.Compare(a.name, b.name)
	})
	var all, commonNames []uint64 // every name; the names of each common message, once per message
	multi, frequent, common := 0, 0, 0
	for lo := 0; lo < len(pairs); {
		hi, n, names := lo, 0, 0
		at := len(commonNames)
		for ; hi < len(pairs) && pairs[hi].msg == pairs[lo].msg; hi++ {
			n += pairs[hi].n
			if p := pairs[hi]; p.named && (hi == lo || !pairs[hi-1].named || pairs[hi-1].name != p.name) {
				names++
				all = append(all, p.name)
				commonNames = append(commonNames, p.name)
			}
		}
		if names >= 2 {
			multi++
		}
		if n >= 4 {
			frequent++
		}
		if n >= 10 {
			common++
		} else {
			commonNames = commonNames[:at]
		}
		lo = hi
	}
	slices.Sort(all)
	distinctNames := len(slices.Compact(all))
	// even: names that come with two thirds of the common messages at least.
	slices.Sort(commonNames)
	even := 0
	for lo := 0; lo < len(commonNames); {
		hi := lo
		for hi < len(commonNames) && commonNames[hi] == commonNames[lo] {
			hi++
		}
		if 3*(hi-lo) >= 2*common {
			even++
		}
		lo = hi
	}
	return multi >= 3 && 2*multi >= frequent && common >= 3 && distinctNames >= 2 && even >= min(3, distinctNames)
}
