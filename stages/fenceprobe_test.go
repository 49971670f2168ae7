package stages

import (
	"strings"
	"testing"
)

// hasOpenerLineReference is hasOpenerLine as first written: each line's
// start tested by a switch.
func hasOpenerLineReference(text string) bool {
	for start := 0; start < len(text); {
		switch line := text[start:]; line[0] {
		case '`', '~', '#':
			return true
		case '<':
			if strings.HasPrefix(line, "<source") || strings.HasPrefix(line, "<<<<<<< ") {
				return true
			}
		case '*':
			if strings.HasPrefix(line, "*** Begin Patch") {
				return true
			}
		case 'd':
			if strings.HasPrefix(line, "diff --git ") {
				return true
			}
		}
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			return false
		}
		start += end + 1
	}
	return false
}

// checkOpenerLine fails t when hasOpenerLine answers otherwise than the
// reference, on text and on each of its suffixes that starts a line.
func checkOpenerLine(t *testing.T, text string) {
	t.Helper()
	for start := 0; start <= len(text); {
		s := text[start:]
		if got, want := hasOpenerLine(s), hasOpenerLineReference(s); got != want {
			t.Fatalf("hasOpenerLine(%.80q...) = %v, want %v", s, got, want)
		}
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			break
		}
		start += i + 1
	}
}

// TestHasOpenerLineClasses compares hasOpenerLine with the reference on
// texts of every class, where a fenced or patch line may open anywhere.
func TestHasOpenerLineClasses(t *testing.T) {
	for _, s := range []string{"", "d", "diff --git", "diff --git a", "<source", "<<<<<<<", "<<<<<<< x", "*** Begin Patc", "*** Begin Patch", "x\n#", "x\n\n`"} {
		checkOpenerLine(t, s)
	}
	for _, s := range classTexts(5) {
		if len(s) < 20000 {
			checkOpenerLine(t, s)
		}
	}
}

func FuzzHasOpenerLine(f *testing.F) {
	for _, s := range classTexts(6)[:40] {
		f.Add(s)
	}
	f.Add("a\n<<<<<<< b\n")
	f.Fuzz(checkOpenerLine)
}

// TestDoubleBlankAtClasses compares doubleBlankAt with strings.Index on
// texts of every class, from every line start.
func TestDoubleBlankAtClasses(t *testing.T) {
	for _, s := range classTexts(7) {
		for from := 0; from <= len(s); {
			if got, want := doubleBlankAt(s, from), doubleBlankAtPlain(s, from); got != want {
				t.Fatalf("doubleBlankAt(%.60q..., %d) = %d, want %d", s, from, got, want)
			}
			i := strings.IndexByte(s[from:], '\n')
			if i < 0 {
				break
			}
			from += i + 1
		}
	}
}
