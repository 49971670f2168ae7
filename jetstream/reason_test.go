package jetstream

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTruncatedReasonIsValidUTF8: a reason cut for a header or
// TermWithReason never ends in half a rune, whatever its script.
func TestTruncatedReasonIsValidUTF8(t *testing.T) {
	for _, unit := range []string{"ü", "日", "🙂"} {
		reason := "bad input: " + strings.Repeat(unit, 2*maxReasonBytes)
		for _, n := range []int{200, maxReasonBytes} {
			if got := truncate(reason, n); !utf8.ValidString(got) || len(got) > n || len(got) < n-utf8.UTFMax {
				t.Errorf("truncate(%d bytes of %q, %d): %d bytes, valid %v", len(reason), unit, n, len(got), utf8.ValidString(got))
			}
		}
	}
}
