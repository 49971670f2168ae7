package stages

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

func TestNearDupGolden(t *testing.T) {
	runGolden(t, NewNearDup(DefaultNearDupOptions()), "near_dup", *update)
}

func TestNearDup(t *testing.T) {
	node := NewNearDup(DefaultNearDupOptions())
	for _, tc := range []struct {
		name string
		kind Kind
		in   string
		want string
	}{
		{
			name: "paragraphs differing by timestamp and id merge silently",
			kind: KindProse,
			in: "[2024-05-02 10:14:03] build 7f3a9c21e4 of the billing service passed all checks on the main runner.\n\n" +
				"Something else entirely happened in between these two events today.\n\n" +
				"[2024-05-02 11:20:41] build 0b9e77d13f of the billing service passed all checks on the main runner.\n",
			want: "[2024-05-02 10:14:03] build 7f3a9c21e4 of the billing service passed all checks on the main runner.\n\n" +
				"Something else entirely happened in between these two events today.\n",
		},
		{
			name: "small numbers are facts",
			kind: KindProse,
			in: "Two tickets mention totals that are 5 cents off on invoices with discounts.\n\n" +
				"Two tickets mention totals that are 50 cents off on invoices with discounts.\n",
		},
		{
			name: "short lines stay",
			kind: KindProse,
			in:   "Yes, agreed.\n\nYes, agreed!\n\nYes, agreed.\n",
		},
		{
			name: "transcripts merge without tallies",
			kind: KindTranscript,
			in: "Analyst A: PackPro ships from Chicago and its quoted lead time is twelve days.\n\n" +
				"Analyst B: PackPro ships from Chicago and its quoted lead time is twelve days.\n\n" +
				"Analyst C: BoxWest had three damage claims last quarter, which matters for glass.\n",
			want: "Analyst A: PackPro ships from Chicago and its quoted lead time is twelve days.\n\n" +
				"Analyst C: BoxWest had three damage claims last quarter, which matters for glass.\n",
		},
		{
			name: "a speaker label that heads its turn stays",
			kind: KindTranscript,
			in: "[2023-08-22 14:46:15 INFO] Programmer: **Programmer<->Reviewer on : Review, turn 0**\n\nfirst reply\n\n" +
				"[2023-08-22 14:49:01 INFO] Programmer: **Programmer<->Reviewer on : Review, turn 0**\n\nsecond reply\n",
		},
		{
			name: "log records merge and add their counts",
			kind: KindLog,
			in: "2024-01-01 10:00:01 INFO [net] app.Net: connection from 10.0.0.1 closed after 12 requests and 3 errors\n" +
				"2024-01-01 10:00:03 INFO [db] app.Db: pool resized from 8 to 16 connections because of queue pressure\n" +
				"2024-01-01 10:00:04 INFO [net] app.Net: connection from 10.0.0.3 closed after 12 requests and 3 errors [×4]\n",
			want: "2024-01-01 10:00:01 INFO [net] app.Net: connection from 10.0.0.1 closed after 12 requests and 3 errors [×5]\n" +
				"2024-01-01 10:00:03 INFO [db] app.Db: pool resized from 8 to 16 connections because of queue pressure\n",
		},
		{
			name: "build output keeps its repeats",
			kind: KindLog,
			in: "$ git clone --depth=50 https://example.org/acme/widget.git acme/widget\n" +
				"fatal: Remote branch feature/readme-2018-11-16 not found in upstream origin\n" +
				"The command git clone failed. Retrying, 2 of 3.\n" +
				"fatal: Remote branch feature/readme-2018-11-16 not found in upstream origin\n" +
				"The command git clone failed. Retrying, 3 of 3.\n",
		},
		{
			name: "json is left to structured",
			kind: KindJSON,
			in:   `[{"a": "one two three four five six seven eight nine"}, {"a": "one two three four five six seven eight nine"}]`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == "" {
				want = tc.in
			}
			got := applyNode(t, node, tc.in, tc.kind)
			if got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			if tc.kind != KindLog && strings.Contains(got, logs.CountOpen) != strings.Contains(tc.in, logs.CountOpen) {
				t.Errorf("a count appeared in %s", tc.kind)
			}
		})
	}
}

// TestNearDupNoTalliesInTranscripts: however often a statement repeats, a
// transcript never gains a count, a "said N times" or a speaker tally.
func TestNearDupNoTalliesInTranscripts(t *testing.T) {
	var b strings.Builder
	speakers := []string{"Alice", "Bob", "Carol", "Dave"}
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "%s: The PackPro quote arrived at 10:%02d and lists a twelve day lead time for glass items.\n\n", speakers[i%4], i)
	}
	got := applyNode(t, NewNearDup(DefaultNearDupOptions()), b.String(), KindTranscript)
	for _, bad := range []string{logs.CountOpen, "times", "×", "agents", "said"} {
		if strings.Contains(got, bad) {
			t.Fatalf("tally %q in transcript output:\n%s", bad, got)
		}
	}
	if strings.Count(got, "PackPro") != 1 {
		t.Fatalf("repeats not merged:\n%s", got)
	}
}

// TestNearDupAdversarialBounded: fingerprints crafted to share a band
// must not make the search quadratic: every lookup reads at most
// MaxCompare entries per band.
func TestNearDupAdversarialBounded(t *testing.T) {
	opt := DefaultNearDupOptions()
	idx := newSimIndex(opt, 0)
	rng := rand.New(rand.NewSource(1))
	const n = 200000
	reads := 0
	for i := 0; i < n; i++ {
		// Band 0 is always 0xBEEF; the other bands are random and far apart.
		fp := uint64(0xBEEF) | rng.Uint64()&^0xffff
		reads += idx.lookups(fp)
		if idx.find(fp) < 0 {
			idx.add(fp)
		}
	}
	if limit := n * simBands * opt.MaxCompare; reads > limit {
		t.Fatalf("%d reads for %d units, limit %d", reads, n, limit)
	}
	if len(idx.next) != simBands*len(idx.prints) {
		t.Fatalf("%d bucket links for %d units", len(idx.next), len(idx.prints))
	}
	// The same through the node: many near-identical records that differ
	// in one long token each.
	var text strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&text, "2024-01-01 10:00:00 INFO request handled by shard alpha beta gamma delta %s\n", letters(i*7919))
	}
	start := time.Now()
	if _, err := NewNearDup(opt).Apply(context.Background(), Input{Text: text.String(), Kind: KindLog}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %v", d)
	}
}

func TestNearDupOptionsValidate(t *testing.T) {
	if err := DefaultNearDupOptions().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, o := range []NearDupOptions{
		{MaxDistance: 4, MinTokens: 8, MaxCompare: 16},
		{MaxDistance: -1, MinTokens: 8, MaxCompare: 16},
		{MaxDistance: 3, MinTokens: 0, MaxCompare: 16},
		{MaxDistance: 3, MinTokens: 8, MaxCompare: 0},
	} {
		if o.Validate() == nil {
			t.Errorf("%+v: want an error", o)
		}
	}
}

func TestSimHashMasksVariableParts(t *testing.T) {
	a, _ := simhash([]string{"[2024-05-02 10:14:03] deploy 7f3a9c21e4 finished on node seven after 42 seconds"})
	b, _ := simhash([]string{"[2025-01-09 23:59:59] deploy 0b9e77d13f finished on node seven after 42 seconds"})
	if a != b {
		t.Errorf("timestamps and ids not masked: distance %d", popcount(a^b))
	}
	c, _ := simhash([]string{"[2024-05-02 10:14:03] deploy 7f3a9c21e4 finished on node seven after 43 seconds"})
	if a == c {
		t.Error("a short number was masked")
	}
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

func TestNearDupConformance(t *testing.T) {
	checkConformance(t, NewNearDup(DefaultNearDupOptions()), logInputs())
}

func BenchmarkNearDup(b *testing.B) {
	text := syntheticLog(4 << 20)
	node := NewNearDup(DefaultNearDupOptions())
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := node.Apply(context.Background(), Input{Text: text, Kind: KindLog}); err != nil {
			b.Fatal(err)
		}
	}
}

// fingerprintReference votes bit by bit, as SimHash is usually written.
func fingerprintReference(toks []uint64) uint64 {
	var acc [64]int32
	vote := func(h uint64) {
		h ^= h >> 33
		h *= 0xff51afd7ed558ccd
		h ^= h >> 33
		for b := 0; b < 64; b++ {
			acc[b] += int32(h>>b&1)*2 - 1
		}
	}
	if len(toks) == 1 {
		vote(toks[0])
	}
	for i := 1; i < len(toks); i++ {
		vote(toks[i-1]*textkit.FNVPrime ^ toks[i])
	}
	var fp uint64
	for b := 0; b < 64; b++ {
		if acc[b] > 0 {
			fp |= 1 << b
		}
	}
	return fp
}

func FuzzFingerprint(f *testing.F) {
	f.Add([]byte("a few tokens of a line"), uint16(3))
	f.Add([]byte{1, 2, 3}, uint16(700))
	f.Fuzz(func(t *testing.T, seed []byte, n uint16) {
		// Expand the seed into up to 1023 token hashes, past a lane flush.
		toks := make([]uint64, int(n)%1024)
		h := uint64(textkit.FNVOffset)
		for i := range toks {
			if len(seed) > 0 {
				h = (h ^ uint64(seed[i%len(seed)])) * textkit.FNVPrime
			}
			h = (h ^ uint64(i%7)) * textkit.FNVPrime
			toks[i] = h
		}
		if got, want := fingerprint(toks), fingerprintReference(toks); got != want {
			t.Fatalf("fingerprint of %d tokens = %x, want %x", len(toks), got, want)
		}
	})
}

// simTokenReference is simToken as first written: a plain pass, then a
// masked one when the token has digits.
func simTokenReference(t string, all bool) uint64 {
	digits, timeLike, dateLike := 0, false, false
	plain := uint64(textkit.FNVOffset) // the hash when there is nothing to mask
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
	if digits == 0 {
		return plain
	}
	maskAll := all || timeLike || (dateLike && digits >= 6)
	h := uint64(textkit.FNVOffset)
	for j := 0; j < len(t); {
		c := t[j]
		if textkit.IsHexDigit(c) && (j == 0 || !isWordByte(t[j-1])) {
			e, d := j, 0
			for e < len(t) && textkit.IsHexDigit(t[e]) {
				if textkit.IsDigit(t[e]) {
					d++
				}
				e++
			}
			if d > 0 && e-j >= 8 && (e == len(t) || !isWordByte(t[e])) {
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

func FuzzSimToken(f *testing.F) {
	for _, s := range []string{"12:04:05", "2024-01-02", "0xdeadbeef1", "blk_-42", "user42", "abc", "v1.2.3", "deadbeef12 x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, all := range []bool{false, true} {
			if got, want := simToken(s, all), simTokenReference(s, all); got != want {
				t.Fatalf("simToken(%q, %v) = %#x, want %#x", s, all, got, want)
			}
		}
	})
}
