package logs

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// headerStatsReference is headerStats reading one byte a step, classes
// by colClass: the plain statement of what it computes.
func headerStatsReference(heads []string) (varying bool, header int) {
	const cols = 8
	heads = heads[:min(len(heads), 400)]
	var data, changes [cols]int
	var prev [cols]string
	for _, h := range heads {
		s := h[textkit.SkipANSI(h, 0):]
		for c, i := 0, 0; c < cols && i < len(s); c++ {
			for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '|') {
				i++
			}
			st := i
			digits, letters := 0, 0
			for ; i < len(s) && colClass[s[i]]&ccEnd == 0; i++ {
				if colClass[s[i]]&ccDigit != 0 {
					digits++
				} else if colClass[s[i]]&ccLetter != 0 {
					letters++
				}
			}
			e := i
			for st < e && trimmedByte(s[st]) {
				st++
			}
			for e > st && trimmedByte(s[e-1]) {
				e--
			}
			Tok := s[st:e]
			if digits > 0 && letters <= digits {
				data[c]++
				if Tok != prev[c] {
					changes[c]++
				}
			}
			prev[c] = Tok
		}
	}
	n := len(heads)
	gap := 0
	for c := range cols {
		if data[c]*10 < n*8 {
			gap++
			continue
		}
		if c < 6 && changes[c]*10 >= n*3 {
			varying = true
		}
		if gap <= 1 && (header > 0 || c <= 1) {
			header, gap = c+1, 0
		}
	}
	return varying, header
}

// TestHeaderStatsMatchesReference checks headerStats' counts in one table
// (colCount) against the plain class test: random heads of columns of
// digits, letters, brackets, ANSI colour and separators.
func TestHeaderStatsMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	cols := []string{"2024-01-01", "10:00:01.5", "123", "7", "a1", "INFO", "[worker-3]", "x", "", "ab12cd", "dn228", "é9", "\x1b[31m12", "(42)", "host.example.org", "0xff"}
	seps := []string{" ", "  ", "\t", " | ", "|"}
	headed := 0
	for n := 0; n < 3000; n++ {
		heads := make([]string, 1+r.IntN(30))
		for i := range heads {
			var b strings.Builder
			for k := r.IntN(12); k > 0; k-- {
				b.WriteString(cols[r.IntN(len(cols))])
				if r.IntN(3) == 0 {
					b.WriteString(strings.Repeat("9", r.IntN(9)))
				}
				b.WriteString(seps[r.IntN(len(seps))])
			}
			heads[i] = b.String()
		}
		v, h := headerStats(heads)
		rv, rh := headerStatsReference(heads)
		if v != rv || h != rh {
			t.Fatalf("heads %q: headerStats (%v, %d), reference (%v, %d)", heads, v, h, rv, rh)
		}
		if h > 0 {
			headed++
		}
	}
	if headed < 100 {
		t.Fatalf("only %d of the random logs have a header: the test does not test", headed)
	}
}

// TestShapeCountsMatchesMap checks the shape counter against a map, on
// few shapes (the scan) and many (the map index).
func TestShapeCountsMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for n := 0; n < 300; n++ {
		var c shapeCounts
		m := map[shapeKey]int{}
		kinds := 1 + r.IntN(60)
		for k := r.IntN(500); k > 0; k-- {
			var key shapeKey
			key.n = uint8(r.IntN(shapeMax + 1))
			for i := range int(key.n) {
				key.b[i] = byte('a' + r.IntN(kinds)%3)
			}
			w := 1 + r.IntN(3)
			c.addN(key, w)
			m[key] += w
		}
		if len(c.keys) != len(m) || len(c.counts) != len(c.keys) {
			t.Fatalf("run %d: %d keys, %d counts; the map has %d", n, len(c.keys), len(c.counts), len(m))
		}
		for i, k := range c.keys {
			if c.counts[i] != m[k] {
				t.Fatalf("run %d: %q counted %d, the map %d", n, k.b[:k.n], c.counts[i], m[k])
			}
		}
	}
}
