package textkit

import (
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
