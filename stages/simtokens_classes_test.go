package stages

import (
	"slices"
	"strings"
	"testing"
)

// TestRecordSimTokensClasses compares recordSimTokens with the token
// loop on every line of generated texts of every class.
func TestRecordSimTokensClasses(t *testing.T) {
	for _, text := range classTexts(4) {
		for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
			if got, want := recordSimTokens(line, nil), recordSimTokensReference(line); !slices.Equal(got, want) {
				t.Fatalf("recordSimTokens(%q) = %x, want %x", line, got, want)
			}
		}
	}
}
