package stages

import (
	"strings"
	"testing"
)

// trimsToOneByte must agree with the strings.Trim it replaces on every
// string of up to six bytes over blanks, brackets, letters and a
// multi-byte rune's bytes.
func TestTrimsToOneByteMatchesTrim(t *testing.T) {
	alphabet := []byte{' ', '\t', '\r', '{', 'a', 0xc3, 0xa9, '\n'}
	var walk func(s []byte)
	walk = func(s []byte) {
		want := len(strings.Trim(string(s), " \t\r")) == 1
		if got := trimsToOneByte(string(s)); got != want {
			t.Fatalf("trimsToOneByte(%q) = %v, want %v", s, got, want)
		}
		if len(s) == 6 {
			return
		}
		for _, c := range alphabet {
			walk(append(s, c))
		}
	}
	walk(nil)
}

// The table gate's kind flags must pass what the kind test passed.
func TestTableGateKinds(t *testing.T) {
	for _, k := range []Kind{KindLog, KindJSON, KindHTML, KindProse, KindTranscript} {
		g := newTableGate("a b\nc", k)
		want := k != KindLog && k != KindJSON && k != KindHTML
		if got := g.mayOpen(0, "a b"); got != want {
			t.Errorf("kind %s: mayOpen = %v, want %v", k, got, want)
		}
	}
}
