package textkit

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzChars checks the word-at-a-time count against the standard library.
func FuzzChars(f *testing.F) {
	for _, s := range []string{"", "plain ascii text, long enough for words", "héllo wörld — 日本語 text\xff\xfe tail", "\x80\x80abcdefgh\xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Chars(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("Chars(%q) = %d, want %d", s, got, want)
		}
		if n, valid := CharsValid(s); n != utf8.RuneCountInString(s) || valid != utf8.ValidString(s) {
			t.Fatalf("CharsValid(%q) = %d, %v", s, n, valid)
		}
	})
}

func TestRareValue(t *testing.T) {
	for _, c := range []struct {
		count, top, n int
		want          bool
	}{
		{1, 9, 10, true},       // one of ten
		{2, 18, 20, true},      // two of twenty
		{2, 17, 19, false},     // two of nineteen: more than one in ten
		{3, 57, 60, false},     // three of sixty: more than one in fifty
		{17, 1983, 2000, true}, // seventeen of 2000
		{1, 4, 10, false},      // no value most share
		{0, 10, 10, false},
		{1, 8, 9, false}, // fewer than ten
	} {
		if got := RareValue(c.count, c.top, c.n); got != c.want {
			t.Errorf("RareValue(%d, %d, %d) = %v, want %v", c.count, c.top, c.n, got, c.want)
		}
	}
}

// TestIsFailureLineMatchesLowerContains: the scan without a lower-case
// copy answers as strings.Contains over strings.ToLower does, on ASCII
// lines built from the failure words' pieces in any case.
func TestIsFailureLineMatchesLowerContains(t *testing.T) {
	reference := func(l string) bool {
		lower := strings.ToLower(l)
		for _, w := range failureWords {
			if strings.Contains(lower, w) {
				return true
			}
		}
		return false
	}
	pieces := []string{"err", "or", "Exc", "eption", "FAIL", "fa", "tal", "pan", "ic", "Trace", "back", "caused", " by", "DEN", "ied", "refus", "ed", "time", "out", "timed", " ", "x", "é", "\t", "ERRO"}
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var b strings.Builder
		for range 1 + r.IntN(6) {
			p := pieces[r.IntN(len(pieces))]
			if r.IntN(2) == 0 {
				p = strings.ToUpper(p)
			}
			b.WriteString(p)
		}
		if l := b.String(); IsFailureLine(l) != reference(l) {
			t.Fatalf("%q: got %v", l, IsFailureLine(l))
		}
	}
}

// TestIsBlankIsTrimSpace checks IsBlank against strings.TrimSpace on
// lines of blanks, Unicode spaces, control and printable bytes.
func TestIsBlankIsTrimSpace(t *testing.T) {
	pool := []string{" ", "\t", "\r", "\v", "\u00a0", "\u2003", "\x7f", "\x00", "a", "#", "\xff", "é"}
	for n := 0; n < 5000; n++ {
		var b strings.Builder
		for k := 0; k < n%5; k++ {
			b.WriteString(pool[(n*7+k*3)%len(pool)])
		}
		s := b.String()
		if got, want := IsBlank(s), strings.TrimSpace(s) == ""; got != want {
			t.Fatalf("IsBlank(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestCharsValidSteps checks CharsValid against the utf8 package on ASCII
// texts around its 64- and 8-byte steps with one rune, invalid byte or
// cut rune at every offset: before, inside and after the ASCII prefix;
// and with a second one after it, read once the count is back to words.
func TestCharsValidSteps(t *testing.T) {
	odds := []string{"é", "日", "\xff", "\xc3", "\x80", "𝄞"}
	for i, odd := range odds {
		for n := 0; n <= 200; n += 7 {
			base := strings.Repeat("abcdefg\n", n/8+1)[:n]
			for at := 0; at <= n; at++ {
				s := base[:at] + odd + base[at:]
				if got, valid := CharsValid(s); got != utf8.RuneCountInString(s) || valid != utf8.ValidString(s) {
					t.Fatalf("CharsValid(%q) = %d, %v", s, got, valid)
				}
				s += odds[(i+at)%len(odds)] + base[:at]
				if got, valid := CharsValid(s); got != utf8.RuneCountInString(s) || valid != utf8.ValidString(s) {
					t.Fatalf("CharsValid(%q) = %d, %v", s, got, valid)
				}
			}
		}
	}
}
