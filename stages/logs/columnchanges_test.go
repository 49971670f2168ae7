package logs

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// columnChangesPlain is columnChanges counted to the end, tokens
// compared by !=.
func columnChangesPlain(heads []string, cols []*headColumns, c, want int) bool {
	changes, prev := 0, ""
	for k, hc := range cols {
		if int(hc.n) <= c {
			continue
		}
		t := hc.tok[c]
		tok := heads[k][t[0]:t[1]]
		if hc.data>>c&1 != 0 && tok != prev {
			changes++
		}
		prev = tok
	}
	return changes >= want
}

// TestColumnChangesMatchesPlain checks columnChanges, which compares
// tokens of 4 to 16 bytes a word at a time and stops once the count is
// settled, against columnChangesPlain: on heads whose columns are data
// tokens of every length from 1 to 24, repeated or changed in one byte
// anywhere, and words.
func TestColumnChangesMatchesPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	const digits = "0123456789"
	vary, still := 0, 0
	for run := range 3000 {
		var toks [headerCols][]byte
		for c := range toks {
			n := 1 + r.IntN(24)
			for range n {
				toks[c] = append(toks[c], digits[r.IntN(10)])
			}
		}
		heads := make([]string, 1+r.IntN(60))
		cols := make([]*headColumns, len(heads))
		for k := range heads {
			var b strings.Builder
			for c := range r.IntN(headerCols + 1) {
				tok := toks[c]
				switch x := r.IntN(10); {
				case x < 3: // one byte changed
					tok = append([]byte(nil), tok...)
					tok[r.IntN(len(tok))] = digits[r.IntN(10)]
				case x == 3: // another length
					tok = tok[:r.IntN(len(tok))+1]
				case x == 4:
					tok = []byte("word")
				}
				if r.IntN(2) == 0 {
					toks[c] = tok
				}
				if c > 0 {
					b.WriteString(" |"[r.IntN(2):][:1])
				}
				if r.IntN(8) == 0 {
					b.WriteString("[" + string(tok) + "]")
				} else {
					b.Write(tok)
				}
			}
			heads[k] = b.String()
			cols[k] = new(headColumns)
			cols[k].readTo(heads[k], headerCols-1)
		}
		for c := range headerCols {
			want := 1 + r.IntN(len(heads))
			got, plain := columnChanges(heads, cols, c, want), columnChangesPlain(heads, cols, c, want)
			if got != plain {
				t.Fatalf("run %d column %d want %d: %v, plain %v on\n%s", run, c, want, got, plain, strings.Join(heads, "\n"))
			}
			if got {
				vary++
			} else {
				still++
			}
		}
	}
	if vary < 2000 || still < 2000 {
		t.Fatalf("%d columns vary, %d do not: the test does not test", vary, still)
	}
}
