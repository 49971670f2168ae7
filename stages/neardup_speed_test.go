package stages

import (
	"strings"
	"testing"
)

// recordSimTokensReference is recordSimTokens as the token loop wrote
// it: the line split at blanks, each token hashed by simTokenReference.
func recordSimTokensReference(line string) []uint64 {
	var dst []uint64
	for _, t := range strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' }) {
		dst = append(dst, simTokenReference(t, true))
	}
	return dst
}

func FuzzRecordSimTokens(f *testing.F) {
	for _, s := range []string{
		"081111 090031 19 INFO dfs.FSDataset: Deleting block blk_-8131422413299851907 file /mnt/x/blk_-81314",
		"id=deadbeef12 x1234abcd 0xdeadbeef1 cafe babe12345678\tface 12:04:05 2024-01-02 é12345678",
		"  a\t\tb  ", "", "abcdef12,x", "ABCDEF1_ 1234567a", "a1b2c3d4e5",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got, want := recordSimTokens(line, nil), recordSimTokensReference(line)
		if len(got) != len(want) {
			t.Fatalf("recordSimTokens(%q): %d tokens, want %d", line, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("recordSimTokens(%q) token %d = %#x, want %#x", line, i, got[i], want[i])
			}
		}
	})
}
