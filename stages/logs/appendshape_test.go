package logs

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// refAppendShape is appendShape testing for a blank and a placeholder
// before a letter or digit.
func refAppendShape(dst []byte, line string) []byte {
	s := line
	if s != "" && s[0] == 0x1b {
		s = s[textkit.SkipANSI(s, 0):]
	}
	for i := 0; i < len(s) && len(dst) < shapeMax; {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\r' {
			break
		}
		if c == '<' && textkit.IsPlaceholderAt(s[i:]) {
			j := strings.IndexByte(s[i:], '>')
			dst = append(dst, 'd')
			i += j + 1
			continue
		}
		if seen := tokClass[c]; seen&(tcLetter|tcDigit) != 0 {
			for i++; i < len(s); i++ {
				cl := tokClass[s[i]]
				if cl&(tcLetter|tcDigit) == 0 {
					break
				}
				seen |= cl
			}
			if seen&tcDigit != 0 {
				dst = append(dst, 'd')
			} else {
				dst = append(dst, 'a')
			}
			continue
		}
		dst = append(dst, c)
		i++
	}
	return dst
}

func checkAppendShape(t *testing.T, line string) {
	t.Helper()
	if got, want := appendShape(nil, line), refAppendShape(nil, line); string(got) != string(want) {
		t.Fatalf("appendShape(%q) = %q, want %q", line, got, want)
	}
}

// TestAppendShapeMatchesReference checks appendShape on first tokens of
// dates, levels, placeholders, brackets, blanks, ANSI escapes and UTF-8
// text, and every byte before, within and after a token.
func TestAppendShapeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(70, 71))
	parts := []string{"2024", "-", "03", ":", "[", "Sun", "]", "<N>", "<*>", "<NUM>:", "<x>", "<", ">", " ", "\t", "\r", "\x1b[31m", "é", "\xff", "a1", ".", "_", "web-1", "0x1f", "|", ","}
	for range 50000 {
		var b strings.Builder
		for k := r.IntN(10); k > 0; k-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		checkAppendShape(t, b.String())
	}
	for c := range 256 {
		for _, f := range []string{"%sab", "a%sb", "1%s<N>", "<N%s>", "%s%s%s%s%s%s%s%s%s"} {
			checkAppendShape(t, strings.ReplaceAll(f, "%s", string([]byte{byte(c)})))
		}
	}
}

// FuzzAppendShape checks appendShape against refAppendShape.
func FuzzAppendShape(f *testing.F) {
	f.Add("2024-03-01 10:00:00 INFO")
	f.Add("<N>:<*> [Sun x")
	f.Add("\x1b[32mweb-1\x1b[0m| a")
	f.Fuzz(func(t *testing.T, line string) { checkAppendShape(t, line) })
}
