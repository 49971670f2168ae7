package stages

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTruncateBytesKeepsRunesWhole cuts texts of 1- to 4-byte runes at
// every byte count: the result is a valid prefix of at most n bytes that
// drops less than one rune more than it must.
func TestTruncateBytesKeepsRunesWhole(t *testing.T) {
	for _, unit := range []string{"a", "é", "€", "𝄞", "a€𝄞é"} {
		s := strings.Repeat(unit, 7)
		for n := 0; n <= len(s)+1; n++ {
			got := TruncateBytes(s, n)
			if !utf8.ValidString(got) || !strings.HasPrefix(s, got) || len(got) > n || len(got) <= min(n, len(s))-utf8.UTFMax {
				t.Errorf("TruncateBytes(%q, %d) = %q", s, n, got)
			}
		}
	}
}
