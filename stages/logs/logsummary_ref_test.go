package logs

// The summary code as it stood at ea5e679, before its speed work, every
// name prefixed "ref": the straightforward statement that the
// equivalence tests (logsummary_equiv_test.go) hold the fast code to.

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
	refSummarySlots      = 1    // variable slots a summary describes
	refSummaryCandidates = 3    // variable slots followed to pick them
	refSummaryDistinct   = 1000 // distinct values counted exactly; beyond, "1000+"
	refSummaryValueMax   = 15   // bytes of an example value shown (an IPv4 address)
)

// refMeasureCandidates: variable slots further on whose first value is a
// measure (a unit: 1843.2ms, 4.5MB), followed for a spike alone.
const refMeasureCandidates = 2

// refSlotStat follows one variable position of a template.
type refSlotStat struct {
	pos      int
	name     string
	distinct refHashSet // values by wordHash: no strings kept
	// pending holds hashes not yet in distinct: a numeric slot whose
	// summary is its range never needs them counted.
	pending  []uint64
	ex       [2]string
	ex0Hash  uint64
	numeric  bool
	unit     string // of a duration or a size: 12ms, 4.5MB
	min, max float64
	minS     string
	maxS     string
	// last is the value added last (when added): adding it again changes
	// nothing, and records of a template often repeat a value in a row.
	last    string
	hasLast bool
	// The record of the maximum (-1: not known), and the values'
	// refMoments, every record counted: see far.
	maxEv   int
	moments refMoments
	lastF   float64
	// spike marks a maximum far above the others (see markSpikes), and
	// spikeAt is its record's clock.
	spike   bool
	spikeAt string
	// measureOnly: a slot past the candidates, followed for a spike
	// alone (see refMeasureCandidates); without one it is not shown.
	measureOnly bool
	// digitName: a word of the template that holds digits (host2, Dev3,
	// worker-7), which the template masks and so does not vary in it;
	// shown only when no other slot is.
	digitName bool
}

// refGroupSummary follows the records of one template.
type refGroupSummary struct {
	first, last string // clocks of the first and last records
	slots       []refSlotStat
	// slotSpace is the candidates' room, in the same allocation; a
	// template with measure slots past them pays for its own.
	slotSpace [refSummaryCandidates]refSlotStat
}

// refNewGroupSummary picks the slots of a template from its first instance:
// variable positions (toks, ids at ids) after the header (the clock).
func refNewGroupSummary(head string, toks []Tok, ids []uint64, lay Layout) *refGroupSummary {
	s := &refGroupSummary{}
	s.first, _ = refClockIn(head)
	msg := HeaderEnd(head, lay.HeaderCols)
	if lay.HeaderCols == 0 {
		msg = refMessageStart(head, refStampEnd(head))
	}
	for p := range toks {
		if len(s.slots) == refSummaryCandidates+refMeasureCandidates {
			break
		}
		if ids[p] > varToken || int(toks[p].Start) < msg {
			continue
		}
		measureOnly := len(s.slots) >= refSummaryCandidates
		if measureOnly && !refUnitValue(head[toks[p].Start:toks[p].End]) {
			continue
		}
		name := refSlotName(head, toks, ids, p)
		if s.slots == nil {
			s.slots = s.slotSpace[:0]
		}
		s.slots = append(s.slots, refSlotStat{pos: p, name: name, numeric: true, maxEv: -1, measureOnly: measureOnly})
	}
	if p, ok := refDigitNameAt(head, toks, ids, msg); ok {
		if s.slots == nil {
			s.slots = s.slotSpace[:0]
		}
		s.slots = append(s.slots, refSlotStat{pos: p, name: refNamePattern(head[toks[p].Start:toks[p].End]), maxEv: -1, digitName: true})
	}
	return s
}

// refDigitNameAt returns the first word of the message that the template
// holds fixed though it is a numbered name (see refNumberedName), whose
// digits it masks: its records may name others there.
func refDigitNameAt(head string, toks []Tok, ids []uint64, msg int) (int, bool) {
	for p := range toks {
		if ids[p] <= varToken || int(toks[p].Start) < msg {
			continue
		}
		if refNumberedName(head[toks[p].Start:toks[p].End]) {
			return p, true
		}
	}
	return 0, false
}

// refNamePattern is a numbered name with its digits as '*' (host*,
// node*.example.org), cut to refSummaryValueMax bytes: it names the slot.
func refNamePattern(w string) string {
	i := strings.IndexAny(w, "0123456789")
	p := w[:i] + "*" + w[textkit.DigitRun(w, i):]
	return refClipValue(p, false)
}

// refNumberedName reports a name that numbers one of a few of its kind: a
// word of two letters or more, an optional '-' or '_', one to four
// digits, and nothing after them but words (host2, web-01, Dev3,
// node04.example.org, db3-replica). An id (rdd_2_1, blk_-1727475099,
// a hash) has more digits or more runs of them.
func refNumberedName(w string) bool {
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

// refSlotName is the fixed word before slot p that names it, or "".
func refSlotName(head string, toks []Tok, ids []uint64, p int) string {
	if p == 0 || ids[p-1] <= varToken {
		return ""
	}
	w := head[toks[p-1].Start:toks[p-1].End]
	if i := strings.LastIndex(w, ", "); i >= 0 {
		w = w[i+2:] // a list's last item (see joinLists) names what follows
	}
	if len(w) <= 12 && refIsPlainName(w) {
		return w
	}
	return ""
}

// refStampEnd returns the end of the last column among a record's first
// eight that holds a date or a time (see isTimeToken), or 0: the header
// reaches at least there.
func refStampEnd(head string) int {
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

// refMessageStart returns where the message of a record starts: after the
// first ": " or " - " that follows the clock (syslog "sshd[42]: ", log4j
// and Python "Handler - "), within the first 160 bytes, else after the
// clock. Slots before it (pids, threads) are header, not what happened.
func refMessageStart(head string, after int) int {
	lim := min(len(head), 160)
	for i := after; i+2 < lim; i++ {
		if (head[i] == ':' || head[i] == '-') && head[i+1] == ' ' && (head[i] == ':' || (i > 0 && head[i-1] == ' ')) {
			return i + 2
		}
	}
	return after
}

// refIsPlainName reports a short word of letters, digits and _ . -, with a letter first.
func refIsPlainName(w string) bool {
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

// refPendingMax bounds a slot's pending hashes: memory stays bounded on a
// template of millions of records.
const refPendingMax = 1024

// settle moves the pending hashes into the distinct set, up to its cap.
func (sl *refSlotStat) settle() {
	sl.distinct.reserve(len(sl.pending))
	for _, h := range sl.pending {
		if sl.distinct.len() >= refSummaryDistinct {
			break
		}
		sl.distinct.add(h)
	}
	sl.pending = sl.pending[:0]
}

// distinctCount is the number of distinct values seen, capped at refSummaryDistinct.
func (sl *refSlotStat) distinctCount() int {
	sl.settle()
	return sl.distinct.len()
}

// hasRange reports a numeric slot whose values span a range: its summary
// is min–max, and it holds two distinct values at least.
func (sl *refSlotStat) hasRange() bool { return sl.numeric && sl.minS != sl.maxS }

// add counts one record of the template, event ev.
func (s *refGroupSummary) add(head string, toks []Tok, ev int) {
	for i := range s.slots {
		sl := &s.slots[i]
		if sl.pos < len(toks) {
			sl.add(head[toks[sl.pos].Start:toks[sl.pos].End], ev, true)
		}
	}
}

// addWildcards counts the values a record, event ev, holds at the
// merged positions of the template (ids: the root's token ids).
func (s *refGroupSummary) addWildcards(head string, toks []Tok, ids []uint64, ev int) {
	for i := range s.slots {
		sl := &s.slots[i]
		if sl.pos < len(toks) && ids[sl.pos] == wildcard {
			sl.add(head[toks[sl.pos].Start:toks[sl.pos].End], ev, true)
		}
	}
}

// mergeFrom adds the values another group of the same template counted.
func (s *refGroupSummary) mergeFrom(o *refGroupSummary) {
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
				if sl.distinct.len() < refSummaryDistinct {
					sl.distinct.add(h)
				}
			})
			if o.slots[j].numeric && o.slots[j].minS != "" {
				sl.add(o.slots[j].minS, -1, false)
				sl.add(o.slots[j].maxS, o.slots[j].maxEv, false)
				sl.moments.merge(o.slots[j].moments)
			} else {
				sl.numeric = false
			}
		}
	}
}

// add counts one value of the slot, held by event ev (-1: not known);
// counted adds it to the refMoments, which a merge adds whole.
func (sl *refSlotStat) add(v string, ev int, counted bool) {
	if sl.hasLast && v == sl.last {
		if counted && sl.numeric {
			sl.moments.add(sl.lastF)
		}
		return
	}
	sl.last, sl.hasLast = v, true
	if sl.measureOnly {
		sl.measure(v, ev, counted)
		return
	}
	h := wordHash(v)
	// The examples are the first two distinct values.
	switch {
	case sl.ex[0] == "":
		sl.ex[0], sl.ex0Hash = v, h
	case sl.ex[1] == "" && h != sl.ex0Hash:
		sl.ex[1] = v
	}
	sl.measure(v, ev, counted)
	if !sl.numeric {
		// A word slot's count is shown: its values go straight to the set.
		if len(sl.pending) > 0 {
			sl.settle()
		}
		if sl.distinct.len() < refSummaryDistinct {
			sl.distinct.add(h)
		}
		return
	}
	if sl.pending == nil {
		sl.pending = make([]uint64, 0, 64)
	}
	if sl.pending = append(sl.pending, h); len(sl.pending) == refPendingMax {
		sl.settle()
	}
}

// measure follows the numeric range of the slot's values, the record
// of its maximum and, when counted, its refMoments; it clears numeric at
// the first value that is no number of the slot's unit.
func (sl *refSlotStat) measure(v string, ev int, counted bool) {
	if !sl.numeric {
		return
	}
	if v == "" || (!textkit.IsDigit(v[0]) && v[0] != '-' && v[0] != '.') {
		sl.numeric = false
		return
	}
	f, unit, err := refQuantity(v)
	if sl.minS == "" {
		sl.unit = unit
	}
	switch {
	case err != nil || unit != sl.unit:
		sl.numeric = false
		return
	case sl.minS == "":
		sl.min, sl.minS, sl.max, sl.maxS = f, v, f, v
		sl.maxEv = ev
	case f < sl.min:
		sl.min, sl.minS = f, v
	case f > sl.max:
		sl.max, sl.maxS, sl.maxEv = f, v, ev
	case f == sl.max && sl.maxEv < 0:
		sl.maxEv = ev
	}
	sl.lastF = f
	if counted {
		sl.moments.add(f)
	}
}

// refMoments are a slot's count, mean and sum of squared deviations
// (Welford's), every record counted.
type refMoments struct {
	n        int
	mean, m2 float64
}

func (m *refMoments) add(f float64) {
	m.n++
	d := f - m.mean
	m.mean += d / float64(m.n)
	m.m2 += d * (f - m.mean)
}

func (m *refMoments) merge(o refMoments) {
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
func (m refMoments) without(x float64) (mean, sd float64) {
	n := float64(m.n - 1)
	mean = (float64(m.n)*m.mean - x) / n
	v := (m.m2 - (x-m.mean)*(x-mean)) / n
	return mean, math.Sqrt(max(v, 0))
}

// refMinFarRecords is the fewest records a template must hold for one of
// them to stand far from the others.
const refMinFarRecords = 10

// far returns the record whose value of the slot is a spike far above
// the others' (the one slow query of 200, the one transfer that took
// 716 ms where the others took 18): a measure (a value with a unit, or
// one a measure word names: took, size, total, Query_time), the template
// holding refMinFarRecords records or more, its maximum more than four
// standard deviations above the others' mean and three times it at
// least. An id (task 164) is no measure, and a dip is no news.
func (sl *refSlotStat) far() (ev int, ok bool) {
	if !sl.hasRange() || sl.moments.n < refMinFarRecords || sl.maxEv < 0 || !sl.measures() {
		return 0, false
	}
	m, sd := sl.moments.without(sl.max)
	if m <= 0 || sl.max < 3*m || sl.max-m <= 4*sd {
		return 0, false
	}
	return sl.maxEv, true
}

// refMeasureWords name a refQuantity measured, not an id.
var refMeasureWords = [...]string{"size", "took", "time", "total", "duration", "elapsed", "latency", "bytes",
	"len", "count", "mem", "cpu", "load", "usage", "used", "rate", "delay", "wait", "lag", "retries", "attempt"}

// measures reports a slot whose values are measures: they carry a unit,
// or the word before them names a measure.
func (sl *refSlotStat) measures() bool {
	if sl.unit != "" {
		return true
	}
	name := strings.ToLower(sl.name)
	for _, w := range refMeasureWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// markSpikes marks the slots whose maximum is a spike (see
// refSlotStat.far) with the clock of the record that holds it, clockOf(ev):
// the summary shows that slot first, and when its spike came.
func (s *refGroupSummary) markSpikes(clockOf func(ev int) string) {
	for i := range s.slots {
		sl := &s.slots[i]
		if ev, ok := sl.far(); ok {
			sl.spike, sl.spikeAt = true, clockOf(ev)
		}
	}
}

// refHashSet is a set of 64-bit hashes (well mixed, as wordHash's), open
// addressing with linear probing: no allocation while empty, and cheaper
// than a map for the thousand values a slot counts at most.
type refHashSet struct {
	slots []uint64 // 0: empty
	n     int
	zero  bool // 0 itself is in the set
}

func (s *refHashSet) len() int {
	if s.zero {
		return s.n + 1
	}
	return s.n
}

// add inserts h and reports whether it was new.
func (s *refHashSet) add(h uint64) bool {
	if h == 0 {
		added := !s.zero
		s.zero = true
		return added
	}
	if len(s.slots) > 0 {
		mask := uint64(len(s.slots) - 1)
		for i := refHashSlot(h) & mask; s.slots[i] != 0; i = (i + 1) & mask {
			if s.slots[i] == h {
				return false
			}
		}
	}
	if (s.n+1)*2 > len(s.slots) {
		s.grow()
	}
	s.put(h)
	s.n++
	return true
}

// put stores h, known absent, in its free slot.
func (s *refHashSet) put(h uint64) {
	mask := uint64(len(s.slots) - 1)
	i := refHashSlot(h) & mask
	for s.slots[i] != 0 {
		i = (i + 1) & mask
	}
	s.slots[i] = h
}

// reserve sizes an empty set for n values at once, rather than growing step by step.
func (s *refHashSet) reserve(n int) {
	if len(s.slots) > 0 || n < 8 {
		return
	}
	size := 16
	for size < 2*min(n, refSummaryDistinct) {
		size *= 2
	}
	s.slots = make([]uint64, size)
}

func (s *refHashSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(16, 2*len(old)))
	for _, h := range old {
		if h != 0 {
			s.put(h)
		}
	}
}

// refHashSlot spreads h's bits to its low ones, whatever hash made it.
func refHashSlot(h uint64) uint64 {
	h *= 0x9E3779B97F4A7C15
	return h ^ h>>29
}

// each calls f with every hash in the set.
func (s *refHashSet) each(f func(uint64)) {
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
func (s *refGroupSummary) suffix(count int) string {
	var b strings.Builder
	b.WriteString(CountOpen)
	b.WriteString(strconv.Itoa(count))
	if s.first != "" && s.last != "" && s.first != s.last {
		b.WriteString("; " + s.first + "–" + s.last)
	}
	for _, sl := range s.shown() {
		b.WriteString("; ")
		if sl.name != "" {
			b.WriteString(sl.name + ": ")
		}
		sl.writeValues(&b)
	}
	b.WriteString(countClose)
	return b.String()
}

// Ranks of a slot in a summary, first shown first (see shown).
const (
	refRankSpike = iota
	refRankWords
	refRankRange
	refRankNames
	refRankNone
)

// rank places a slot in the summary. A spike first: the one value the
// representative hides that a reader looks for. Then words: which values
// a representative stands for is what it can hide; a number's range
// comes next, and numbered names only when nothing else varies.
func (sl *refSlotStat) rank() int {
	switch {
	case sl.spike:
		return refRankSpike
	case sl.digitName:
		if sl.distinctCount() >= 2 {
			return refRankNames
		}
	case sl.measureOnly:
	case sl.hasRange():
		return refRankRange
	case sl.distinctCount() >= 2:
		return refRankWords
	}
	return refRankNone
}

// shown returns the slots the summary describes, at most refSummarySlots.
func (s *refGroupSummary) shown() []*refSlotStat {
	var order []*refSlotStat
	for r := refRankSpike; r < refRankNone; r++ {
		if r == refRankNames && len(order) > 0 {
			break
		}
		for i := range s.slots {
			if sl := &s.slots[i]; sl.rank() == r {
				order = append(order, sl)
			}
		}
	}
	return order[:min(len(order), refSummarySlots)]
}

// writeValues writes what the slot's values were: their range, or how
// many distinct and two of them.
func (sl *refSlotStat) writeValues(b *strings.Builder) {
	if sl.hasRange() {
		b.WriteString(sl.minS + "–" + sl.maxS)
		if sl.spike && sl.spikeAt != "" {
			b.WriteString(" (max at " + sl.spikeAt + ")")
		}
		return
	}
	n := sl.distinctCount()
	b.WriteString(strconv.Itoa(n))
	if n == refSummaryDistinct {
		b.WriteByte('+')
	}
	if sl.digitName {
		// The line shows one of the names; they differ in digits.
		b.WriteString(" distinct")
		return
	}
	x, y := refClipValue(sl.ex[0], false), refClipValue(sl.ex[1], false)
	if x == y { // a long shared opening (pod/web-7d9f8b6c5-dz4hj)
		x, y = refClipValue(sl.ex[0], true), refClipValue(sl.ex[1], true)
	}
	b.WriteString(" distinct (" + x + ", " + y)
	if n > 2 {
		b.WriteString(", …")
	}
	b.WriteByte(')')
}

// refUnitValue reports a number with a unit (1843.2ms, 4.5MB, 98%).
func refUnitValue(v string) bool {
	if v == "" || !textkit.IsDigit(v[0]) {
		return false
	}
	_, unit, err := refQuantity(v)
	return err == nil && unit != ""
}

// refQuantity reads a number with an optional unit of letters or % (12ms,
// 4.5MB, 98%).
func refQuantity(v string) (float64, string, error) {
	e := len(v)
	for e > 0 && (textkit.IsLetter(v[e-1]) || v[e-1] == '%') {
		e--
	}
	if e == 0 || e < len(v)-3 {
		return 0, "", strconv.ErrSyntax
	}
	if e <= 15 && textkit.DigitRun(v, 0) == e {
		n := 0 // most values are plain integers: no float parse
		for i := 0; i < e; i++ {
			n = n*10 + int(v[i]-'0')
		}
		return float64(n), v[e:], nil
	}
	f, err := strconv.ParseFloat(v[:e], 64)
	return f, v[e:], err
}

// refClipValue cuts an example value to refSummaryValueMax bytes, on a rune,
// keeping its first bytes, or with tail its last: values that share a
// long opening differ at their end.
func refClipValue(v string, tail bool) string {
	// Brackets and ';' would end the summary early.
	if i := strings.LastIndexAny(v, "[];\n"); tail && i >= 0 {
		v = v[i+1:]
	} else if i := strings.IndexAny(v, "[];\n"); !tail && i >= 0 {
		v = v[:i]
	}
	// A list (see joinLists) reads as one example among the others.
	v = strings.ReplaceAll(v, ", ", ",")
	if len(v) <= refSummaryValueMax {
		return v
	}
	if tail {
		cut := len(v) - refSummaryValueMax
		for cut < len(v) && v[cut]&0xc0 == 0x80 {
			cut++
		}
		return "…" + v[cut:]
	}
	cut := refSummaryValueMax
	for cut > 0 && v[cut]&0xc0 == 0x80 {
		cut--
	}
	return v[:cut] + "…"
}

// refClockIn finds the first clock time (7:04:05, 10:00:01) in the first
// bytes of a record, where its header is, and returns it as written,
// seconds included, fraction left out, and where its token ends.
func refClockIn(s string) (string, int) {
	lim := min(len(s), 96)
	for i := 0; i+4 < lim; i++ {
		if s[i] != ':' || !textkit.IsDigit(s[i+1]) || !textkit.IsDigit(s[i+2]) || i == 0 || !textkit.IsDigit(s[i-1]) {
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
