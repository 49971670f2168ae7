package logs

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// summaryCase is a generated template: its records' heads, the tokens of
// each, the token ids of the template (varToken at its slots) and a
// second template, merged with the first at one wildcard position.
type summaryCase struct {
	heads []string
	toks  [][]Tok
	ids   []uint64
}

// valueClass draws the values of one slot, record after record.
type valueClass func(r *rand.Rand, k int) string

// slotClasses are the inputs a slot sees: numbers in a range, durations
// with a unit, ids, a constant, values repeated in runs, a spike among
// small measures, numbers that turn to words, mixed units and forms
// (leading zeros, decimals, negatives, long digit runs), and many
// distinct words past the distinct cap.
var slotClasses = []valueClass{
	func(r *rand.Rand, k int) string { return strconv.Itoa(r.IntN(500)) },
	func(r *rand.Rand, k int) string { return strconv.Itoa(10+r.IntN(90)) + "ms" },
	func(r *rand.Rand, k int) string { return "blk_" + strconv.FormatInt(r.Int64N(1<<40), 16) },
	func(r *rand.Rand, k int) string { return "8080" },
	func(r *rand.Rand, k int) string { return strconv.Itoa(k / (1 + k%7) % 4) },
	func(r *rand.Rand, k int) string {
		if k == 17 || r.IntN(60) == 0 {
			return strconv.Itoa(5000+r.IntN(5000)) + "ms"
		}
		return strconv.Itoa(10+r.IntN(8)) + "ms"
	},
	func(r *rand.Rand, k int) string {
		if k > 12 && r.IntN(3) == 0 {
			return "n/a"
		}
		return strconv.Itoa(r.IntN(50))
	},
	func(r *rand.Rand, k int) string {
		return [...]string{"007", "7", "7.0", "-3", "1e3", "4.5MB", "4.5KB", "98%", "12345678901234567", ".5", "0", "x1", "12msec"}[r.IntN(13)]
	},
	func(r *rand.Rand, k int) string { return "user" + strconv.Itoa(r.IntN(3000)) },
	func(r *rand.Rand, k int) string {
		if k > 1500 && r.IntN(2) == 0 {
			return "w" + strconv.Itoa(r.IntN(100))
		}
		return strconv.Itoa(r.IntN(100000))
	},
	func(r *rand.Rand, k int) string {
		return [...]string{"alice", "bob", "carol", "pod/web-7d9f8b6c5-dz4hj", "pod/web-7d9f8b6c5-xk2p1", "a;b", "x[1]"}[r.IntN(7)]
	},
}

// slotNames are the words a slot may follow: measure words (some in
// upper case), plain names and none.
var slotNames = []string{"took", "Size", "LATENCY", "user", "port", "id", "count:", "x", "total_bytes", "node"}

// genSummaryCase builds records of one template: a clock, a host of a
// numbered name or a plain one, a fixed word, then slots of random
// classes between fixed words.
func genSummaryCase(r *rand.Rand) summaryCase {
	slots := 1 + r.IntN(6)
	classes := make([]valueClass, slots)
	names := make([]string, slots)
	for i := range classes {
		classes[i] = slotClasses[r.IntN(len(slotClasses))]
		names[i] = slotNames[r.IntN(len(slotNames))]
	}
	host := [...]string{"host7", "web-01", "server", "db3-replica"}[r.IntN(4)]
	event := [...]string{"event", "worker3", "node04.example.org", "Dev12"}[r.IntN(4)]
	var c summaryCase
	records := 1 + r.IntN(60)
	if r.IntN(8) == 0 {
		records = 1100 + r.IntN(1500) // past the pending bound and the distinct cap
	}
	for k := 0; k < records; k++ {
		sec := k * (1 + r.IntN(3))
		words := []string{"2024-05-01", "10:" + twoDigits(sec/60%60) + ":" + twoDigits(sec%60), host, "svc:", event}
		for i := range classes {
			words = append(words, names[i], classes[i](r, k))
		}
		head := strings.Join(words, " ")
		var toks []Tok
		off := 0
		for i, w := range words {
			t := Tok{Start: int32(off), End: int32(off + len(w))}
			if i < 2 || (i >= 5 && (i-5)%2 == 1) {
				t.flags = tokVariable
			}
			toks = append(toks, t)
			off += len(w) + 1
		}
		c.heads = append(c.heads, head)
		c.toks = append(c.toks, toks)
		if k == 0 {
			for i, t := range toks {
				id := wordHash(words[i]) | 2
				if t.variable() {
					id = varToken
				}
				c.ids = append(c.ids, id)
			}
		}
	}
	return c
}

func twoDigits(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10)}) }

// runSummaries feeds a case to the summary code and to the reference, as
// templates.add does (the first record again when the second comes), and
// returns both summaries, spikes marked.
func runSummaries(c summaryCase, from, to int) (*groupSummary, *refGroupSummary) {
	s := newGroupSummary(c.heads[from], c.toks[from], c.ids, Layout{})
	ref := refNewGroupSummary(c.heads[from], c.toks[from], c.ids, Layout{})
	for ev := from; ev < to; ev++ {
		s.add(c.heads[ev], c.toks[ev], ev)
		ref.add(c.heads[ev], c.toks[ev], ev)
	}
	return s, ref
}

func markBoth(c summaryCase, s *groupSummary, ref *refGroupSummary) {
	clockOf := func(ev int) string { v, _ := clockIn(c.heads[ev]); return v }
	s.markSpikes(clockOf)
	ref.markSpikes(clockOf)
}

// compareSummaries fails when the fast summary and the reference differ
// in what they write or in any statistic a summary reads.
func compareSummaries(t *testing.T, what string, s *groupSummary, ref *refGroupSummary) {
	t.Helper()
	if len(s.slots) != len(ref.slots) {
		t.Fatalf("%s: %d slots, reference %d", what, len(s.slots), len(ref.slots))
	}
	for i := range s.slots {
		a, b := &s.slots[i], &ref.slots[i]
		if int(a.pos) != b.pos || a.name != b.name || a.numeric != b.numeric || a.unit != b.unit ||
			a.minS != b.minS || a.maxS != b.maxS || int(a.maxEv) != b.maxEv || a.ex != b.ex ||
			a.spike != b.spike || a.spikeAt != b.spikeAt || a.moments.n != b.moments.n ||
			math.Float64bits(a.moments.mean) != math.Float64bits(b.moments.mean) ||
			math.Float64bits(a.moments.m2) != math.Float64bits(b.moments.m2) ||
			a.measures() != b.measures() || a.hasRange() != b.hasRange() {
			t.Fatalf("%s: slot %d differs:\n fast %+v\n ref  %+v", what, i, *a, *b)
		}
		if x, y := a.distinctCount(), b.distinctCount(); x != y {
			t.Fatalf("%s: slot %d: %d distinct, reference %d", what, i, x, y)
		}
	}
	for _, count := range []int{2, 57, 1e12} {
		if x, y := s.suffix(count), ref.suffix(count); x != y {
			t.Fatalf("%s: suffix %q, reference %q", what, x, y)
		}
	}
}

// checkSummaryCase runs one generated case: the whole template, and its
// records split in two groups, the second merged into the first as
// templates.summaries merges a group into its root.
func checkSummaryCase(t *testing.T, what string, c summaryCase, split int) {
	t.Helper()
	n := len(c.heads)
	s, ref := runSummaries(c, 0, n)
	s.first, _ = clockIn(c.heads[0])
	s.last, _ = clockIn(c.heads[n-1])
	ref.first, ref.last = s.first, s.last
	markBoth(c, s, ref)
	compareSummaries(t, what, s, ref)
	if n < 3 {
		return
	}
	split = 1 + split%(n-1)
	a, aref := runSummaries(c, 0, split)
	b, bref := runSummaries(c, split, n)
	ids := append([]uint64(nil), c.ids...)
	for _, sl := range a.slots {
		if !sl.digitName && int(sl.pos) < len(ids) {
			ids[sl.pos] = wildcard // a merged position
			break
		}
	}
	root := newGroupSummary(c.heads[0], c.toks[0], ids, Layout{})
	rref := refNewGroupSummary(c.heads[0], c.toks[0], ids, Layout{})
	root.mergeFrom(a)
	root.addWildcards(c.heads[0], c.toks[0], ids, 0)
	rref.mergeFrom(aref)
	rref.addWildcards(c.heads[0], c.toks[0], ids, 0)
	root.mergeFrom(b)
	root.addWildcards(c.heads[split], c.toks[split], ids, split)
	rref.mergeFrom(bref)
	rref.addWildcards(c.heads[split], c.toks[split], ids, split)
	root.first, root.last = s.first, s.last
	rref.first, rref.last = s.first, s.last
	markBoth(c, root, rref)
	compareSummaries(t, what+" merged", root, rref)
}

// TestGroupSummaryMatchesReference holds the summary code to its
// reference (logsummary_ref_test.go) on generated templates of every
// slot class: what it writes, and every statistic behind it.
func TestGroupSummaryMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for n := 0; n < 400; n++ {
		checkSummaryCase(t, "case "+strconv.Itoa(n), genSummaryCase(r), r.IntN(1000))
	}
}

// FuzzGroupSummaryReference is TestGroupSummaryMatchesReference on
// fuzzed seeds.
func FuzzGroupSummaryReference(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 99} {
		f.Add(s, s*7, 5)
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64, split int) {
		r := rand.New(rand.NewPCG(s1, s2))
		checkSummaryCase(t, "fuzz", genSummaryCase(r), max(split, 0))
	})
}

// TestSlotStatMatchesReference adds the same random values, a few of
// them empty or repeated, to a slot and to the reference slot, in every
// kind a slot starts as.
func TestSlotStatMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for n := 0; n < 2000; n++ {
		class := slotClasses[r.IntN(len(slotClasses))]
		measureOnly, digitName := r.IntN(5) == 0, r.IntN(7) == 0
		a := slotStat{name: slotNames[r.IntN(len(slotNames))], numeric: !digitName, maxEv: -1, measureOnly: measureOnly, digitName: digitName}
		b := refSlotStat{name: a.name, numeric: a.numeric, maxEv: -1, measureOnly: measureOnly, digitName: digitName}
		for k := r.IntN(3000); k > 0; k-- {
			v := class(r, k)
			if r.IntN(50) == 0 {
				v = ""
			}
			ev, counted := k, r.IntN(10) > 0
			if !counted {
				ev = -1
			}
			a.add(v, ev, counted)
			b.add(v, ev, counted)
		}
		s := &groupSummary{slots: []slotStat{a}}
		ref := &refGroupSummary{slots: []refSlotStat{b}}
		clock := func(ev int) string { return "t" + strconv.Itoa(ev) }
		s.markSpikes(clock)
		ref.markSpikes(clock)
		compareSummaries(t, "slot "+strconv.Itoa(n), s, ref)
	}
}

// TestMeasuresMatchesReference: a slot's name tells a measure as the
// reference's lower-casing and search do, on names cut from measure
// words and other letters, in mixed case.
func TestMeasuresMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	pieces := append(refMeasureWords[:], "x", "_", "-", ".", "tim", "siz", "Z", "q", "1", "to", "ok")
	for n := 0; n < 50000; n++ {
		var b strings.Builder
		for k := r.IntN(4); k > 0; k-- {
			p := []byte(pieces[r.IntN(len(pieces))])
			for i := range p {
				if r.IntN(3) == 0 && p[i] >= 'a' && p[i] <= 'z' {
					p[i] -= 'a' - 'A'
				}
			}
			b.Write(p)
		}
		a, ref := slotStat{name: b.String()}, refSlotStat{name: b.String()}
		if a.measures() != ref.measures() {
			t.Fatalf("%q: measures %v, reference %v", a.name, a.measures(), ref.measures())
		}
	}
}

// clockLine draws the opening of a record: clocks whole and cut, ports,
// addresses, fractions and zones, at any offset up to past the 96 bytes
// clockIn reads.
func clockLine(r *rand.Rand) string {
	pieces := []string{"10:00:01", "7:04:05", "23:59", "10.0.0.85:50010", "123:45", ":1", "12:3", "1:23:4",
		",000Z", "\"", " ", "\t", "2024-05-01", "x", ":", "99:99:99", "5:6", "é", strings.Repeat("a", 40)}
	var b strings.Builder
	for k := r.IntN(10); k > 0; k-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// TestClockInMatchesReference holds clockIn, which finds its colons with
// IndexByte, to the byte-at-a-time reference.
func TestClockInMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	for n := 0; n < 50000; n++ {
		s := clockLine(r)
		c, e := clockIn(s)
		rc, re := refClockIn(s)
		if c != rc || e != re {
			t.Fatalf("%q: (%q, %d), reference (%q, %d)", s, c, e, rc, re)
		}
	}
}

// FuzzClockInReference is TestClockInMatchesReference on fuzzed lines.
func FuzzClockInReference(f *testing.F) {
	f.Add("Dec 10 07:04:05 host sshd[42]: 10.0.0.85:50010 closed")
	f.Fuzz(func(t *testing.T, s string) {
		c, e := clockIn(s)
		rc, re := refClockIn(s)
		if c != rc || e != re {
			t.Fatalf("%q: (%q, %d), reference (%q, %d)", s, c, e, rc, re)
		}
	})
}

// numberText draws what a slot may hold: signs, digits (up to 20),
// points, exponents and units.
func numberText(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(4) == 0 {
		b.WriteByte("-+."[r.IntN(3)])
	}
	for k := r.IntN(21); k > 0; k-- {
		switch r.IntN(12) {
		case 0:
			b.WriteByte('.')
		case 1:
			b.WriteByte('e')
		default:
			b.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	b.WriteString([...]string{"", "", "ms", "MB", "%", "s", "msec", "_1"}[r.IntN(8)])
	return b.String()
}

// TestQuantityMatchesReference holds quantity, which reads plain
// decimals itself, to the reference's ParseFloat: the same bits.
func TestQuantityMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	for n := 0; n < 200000; n++ {
		checkQuantity(t, numberText(r))
	}
}

func checkQuantity(t *testing.T, v string) {
	t.Helper()
	f, u, err := quantity(v)
	rf, ru, rerr := refQuantity(v)
	if math.Float64bits(f) != math.Float64bits(rf) || u != ru || (err == nil) != (rerr == nil) {
		t.Fatalf("%q: (%v, %q, %v), reference (%v, %q, %v)", v, f, u, err, rf, ru, rerr)
	}
}

// FuzzQuantityReference is TestQuantityMatchesReference on fuzzed values.
func FuzzQuantityReference(f *testing.F) {
	f.Add("-12.5ms")
	f.Add("0.000000000000001")
	f.Fuzz(func(t *testing.T, v string) { checkQuantity(t, v) })
}
