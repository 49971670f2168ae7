package logs

import (
	"strings"
	"testing"
)

// digitsAsZero is a line's digit shape the plain way: every ASCII digit
// made '0'.
func digitsAsZero(s string) string {
	return strings.Map(func(c rune) rune {
		if '0' <= c && c <= '9' {
			return '0'
		}
		return c
	}, s)
}

// checkShapeNumber looks line up in x, adding it when new, and fails t
// unless x numbers it as ref, a plain map from digitsAsZero, does.
func checkShapeNumber(t *testing.T, run int, x *shapeIndex, ref map[string]int32, line string) {
	t.Helper()
	shape := digitsAsZero(line)
	want, known := ref[shape]
	i, h, slot := x.find(line)
	switch {
	case i >= 0:
		if !known || i != want {
			t.Fatalf("run %d: %q numbered %d, want %d (known %v)", run, line, i, want, known)
		}
	case known || slot < 0:
		t.Fatalf("run %d: %q not found (known %v, slot %d)", run, line, known, slot)
	default:
		ref[shape] = x.add(line, h, slot)
	}
}

// checkFactNumber fails t unless a factMemo gave line the number key,
// a plain map from digitsAsZero, gives it (numbering shapes as they
// come), with f its facts in m.
func checkFactNumber(t *testing.T, run int, m *factMemo, key map[string]int32, line string, f *lineFacts, fi int32) {
	t.Helper()
	k := digitsAsZero(line)
	want, ok := key[k]
	if !ok {
		want = int32(len(key))
		key[k] = want
	}
	if fi != want || f != &m.facts[fi] {
		t.Fatalf("run %d: %q numbered %d, want %d", run, line, fi, want)
	}
}
