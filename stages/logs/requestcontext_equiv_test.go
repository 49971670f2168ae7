package logs

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// refIDTokens is idTokens as it stood at ea5e679, a byte's class found
// by comparisons: the reference the table-driven scan is held to.
func refIDTokens(line string, tags []string) []string {
	for i := 0; i < len(line); {
		j, digit, letter := i, false, false
		for ; j < len(line); j++ {
			c := line[j]
			switch {
			case textkit.IsDigit(c):
				digit = true
			case c|0x20 >= 'a' && c|0x20 <= 'z':
				letter = true
			case c == '-' || c == '_':
			default:
				goto end
			}
		}
	end:
		if j-i >= minTagBytes && digit && letter && refTokenEdge(line, i-1) && refTokenEdge(line, j) && generatedPart(line[i:j]) {
			tags = append(tags, line[i:j])
		}
		i = j + 1
	}
	return tags
}

func refTokenEdge(line string, i int) bool {
	if i < 0 || i >= len(line) {
		return true
	}
	switch line[i] {
	case '.', '/', ':', '\\', '@':
		return i+1 >= len(line) || line[i+1] == ' '
	}
	return true
}

func refIDByteAt(line string, i int) bool {
	if i < 0 || i >= len(line) {
		return false
	}
	c := line[i]
	return textkit.IsDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'z' || c == '-' || c == '_'
}

// idLine draws a line of id-like pieces (hex runs, UUID parts, blk_
// numbers, words counted by a number) joined by every kind of separator,
// bytes past ASCII and letters next to '@' and '[' included.
func idLine(r *rand.Rand) string {
	pieces := []string{"blk_-1608999687919862906", "294315ea", "req-7f3a9c1e", "pool-1-thread-3", "user_1008",
		"abcca899", "Stage0", "47daa0f5-fe99-c4bf-8bd0-00182c0f98b9", "ERROR", "10.0.0.5:8080", "x9f3a2b1",
		"attempt_1445144423722_0020_m_000002_1", "é1a2b3c4d", "Z@[`{", "AbCdEf123456", "000000", "a1b2c3"}
	seps := []string{" ", "", ".", "/", ":", "\\", "@", ". ", ": ", "[", "]", "(", "\t", "é", "\xff", "-", "_"}
	var b strings.Builder
	for k := r.IntN(12); k > 0; k-- {
		p := pieces[r.IntN(len(pieces))]
		if r.IntN(4) == 0 {
			p = p[:r.IntN(len(p)+1)]
		}
		b.WriteString(p)
		b.WriteString(seps[r.IntN(len(seps))])
	}
	return b.String()
}

// TestIDTokensMatchReference holds idTokens, the first-id scan idTagged
// uses and idByteAt to the comparisons they replace, on generated lines.
func TestIDTokensMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for n := 0; n < 20000; n++ {
		line := idLine(r)
		want := refIDTokens(line, nil)
		if got := idTokens(line, nil); !slices.Equal(got, want) {
			t.Fatalf("%q: %q, reference %q", line, got, want)
		}
		if got := nextIDToken(line, 0) < len(line); got != (len(want) > 0) {
			t.Fatalf("%q: an id %v, reference %q", line, got, want)
		}
		for i := -1; i <= len(line); i++ {
			if idByteAt(line, i) != refIDByteAt(line, i) {
				t.Fatalf("%q: idByteAt(%d) = %v", line, i, idByteAt(line, i))
			}
		}
	}
}

// FuzzIDTokensReference is TestIDTokensMatchReference on fuzzed lines.
func FuzzIDTokensReference(f *testing.F) {
	f.Add("ERROR [abcca899] Stage0 failed blk_-1608999687919862906.")
	f.Fuzz(func(t *testing.T, line string) {
		want := refIDTokens(line, nil)
		if got := idTokens(line, nil); !slices.Equal(got, want) {
			t.Fatalf("%q: %q, reference %q", line, got, want)
		}
		if got := nextIDToken(line, 0) < len(line); got != (len(want) > 0) {
			t.Fatalf("%q: an id %v, reference %q", line, got, want)
		}
	})
}
