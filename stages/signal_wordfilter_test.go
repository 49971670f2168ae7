package stages

import (
	"math/rand"
	"strings"
	"testing"
)

// signalLineGen builds lines out of the signal vocabulary and the bytes
// rawSignalWith treats apart, for comparing its word filter against the
// reference.
type signalLineGen struct {
	r     *rand.Rand
	words []string
}

func newSignalLineGen(seed int64) *signalLineGen {
	g := &signalLineGen{r: rand.New(rand.NewSource(seed))}
	for _, c := range signalClasses {
		for _, e := range c.words {
			g.words = append(g.words, strings.Fields(e)...)
		}
	}
	g.words = append(g.words, "no", "without", "expected", "expect", "got", "but", "actual", "differs",
		"RuntimeException", "TestFailure", "XError", "IOError", "EOFError", "ABFailed", "OutOfMemoryError", "java", "DataNode", "KERNEL", "apache",
		"connection", "not", "Errors", "x_error", "error_", "abcdefghijklmnopqrstu", "errorsandfailures")
	return g
}

// word returns a vocabulary word, a near miss (one letter changed, cut or
// grown) or random letters, in any case.
func (g *signalLineGen) word() string {
	r := g.r
	w := g.words[r.Intn(len(g.words))]
	switch r.Intn(8) {
	case 0:
		b := []byte(w)
		b[r.Intn(len(b))] = byte('a' + r.Intn(26))
		w = string(b)
	case 1:
		w = w[:1+r.Intn(len(w))]
	case 2:
		w += string(rune('a' + r.Intn(26)))
	case 3:
		b := make([]byte, 1+r.Intn(20))
		for k := range b {
			b[k] = byte('a' + r.Intn(26))
		}
		w = string(b)
	}
	switch r.Intn(4) {
	case 0:
		w = strings.ToUpper(w)
	case 1:
		w = strings.ToUpper(w[:1]) + w[1:]
	case 2:
		b := []byte(w)
		for k := range b {
			if r.Intn(3) == 0 {
				b[k] = lower(b[k]) - 'a' + 'A'
			}
		}
		w = string(b)
	}
	return w
}

var signalLineGaps = [...]string{" ", " ", " ", "  ", ": ", ", ", ".", "/", "-", "_", "\t", "(", ") ", "=",
	" 0 ", "0", " 12 ", "E0308: ", " TS2345]", "✖ ", "é", "\x1b[31m", "\x1b[0m", "* ", "!", "'", "\"", "\xff"}

func (g *signalLineGen) line() string {
	r := g.r
	var b strings.Builder
	switch r.Intn(6) {
	case 0:
		b.WriteString("$ ")
	case 1:
		b.WriteString("1) ")
	case 2:
		b.WriteString("src/a.c:12:5: ")
	}
	n := 1 + r.Intn(12)
	if r.Intn(20) == 0 {
		n = 100 + r.Intn(100) // a long line
	}
	for range n {
		b.WriteString(g.word())
		b.WriteString(signalLineGaps[r.Intn(len(signalLineGaps))])
	}
	if r.Intn(4) == 0 {
		b.WriteString(":")
	}
	return b.String()
}

// lineSignalReference is lineSignal over rawSignalReference.
func lineSignalReference(line string) int {
	s := rawSignalReference(line)
	if s >= 1 && (passed(line) || cargoBanner(line)) {
		return 0
	}
	if s == 3 && warningTagged(line) {
		return 2
	}
	return s
}

// TestRawSignalWordFilter checks rawSignal, whose scan passes over the
// words no table may use without reading them, against the reference on
// generated lines, and again after tables are built anew.
func TestRawSignalWordFilter(t *testing.T) {
	g := newSignalLineGen(1)
	check := func(lines int) {
		t.Helper()
		for range lines {
			line := g.line()
			if got, want := rawSignal(line), rawSignalReference(line); got != want {
				t.Fatalf("rawSignal(%q) = %d, want %d", line, got, want)
			}
			if got, want := lineSignal(line), lineSignalReference(line); got != want {
				t.Fatalf("lineSignal(%q) = %d, want %d", line, got, want)
			}
		}
	}
	check(100000)
	// The filter follows the tables when they are built again.
	setSignalsOff("error", "no")
	defer setSignalsOff()
	check(20000)
}

// TestRawSignalWordFilterCases pins lines whose words the filter must not
// pass over.
func TestRawSignalWordFilterCases(t *testing.T) {
	for _, line := range []string{
		"no error", "No ERRORS here", "without failure", "0 errors", "expected 3 but got 4", "Expected: x Received: y",
		"java.lang.OutOfMemoryError", "a RuntimeException b", "stack trace", "not ok 3", "x KERNEL FATAL y",
		"errorsandfailuresandmore error", "abcdefghijklmnopqrstu failed", "foo_ error_ _error", "an XError here",
	} {
		if got, want := rawSignal(line), rawSignalReference(line); got != want {
			t.Errorf("rawSignal(%q) = %d, want %d", line, got, want)
		}
	}
}
