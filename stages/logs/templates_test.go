package logs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// pathShapeReference is pathShape written plainly: two leading word
// segments after any scheme and host make a route, else a variable.
func pathShapeReference(t string) Tok {
	if _, rest, ok := strings.Cut(t, "://"); ok {
		_, t, _ = strings.Cut(rest, "/")
		if t != "" || strings.Contains(rest, "/") {
			t = "/" + t
		}
	}
	t, _, _ = strings.Cut(t, "?")
	t, _, _ = strings.Cut(t, "#")
	var segs []string
	for _, s := range strings.Split(t, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	if len(segs) == 0 {
		return Tok{h: fnvOffset, flags: tokVariable}
	}
	route := segs[:min(len(segs), 2)] // one word or two
	h := uint64(fnvOffset) ^ '/'
	for _, s := range route {
		if strings.ContainsAny(s, "0123456789") || hasRandomPart(s) || maskTokenReference(s).variable() {
			return Tok{h: fnvOffset, flags: tokVariable}
		}
		h = (h ^ maskTokenReference(s).h) * fnvPrime
	}
	return Tok{h: h | 2}
}

// maskTokenReference masks one token the straightforward way, to check
// tokenize against.
func maskTokenReference(t string) Tok {
	if isCalendarWord(t) {
		return Tok{h: fnvOffset, flags: tokVariable}
	}
	if len(t) >= 3 && strings.IndexByte(t, '/') >= 0 {
		return pathShapeReference(t)
	}
	if strings.Trim(t, "0123456789abcdefABCDEF-") == "" && strings.Contains(t, "-") &&
		strings.ContainsAny(t, "0123456789") && len(strings.ReplaceAll(t, "-", "")) >= 8 {
		return Tok{h: fnvOffset, flags: tokVariable}
	}
	h := uint64(fnvOffset)
	digits, run, word := 0, 0, 0
	letter := func(c byte) {
		run++
		if run > word {
			word = run
		}
		h = (h ^ uint64(c)) * fnvPrime
	}
	for j := 0; j < len(t); {
		c := t[j]
		if c == '-' && j+1 < len(t) && textkit.IsDigit(t[j+1]) && (j == 0 || !textkit.IsWordByte(t[j-1]) || t[j-1] == '_') {
			j++
			continue
		}
		if textkit.IsHexDigit(c) {
			e, hasDigit := j, false
			for e < len(t) && textkit.IsHexDigit(t[e]) {
				if textkit.IsDigit(t[e]) {
					hasDigit = true
				}
				e++
			}
			if hasDigit && (textkit.DigitRun(t, j) == e || e-j >= 6) {
				h = (h ^ '0') * fnvPrime
				digits++
				run = 0
				j = e
				continue
			}
			for j < e {
				if textkit.IsDigit(t[j]) {
					j = textkit.DigitRun(t, j)
					h = (h ^ '0') * fnvPrime
					digits++
					run = 0
					continue
				}
				letter(t[j])
				j++
			}
			continue
		}
		if (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80 {
			letter(c)
		} else {
			run = 0
			h = (h ^ uint64(c)) * fnvPrime
		}
		j++
	}
	return Tok{h: h, flags: flagIf(digits > 0 && word < 3, tokVariable)}
}

// listReference is listEnd's list: two items or more in brackets.
var listReference = regexp.MustCompile(`^\[[^ \t\n\r\v\f:\[\]{}(),]*(?:, ?[^ \t\n\r\v\f:\[\]{}(),]*)+\]`)

// phraseReference is phraseEnd's phrase: quoted words with a blank among
// them, then a blank and a word byte.
var phraseReference = regexp.MustCompile(`^"([^"]* [^"]*)" [A-Za-z0-9_]`)

// escapedPhraseReference is escapedPhraseEnd's phrase, its quotes escaped.
var escapedPhraseReference = regexp.MustCompile(`^\\"([^"\\]* [^"\\]*)\\" [A-Za-z0-9_]`)

// tokenizeReference splits on blanks and field delimiters first, then
// masks each token. A bracketed list (listReference) after a separator
// is one variable, a quoted phrase of words only inside a sentence one
// token.
// A MAC or IPv6 address (hexGroupsEnd, where mayOpenHexGroups lets it
// be tried) is one variable; a word that is a host name, an e-mail
// address or a generated name (isNetName, hasRandomPart: tested on their
// own) is a variable.
func tokenizeReference(line string) []Tok {
	var out []Tok
	sep := func(c byte) bool {
		return c == ' ' || c == '\t' || c == '\n' || c == 0x1b || strings.IndexByte(`|,;=:[](){}"&`, c) >= 0
	}
	// A word of ASCII and an ideograph (U+3000–U+9FFF, U+FF00–U+FFFF)
	// next to it are two tokens.
	ideograph := func(s string) bool {
		r, size := utf8.DecodeRuneInString(s)
		return size == 3 && (r >= 0x3000 && r <= 0x9FFF || r >= 0xFF00)
	}
	cut := func(j int) bool {
		if line[j] < 0x80 {
			return textkit.IsWordByte(line[j]) && j >= 3 && ideograph(line[j-3:j])
		}
		return ideograph(line[j:]) && textkit.IsWordByte(line[j-1])
	}
	wordEnded := false        // a word ended at i: its separator is passed
	texts := map[int]string{} // the words' tokens, by index
	for i := 0; i < len(line); {
		if m := listReference.FindString(line[i:]); m != "" && len(m) <= maxValueBytes && !wordEnded {
			out, i = append(out, Tok{h: fnvOffset, flags: tokVariable}), i+len(m)
			continue
		}
		if m := phraseReference.FindStringSubmatch(line[i:]); m != nil && !wordEnded && i > 1 && line[i-1] == ' ' && textkit.IsWordByte(line[i-2]) && len(m[1]) <= maxValueBytes {
			h, words := uint64(fnvOffset)^'Q', true
			for _, t := range tokenizeReference(m[1]) {
				h = (h ^ TokenID(t)) * fnvPrime
				words = words && !t.variable()
			}
			if words {
				out, i = append(out, Tok{h: h | 2}), i+len(m[1])+2
				continue
			}
		}
		if m := escapedPhraseReference.FindStringSubmatch(line[i:]); m != nil && !wordEnded && i > 1 && line[i-1] == ' ' && textkit.IsWordByte(line[i-2]) && len(m[1])+1 <= maxValueBytes {
			h, words := uint64(fnvOffset)^'Q', true
			for _, t := range tokenizeReference(m[1]) {
				h = (h ^ TokenID(t)) * fnvPrime
				words = words && !t.variable()
			}
			if words {
				out, i = append(out, Tok{h: h | 2}), i+len(m[1])+4
				continue
			}
		}
		wordEnded = false
		if line[i] == 0x1b {
			i = textkit.SkipANSI(line, i) // a color is no token
			continue
		}
		if sep(line[i]) {
			i++
			continue
		}
		if mayOpenHexGroups(line, i) {
			if e := hexGroupsEnd(line, i); e > 0 {
				out, i = append(out, Tok{h: fnvOffset, flags: tokVariable}), e
				continue
			}
		}
		wordEnded = true
		j := i
		for j < len(line) && !sep(line[j]) && (j == i || !cut(j)) {
			j++
		}
		t, at := line[i:j], i
		i = j
		texts[len(out)] = t
		if len(t) > 2 && (strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X")) && strings.Trim(t[2:], "0123456789abcdefABCDEF") == "" {
			out = append(out, Tok{h: fnvOffset, flags: tokVariable}) // a hex literal
			continue
		}
		if at > 0 && line[at-1] == '=' && strings.Trim(t, "0123456789abcdefABCDEF") == "" &&
			strings.ContainsAny(t, "0123456789") && strings.ContainsAny(t, "abcdefABCDEF") && !isCalendarWord(t) {
			out = append(out, Tok{h: fnvOffset, flags: tokVariable}) // a hex value after '='
			continue
		}
		if w, rest, ok := strings.Cut(t, "/"); ok && w != "" && w == rest && strings.IndexFunc(w, func(r rune) bool { return r >= 0x80 || r|0x20 >= 'a' && r|0x20 <= 'z' }) >= 0 {
			// A word written twice around a slash, the word an earlier
			// token: a reference to that token.
			j := -1
			for k := range out {
				if tx, ok := texts[k]; ok && tx == w {
					j = k
					break
				}
			}
			if j >= 0 {
				out = append(out, Tok{h: repeatOf(j) ^ 'P'})
				continue
			}
		}
		if !isCalendarWord(t) && !(len(t) >= 3 && strings.Contains(t, "/")) && !strings.ContainsAny(t, "0123456789") {
			if strings.ContainsAny(t, ".@") && isNetName(t) || strings.Contains(t, "-") && hasRandomPart(t) {
				out = append(out, Tok{h: fnvOffset, flags: tokVariable})
				continue
			}
			out = append(out, Tok{h: wordHash(t)}) // a word is its own shape
			continue
		}
		if p := hexIDPrefix(t); p > 0 && !isHexID(t) && strings.ContainsAny(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			out = append(out, Tok{h: wordHash(t[:p]) ^ 'I'}) // a named id: its name is the shape
			continue
		}
		out = append(out, maskTokenReference(t))
	}
	return out
}

// FuzzTokenize checks tokenize against splitting first and masking each
// token, as templates see tokens.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"blk_-4242 sshd[1234]: 0xdeadbeef", "ab12cd\ta-1 _-9 /var/log Dec", "user_0  façade-3\tcafe12 -5 x-7", "Jan 2 /a b/c d/",
		"MAC=52:54:00:16:d5:cd:fa:16 SRC=10.0.0.1:80 at 10:00:01", "fe80::1ff:fe23:4567:890a%eth0 2001:db8::7", "a@b.com to api.example.org web-bcdfghjkl-x2 default/api-bcdfghjklm-x",
		"loaded [auth, cache] and [1,2,3] not [main] [10:00:01,123] [a, b c] ['x', 'y'] [,]",
		`search "red shoes" got q="a b" x "one" x"y z" w "took 12 ms" z fe80::1:2:3:4 "a b" c,"x y" d "end here"`,
		`msg="search for \"red shoes\" returned 3" x \"a\b c\" d \"e f\"`,
		`GET /search?q=red&page=2&sort=price&&x AT&T R&D &amp; done`,
		"用户alice登录成功 订单12345已支付，金额480元 José naïve ｘ1ａ 溩0 a溩",
		"\x1b[90m10:00:01\x1b[0m \x1b[32mINFO\x1b[0m \x1b[1mweb-1\x1b[0m[a, b] x\x1b]0;t\x07 \x1b",
		"trace_id=5ccd span=ab12 x=12 y=cafe z=Dec1 commit=3FA9e q==9a",
		"x web-1 y/y web-1/web-1 a/b a/b/a/b x/x dn228/dn228 /var//var 1 1/1 é é/é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := tokenize(s, nil), tokenizeReference(s)
		if len(got) != len(want) {
			t.Fatalf("tokenize(%q): %d tokens, want %d", s, len(got), len(want))
		}
		// Templates see tokens through TokenID: a variable's hash is unused.
		for i := range got {
			if TokenID(got[i]) != TokenID(want[i]) {
				t.Fatalf("tokenize(%q): token %d = %+v, want %+v", s, i, got[i], want[i])
			}
		}
	})
}

// BenchmarkTokenize tokenizes the lines of the LogHub samples in
// ../../../shared/corpus; it skips when they are absent.
func BenchmarkTokenize(b *testing.B) {
	var text string
	files, _ := filepath.Glob("../../../shared/corpus/loghub/*/*_2k.log")
	for _, f := range files {
		data, _ := os.ReadFile(f)
		text += string(data)
	}
	if text == "" {
		b.Skip("no LogHub samples in ../../../shared/corpus")
	}
	lines := strings.Split(text, "\n")
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	var toks []Tok
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			toks = tokenize(l, toks[:0])
		}
	}
}

// TestTailWord checks the overlapping loads against a byte loop for every
// length from 1 to 7.
func TestTailWord(t *testing.T) {
	src := "\x01\x82\xc3\x04\xf5\x06\x77\xe8"
	for n := 1; n <= 7; n++ {
		for off := 0; off+n <= len(src); off++ {
			s := src[off : off+n]
			var want uint64
			for j := 0; j < n; j++ {
				want |= uint64(s[j]) << (8 * j)
			}
			if got := tailWord(s); got != want {
				t.Fatalf("tailWord(%q) = %#x, want %#x", s, got, want)
			}
		}
	}
}

// TestNumberedName: a name that numbers one of its kind is counted when
// its template masks it; an id is not.
func TestNumberedName(t *testing.T) {
	for w, want := range map[string]bool{
		"host2": true, "web-01": true, "Dev3": true, "node04.example.org": true, "db3-replica": true, "job_0002": true,
		"rdd_2_1": false, "blk_-1727475099": false, "a1": false, "x86_64": false, "bug48770.phpt": false,
		"9lives": false, "": false, "host": false, "ip-10-0-0-1": false,
	} {
		if got := numberedName(w); got != want {
			t.Errorf("numberedName(%q) = %v, want %v", w, got, want)
		}
	}
}
