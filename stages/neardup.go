package stages

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"strings"

	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

// simBands is how many 16-bit bands of a 64-bit SimHash every fingerprint
// is filed under. Two fingerprints within simBands-1 bits agree on at least
// one band (pigeonhole), which bounds NearDupOptions.MaxDistance.
const simBands = 4

// NearDupOptions are the near-duplicate node's knobs.
type NearDupOptions struct {
	// MaxDistance is the largest Hamming distance between two 64-bit
	// SimHashes that still counts as a near duplicate. At most 3 are
	// found by the 4 bands every fingerprint is filed under.
	MaxDistance int `yaml:"max_distance"`
	// MinTokens: shorter units (lines or paragraphs) are never merged; a
	// one-word change in a short line is a different statement.
	MinTokens int `yaml:"min_tokens"`
	// MaxCompare bounds the fingerprints one unit is compared with in each
	// band bucket, so that crafted input stays linear.
	MaxCompare int `yaml:"max_compare"`
}

// DefaultNearDupOptions returns the shipped defaults.
func DefaultNearDupOptions() NearDupOptions {
	return NearDupOptions{MaxDistance: 3, MinTokens: 8, MaxCompare: 16}
}

// Validate reports a knob that is out of range.
func (o NearDupOptions) Validate() error {
	var errs []error
	if o.MaxDistance < 0 || o.MaxDistance > simBands-1 {
		errs = append(errs, &fieldError{"max_distance", fmt.Sprintf("must be in [0, %d], got %d", simBands-1, o.MaxDistance)})
	}
	errs = append(errs, mustBePositive("min_tokens", o.MinTokens), mustBePositive("max_compare", o.MaxCompare))
	return errors.Join(errs...)
}

type neardupNode struct{ opt NearDupOptions }

// NewNearDup builds the near-duplicate node. Each unit (a paragraph of
// prose or a transcript, a record of a log) gets a 64-bit SimHash over its
// token bigrams, with ids, hashes, timestamps and long numbers masked, so
// that repeats differing only there land on the same fingerprint. A unit
// within MaxDistance bits of an earlier kept one is dropped. Candidates
// are found through four 16-bit bands (pigeonhole: at distance 3 or less
// one band is equal), and each band bucket is searched among its latest
// MaxCompare entries only, so the work per unit is bounded.
//
// In prose and transcripts the merge is silent: no count, no speaker
// tally, since a decider reads counts as votes. In logs made of records a
// merged record adds its count to the kept one (" [×N]"). Build and test
// output is left alone: its repeats (retries, one failure per test) are
// the evidence. Protected placeholder lines are never merged.
func NewNearDup(o NearDupOptions) Node { return neardupNode{o} }

func (neardupNode) Key() Key { return KeyNearDup }

func (n neardupNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	var out string
	var err error
	switch in.Kind {
	case KindProse, KindTranscript:
		if reason := documentRepeats(in.Text); in.Kind == KindProse && reason != "" {
			return skip(in, reason), nil
		}
		out, err = fixpoint(ctx, in.Text, 4, func(ctx context.Context, text string) (string, bool, error) {
			out, err := n.paragraphs(ctx, text)
			return out, false, err
		})
	case KindLog:
		lay := layoutOf(in)
		if !lay.Records {
			return skip(in, "build output keeps its repeats"), nil
		}
		if lay.Fields != "" {
			return skip(in, "records with fields are log_dedup's"), nil
		}
		// One pass is a fixed point: a second one meets the records kept,
		// in order, against the same index, and drops none.
		out, err = n.records(ctx, lineIndex(ctx, in.Text), lay)
	default:
		return skip(in, "kind "+string(in.Kind)+" is left to structured"), nil
	}
	if err != nil {
		return Outcome{}, err
	}
	if out == in.Text {
		return skip(in, "no near duplicates"), nil
	}
	return done(out), nil
}

// simIndex files fingerprints under their four bands. Each band bucket
// is a list, latest first, threaded through next.
type simIndex struct {
	opt    NearDupOptions
	heads  bandHeads // band<<16|value -> the latest unit filed there
	next   []int32   // unit*simBands+band -> the unit filed before it there, or -1
	prints []uint64
}

// newSimIndex makes an index for about units fingerprints.
func newSimIndex(o NearDupOptions, units int) *simIndex {
	units = min(units, 1<<12)
	return &simIndex{opt: o, heads: newBandHeads(simBands * units), next: make([]int32, 0, simBands*units), prints: make([]uint64, 0, units)}
}

// bucket returns the latest unit filed under band b of fp, or -1.
func (x *simIndex) bucket(fp uint64, b int) int32 {
	return x.heads.get(bandKey(fp, b))
}

// find returns the unit whose fingerprint is nearest to fp within
// MaxDistance, or -1.
func (x *simIndex) find(fp uint64) int {
	best, bestD := -1, x.opt.MaxDistance+1
	for b := 0; b < simBands; b++ {
		for id, seen := x.bucket(fp, b), 0; id >= 0 && seen < x.opt.MaxCompare; id, seen = x.next[int(id)*simBands+b], seen+1 {
			if d := bits.OnesCount64(fp ^ x.prints[id]); d < bestD || (d == bestD && int(id) < best) {
				best, bestD = int(id), d
			}
		}
	}
	return best
}

// lookups counts the fingerprints find(fp) would read.
func (x *simIndex) lookups(fp uint64) int {
	n := 0
	for b := 0; b < simBands; b++ {
		for id, seen := x.bucket(fp, b), 0; id >= 0 && seen < x.opt.MaxCompare; id, seen = x.next[int(id)*simBands+b], seen+1 {
			n++
		}
	}
	return n
}

// add files fp and returns its unit id.
func (x *simIndex) add(fp uint64) int {
	id := int32(len(x.prints))
	x.prints = append(x.prints, fp)
	for b := 0; b < simBands; b++ {
		k := bandKey(fp, b)
		x.next = append(x.next, x.heads.get(k))
		x.heads.put(k, id)
	}
	return int(id)
}

// bandHeads maps band keys to unit ids: an open-addressed table, kept at
// most half full, cheaper than a map for four lookups a unit.
type bandHeads struct {
	keys  []uint32 // key+1; 0 is an empty slot
	ids   []int32
	n     int
	shift uint
}

func newBandHeads(hint int) bandHeads {
	size, shift := 16, uint(32-4)
	for size < 2*hint {
		size, shift = size*2, shift-1
	}
	return bandHeads{keys: make([]uint32, size), ids: make([]int32, size), shift: shift}
}

// slot returns where key is, or the empty slot where it would go.
func (t *bandHeads) slot(key uint32) int {
	mask := len(t.keys) - 1
	i := int((key+1)*0x9e3779b1>>t.shift) & mask
	for t.keys[i] != 0 && t.keys[i] != key+1 {
		i = (i + 1) & mask
	}
	return i
}

// get returns the id filed under key, or -1.
func (t *bandHeads) get(key uint32) int32 {
	if i := t.slot(key); t.keys[i] != 0 {
		return t.ids[i]
	}
	return -1
}

func (t *bandHeads) put(key uint32, id int32) {
	i := t.slot(key)
	if t.keys[i] != 0 {
		t.ids[i] = id
		return
	}
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
		i = t.slot(key)
	}
	t.keys[i], t.ids[i] = key+1, id
	t.n++
}

func (t *bandHeads) grow() {
	old := *t
	*t = bandHeads{keys: make([]uint32, 2*len(old.keys)), ids: make([]int32, 2*len(old.keys)), n: old.n, shift: old.shift - 1}
	for i, k := range old.keys {
		if k != 0 {
			j := t.slot(k - 1)
			t.keys[j], t.ids[j] = k, old.ids[i]
		}
	}
}

func bandKey(fp uint64, b int) uint32 {
	return uint32(b)<<16 | uint32(fp>>(16*b))&0xffff
}

// maxUnitBytes: larger units are not fingerprinted. Exact repeats of them
// are the dedup node's; a near repeat of a page-long block is rare, and
// one fingerprint would blur it.
const maxUnitBytes = 64 << 10

// paragraphs drops near-duplicate paragraphs (blank-line separated
// blocks; a one-line block is a line) silently.
func (n neardupNode) paragraphs(ctx context.Context, text string) (string, error) {
	x := textkit.NewLineIndex(text)
	nl := x.Len()
	cc := canceled{ctx: ctx}
	idx := newSimIndex(n.opt, nl)
	w := newLineWriter(len(text))
	changed := false
	var unit []string
	for start := 0; start < nl; {
		if err := cc.check(); err != nil {
			return "", err
		}
		end := start
		for end < nl && strings.TrimSpace(x.Line(end)) != "" {
			end++
		}
		if end > start && int(x.Starts[end]-x.Starts[start]) <= maxUnitBytes {
			unit = unit[:0]
			for k := start; k < end; k++ {
				unit = append(unit, x.Line(k))
			}
			if !hasProtected(unit) {
				// Who said it is not part of what was said: the same
				// statement from two speakers is one fact.
				first := unit[0]
				unit[0] = withoutSpeaker(first)
				fp, ntok := simhash(unit)
				unit[0] = first
				if ntok >= n.opt.MinTokens {
					if idx.find(fp) >= 0 && !headsTurn(unit, x, end) {
						changed = true
						start = end + 1 // the paragraph and the blank line after it
						continue
					}
					idx.add(fp)
				}
			}
		}
		// The paragraph and the blank line after it.
		w.Add(x.Span(start, min(end+1, nl)))
		start = end + 1
	}
	if !changed {
		return text, nil
	}
	out := w.String()
	// A dropped last paragraph can leave a trailing blank line behind.
	for strings.HasSuffix(out, "\n") {
		k := strings.LastIndexByte(out[:len(out)-1], '\n')
		if strings.TrimSpace(out[k+1:len(out)-1]) != "" {
			break
		}
		out = out[:len(out)-1]
	}
	return out, nil
}

// headsTurn reports a paragraph holding a speaker label ("Bob: ...",
// "[12:00 INFO] Bob: ...") whose turn goes on in the lines after it:
// dropping it would hand those lines to the previous speaker.
func headsTurn(para []string, x textkit.LineIndex, after int) bool {
	turn := false
	for _, l := range para {
		if isTurnStart(l) {
			turn = true
			break
		}
	}
	if !turn {
		return false
	}
	for k := after; k < x.Len(); k++ {
		if l := x.Line(k); strings.TrimSpace(l) != "" {
			return !isTurnStart(l)
		}
	}
	return false
}

// withoutSpeaker drops a leading speaker label (and a log header before
// it) from line.
func withoutSpeaker(line string) string {
	body := line
	if line != "" && line[0] == '[' && textkit.IsLogRecord(line) {
		if i := strings.IndexByte(line, ']'); i > 0 && i+2 < len(line) {
			body = line[i+2:]
		}
	}
	if m := turnStart.FindStringIndex(body); m != nil {
		return body[m[1]:]
	}
	return line
}

func isTurnStart(line string) bool {
	body := line
	if line != "" && line[0] == '[' && textkit.IsLogRecord(line) {
		if i := strings.IndexByte(line, ']'); i > 0 && i+2 < len(line) {
			body = line[i+2:]
		}
	}
	return turnStart.MatchString(body)
}

// records merges near-duplicate log records into the first one and adds
// their counts to it. Records with equal masked text share one lookup.
func (n neardupNode) records(ctx context.Context, x textkit.LineIndex, lay logs.Layout) (string, error) {
	text := x.Text
	nl := x.Len()
	cc := canceled{ctx: ctx}
	idx := newSimIndex(n.opt, nl)
	lineOf := make([]int32, 0, min(nl, 1<<12)) // unit id -> its line, increasing
	count := make([]int, 0, cap(lineOf))       // unit id -> records it stands for
	drop := make([]uint64, nl/64+1)
	seen := make(map[uint64]int, min(nl, 1<<12)) // masked text -> unit id
	changed := false
	var toks []uint64
	var scratch [2][]logs.Tok
	nextOpens := nl > 0 && lay.OpensRecord(x.Line(0)) // each line is read once
	for i := 0; i < nl; i++ {
		if err := cc.check(); err != nil {
			return "", err
		}
		opens := nextOpens
		if i+1 < nl {
			nextOpens = lay.OpensRecord(x.Line(i + 1))
		}
		if !opens {
			continue
		}
		// A record with continuation lines (a stack trace) stays whole.
		if i+1 < nl && x.Line(i+1) != "" && !nextOpens {
			continue
		}
		head, w, ok := mergeableHead(x.Line(i), lay)
		if !ok {
			continue
		}
		toks = simTokens([]string{head}, true, toks[:0])
		if len(toks) < n.opt.MinTokens {
			continue
		}
		key := seqKey(toks)
		u, ok := seen[key]
		if !ok {
			fp := fingerprint(toks)
			u = idx.find(fp)
			if u >= 0 && !sameEvent(x.Line(int(lineOf[u])), head, lay, &scratch) {
				u = -1 // close, but a word that names the event differs
			}
			if u < 0 {
				u = idx.add(fp)
				lineOf = append(lineOf, int32(i))
				count = append(count, w)
				seen[key] = u
				continue
			}
			seen[key] = u
		}
		count[u] += w
		drop[i/64] |= 1 << (i % 64)
		changed = true
	}
	if !changed {
		return text, nil
	}
	out := newLineWriter(len(text))
	u := 0
	for i := 0; i < nl; i++ {
		if drop[i/64]&(1<<(i%64)) != 0 {
			continue
		}
		l := x.Line(i)
		for u < len(lineOf) && int(lineOf[u]) < i {
			u++
		}
		if u < len(lineOf) && int(lineOf[u]) == i && count[u] > 1 {
			// A line that took in others gets their count; its summary,
			// if any, no longer covers them and goes.
			if head, w := logs.SplitCount(l); w != count[u] {
				l = logs.WithCount(head, count[u])
			}
		}
		out.Add(l)
	}
	return out.String(), nil
}

// mergeableHead returns a record line's text without its count, and the
// count; ok is false for a record that is never merged.
func mergeableHead(l string, lay logs.Layout) (head string, w int, ok bool) {
	head, w = logs.SplitCount(l)
	if len(head) > maxUnitBytes || len(lay.StatusFields) > 0 && lay.ErrorStatus(head) != "" {
		// An access record that failed stays apart from the route's
		// other records, whose numbers alone differ from its own.
		return "", 0, false
	}
	return head, w, true
}

// sameEvent reports whether two records near in SimHash differ only in
// values that look like data (a digit, a dot, a slash, an @ inside), so
// that merging them loses no event: user=guest and user=root stay apart.
func sameEvent(kept, head string, lay logs.Layout, scratch *[2][]logs.Tok) bool {
	kept, _ = logs.SplitCount(kept)
	a := lay.TemplateTokens(kept, scratch[0][:0])
	b := lay.TemplateTokens(head, scratch[1][:0])
	scratch[0], scratch[1] = a, b
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if logs.TokenID(a[i]) == logs.TokenID(b[i]) {
			continue
		}
		if !dataLike(kept[a[i].Start:a[i].End]) || !dataLike(head[b[i].Start:b[i].End]) {
			return false
		}
	}
	return true
}

// dataLike reports a token that holds a digit or a dot or @ between other
// bytes: a number, an address, a host. A path is not: its route names
// what happened (see pathShape).
func dataLike(t string) bool {
	if strings.IndexByte(t, '/') >= 0 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if textkit.IsDigit(t[i]) || (i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == '@')) {
			return true
		}
	}
	return false
}

// simTokens appends the masked token hashes of lines to dst. With all set
// (log records) every number is masked, as log_dedup does.
func simTokens(lines []string, all bool, dst []uint64) []uint64 {
	if all {
		for _, line := range lines {
			dst = recordSimTokens(line, dst)
		}
		return dst
	}
	for _, line := range lines {
		for i := 0; i < len(line); {
			for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
				i++
			}
			s := i
			for i < len(line) && line[i] != ' ' && line[i] != '\t' {
				i++
			}
			if s < i {
				dst = append(dst, simToken(line[s:i], all))
			}
		}
	}
	return dst
}

// Byte classes of recordSimTokens, word bytes last.
const (
	simOther   = iota // hashed as it is
	simBlank          // separates tokens
	simLetter         // a word byte that is no hex digit: hashed as it is
	simHexWord        // a hex letter: may open a hex id
	simDigit          // a digit: may open a hex id, masked in a run
)

// simClass is each byte's class for recordSimTokens.
var simClass = func() (class [256]uint8) {
	for c := 0; c < 256; c++ {
		switch b := byte(c); {
		case b == ' ' || b == '\t':
			class[c] = simBlank
		case textkit.IsDigit(b):
			class[c] = simDigit
		case textkit.IsHexDigit(b):
			class[c] = simHexWord
		case isWordByte(b):
			class[c] = simLetter
		}
	}
	return class
}()

// recordSimTokens appends to dst the hash of each token of line as
// simToken(t, true) gives it, in one pass over its bytes: each digit run
// is hashed as one '#'. A run of hex digits where no word byte comes
// right before it may be a hex id: it is hashed as it comes, and when it
// reads as an id, as one '#' instead.
func recordSimTokens(line string, dst []uint64) []uint64 {
	const prime = uint64(textkit.FNVPrime)
	for j := 0; j < len(line); {
		if simClass[line[j]] == simBlank {
			j++
			continue
		}
		h := uint64(textkit.FNVOffset)
	token:
		for j < len(line) {
			c := line[j]
			switch simClass[c] {
			case simOther:
				h = (h ^ uint64(c)) * prime
				j++
				continue
			case simBlank:
				break token
			case simLetter:
				h = (h ^ uint64(c)) * prime
				j++
			default:
				// A run of hex digits opens the word.
				before, start, digits := h, j, false
				for j < len(line) {
					c := line[j]
					cl := simClass[c]
					if cl < simHexWord {
						break
					}
					if cl == simDigit {
						h, j, digits = (h^'#')*prime, digitRunEnd(line, j+1), true
						continue
					}
					h = (h ^ uint64(c)) * prime
					j++
				}
				if digits && j-start >= 8 && (j == len(line) || simClass[line[j]] != simLetter) {
					h = (before ^ '#') * prime // a hex id, masked whole
				}
			}
			// Inside a word no hex id starts: a hex letter is hashed as it
			// is, a run of digits as one '#'.
			for j < len(line) {
				c := line[j]
				cl := simClass[c]
				if cl < simLetter {
					break
				}
				if cl == simDigit {
					h, j = (h^'#')*prime, digitRunEnd(line, j+1)
					continue
				}
				h = (h ^ uint64(c)) * prime
				j++
			}
		}
		dst = append(dst, h)
	}
	return dst
}

// digitRunEnd returns the end of the run of digits of line at j.
func digitRunEnd(line string, j int) int {
	for j < len(line) && simClass[line[j]] == simDigit {
		j++
	}
	return j
}

// seqKey hashes a token sequence exactly: equal keys, equal masked text.
func seqKey(toks []uint64) uint64 {
	k := uint64(textkit.FNVOffset) ^ uint64(len(toks))
	for _, t := range toks {
		k = (k ^ t) * textkit.FNVPrime
	}
	return k
}

// fingerprint is the SimHash of a token sequence over its bigrams (the
// token itself when there is only one): bit b is set when most feature
// hashes have bit b set.
func fingerprint(toks []uint64) uint64 {
	var votes simVotes
	if len(toks) == 1 {
		votes.add(toks[0])
	}
	for i := 1; i < len(toks); i++ {
		votes.add(toks[i-1]*textkit.FNVPrime ^ toks[i])
	}
	return votes.majority()
}

// simVotes counts, for each of 64 bit positions, how many feature hashes
// have that bit set, bit-sliced: bit b of planes[k] is bit k of the count
// for position b, so one add is a ripple carry over a few words.
type simVotes struct {
	planes [32]uint64
	n      int32
}

func (v *simVotes) add(h uint64) {
	// Spread the feature hash before voting, so similar hashes differ.
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	for k := 0; h != 0; k++ {
		v.planes[k], h = v.planes[k]^h, v.planes[k]&h
	}
	v.n++
}

// majority sets bit b when most feature hashes have bit b set: when its
// count is n/2+1 or more, compared plane by plane from the top.
func (v *simVotes) majority() uint64 {
	need := uint32(v.n/2 + 1)
	above, equal := uint64(0), ^uint64(0)
	for k := bits.Len32(need) - 1; k >= 0; k-- {
		if need>>k&1 != 0 {
			equal &= v.planes[k]
		} else {
			above |= equal & v.planes[k]
			equal &^= v.planes[k]
		}
	}
	// A count with a bit above need's highest is above it.
	for k := bits.Len32(need); k < len(v.planes); k++ {
		above |= v.planes[k]
	}
	return above | equal
}

// simhash fingerprints lines and returns the fingerprint and token count.
func simhash(lines []string) (uint64, int) {
	toks := simTokens(lines, false, nil)
	return fingerprint(toks), len(toks)
}

// simToken hashes a token with the values that vary between repeats
// masked: hex ids, runs of five or more digits (ids, epochs), and the
// numbers of times (12:04:05) and dates (2024-01-02). Short plain numbers,
// versions and fractions stay: in prose "5" and "50" are different facts.
func simToken(t string, all bool) uint64 {
	// With all set, masking a token without digits leaves it as it is.
	maskAll := all
	if !all {
		plain, digits, stamp := simTokenShape(t)
		if digits == 0 {
			return plain
		}
		maskAll = stamp
	}
	return maskedSimHash(t, maskAll)
}

// simTokenShape returns t's hash as it is, its count of digits, and
// whether it reads as a time or a date, whose numbers are all masked.
func simTokenShape(t string) (plain uint64, digits int, stamp bool) {
	timeLike, dateLike := false, false
	plain = uint64(textkit.FNVOffset)
	for j := 0; j < len(t); j++ {
		plain = (plain ^ uint64(t[j])) * textkit.FNVPrime
		if textkit.IsDigit(t[j]) {
			digits++
		} else if j > 0 && j+1 < len(t) && textkit.IsDigit(t[j-1]) && textkit.IsDigit(t[j+1]) {
			switch t[j] {
			case ':':
				timeLike = true
			case '-', '/':
				dateLike = true
			}
		}
	}
	return plain, digits, timeLike || (dateLike && digits >= 6)
}

// maskedSimHash hashes t with hex ids and long digit runs masked, and
// every digit run when maskAll.
func maskedSimHash(t string, maskAll bool) uint64 {
	h := uint64(textkit.FNVOffset)
	for j := 0; j < len(t); {
		c := t[j]
		if textkit.IsHexDigit(c) && (j == 0 || !isWordByte(t[j-1])) {
			if e := hexIDEnd(t, j); e > j {
				h = (h ^ '#') * textkit.FNVPrime
				j = e
				continue
			}
		}
		if textkit.IsDigit(c) {
			e := textkit.DigitRun(t, j)
			if maskAll || e-j >= 5 {
				h = (h ^ '#') * textkit.FNVPrime
				j = e
				continue
			}
			for ; j < e; j++ {
				h = (h ^ uint64(t[j])) * textkit.FNVPrime
			}
			continue
		}
		h = (h ^ uint64(c)) * textkit.FNVPrime
		j++
	}
	return h
}

// hexIDEnd returns the end of a hex id at t[j]: eight hex digits or more,
// a digit among them, as a whole word. It returns j when there is none.
func hexIDEnd(t string, j int) int {
	if !textkit.IsHexDigit(t[j]) || (j > 0 && isWordByte(t[j-1])) {
		return j
	}
	e, d := j, 0
	for e < len(t) && textkit.IsHexDigit(t[e]) {
		if textkit.IsDigit(t[e]) {
			d++
		}
		e++
	}
	if d > 0 && e-j >= 8 && (e == len(t) || !isWordByte(t[e])) {
		return e
	}
	return j
}
