package logs

import (
	"math"
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// A representative line must not pass for every line it stands for: the
// count that log_dedup appends says what varied among them, in a few
// words. " [×420; 10:00:01–10:42:17; pkg: 420 distinct (libgdbm6, zlib1g, …)]"
// gives the time range of the records (their clock), and for up to two
// variable slots of the message the range of a number or the distinct
// values of a word.

const (
	summarySlots      = 1    // variable slots a summary describes
	summaryCandidates = 3    // variable slots followed to pick them
	summaryDistinct   = 1000 // distinct values counted exactly; beyond, "1000+"
	summaryValueMax   = 15   // bytes of an example value shown (an IPv4 address)
)

// measureCandidates: variable slots further on whose first value is a
// measure (a unit: 1843.2ms, 4.5MB), followed for a spike alone.
const measureCandidates = 2

// slotStat follows one variable position of a template, in 256 bytes:
// pos first and the flags together, the record loop reads a slot cheaply.
type slotStat struct {
	pos int32
	// maxEv is the record of the maximum (-1: not known); events are
	// lines of a text whose offsets are int32.
	maxEv    int32
	name     string
	distinct hashSet // values by wordHash
	// pending holds hashes not yet in distinct: a numeric slot whose
	// summary is its range never needs them counted.
	pending  []uint64
	ex       [2]string
	ex0Hash  uint64
	unit     string // of a duration or a size: 12ms, 4.5MB
	min, max float64
	minS     string
	maxS     string
	// last is the value added last (when hasLast): adding it again
	// changes nothing, and records of a template often repeat a value in
	// a row.
	last string
	// The values' moments, every record counted (see far), and the last
	// value's number.
	moments moments
	lastF   float64
	// spikeAt is the clock of the record of a spike (see markSpikes).
	spikeAt string
	numeric bool
	hasLast bool
	spike   bool // a maximum far above the others (see markSpikes)
	// measureOnly: a slot past the candidates, followed for a spike
	// alone (see measureCandidates); without one it is not shown.
	measureOnly bool
	// digitName: a word of the template that holds digits (host2, Dev3,
	// worker-7), which the template masks and so does not vary in it;
	// shown only when no other slot is.
	digitName bool
	// ex0Pending: ex0Hash, a number's, is the first pending hash, kept
	// out of pending: a slot of one value allocates none.
	ex0Pending bool
}

// maxSlots bounds the slots of a summary: the candidates, the measures
// past them and a numbered name.
const maxSlots = summaryCandidates + measureCandidates + 1

// groupSummary follows the records of one template.
type groupSummary struct {
	first, last string // clocks of the first and last records
	slots       []slotStat
}

// slotPick is a slot newGroupSummary chose, before its summary is made.
type slotPick struct {
	name        string
	pos         int
	measureOnly bool
	digitName   bool
}

// newGroupSummary picks the slots of a template from its first instance:
// variable positions (toks, ids at ids) after the header (the clock).
func newGroupSummary(head string, toks []Tok, ids []uint64, lay Layout) *groupSummary {
	msg := HeaderEnd(head, lay.HeaderCols)
	if lay.HeaderCols == 0 {
		msg = messageStart(head, stampEnd(head))
	}
	var picks [maxSlots]slotPick
	n := 0
	for p := range toks {
		if n == summaryCandidates+measureCandidates {
			break
		}
		if ids[p] > varToken || int(toks[p].Start) < msg {
			continue
		}
		measureOnly := n >= summaryCandidates
		if measureOnly && !unitValue(head[toks[p].Start:toks[p].End]) {
			continue
		}
		picks[n] = slotPick{name: slotName(head, toks, ids, p), pos: p, measureOnly: measureOnly}
		n++
	}
	if p, ok := digitNameAt(head, toks, ids, msg); ok {
		picks[n] = slotPick{name: namePattern(head[toks[p].Start:toks[p].End]), pos: p, digitName: true}
		n++
	}
	s := allocSummary(n)
	s.first, _ = clockIn(head)
	for _, pk := range picks[:n] {
		s.slots = append(s.slots, slotStat{pos: int32(pk.pos), name: pk.name, numeric: !pk.digitName,
			maxEv: -1, measureOnly: pk.measureOnly, digitName: pk.digitName})
	}
	return s
}

// allocSummary returns an empty summary with room for n slots, in one
// allocation of its size when n is small: most templates have a few.
func allocSummary(n int) *groupSummary {
	switch n {
	case 0:
		return &groupSummary{}
	case 1:
		b := new(struct {
			s    groupSummary
			room [1]slotStat
		})
		b.s.slots = b.room[:0]
		return &b.s
	case 2:
		b := new(struct {
			s    groupSummary
			room [2]slotStat
		})
		b.s.slots = b.room[:0]
		return &b.s
	case 3:
		b := new(struct {
			s    groupSummary
			room [3]slotStat
		})
		b.s.slots = b.room[:0]
		return &b.s
	}
	return &groupSummary{slots: make([]slotStat, 0, n)}
}

// digitNameAt returns the first word of the message that the template
// holds fixed though it is a numbered name (see numberedName), whose
// digits it masks: its records may name others there.
func digitNameAt(head string, toks []Tok, ids []uint64, msg int) (int, bool) {
	for p := range toks {
		if ids[p] <= varToken || int(toks[p].Start) < msg {
			continue
		}
		if numberedName(head[toks[p].Start:toks[p].End]) {
			return p, true
		}
	}
	return 0, false
}

// namePattern is a numbered name with its digits as '*' (host*,
// node*.example.org), cut to summaryValueMax bytes: it names the slot.
func namePattern(w string) string {
	i := strings.IndexAny(w, "0123456789")
	p := w[:i] + "*" + w[textkit.DigitRun(w, i):]
	return clipValue(p, false)
}

// numberedName reports a name that numbers one of a few of its kind: a
// word of two letters or more, an optional '-' or '_', one to four
// digits, and nothing after them but words (host2, web-01, Dev3,
// node04.example.org, db3-replica). An id (rdd_2_1, blk_-1727475099,
// a hash) has more digits or more runs of them.
func numberedName(w string) bool {
	i := 0
	for i < len(w) && textkit.IsLetter(w[i]) {
		i++
	}
	if i < 2 || i > 32 {
		return false
	}
	if i < len(w) && (w[i] == '-' || w[i] == '_') {
		i++
	}
	d := textkit.DigitRun(w, i) - i
	if d < 1 || d > 4 {
		return false
	}
	for _, c := range []byte(w[i+d:]) {
		if textkit.IsDigit(c) {
			return false
		}
	}
	return true
}

// slotName is the fixed word before slot p that names it, or "".
func slotName(head string, toks []Tok, ids []uint64, p int) string {
	if p == 0 || ids[p-1] <= varToken {
		return ""
	}
	w := head[toks[p-1].Start:toks[p-1].End]
	if i := strings.LastIndex(w, ", "); i >= 0 {
		w = w[i+2:] // a list's last item (see joinLists) names what follows
	}
	if len(w) <= 12 && isPlainName(w) {
		return w
	}
	return ""
}

// stampEnd returns the end of the last column among a record's first
// eight that holds a date or a time (see isTimeToken), or 0: the header
// reaches at least there.
func stampEnd(head string) int {
	end, col := 0, 0
	for i := 0; i < len(head) && i < 160 && col < 8; col++ {
		for i < len(head) && (head[i] == ' ' || head[i] == '\t') {
			i++
		}
		st := i
		for i < len(head) && head[i] != ' ' && head[i] != '\t' {
			i++
		}
		if textkit.IsTimeToken(head[st:i]) {
			end = i
		}
	}
	return end
}

// messageStart returns where the message of a record starts: after the
// first ": " or " - " that follows the clock (syslog "sshd[42]: ", log4j
// and Python "Handler - "), within the first 160 bytes, else after the
// clock. Slots before it (pids, threads) are header, not what happened.
func messageStart(head string, after int) int {
	lim := min(len(head), 160)
	for i := after; i+2 < lim; i++ {
		if (head[i] == ':' || head[i] == '-') && head[i+1] == ' ' && (head[i] == ':' || (i > 0 && head[i-1] == ' ')) {
			return i + 2
		}
	}
	return after
}

// isPlainName reports a short word of letters, digits and _ . -, with a letter first.
func isPlainName(w string) bool {
	if w == "" || !textkit.IsLetter(w[0]) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if !textkit.IsWordByte(w[i]) && w[i] != '.' && w[i] != '-' {
			return false
		}
	}
	return true
}

// pendingMax bounds a slot's pending hashes: memory stays bounded on a
// template of millions of records.
const pendingMax = 1024

// settle moves the pending hashes into the distinct set, up to its cap.
func (sl *slotStat) settle() {
	n := len(sl.pending)
	if sl.ex0Pending {
		n++
	}
	sl.distinct.reserve(n)
	if sl.ex0Pending {
		sl.ex0Pending = false
		sl.distinct.add(sl.ex0Hash) // the first value: the set is empty
	}
	for _, h := range sl.pending {
		if sl.distinct.len() >= summaryDistinct {
			break
		}
		sl.distinct.add(h)
	}
	sl.pending = sl.pending[:0]
}

// distinctCount is the number of distinct values seen, capped at summaryDistinct.
func (sl *slotStat) distinctCount() int {
	sl.settle()
	return sl.distinct.len()
}

// hasRange reports a numeric slot whose values span a range: its summary
// is min–max, and it holds two distinct values at least.
func (sl *slotStat) hasRange() bool { return sl.numeric && sl.minS != sl.maxS }

// add counts one record of the template, event ev.
func (s *groupSummary) add(head string, toks []Tok, ev int) {
	slots := s.slots
	for i := range slots {
		sl := &slots[i]
		if int(sl.pos) >= len(toks) {
			continue
		}
		t := &toks[sl.pos]
		v := head[t.Start:t.End]
		if sl.hasLast && sameString(v, sl.last) {
			// slotStat.add's first case, without the call.
			if sl.numeric {
				sl.moments.add(sl.lastF)
			}
			continue
		}
		sl.addNew(v, ev, true)
	}
}

// sameString is a == b, its last bytes compared before the call to
// memequal: values of a slot that differ mostly differ there (counters).
func sameString(a, b string) bool {
	return len(a) == len(b) && (a == "" || a[len(a)-1] == b[len(b)-1]) && a == b
}

// addWildcards counts the values a record, event ev, holds at the
// merged positions of the template (ids: the root's token ids).
func (s *groupSummary) addWildcards(head string, toks []Tok, ids []uint64, ev int) {
	for i := range s.slots {
		sl := &s.slots[i]
		if int(sl.pos) < len(toks) && ids[sl.pos] == wildcard {
			sl.add(head[toks[sl.pos].Start:toks[sl.pos].End], ev, true)
		}
	}
}

// mergeFrom adds the values another group of the same template counted.
func (s *groupSummary) mergeFrom(o *groupSummary) {
	for i := range s.slots {
		sl := &s.slots[i]
		for j := range o.slots {
			if o.slots[j].pos != sl.pos {
				continue
			}
			// Examples first, in the order they were met: the values shown
			// never depend on map order, so every run and every fleet
			// segmentation writes the same summary.
			for _, v := range o.slots[j].ex {
				if v != "" {
					sl.add(v, -1, false)
				}
			}
			// Then the other values: the examples are taken (a slot with
			// fewer than two values has them all among its examples), and
			// when the slot is numeric its extremes say all a value would.
			sl.settle()
			o.slots[j].settle()
			o.slots[j].distinct.each(func(h uint64) {
				if sl.distinct.len() < summaryDistinct {
					sl.distinct.add(h)
				}
			})
			if o.slots[j].numeric && o.slots[j].minS != "" {
				sl.add(o.slots[j].minS, -1, false)
				sl.add(o.slots[j].maxS, int(o.slots[j].maxEv), false)
				sl.moments.merge(o.slots[j].moments)
			} else {
				sl.numeric = false
			}
		}
	}
}

// add counts one value of the slot, held by event ev (-1: not known);
// counted adds it to the moments, which a merge adds whole.
func (sl *slotStat) add(v string, ev int, counted bool) {
	if sl.hasLast && sameString(v, sl.last) {
		if counted && sl.numeric {
			sl.moments.add(sl.lastF)
		}
		return
	}
	sl.addNew(v, ev, counted)
}

// addNew is add for a value other than the last.
func (sl *slotStat) addNew(v string, ev int, counted bool) {
	sl.last, sl.hasLast = v, true
	if sl.measureOnly {
		sl.measure(v, ev, counted)
		return
	}
	h := wordHash(v)
	first := sl.ex[0] == ""
	// The examples are the first two distinct values.
	switch {
	case first:
		sl.ex[0], sl.ex0Hash = v, h
	case sl.ex[1] == "" && h != sl.ex0Hash:
		sl.ex[1] = v
	}
	sl.measure(v, ev, counted)
	if !sl.numeric {
		// A word slot's count is shown: its values go straight to the set.
		if len(sl.pending) > 0 || sl.ex0Pending {
			sl.settle()
		}
		if sl.distinct.len() < summaryDistinct {
			sl.distinct.add(h)
		}
		return
	}
	if first {
		sl.ex0Pending = true
		return
	}
	if h == sl.ex0Hash {
		return // the first value again: counted already
	}
	if sl.pending == nil {
		// Room for a few: many numeric slots hold one value, or a handful.
		sl.pending = make([]uint64, 0, 8)
	}
	if sl.pending = append(sl.pending, h); len(sl.pending) == pendingMax {
		sl.settle()
	}
}

// measure follows the numeric range of the slot's values, the record
// of its maximum and, when counted, its moments; it clears numeric at
// the first value that is no number of the slot's unit.
func (sl *slotStat) measure(v string, ev int, counted bool) {
	if !sl.numeric {
		return
	}
	if v == "" || (!textkit.IsDigit(v[0]) && v[0] != '-' && v[0] != '.') {
		sl.numeric = false
		return
	}
	f, unit, err := quantity(v)
	if sl.minS == "" {
		sl.unit = unit
	}
	switch {
	case err != nil || unit != sl.unit:
		sl.numeric = false
		return
	case sl.minS == "":
		sl.min, sl.minS, sl.max, sl.maxS = f, v, f, v
		sl.maxEv = int32(ev)
	case f < sl.min:
		sl.min, sl.minS = f, v
	case f > sl.max:
		sl.max, sl.maxS, sl.maxEv = f, v, int32(ev)
	case f == sl.max && sl.maxEv < 0:
		sl.maxEv = int32(ev)
	}
	sl.lastF = f
	if counted {
		sl.moments.add(f)
	}
}

// moments are a slot's count, mean and sum of squared deviations
// (Welford's), every record counted.
type moments struct {
	n        int
	mean, m2 float64
}

func (m *moments) add(f float64) {
	m.n++
	d := f - m.mean
	m.mean += d / float64(m.n)
	m.m2 += d * (f - m.mean)
}

func (m *moments) merge(o moments) {
	if o.n == 0 {
		return
	}
	n := m.n + o.n
	d := o.mean - m.mean
	m.mean += d * float64(o.n) / float64(n)
	m.m2 += o.m2 + d*d*float64(m.n)*float64(o.n)/float64(n)
	m.n = n
}

// without returns the mean and the standard deviation of the values
// other than one x among them.
func (m moments) without(x float64) (mean, sd float64) {
	n := float64(m.n - 1)
	mean = (float64(m.n)*m.mean - x) / n
	v := (m.m2 - (x-m.mean)*(x-mean)) / n
	return mean, math.Sqrt(max(v, 0))
}

// minFarRecords is the fewest records a template must hold for one of
// them to stand far from the others.
const minFarRecords = 10

// far returns the record whose value of the slot is a spike far above
// the others' (the one slow query of 200, the one transfer that took
// 716 ms where the others took 18): a measure (a value with a unit, or
// one a measure word names: took, size, total, Query_time), the template
// holding minFarRecords records or more, its maximum more than four
// standard deviations above the others' mean and three times it at
// least. An id (task 164) is no measure, and a dip is no news.
func (sl *slotStat) far() (ev int, ok bool) {
	if !sl.hasRange() || sl.moments.n < minFarRecords || sl.maxEv < 0 || !sl.measures() {
		return 0, false
	}
	m, sd := sl.moments.without(sl.max)
	if m <= 0 || sl.max < 3*m || sl.max-m <= 4*sd {
		return 0, false
	}
	return int(sl.maxEv), true
}

// measureWords name a quantity measured, not an id.
var measureWords = [...]string{"size", "took", "time", "total", "duration", "elapsed", "latency", "bytes",
	"len", "count", "mem", "cpu", "load", "usage", "used", "rate", "delay", "wait", "lag", "retries", "attempt"}

// measures reports a slot whose values are measures: they carry a unit,
// or the word before them names a measure.
func (sl *slotStat) measures() bool {
	if sl.unit != "" {
		return true
	}
	return namesMeasure(sl.name)
}

// namesMeasure reports a name that holds a measure word, in any case.
func namesMeasure(name string) bool {
	for i := range len(name) {
		c := textkit.Lower(name[i])
		if c < 'a' || c > 'z' {
			continue
		}
		for _, w := range measureWordsAt[c-'a'] {
			if hasFoldPrefix(name[i:], w) {
				return true
			}
		}
	}
	return false
}

// measureWordsAt are the measureWords by their first letter.
var measureWordsAt = func() (at [26][]string) {
	for _, w := range measureWords {
		at[w[0]-'a'] = append(at[w[0]-'a'], w)
	}
	return at
}()

// hasFoldPrefix reports s starting with w, a lower-case ASCII word, in
// any case of its letters.
func hasFoldPrefix(s, w string) bool {
	if len(s) < len(w) || textkit.Lower(s[0]) != w[0] {
		return false
	}
	for i := 1; i < len(w); i++ {
		if textkit.Lower(s[i]) != w[i] {
			return false
		}
	}
	return true
}

// markSpikes marks the slots whose maximum is a spike (see
// slotStat.far) with the clock of the record that holds it, clockOf(ev):
// the summary shows that slot first, and when its spike came.
func (s *groupSummary) markSpikes(clockOf func(ev int) string) {
	for i := range s.slots {
		sl := &s.slots[i]
		if ev, ok := sl.far(); ok {
			sl.spike, sl.spikeAt = true, clockOf(ev)
		}
	}
}

// hashSet is a set of 64-bit hashes (well mixed, as wordHash's), open
// addressing with linear probing: no allocation while empty, and cheaper
// than a map for the thousand values a slot counts at most.
type hashSet struct {
	slots []uint64 // 0: empty
	n     int32    // a slot's thousand values at most, a few more in tests
	zero  bool     // 0 itself is in the set
}

func (s *hashSet) len() int {
	if s.zero {
		return int(s.n) + 1
	}
	return int(s.n)
}

// add inserts h and reports whether it was new.
func (s *hashSet) add(h uint64) bool {
	if h == 0 {
		added := !s.zero
		s.zero = true
		return added
	}
	if len(s.slots) > 0 {
		mask := uint64(len(s.slots) - 1)
		for i := hashSlot(h) & mask; s.slots[i] != 0; i = (i + 1) & mask {
			if s.slots[i] == h {
				return false
			}
		}
	}
	if (int(s.n)+1)*2 > len(s.slots) {
		s.grow()
	}
	s.put(h)
	s.n++
	return true
}

// put stores h, known absent, in its free slot.
func (s *hashSet) put(h uint64) {
	mask := uint64(len(s.slots) - 1)
	i := hashSlot(h) & mask
	for s.slots[i] != 0 {
		i = (i + 1) & mask
	}
	s.slots[i] = h
}

// reserve sizes an empty set for n values at once, rather than growing step by step.
func (s *hashSet) reserve(n int) {
	if len(s.slots) > 0 || n < 8 {
		return
	}
	size := 16
	for size < 2*min(n, summaryDistinct) {
		size *= 2
	}
	s.slots = make([]uint64, size)
}

func (s *hashSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(16, 2*len(old)))
	for _, h := range old {
		if h != 0 {
			s.put(h)
		}
	}
}

// hashSlot spreads h's bits to its low ones, whatever hash made it.
func hashSlot(h uint64) uint64 {
	h *= 0x9E3779B97F4A7C15
	return h ^ h>>29
}

// each calls f with every hash in the set.
func (s *hashSet) each(f func(uint64)) {
	if s.zero {
		f(0)
	}
	for _, h := range s.slots {
		if h != 0 {
			f(h)
		}
	}
}

// suffix renders the count and the summary: " [×N; …]".
func (s *groupSummary) suffix(count int) string {
	var room [160]byte
	return string(s.appendSuffix(room[:0], count))
}

// appendSuffix appends suffix(count) to b.
func (s *groupSummary) appendSuffix(b []byte, count int) []byte {
	b = append(b, CountOpen...)
	b = strconv.AppendInt(b, int64(count), 10)
	if s.first != "" && s.last != "" && s.first != s.last {
		b = append(b, "; "...)
		b = append(b, s.first...)
		b = append(b, "–"...)
		b = append(b, s.last...)
	}
	var order [summarySlots]*slotStat
	for _, sl := range s.shown(&order) {
		b = append(b, "; "...)
		if sl.name != "" {
			b = append(b, sl.name...)
			b = append(b, ": "...)
		}
		b = sl.appendValues(b)
	}
	return append(b, countClose...)
}

// Ranks of a slot in a summary, first shown first (see shown).
const (
	rankSpike = iota
	rankWords
	rankRange
	rankNames
	rankNone
)

// rank places a slot in the summary. A spike first: the one value the
// representative hides that a reader looks for. Then words: which values
// a representative stands for is what it can hide; a number's range
// comes next, and numbered names only when nothing else varies.
func (sl *slotStat) rank() int {
	switch {
	case sl.spike:
		return rankSpike
	case sl.digitName:
		if sl.distinctCount() >= 2 {
			return rankNames
		}
	case sl.measureOnly:
	case sl.hasRange():
		return rankRange
	case sl.distinctCount() >= 2:
		return rankWords
	}
	return rankNone
}

// shown returns the slots the summary describes, at most summarySlots,
// in order's room: by rank, then in the template's order, numbered names
// only when no other slot is shown.
func (s *groupSummary) shown(order *[summarySlots]*slotStat) []*slotStat {
	var ranks [maxSlots]int
	for i := range s.slots {
		ranks[i] = s.slots[i].rank()
	}
	n := 0
	for r := rankSpike; r < rankNone && n < summarySlots; r++ {
		if r == rankNames && n > 0 {
			break
		}
		for i := range s.slots {
			if ranks[i] == r && n < summarySlots {
				order[n] = &s.slots[i]
				n++
			}
		}
	}
	return order[:n]
}

// appendValues appends what the slot's values were: their range, or how
// many distinct and two of them.
func (sl *slotStat) appendValues(b []byte) []byte {
	if sl.hasRange() {
		b = append(b, sl.minS...)
		b = append(b, "–"...)
		b = append(b, sl.maxS...)
		if sl.spike && sl.spikeAt != "" {
			b = append(b, " (max at "...)
			b = append(b, sl.spikeAt...)
			b = append(b, ')')
		}
		return b
	}
	n := sl.distinctCount()
	b = strconv.AppendInt(b, int64(n), 10)
	if n == summaryDistinct {
		b = append(b, '+')
	}
	if sl.digitName {
		// The line shows one of the names; they differ in digits.
		return append(b, " distinct"...)
	}
	x, y := clipValue(sl.ex[0], false), clipValue(sl.ex[1], false)
	if x == y { // a long shared opening (pod/web-7d9f8b6c5-dz4hj)
		x, y = clipValue(sl.ex[0], true), clipValue(sl.ex[1], true)
	}
	b = append(b, " distinct ("...)
	b = append(b, x...)
	b = append(b, ", "...)
	b = append(b, y...)
	if n > 2 {
		b = append(b, ", …"...)
	}
	return append(b, ')')
}

// unitValue reports a number with a unit (1843.2ms, 4.5MB, 98%).
func unitValue(v string) bool {
	if v == "" || !textkit.IsDigit(v[0]) {
		return false
	}
	_, unit, err := quantity(v)
	return err == nil && unit != ""
}

// quantity reads a number with an optional unit of letters or % (12ms,
// 4.5MB, 98%).
func quantity(v string) (float64, string, error) {
	e := len(v)
	for e > 0 && (textkit.IsLetter(v[e-1]) || v[e-1] == '%') {
		e--
	}
	if e == 0 || e < len(v)-3 {
		return 0, "", strconv.ErrSyntax
	}
	if e <= 15 {
		n, i := 0, 0 // most values are plain integers: no float parse
		for ; i < e && textkit.IsDigit(v[i]); i++ {
			n = n*10 + int(v[i]-'0')
		}
		if i == e {
			return float64(n), v[e:], nil
		}
	}
	if f, ok := plainDecimal(v[:e]); ok {
		return f, v[e:], nil
	}
	if notFloat(v[:e]) {
		return 0, v[e:], strconv.ErrSyntax // ParseFloat's error, not allocated
	}
	f, err := strconv.ParseFloat(v[:e], 64)
	return f, v[e:], err
}

// plainDecimal reads -?digits[.digits], 15 digits at most, as ParseFloat
// does: such a mantissa and a power of ten up to 1e15 are exact floats,
// and one division, correctly rounded, gives ParseFloat's value (its own
// exact fast path).
func plainDecimal(s string) (float64, bool) {
	i, neg := 0, false
	if s != "" && s[0] == '-' {
		i, neg = 1, true
	}
	m, digits, frac, dot := 0, 0, 0, false
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case textkit.IsDigit(c):
			m = m*10 + int(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 {
		return 0, false
	}
	f := float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// notFloat reports a string ParseFloat surely rejects: a byte it reads
// in no number, two dots, or a sign neither first nor after an exponent's
// letter (addresses, clocks, dates). It may miss some.
func notFloat(s string) bool {
	dots := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case textkit.IsWordByte(c):
		case c == '.':
			if dots++; dots > 1 {
				return true
			}
		case c == '+' || c == '-':
			if i > 0 && !strings.ContainsRune("eEpP", rune(s[i-1])) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

var pow10 = [16]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// clipValue cuts an example value to summaryValueMax bytes, on a rune,
// keeping its first bytes, or with tail its last: values that share a
// long opening differ at their end.
func clipValue(v string, tail bool) string {
	// Brackets and ';' would end the summary early.
	if i := strings.LastIndexAny(v, "[];\n"); tail && i >= 0 {
		v = v[i+1:]
	} else if i := strings.IndexAny(v, "[];\n"); !tail && i >= 0 {
		v = v[:i]
	}
	// A list (see joinLists) reads as one example among the others.
	v = strings.ReplaceAll(v, ", ", ",")
	if len(v) <= summaryValueMax {
		return v
	}
	if tail {
		cut := len(v) - summaryValueMax
		for cut < len(v) && v[cut]&0xc0 == 0x80 {
			cut++
		}
		return "…" + v[cut:]
	}
	cut := summaryValueMax
	for cut > 0 && v[cut]&0xc0 == 0x80 {
		cut--
	}
	return v[:cut] + "…"
}

// clockIn finds the first clock time (7:04:05, 10:00:01) in the first
// bytes of a record, where its header is, and returns it as written,
// seconds included, fraction left out, and where its token ends.
func clockIn(s string) (string, int) {
	lim := min(len(s), 96)
	for i := 0; i+4 < lim; i++ {
		k := strings.IndexByte(s[i:lim-4], ':')
		if k < 0 {
			break
		}
		i += k
		if !textkit.IsDigit(s[i+1]) || !textkit.IsDigit(s[i+2]) || i == 0 || !textkit.IsDigit(s[i-1]) {
			continue
		}
		if i+3 < len(s) && textkit.IsDigit(s[i+3]) {
			continue // not a clock: a port, 10.0.0.85:50010
		}
		start := i - 1
		if start > 0 && textkit.IsDigit(s[start-1]) {
			start--
		}
		if start > 0 && (textkit.IsDigit(s[start-1]) || s[start-1] == '.') {
			continue // not a clock: 123:45, an address's 10.0.0.85:50
		}
		end := i + 3
		if end+2 < len(s) && s[end] == ':' && textkit.IsDigit(s[end+1]) && textkit.IsDigit(s[end+2]) {
			end += 3
		}
		// The header goes on to the end of the clock's token (a fraction,
		// a zone: 10:00:00,000Z).
		tokEnd := end
		for tokEnd < len(s) && s[tokEnd] != ' ' && s[tokEnd] != '\t' && s[tokEnd] != '"' {
			tokEnd++
		}
		return s[start:end], tokEnd
	}
	return "", 0
}
