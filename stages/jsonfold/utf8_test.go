package jsonfold

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// utf8Pieces are the byte runs a JSON string's UTF-8 check meets: ASCII,
// runes of each width, and the invalid forms (a cut rune, a stray
// continuation byte, an encoded surrogate, an overlong form, 0xff).
var utf8Pieces = []string{
	"a", "xyz ", "é", "日本", "😀", "\u00ff\u0100", "\ufffd",
	"\xe6\x97", "\x80", "\xbf\xbf", "\xed\xa0\x80", "\xc0\x80", "\xff", "\xf4\x90\x80\x80",
}

// genUTF8String joins pieces, so that valid and invalid runs fall at
// every offset of an eight-byte step.
func genUTF8String(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(24); n > 0; n-- {
		b.WriteString(utf8Pieces[r.IntN(len(utf8Pieces))])
	}
	return b.String()
}

// A string literal is accepted exactly when its body is valid UTF-8
// (bodies here hold no quote, backslash or control byte).
func TestStringLitRefusesInvalidUTF8(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 20000; i++ {
		body := strings.Repeat(" ", r.IntN(9)) + genUTF8String(r)
		checkStringLitUTF8(t, body)
	}
}

func FuzzStringLitUTF8(f *testing.F) {
	for _, p := range utf8Pieces {
		f.Add(strings.Repeat(p, 5))
	}
	f.Fuzz(func(t *testing.T, body string) {
		body = strings.Map(func(r rune) rune {
			if r == '"' || r == '\\' || r < 0x20 {
				return 'q'
			}
			return r
		}, body) + string([]byte(body)[len(body)-len(body)/3:])
		if strings.ContainsAny(body, "\"\\") || strings.IndexFunc(body, func(r rune) bool { return r < 0x20 }) >= 0 {
			return
		}
		checkStringLitUTF8(t, body)
	})
}

func checkStringLitUTF8(t *testing.T, body string) {
	t.Helper()
	doc := `["` + body + `",1]`
	want := utf8.ValidString(body)
	if got := Valid(doc); got != want {
		t.Fatalf("Valid(%q) = %v, want %v", doc, got, want)
	}
	checkValidPaths(t, doc, want)
}
